"""A perturbation kind from a user's replacement dictionary, registered in one call.

::

    import pytest_fairness as pf

    pf.perturb.register_dictionary(
        "religion",
        {"Christian": ["Muslim", "Jewish", "Hindu"], "church": ["mosque", "synagogue", "temple"]},
    )
    pf.perturb.register_dictionary("faith_swap", [("Christian", "Muslim"), ("church", "mosque")],
                                   attribute="religion")

after which ``"religion"`` (or ``"faith_swap"``) is accepted wherever a kind is:
``fst.mutations(corpus, "religion")``, ``pf.smooth(model, attribute="religion", eps=...)``,
``pf.assert_eps_k_fair(model, text, eps=..., k=..., attribute="religion")``. This is the
counterfactual input generation of counterfactual-sentiment-bias (section 3: every
occurrence of a sensitive token replaced by the corresponding token of another group),
with your own word lists. No parse is needed: it is a regular-expression scan.

Semantics, precisely:

- **Words.** A dictionary word is a word or a phrase ("Catholic church"); surrounding
  spaces are dropped and inner runs of whitespace match any run of whitespace. It must
  contain a letter or a digit.
- **Where it matches.** Case-insensitively, as a whole word, never inside another word:
  the characters right before and after a match are not word characters (Unicode
  letters, digits, ``_``, combining marks, variation selectors, zero-width joiners), so
  ``church`` is not found in ``churches``, ``Churchill``, ``églisechurch``,
  ``church\\u0301`` or ``x\\u200dchurch``; invisible format characters (a soft hyphen)
  between a match and a letter do not separate them either (UAX #29, WB4). An apostrophe
  (straight or curly) joins words ("O'Brien", "don't", "l'église": write an elided form
  as its own entry, ``{"l'église": ["la mosquée"]}``), except that a possessive or clitic
  after a match leaves it whole and stays: ``Christian's`` -> ``Muslim's``, also ``'d``,
  ``'ll``, ``'m``, ``'re``, ``'ve``, and a bare ``'`` as in ``Christians'``. Hyphens and
  other punctuation separate words (``church-goer`` -> ``mosque-goer``). In a script
  written without spaces (Chinese, Japanese, Thai) a word is therefore found only where
  it stands apart. At one position the longest dictionary word wins, and matches do not
  overlap ("Catholic church" is one match, not also "church").
- **Case.** A match written exactly as its dictionary word is replaced by the replacement
  as written; otherwise the match's casing carries over (`casing_of`): UPPER (two or more
  cased letters, all upper) upper-cases the replacement, Title capitalises its first
  letter, anything else lower-cases it. ("church" -> "mosque": "Church" -> "Mosque",
  "CHURCH" -> "MOSQUE"; "Christian" -> "Muslim": "christian" -> "muslim".)
- **A mapping** ``{word: [alternatives]}`` (a list even for one alternative: a bare
  string such as ``{"church": "mosque"}`` raises `ConfigurationError`, since it reads
  as one alternative or as a list of letters alike) gives, for each dictionary word
  found in the text (in dictionary order) and each of its alternatives (in order), one
  perturbation in which *every* occurrence of that word is replaced by that alternative;
  ``from_group`` is the word, ``to_group`` the alternative, as written in the dictionary.
  Other dictionary words in the text stay.
- **Word pairs** ``[(a, b), ...]`` are swapped both ways at once, like the gender swap:
  one perturbation per text in which every occurrence of every listed word is replaced
  by its counterpart. ``from_group``/``to_group`` are the word and its counterpart when
  one word was swapped (all its occurrences), None when several were. Swapping twice
  gives the text back when the two words of each pair are written alike (both lower
  case, or both Title case) with two or more cased letters, and every match is written
  as its word, in lower, Title or UPPER case.
- **Records.** ``kind`` is the registered name, ``attribute`` the given attribute
  (default: the name), and ``original_spans``/``perturbed_spans`` hold every replaced
  word in both texts, exactly (a possessive "'s" is outside the span). A perturbation
  identical to its text is never produced.
- **Groups** (``groups={group: {form: word}}``, e.g. ``{"Jewish": {"noun": "Jew",
  "adjective": "Jewish", "plural": "Jews"}, ...}``; a form may list several spellings,
  the first is written): every group gives the same forms. For each group found in the
  text (in dictionary order) and each *other* group, one perturbation in which every word
  of the found group becomes the word of the same form in the other group;
  ``from_group``/``to_group`` are the two group names. A word that is both a group's
  "noun" and "adjective" ("Christian") is told apart by spaCy's parse where the other
  groups write the two differently ("a Christian" -> "a Jew", "a Christian church" -> "a
  Jewish church", "they are Christian" -> "they are Jewish"); only such a dictionary
  parses. A text naming two groups gets each swapped on its own ("a Jew and a Muslim"
  -> "a Muslim and a Muslim" is one of them).
- **Articles and sentence starts.** An indefinite article before a replaced word follows
  it when it agreed with the old word ("a Christian" -> "an atheist", "An atheist" -> "A
  Christian"; a wrong "an church" is left as it is). A capitalised word that starts a
  sentence gives a capitalised replacement ("Jehovah's Witnesses knock." -> "Atheists
  knock.").

Bad input (an empty dictionary, an empty or non-string word, alternatives given as one
string instead of a list, a word mapped to itself,
two words that differ only by case, a word in two pairs or two groups, groups with
different forms, fewer than two groups) raises `ConfigurationError` saying what to fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError
from ..resources.text import is_word_char, joined_after, joined_before
from ..types import Perturbation
from ..validation import check_bool
from ._edit import Edit, apply_casing, apply_edits, casing_of, indefinite_article
from ._persons import resolve_nlp
from .kinds import KIND_REGISTRY, PerturbationKind, check_name

__all__ = ["DictionaryKind", "Entries", "GroupEntries", "register_dictionary"]

#: What a dictionary is written as: word -> list of alternatives, or pairs.
Entries = Mapping[str, Sequence[str]] | Sequence[tuple[str, str] | Sequence[str]]
#: What a group dictionary is written as: group -> {form: word, or its spellings}.
GroupEntries = Mapping[str, Mapping[str, Sequence[str] | str]]

_APOSTROPHES = "'\u2019"
#: What may follow a word and an apostrophe and still leave the word whole.
_CLITICS = frozenset({"s", "d", "ll", "m", "re", "ve"})
_SPACE = re.compile(r"\s+")


def _wordish(char: str) -> bool:
    """A character that continues a word: a letter, digit, ``_``, or a character of the
    grapheme cluster before it (combining mark, variation selector, zero-width joiner or
    non-joiner: `pytest_fairness.resources.text.is_word_char`)."""
    return is_word_char(char)


def _normal(word: str) -> str:
    return _SPACE.sub(" ", word.strip())


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    word: int  # index into the dictionary's words


class DictionaryKind(PerturbationKind):
    """A replacement dictionary as a perturbation kind (semantics: module docstring).

    `entries` is a mapping word -> alternatives, or a sequence of word pairs swapped both
    ways; or, instead, `groups` maps each group to its forms (group to group swaps).
    `attribute` defaults to `name`. Needs no parse, except a group dictionary with a word
    that is both the noun and the adjective of its group (`needs_parse`).
    """

    def __init__(
        self,
        name: str,
        entries: Entries | None = None,
        *,
        groups: GroupEntries | None = None,
        attribute: str | None = None,
    ) -> None:
        super().__init__(name, attribute)
        if (entries is None) == (groups is None):
            raise ConfigurationError(
                f"the dictionary {name!r} needs either entries (word -> alternatives, or "
                "word pairs) or groups= (group -> {form: word}), "
                + ("not both" if groups is not None else "and got neither")
            )
        self.pairs: bool = groups is None and not isinstance(entries, Mapping)
        """True for word pairs (one swap per text), False for a mapping or groups."""
        self.groups: dict[str, dict[str, tuple[str, ...]]] | None = None
        """With groups=: each group's forms (form -> its words, the first one written in
        replacements); else None."""
        self._forms: list[tuple[str, tuple[str, ...]]] = []
        if groups is not None:
            self.groups, table, self._forms, self.needs_parse = _groups(groups)
        elif self.pairs:
            table = _pairs(entries)
        else:
            table = _mapping(entries)  # type: ignore[arg-type]
        self.entries: dict[str, tuple[str, ...]] = table
        """Each dictionary word and its replacements (for pairs: both directions; for
        groups: the words of the same form in the other groups)."""
        self._words = list(table)
        pattern = _compile(self._words, range(len(self._words)))
        assert pattern is not None  # the table is never empty
        self._pattern = pattern
        self._shorter: dict[int, re.Pattern[str] | None] = {}

    @property
    def description(self) -> str:
        if self.groups is not None:
            return (f"the group dictionary {self.name!r} ({len(self.groups)} groups: "
                    f"{', '.join(self.groups)})")
        shape = "word pairs" if self.pairs else "replacement dictionary"
        return f"the {shape} {self.name!r} ({len(self._words)} words)"

    @property
    def hint(self) -> str:
        shown = ", ".join(repr(w) for w in self._words[:6])
        more = f" and {len(self._words) - 6} more" if len(self._words) > 6 else ""
        return (
            f"{self.description} replaces whole words ({shown}{more}): use texts with one "
            "of them"
        )

    def perturb(self, text: str, doc: Any = None) -> list[Perturbation]:
        """The perturbations of `text` (module docstring: a mapping gives one per found
        word and alternative, pairs one swap); none when no dictionary word is in it."""
        if not isinstance(text, str):
            raise ConfigurationError(f"expected a text, got {type(text).__name__} {text!r:.60}")
        matches = self.matches(text)
        if not matches:
            return []
        if self.groups is not None:
            return self._swap_groups(text, matches, doc)
        if self.pairs:
            edits = self._edits(
                text, [(m, self.entries[self._words[m.word]][0]) for m in matches]
            )
            swapped = {m.word for m in matches}
            word = self._words[next(iter(swapped))]
            single = len(swapped) == 1
            return [
                apply_edits(
                    text, edits, kind=self.name, attribute=self.attribute,
                    from_group=word if single else None,
                    to_group=self.entries[word][0] if single else None,
                )
            ]
        found: list[Perturbation] = []
        by_word: dict[int, list[_Match]] = {}
        for m in matches:
            by_word.setdefault(m.word, []).append(m)
        for index in sorted(by_word):
            word = self._words[index]
            for alternative in self.entries[word]:
                edits = self._edits(text, [(m, alternative) for m in by_word[index]])
                found.append(
                    apply_edits(
                        text, edits, kind=self.name, attribute=self.attribute,
                        from_group=word, to_group=alternative,
                    )
                )
        return found

    def matches(self, text: str) -> list[_Match]:
        """Every whole-word occurrence of a dictionary word in `text`, in text order; at
        one position the longest word wins, and occurrences do not overlap."""
        found: list[_Match] = []
        pos = 0
        while (m := self._pattern.search(text, pos)) is not None:
            start, end, index = m.start(), m.end(), _word_of(m)
            if not _left_whole(text, start):
                pos = start + 1
                continue
            if not _right_whole(text, end):
                shorter = self._shorter_at(text, start, len(self._words[index]))
                if shorter is None:
                    pos = start + 1
                    continue
                end, index = shorter
            found.append(_Match(start, end, index))
            pos = end
        return found

    def _shorter_at(self, text: str, start: int, length: int) -> tuple[int, int] | None:
        """The longest dictionary word shorter than `length` characters that ends a whole
        word at `start` (the regular expression only knows ``\\w``, not combining marks
        or apostrophes, as word characters)."""
        while True:
            if length not in self._shorter:
                indexes = [i for i, word in enumerate(self._words) if len(word) < length]
                self._shorter[length] = _compile(self._words, indexes)
            pattern = self._shorter[length]
            m = None if pattern is None else pattern.match(text, start)
            if m is None:
                return None
            index = _word_of(m)
            if _right_whole(text, m.end()):
                return m.end(), index
            length = len(self._words[index])

    def _swap_groups(self, text: str, matches: list[_Match], doc: Any) -> list[Perturbation]:
        """Group to group: for each group found (in dictionary order) and each other group,
        one perturbation in which every word of the found group becomes the word of the
        same form in the other group."""
        assert self.groups is not None
        by_group: dict[str, list[_Match]] = {}
        for m in matches:
            by_group.setdefault(self._forms[m.word][0], []).append(m)
        if doc is None and self.needs_parse:
            doc = resolve_nlp(None)(text)
        found: list[Perturbation] = []
        for source in self.groups:
            if source not in by_group:
                continue
            forms = [self._form_at(text, m, doc) for m in by_group[source]]
            for target, target_forms in self.groups.items():
                if target == source:
                    continue
                edits = self._edits(text, [(m, target_forms[form][0])
                                           for m, form in zip(by_group[source], forms,
                                                              strict=True)])
                found.append(apply_edits(text, edits, kind=self.name, attribute=self.attribute,
                                         from_group=source, to_group=target))
        return found

    def _form_at(self, text: str, m: _Match, doc: Any) -> str:
        """The form of the word matched at `m`: its only form, else (a word that is both
        its group's "noun" and "adjective") "adjective" when the parse has it modify a
        noun or stand as a predicate without an article ("a Christian church", "they are
        Christian"), "noun" otherwise ("a Christian", "Christians")."""
        forms = self._forms[m.word][1]
        if len(forms) == 1 or doc is None:
            return forms[0]
        span = doc.char_span(m.start, m.end, alignment_mode="expand")
        if span is None or len(span) == 0:  # pragma: no cover - expand finds a token
            return "noun"
        token = span.root
        articled = any(t.dep_ == "det" for t in token.subtree)
        if token.pos_ == "ADJ" or token.dep_ in ("amod", "compound", "acomp") or (
            token.dep_ == "attr" and not articled
        ):
            return "adjective"
        return "noun"

    def _edits(self, text: str, replacements: Sequence[tuple[_Match, str]]) -> list[Edit]:
        """One edit per (match, replacement), cased like the match, plus the indefinite
        article before a match when it agreed with the old word and does not with the
        new one ("a Christian" -> "an atheist"; "an" in "an church" is left alone)."""
        edits: list[Edit] = []
        for m, replacement in replacements:
            occurrence = text[m.start : m.end]
            new = _cased(replacement, occurrence, self._words[m.word])
            if occurrence[:1].isupper() and _sentence_start(text, m.start):
                new = apply_casing(new, "title")
            edits.append(Edit(m.start, m.end, new))
            article = _ARTICLE.search(text, max(0, m.start - 40), m.start)
            if article is not None and not any(
                e.start < article.end(1) and article.start(1) < e.end for e in edits
            ):
                old_article = article.group(1)
                if (old_article.lower() == indefinite_article(occurrence)
                        and indefinite_article(new) != old_article.lower()):
                    edits.append(Edit(article.start(1), article.end(1),
                                      _cased_article(indefinite_article(new), old_article)))
        return edits

    def __repr__(self) -> str:
        words = len(self._words)
        return f"DictionaryKind({self.name!r}, {words} words, attribute={self.attribute!r})"


#: An indefinite article right before a position: whole word, then only spaces.
_ARTICLE = re.compile(r"(?<![\w'\u2019-])(an?)[ \t]+\Z", re.IGNORECASE)


#: Where a sentence starts: the start of the text, or after ".", "!" or "?" (and closing
#: quotes or brackets) and a space, then opening punctuation.
_SENTENCE_START = re.compile(r"(?:\A|[.!?]['\"\u2019\u201d)\]]*\s+)[\"'(\[\u201c\u2018]*\Z")


def _sentence_start(text: str, start: int) -> bool:
    """Whether `start` begins a sentence of `text` (a replacement there is capitalised:
    "Jehovah's Witnesses knock." -> "Atheists knock.")."""
    return _SENTENCE_START.search(text, max(0, start - 20), start) is not None


def _cased_article(article: str, like: str) -> str:
    """`article` ("a" or "an") written the way `like` is ("A", "AN", "An")."""
    if like.isupper() and len(like) > 1:
        return article.upper()
    if like[:1].isupper():
        return article[:1].upper() + article[1:]
    return article


def _cased(replacement: str, occurrence: str, word: str) -> str:
    """`replacement` written the way `occurrence` of the dictionary `word` is."""
    if _normal(occurrence) == word:
        return replacement
    casing = casing_of(occurrence)
    if casing == "upper":
        return replacement.upper()
    if casing == "title":
        return apply_casing(replacement, "title")
    return replacement.lower()


def _left_whole(text: str, start: int) -> bool:
    """Whether a match starting at `start` starts a word (module docstring); never inside
    a grapheme cluster or after a letter across invisible characters ("x\u200dchurch",
    `pytest_fairness.resources.text.joined_before`)."""
    if joined_before(text, start):
        return False
    if start == 0 or not _wordish(text[start]):
        return True
    before = text[start - 1]
    if _wordish(before):
        return False
    return not (before in _APOSTROPHES and start > 1 and _wordish(text[start - 2]))


def _right_whole(text: str, end: int) -> bool:
    """Whether a match ending at `end` ends a word: no word character after it, and after
    an apostrophe only a possessive or clitic (module docstring); never inside a grapheme
    cluster or before a letter across invisible characters ("church\u00adgoer")."""
    if joined_after(text, end):
        return False
    if end == len(text) or not _wordish(text[end - 1]):
        return True
    after = text[end]
    if _wordish(after):
        return False
    if after not in _APOSTROPHES:
        return True
    tail = end + 1
    while tail < len(text) and _wordish(text[tail]):
        tail += 1
    return tail == end + 1 or text[end + 1 : tail].lower() in _CLITICS


def _compile(words: Sequence[str], indexes: Iterable[int]) -> re.Pattern[str] | None:
    """One case-insensitive pattern for ``words[i]`` of `indexes` (None for none), longest
    first, word i in the group named ``w<i>``, with ``\\w`` boundaries where a word starts
    or ends with a word character."""
    parts = []
    for i in sorted(indexes, key=lambda i: (-len(words[i]), i)):
        word = words[i]
        body = r"\s+".join(re.escape(piece) for piece in word.split(" "))
        left = r"(?<!\w)" if _wordish(word[0]) else ""
        right = r"(?!\w)" if _wordish(word[-1]) else ""
        parts.append(f"(?P<w{i}>{left}{body}{right})")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def _word_of(m: re.Match[str]) -> int:
    """The dictionary index of the word `m` matched (its group ``w<i>``)."""
    assert m.lastgroup is not None
    return int(m.lastgroup[1:])


def _check_word(word: object, where: str) -> str:
    if not isinstance(word, str):
        raise ConfigurationError(
            f"{where}: dictionary words must be strings, got {type(word).__name__} {word!r:.60}"
        )
    normal = _normal(word)
    if not normal:
        raise ConfigurationError(f"{where}: an empty word; remove it or write the word")
    if not any(c.isalnum() for c in normal):
        raise ConfigurationError(
            f"{where}: {word!r} has no letter or digit; dictionary words are words or phrases"
        )
    return normal


def _mapping(entries: Mapping[object, object]) -> dict[str, tuple[str, ...]]:
    if not entries:
        raise ConfigurationError(
            "the replacement dictionary is empty; give at least one word and its "
            'alternatives, e.g. {"church": ["mosque", "temple"]}'
        )
    table: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}
    for key, value in entries.items():
        word = _check_word(key, "a dictionary key")
        folded = word.casefold()
        if folded in seen:
            raise ConfigurationError(
                f"the dictionary words {seen[folded]!r} and {key!r} differ only by case "
                "(or spacing), and words match whatever their case; keep one of them"
            )
        seen[folded] = word
        if isinstance(value, str):
            raise ConfigurationError(
                f"the alternatives of {word!r} must be a list of strings, got the string "
                f"{value!r:.60}; write {{{word!r}: [{value!r:.40}]}} for one alternative "
                "(a string is not read as a list of alternatives, nor one as a list of "
                "letters)"
            )
        if not isinstance(value, Sequence) or isinstance(value, bytes):
            raise ConfigurationError(
                f"the alternatives of {word!r} must be a list of strings, got "
                f"{type(value).__name__} {value!r:.60}"
            )
        if not value:
            raise ConfigurationError(
                f"{word!r} has no alternatives; give at least one, e.g. {{{word!r}: [...]}}"
            )
        alternatives: list[str] = []
        for item in value:
            alternative = _check_word(item, f"an alternative of {word!r}")
            if alternative.casefold() == folded:
                raise ConfigurationError(
                    f"{word!r} is mapped to itself ({item!r}); a perturbation must change the "
                    "text: remove it from the alternatives"
                )
            if alternative.casefold() in (a.casefold() for a in alternatives):
                raise ConfigurationError(
                    f"{word!r} lists the alternative {item!r} twice; keep one"
                )
            alternatives.append(alternative)
        table[word] = tuple(alternatives)
    return table


def _pairs(entries: object) -> dict[str, tuple[str, ...]]:
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise ConfigurationError(
            "a replacement dictionary is a mapping word -> alternatives, e.g. "
            '{"church": ["mosque"]}, or a list of word pairs, e.g. [("church", "mosque")]; '
            f"got {type(entries).__name__} {entries!r:.60}"
        )
    if not entries:
        raise ConfigurationError(
            'the list of word pairs is empty; give at least one pair, e.g. [("he", "she")]'
        )
    table: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}
    for pair in entries:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ConfigurationError(
                f"each word pair must be two words, e.g. ('church', 'mosque'), got {pair!r:.60}"
            )
        a = _check_word(pair[0], f"the pair {tuple(pair)!r}")
        b = _check_word(pair[1], f"the pair {tuple(pair)!r}")
        if a.casefold() == b.casefold():
            raise ConfigurationError(
                f"the pair {tuple(pair)!r} maps a word to itself; a swap must change the text"
            )
        for word in (a, b):
            folded = word.casefold()
            if folded in seen:
                raise ConfigurationError(
                    f"{word!r} is in two pairs (also as {seen[folded]!r}); a word has one "
                    "counterpart (words match whatever their case): keep one pair"
                )
            seen[folded] = word
        table[a] = (b,)
        table[b] = (a,)
    return table


def _groups(
    groups: object,
) -> tuple[dict[str, dict[str, tuple[str, ...]]], dict[str, tuple[str, ...]],
           list[tuple[str, tuple[str, ...]]], bool]:
    """Checked groups: (group -> form -> words, word -> replacements, per word its group
    and forms, whether a parse is needed to tell a noun from an adjective)."""
    if not isinstance(groups, Mapping):
        raise ConfigurationError(
            "groups must be a mapping group -> {form: word}, e.g. {'Christian': {'noun': "
            f"'Christian', 'plural': 'Christians'}}, ...}}; got {type(groups).__name__} "
            f"{groups!r:.60}"
        )
    if len(groups) < 2:
        raise ConfigurationError(
            f"a group dictionary needs at least two groups to swap between, got "
            f"{len(groups)}: {list(groups)!r:.80}"
        )
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    owner: dict[str, tuple[str, str, str]] = {}  # folded word -> (group, form, as written)
    word_forms: dict[str, list[str]] = {}
    for group, forms in groups.items():
        check_name(group, "a group's name")
        if isinstance(forms, str):
            forms = {"word": forms}
        if not isinstance(forms, Mapping) or not forms:
            raise ConfigurationError(
                f"group {group!r}: give its forms as a non-empty mapping form -> word, e.g. "
                f"{{'noun': 'Christian', 'plural': 'Christians'}}; got {forms!r:.60}"
            )
        table[group] = {}
        for form, words in forms.items():
            check_name(form, f"a form name of group {group!r}")
            spellings = [words] if isinstance(words, str) else words
            if not isinstance(spellings, Sequence) or isinstance(spellings, bytes) or not (
                spellings
            ):
                raise ConfigurationError(
                    f"group {group!r}, form {form!r}: give a word or a non-empty list of "
                    f"spellings, got {words!r:.60}"
                )
            checked: list[str] = []
            for item in spellings:
                word = _check_word(item, f"group {group!r}, form {form!r}")
                folded = word.casefold()
                if folded in owner and owner[folded][0] != group:
                    raise ConfigurationError(
                        f"{item!r} is in two groups, {owner[folded][0]!r} (as "
                        f"{owner[folded][2]!r}) and {group!r}: a word must say which group "
                        "it stands for; remove it from one of them"
                    )
                if folded not in owner:
                    owner[folded] = (group, form, word)
                    word_forms[word] = [form]
                elif owner[folded][1] != form or word not in checked:
                    word_forms[owner[folded][2]].append(form)
                checked.append(word)
            table[group][form] = tuple(checked)
    slots = list(next(iter(table.values())))
    for group, forms in table.items():
        missing = [form for form in slots if form not in forms]
        extra = [form for form in forms if form not in slots]
        if missing or extra:
            first = next(iter(table))
            raise ConfigurationError(
                f"group {group!r} has the forms {list(forms)} but group {first!r} has "
                f"{slots}: every group gives the same forms, so that each word has a "
                "counterpart in every other group"
            )
    info: list[tuple[str, tuple[str, ...]]] = []
    replacements: dict[str, tuple[str, ...]] = {}
    needs_parse = False
    for word, forms_of in word_forms.items():
        group = owner[word.casefold()][0]
        unique = tuple(dict.fromkeys(forms_of))
        for target in table:
            written = {table[target][form][0] for form in unique}
            if target != group and len(written) > 1:
                if set(unique) != {"noun", "adjective"}:
                    raise ConfigurationError(
                        f"{word!r} is the {' and the '.join(unique)} form of group "
                        f"{group!r}, but group {target!r} writes those forms differently "
                        f"({', '.join(sorted(written))}), so its replacement is ambiguous; "
                        "only a word that is both the 'noun' and the 'adjective' form is "
                        "told apart (by spaCy's parse). Give the forms distinct words"
                    )
                needs_parse = True
        info.append((group, unique))
        replacements[word] = tuple(dict.fromkeys(
            table[target][form][0] for target in table if target != group for form in unique
        ))
    return table, replacements, info, needs_parse


def register_dictionary(
    name: str,
    entries: Entries | None = None,
    *,
    groups: GroupEntries | None = None,
    attribute: str | None = None,
    replace: bool = False,
) -> DictionaryKind:
    """Register a replacement dictionary as the perturbation kind `name` and return it.

    `entries` is a mapping word -> alternatives (``{"Christian": ["Muslim", "Jewish"]}``:
    one perturbation per found word and alternative) or a list of word pairs
    (``[("Christian", "Muslim")]``: one swap per text, both ways); or, instead of
    `entries`, `groups` maps each group to its forms (``{"Jewish": {"noun": "Jew",
    "adjective": "Jewish", "plural": "Jews"}, ...}``: each group found swapped to every
    other group, one perturbation per target group); see the module docstring for the
    exact semantics. `attribute` (default `name`) labels the
    perturbations. A name already registered raises `ConfigurationError` unless
    `replace=True` (True or False: checked before anything is built).
    """
    check_bool(replace, "replace")
    kind = DictionaryKind(name, entries, groups=groups, attribute=attribute)
    KIND_REGISTRY.register(name, kind, replace=replace)
    return kind
