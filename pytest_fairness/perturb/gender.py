"""Gender counterfactuals: swap the definitional gender words of a sentence.

The counterfactual-fairness baseline CF of accumulated-prediction-sensitivity (section
6.5) compares f(x) with f(x^) where x^ is x with its definitional gender tokens
substituted ("She practices dentistry" -> "He practices dentistry"); the counterfactual
evaluation of counterfactual-sentiment-bias (section 3) replaces *all* occurrences of each
sensitive token of one group with the corresponding token of another. `gender_swap` builds
that x^: every gendered word of the sentence is swapped, consistently, in one
`Perturbation`.

What is swapped (the word lists are `pytest_fairness/data/gender_words.json` and
`pronouns.json`, written for this project):

- Pronouns, with the role read from spaCy's parse and checked by rules of grammar
  (`pronoun_role`, shared with PSA's anchors), so the result stays grammatical:
  he <-> she, him -> her, himself <-> herself; "her" -> "his" when it determines a noun
  phrase that follows ("her book", "her very old dog" -> "his ...") and "him" otherwise
  ("I saw her", and the subject of a bare infinitive or small clause: "I made her feel
  sad", "They watched her dance" -> "him"); "his" -> "her" as a determiner ("his book")
  and "hers" otherwise ("That car is his, not hers" -> "That car is hers, not his";
  "His is red" -> "Hers is red"); "hers" -> "his".
- Gendered nouns, adjectives and titles in both directions (about 540 words: people,
  family and address, nobility and religion, -ess and -man/-woman professions,
  nationality compounds; `gendered_words`), singular and plural listed separately so
  number is kept (man/woman, men/women, councilman/councilwoman, guy/gal, ...). A
  possessive follows a plural whose ending changes ("the gentlemen's" -> "the
  ladies'"); possessives and hyphenated compounds ("ex-boyfriend", "father-in-law")
  need no entry of their own. "Mrs." and "Miss" become "Mr."; "Mr." becomes "Ms.".
  Titles are only swapped before a proper noun ("Mr. Smith"), since "miss" and "ms" are
  also ordinary words; before a name "Sir" <-> "Dame" and "Lord" <-> "Lady" (elsewhere
  "sir" <-> "madam", and "lord" stays: "praise the Lord"). An indefinite article in
  front of a swapped noun is fixed when the new word needs the other one ("an emperor"
  -> "a monarch"). Debatable words are documented choices (the "about" of
  ``gender_words.json``): generic words with a male etymology never change (mankind,
  manpower, human, history, freshman, "man-made"); words whose gendered sense is not the
  main one are left out (host, master, bachelor, governor; "hostess" -> "host" only);
  "hero" <-> "heroine" and "guy" <-> "gal" are swapped.
- First names, only with ``swap_names``: every name of the packaged lists, paired by
  frequency rank within its race/ethnicity or country group, else overall (James <->
  Mary; `pytest_fairness.perturb.name_pairs`), or your own mapping. A name is matched by
  its text whatever the entity recogniser says; never right after a title or another
  proper noun (in "Mr. James" and "Mary James" the name is a surname).
- Case is kept (he -> she, He -> She, HE -> SHE).

Targets (`TARGETS`): "opposite" (female <-> male), "neutral" (singular they, and
neutral nouns such as person, parent, spouse, monarch, Mx.), and the neopronouns "xe"
(xe/xem/xyr/xyrs/xemself) and "ze" (ze/zir/zir/zirs/zirself) with the same neutral
nouns. Neopronouns take the singular verb ("xe is", "ze walks", "xe's"), as their usage
guides write them, so the verbs stay as they are. For "neutral", the verb of a subject
pronoun is made to agree from the parse: he is -> they are, she was -> they were, he walks
-> they walk, has -> have, does -> do, he's -> they're / they've; verbs coordinated with
it follow ("he walks and talks" -> "they walk and talk"). When agreement cannot be made
safely (a subject pronoun in a coordination or with a relative clause, a parse whose
subject is not attached to a verb, a verb form that cannot be lemmatised) or a gendered
word has no common neutral counterpart (uncle, prince, sir), the sentence is skipped
(for "xe" and "ze" too):
`gender_swap` returns None rather than a broken sentence.

Every Perturbation has kind "gender_swap" (also when only pronouns changed: one kind for
one relation; `from_words`/`to_words` say what changed), attribute "gender", one span per
changed word (verbs and articles included), `from_group` "female" or "male" when all the
swapped gendered words have that gender (None for a sentence with both), and `to_group`
the opposite gender, or the target ("neutral", "xe", "ze").

`GenderSwapKind` is the swap as a perturbation kind, registered as "gender_swap"
(`pytest_fairness.perturb.kinds`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Literal

from ..errors import ConfigurationError
from ..resources.nlp import parse, parse_many
from ..resources.pronoun_roles import pronoun_role as _pronoun_role
from ..resources.text import joined
from ..types import Perturbation, PronounRole
from ..validation import check_int, check_text, check_texts
from ._edit import Edit, apply_casing, apply_edits, casing_of, indefinite_article
from .kinds import PerturbationKind
from .name_pairs import default_name_pairs
from .name_pairs import is_first_name_token as _is_first_name_token
from .name_pairs import name_pairs as _name_pairs
from .name_pairs import phrase_at as _phrase_at

__all__ = [
    "GENDER_NAMES",
    "TARGETS",
    "GenderSwapKind",
    "Target",
    "default_name_pairs",
    "gender_of_word",
    "gender_swap",
    "gender_swaps",
    "gendered_words",
    "has_gendered_word",
    "pronoun_role",
    "swap_doc",
]

Target = Literal["opposite", "neutral", "xe", "ze"]
#: The targets `gender_swap` accepts: the opposite gender, singular "they", and the
#: neopronouns xe/xem/xyr/xyrs/xemself and ze/zir/zir/zirs/zirself.
TARGETS: tuple[str, ...] = ("opposite", "neutral", "xe", "ze")
_GENDERS = ("male", "female")
_OPPOSITE = {"male": "female", "female": "male"}
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_HONORIFICS = frozenset(
    {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "mx", "mx.", "dr", "dr.", "prof",
     "prof.", "sir", "madam", "lady", "lord", "dame", "mister"}
)


@dataclass(frozen=True)
class _Tables:
    pronouns: dict[str, dict[str, str]]
    pronoun_gender: dict[str, str]
    agreement: dict[str, str]
    word_gender: dict[str, str]
    to_gender: dict[str, dict[str, str]]
    to_neutral: dict[str, str | None]
    titles: frozenset[str]
    plural_verb_targets: frozenset[str]
    before_names: dict[str, tuple[str, str]]
    never_swapped: tuple[str, ...]


def _read_json(name: str) -> Any:
    path = resources.files("pytest_fairness").joinpath("data", name)
    return json.loads(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def _tables() -> _Tables:
    pron = _read_json("pronouns.json")
    words = _read_json("gender_words.json")
    pronouns: dict[str, dict[str, str]] = pron["pronouns"]
    pronoun_gender = {
        word: gender for gender in _GENDERS for word in pronouns[gender].values()
    }
    to_gender: dict[str, dict[str, str]] = {"male": {}, "female": {}}
    to_neutral: dict[str, str | None] = {}
    word_gender: dict[str, str] = {}
    for male, female, neutral in words["pairs"]:
        to_gender["female"][male] = female
        to_gender["male"][female] = male
        word_gender[male] = "male"
        word_gender[female] = "female"
        to_neutral[male] = neutral
        to_neutral[female] = neutral
    for female, male, neutral in words["to_male_only"]:
        to_gender["male"][female] = male
        word_gender[female] = "female"
        to_neutral[female] = neutral
    for male, female, neutral in words["to_female_only"]:
        to_gender["female"][male] = female
        word_gender[male] = "male"
        to_neutral[male] = neutral
    return _Tables(
        pronouns=pronouns,
        pronoun_gender=pronoun_gender,
        agreement=dict(pron["plural_agreement"]),
        word_gender=word_gender,
        to_gender=to_gender,
        to_neutral=to_neutral,
        titles=frozenset(words["title_words"]),
        plural_verb_targets=frozenset(pron["plural_verb_targets"]),
        before_names={w: (g, other) for w, (g, other) in words["before_names"].items()},
        never_swapped=tuple(words["never_swapped"]),
    )


def gendered_words() -> frozenset[str]:
    """Every definitional gendered word the swaps know, lower case: pronouns and words.

    Useful as the gendered-word list of accumulated-prediction-sensitivity (P4/P5, section
    6.4.1), which weights the input positions holding such words.
    """
    tables = _tables()
    return frozenset(tables.pronoun_gender) | frozenset(tables.word_gender)


@functools.lru_cache(maxsize=1)
def _gendered_hashes() -> frozenset[int]:
    import importlib

    hash_string: Any = importlib.import_module("spacy.strings").hash_string
    words = gendered_words() | frozenset(_tables().before_names)
    return frozenset(int(hash_string(w)) for w in words)


def has_gendered_word(doc: Any) -> bool:
    """Whether the spaCy `doc` holds a word of `gendered_words` (any case), the words a
    swap without names can change. Read from the token array (``doc.to_array``): most
    sentences have none, and walking a Doc token by token costs more than this test."""
    from spacy.attrs import LOWER

    if len(doc) == 0:
        return False
    return not _gendered_hashes().isdisjoint(doc.to_array(LOWER).tolist())


def gender_of_word(word: str) -> str | None:
    """"male" or "female" for a gendered pronoun or word (any case), else None."""
    tables = _tables()
    low = word.lower()
    return tables.pronoun_gender.get(low) or tables.word_gender.get(low)


def pronoun_role(token: Any) -> PronounRole | None:
    """The role of a gendered third-person pronoun token (spaCy `Token`), or None.

    `pytest_fairness.resources.pronoun_roles.pronoun_role`, the one role function PSA's
    anchors use too: "her" is a possessive determiner only when it determines a noun
    phrase that follows ("her book", "her very old dog"), else an object ("I saw her",
    "I made her feel sad", "They watched her dance"); "his" is a determiner likewise
    ("his book"), else a possessive pronoun ("the car is his, not hers", "His is red").
    """
    return _pronoun_role(token)


def _resolve_nlp(nlp: Any) -> Any:
    if nlp is None or isinstance(nlp, str):
        from ..resources import nlp as nlp_module

        return nlp_module.load(nlp)
    return nlp


def _span_edit(token: Any, new: str) -> Edit:
    return Edit(token.idx, token.idx + len(token.text), apply_casing(new, casing_of(token.text)))


def _title_applies(token: Any, titles: frozenset[str]) -> bool:
    """A title word counts only before a proper noun, or before "and" + another title."""
    doc = token.doc
    if token.i + 1 >= len(doc):
        return False
    nxt = doc[token.i + 1]
    if nxt.pos_ == "PROPN" or nxt.tag_ in ("NNP", "NNPS"):
        return True
    if nxt.lower_ in ("and", "&") and token.i + 2 < len(doc):
        return doc[token.i + 2].text.lower() in titles
    return False


def _possessive_marker(token: Any, new_word: str) -> Edit | None:
    """The edit that fixes the possessive after a plural whose ending changed:
    "gentlemen's" -> "ladies'", "ladies'" -> "gentlemen's", "boys'" -> "children's"."""
    doc = token.doc
    if token.i + 1 >= len(doc) or doc[token.i + 1].idx != token.idx + len(token.text):
        return None
    marker = doc[token.i + 1]
    apostrophe = marker.text[:1]
    if apostrophe not in ("'", "\u2019"):
        return None
    ends_in_s = new_word.lower().endswith("s")
    if marker.text == apostrophe and not ends_in_s:
        new = apostrophe + ("S" if casing_of(token.text) == "upper" else "s")
    elif marker.text.lower() == apostrophe + "s" and ends_in_s and (
        token.tag_ in ("NNS", "NNPS") or token.lower_.endswith(("men", "ren", "people"))
    ):
        new = apostrophe
    else:
        return None
    return Edit(marker.idx, marker.idx + len(marker.text), new)


def _in_idiom(text: str, start: int, idioms: tuple[str, ...]) -> bool:
    """Whether an idiom of `idioms` ("man-made") starts at `start` of `text`, whole."""
    rest = text[start : start + 24].lower()
    for idiom in idioms:
        if rest.startswith(idiom):
            after = rest[len(idiom) : len(idiom) + 1]
            if not after or not (after.isalnum() or after == "-"):
                return True
    return False


def _contracted_s(verb: Any, head: Any) -> str | None:
    """Whether a contracted 's of a subject pronoun is "is" or "has", from the parse.

    "he's going", "he's tall" -> is; "he's been", "he's got" -> has; "he's seen it" /
    "he's gone" (has or is + participle) -> None, undecidable.
    """
    if verb.i == head.i:
        participle = any(c.tag_ == "VBN" for c in head.children if c.dep_ in ("acomp", "xcomp"))
        return None if participle else "be"
    if head.tag_ == "VBN":
        return "have" if head.lower_ in ("been", "got", "gotten") else None
    return "be"


def _plural_verb(verb: Any, agreement: Mapping[str, str], head: Any) -> str | None:
    """The form of a finite verb that agrees with "they"; None when it cannot be made."""
    low: str = verb.text.lower()
    if verb.tag_ == "VBZ":
        if low in agreement:
            return agreement[low]
        if low in ("'s", "\u2019s"):
            reading = _contracted_s(verb, head)
            return None if reading is None else agreement.get(f"{low} {reading}")
        lemma: str = verb.lemma_.lower()
        if not lemma.isalpha() or lemma == low or not low.isalpha():
            return None
        return lemma
    if low == "was":
        return agreement["was"]
    return low


def _agreement_edits(pronoun: Any, agreement: Mapping[str, str]) -> list[Edit] | None:
    """Verb edits that make the clause of a subject pronoun agree with singular "they"."""
    if any(c.dep_ in ("conj", "cc", "relcl", "acl") for c in pronoun.children):
        return None
    if pronoun.dep_ == "conj":
        return None
    if pronoun.dep_ not in _SUBJECT_DEPS:
        return []  # "It was he", a fragment: no verb agrees with it
    head = pronoun.head
    if head.pos_ not in ("VERB", "AUX"):
        return None
    if any(c.dep_ == "conj" and c.tag_ in ("NNS", "NNPS") for c in head.children):
        return None  # "he walks and talks" with "talks" read as a noun: unsafe
    edits: list[Edit] = []
    clauses = [head] + [
        c for c in head.conjuncts
        if c.i > head.i and c.pos_ in ("VERB", "AUX")
        and not any(g.dep_ in _SUBJECT_DEPS | {"expl"} for g in c.children)
    ]
    for verb in clauses:
        chain = sorted(
            [c for c in verb.children if c.dep_ in ("aux", "auxpass")] + [verb],
            key=lambda t: t.i,
        )
        finite = next((t for t in chain if t.tag_ in ("VBZ", "VBD", "VBP", "MD")), None)
        if finite is None:
            continue
        new = _plural_verb(finite, agreement, verb)
        if new is None:
            return None
        if new != finite.text.lower():
            edits.append(_span_edit(finite, new))
    return edits


def swap_doc(
    doc: Any,
    target: Target = "opposite",
    *,
    swap_names: bool | Mapping[str, str] = False,
) -> Perturbation | None:
    """`gender_swap` of an already parsed spaCy `Doc` (see the module docstring)."""
    _check_target(target)
    return _swap(doc, target, _name_pairs(swap_names) if target == "opposite" else {})


def _swap_kind(doc: Any, pairs: Mapping[str, tuple[str | None, str]], kind: str
               ) -> Perturbation | None:
    """`_swap` to the opposite gender, its perturbation labelled with the kind `kind`."""
    swapped = _swap(doc, "opposite", pairs)
    if swapped is None or swapped.kind == kind:
        return swapped
    return replace(swapped, kind=kind)


def _check_target(target: str) -> None:
    if not isinstance(target, str) or target not in TARGETS:
        raise ConfigurationError(
            f"unknown gender swap target {target!r}; choose one of "
            + ", ".join(repr(t) for t in TARGETS)
            + " ('opposite': female <-> male; 'neutral': singular they; 'xe', 'ze': "
            "neopronouns)"
        )


def _parse_disabled(pipeline: Any, swap_names: bool) -> list[str]:
    """The components a swap does not read: the entity recogniser, unless names are
    swapped (first names are found through the PERSON entities)."""
    from ..resources.nlp import disabled

    return [] if swap_names else disabled(pipeline)


def _swap(
    doc: Any, target: Target, pairs: Mapping[str, tuple[str | None, str]]
) -> Perturbation | None:
    if not pairs and not has_gendered_word(doc):
        return None  # nothing to swap: skip the walk over the tokens
    tables = _tables()
    edits: dict[int, Edit] = {}
    sources: set[str] = set()
    text: str = doc.text
    skip_to = 0  # tokens inside a name of several words already swapped
    for token in doc:
        if token.i < skip_to:
            continue
        low = token.text.lower()
        if (low in tables.pronoun_gender or low in tables.word_gender or pairs) and joined(
            text, token.idx, token.idx + len(token.text)
        ):
            continue  # a token cut from its grapheme cluster is not the word it spells
        role = pronoun_role(token) if low in tables.pronoun_gender else None
        if role is not None:
            gender = tables.pronoun_gender[low]
            new_gender = _OPPOSITE[gender] if target == "opposite" else target
            edits[token.idx] = _span_edit(token, tables.pronouns[new_gender][role])
            sources.add(gender)
            if target in tables.plural_verb_targets and role == "subject":
                verb_edits = _agreement_edits(token, tables.agreement)
                if verb_edits is None:
                    return None
                for edit in verb_edits:
                    edits[edit.start] = edit
            continue
        if low in tables.before_names and _title_applies(token, tables.titles):
            gender, other = tables.before_names[low]
            if target != "opposite":
                return None  # no neutral form of Sir, Dame, Lord, Lady before a name
            edits[token.idx] = _span_edit(token, other)
            sources.add(gender)
            continue
        if low in tables.word_gender:
            if low in tables.titles and not _title_applies(token, tables.titles):
                continue
            if _in_idiom(text, token.idx, tables.never_swapped):
                continue  # "man-made", "man-hours": no man in them
            gender = tables.word_gender[low]
            new_word = (
                tables.to_gender[_OPPOSITE[gender]].get(low)
                if target == "opposite"
                else tables.to_neutral.get(low)
            )
            if new_word is None:
                if target != "opposite":
                    return None  # no neutral counterpart: skip rather than half-neutralise
                continue
            if new_word == low:
                continue  # already neutral ("actor" for the neutral target)
            edits[token.idx] = _span_edit(token, new_word)
            sources.add(gender)
            marker = _possessive_marker(token, new_word)
            if marker is not None:
                edits[marker.start] = marker
            if token.i > 0:
                article = doc[token.i - 1]
                if article.lower_ in ("a", "an") and article.tag_ == "DT":
                    wanted = indefinite_article(new_word)
                    if wanted != article.lower_:
                        edits[article.idx] = _span_edit(article, wanted)
            continue
        if pairs and _is_first_name_token(token):
            found = _phrase_at(doc, token.i, pairs)  # "José Antonio": the name whole
            key = token.text if casing_of(token.text) != "upper" else token.text.title()
            if found is not None:
                key, size = found
                last = doc[token.i + size - 1]
                end = last.idx + len(last.text)
                edits[token.idx] = Edit(token.idx, end, pairs[key][1])
                skip_to = token.i + size
            elif key not in pairs:
                continue
            else:
                edits[token.idx] = _span_edit(token, pairs[key][1])
            gender_or_none = pairs[key][0]
            if gender_or_none is not None:
                sources.add(gender_or_none)
    if not edits:
        return None
    from_group = next(iter(sources)) if len(sources) == 1 else None
    if target != "opposite":
        to_group: str | None = target
    else:
        to_group = _OPPOSITE[from_group] if from_group is not None else None
    return apply_edits(
        doc.text,
        list(edits.values()),
        kind="gender_swap",
        attribute="gender",
        from_group=from_group,
        to_group=to_group,
    )


def gender_swap(
    text: str,
    target: Target = "opposite",
    nlp: Any = None,
    *,
    swap_names: bool | Mapping[str, str] = False,
) -> Perturbation | None:
    """`text` with every definitional gender word swapped to `target`, or None.

    `target` is one of `TARGETS` ("opposite", "neutral", "xe", "ze"; any other value
    raises `ConfigurationError` listing them). None when the text has no gendered word,
    or when `target` is not "opposite" and the sentence cannot be neutralised without
    breaking its grammar (see the module docstring). `nlp` is a spaCy `Language`, a
    pipeline name, or None for the default English pipeline
    (`pytest_fairness.resources.nlp.load`). `swap_names=True` also swaps first names
    (James <-> Mary, by Census rank); a mapping name -> name gives your own pairs
    (used both ways). Names are only changed for the "opposite" target.

    A `text` that is not a str (None, bytes), or that spaCy cannot parse (a lone
    surrogate, more characters than the pipeline's max_length:
    `pytest_fairness.resources.nlp.unparsable`), raises `ConfigurationError` saying why
    and what to do. A word cut from its grapheme cluster is never swapped ("she\u0301"
    is not "she"; `pytest_fairness.resources.text.joined`).
    """
    check_text(text, "text")
    _check_target(target)
    pairs = _name_pairs(swap_names) if target == "opposite" else {}
    pipeline = _resolve_nlp(nlp)
    doc = parse(pipeline, text, disable=_parse_disabled(pipeline, bool(pairs)))
    return _swap(doc, target, pairs)


def gender_swaps(
    texts: Iterable[str],
    target: Target = "opposite",
    nlp: Any = None,
    *,
    swap_names: bool | Mapping[str, str] = False,
    batch_size: int = 256,
) -> list[Perturbation | None]:
    """`gender_swap` of many texts, parsed in batches with ``nlp.pipe``; one item per text.

    The entity recogniser is left out of the parse unless names are swapped (only first
    names are read from entities), and a sentence without a gendered word is answered
    None without walking its tokens (`has_gendered_word`). Every text is checked before
    any is parsed: one that is not a str, or that spaCy cannot parse, raises
    `ConfigurationError` naming it (``texts[i]``) and the fix.
    """
    _check_target(target)
    check_int(batch_size, "batch_size", minimum=1)
    items = check_texts(texts)
    pairs = _name_pairs(swap_names) if target == "opposite" else {}
    pipeline = _resolve_nlp(nlp)
    docs = parse_many(
        pipeline, items, batch_size=batch_size, disable=_parse_disabled(pipeline, bool(pairs))
    )
    return [_swap(doc, target, pairs) for doc in docs if doc is not None]


class GenderSwapKind(PerturbationKind):
    """The definitional gender swap as a perturbation kind (built in as "gender_swap").

    One counterfactual per text: every definitional gender word swapped to the opposite
    gender at once (`swap_doc`), the x^ of the CF baseline (accumulated-prediction-
    sensitivity, section 6.5). Texts are parsed in batches without the entity recogniser.

    With ``swap_names=True`` (built in as "gender_names", kind `GENDER_NAMES`), first
    names are swapped too, in the same pass and by the same rules as
    ``gender_swap(text, swap_names=True)``: "Emily said she is applying." -> "Stanley said
    he is applying." Each first name of the packaged lists has one counterpart of the
    other gender (`pytest_fairness.perturb.name_pairs.default_name_pairs`: paired by
    frequency rank within its race/ethnicity or country group, else overall; fixed, so
    every run and every mention of a name gets the same one), or pass your own mapping
    name -> name (used both ways). Its perturbations have kind "gender_names", and spans
    for every changed pronoun, word and name. The parse keeps the entity recogniser (a
    month or number is not a name: "in June").
    """

    needs_parse = True

    def __init__(self, name: str = "gender_swap", *,
                 swap_names: bool | Mapping[str, str] = False) -> None:
        super().__init__(name, "gender")
        if swap_names is not True:  # a mapping is checked now; the default table is
            _name_pairs(swap_names)  # built on first use (seconds), not at registration
        self._swap_names = swap_names
        self._table: dict[str, tuple[str | None, str]] | None = None
        self.needs_entities = swap_names is True or bool(swap_names)
        self._kind = name if self.needs_entities else "gender_swap"

    @property
    def _pairs(self) -> Mapping[str, tuple[str | None, str]]:
        if self._table is None:
            self._table = _name_pairs(self._swap_names)
        return self._table

    @property
    def description(self) -> str:
        if self.needs_entities:
            return "the gender swap with first names (perturb.gender_swap, swap_names=True)"
        return "the gender swap (perturb.gender_swap)"

    @property
    def hint(self) -> str:
        names = ", first names" if self.needs_entities else ""
        return (
            f"the gender swap changes definitional gender words (pronouns, gendered nouns, "
            f"titles{names}): use texts that mention a gendered person"
        )

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        """The swap of `doc` (the parse of `text`), or nothing without a gendered word
        (or, with names, a first name of the table)."""
        swapped = _swap_kind(doc, self._pairs, self._kind)
        return [] if swapped is None else [swapped]


#: The name of the built-in kind that swaps first names with the gender words.
GENDER_NAMES = "gender_names"
