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

- Pronouns, with the role read from spaCy's parse, so the result stays grammatical:
  he <-> she, him -> her, himself <-> herself; "her" -> "his" when it is a possessive
  determiner (tag PRP$: "her book" -> "his book") and "him" otherwise ("I saw her" ->
  "I saw him"); "his" -> "her" as a determiner ("his book") and "hers" as a pronoun
  ("the book is his" -> "the book is hers"); "hers" -> "his".
- Gendered nouns, adjectives and titles in both directions, singular and plural listed
  separately so number is kept (man/woman, men/women, actor/actress, Mr./Ms., ...).
  "Mrs." and "Miss" become "Mr."; "Mr." becomes "Ms.". Titles are only swapped before a
  proper noun ("Mr. Smith"), since "miss" and "ms" are also ordinary words. An indefinite
  article in front of a swapped noun is fixed when the new word needs the other one
  ("an emperor" -> "a monarch").
- First names, only with ``swap_names``: the k-th most frequent (cleaned) male name of
  the 1990 US Census lists <-> the k-th female one (James <-> Mary), or your own
  mapping. Only the first token of a person name is swapped, and never right after a
  title (in "Mr. James" the name is a surname).
- Case is kept (he -> she, He -> She, HE -> SHE).

Targets: "opposite" (female <-> male) and "neutral" (singular they, and neutral nouns
such as person, parent, spouse, monarch, Mx.). For "neutral", the verb of a subject
pronoun is made to agree from the parse: he is -> they are, she was -> they were, he walks
-> they walk, has -> have, does -> do, he's -> they're / they've; verbs coordinated with
it follow ("he walks and talks" -> "they walk and talk"). When agreement cannot be made
safely (a subject pronoun in a coordination or with a relative clause, a parse whose
subject is not attached to a verb, a verb form that cannot be lemmatised) or a gendered
word has no common neutral counterpart (uncle, prince, sir), the sentence is skipped:
`gender_swap` returns None rather than a broken sentence.

Every Perturbation has kind "gender_swap" (also when only pronouns changed: one kind for
one relation; `from_words`/`to_words` say what changed), attribute "gender", one span per
changed word (verbs and articles included), `from_group` "female" or "male" when all the
swapped gendered words have that gender (None for a sentence with both), and `to_group`
the opposite gender, or "neutral".

`GenderSwapKind` is the swap as a perturbation kind, registered as "gender_swap"
(`pytest_fairness.perturb.kinds`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from ..errors import ConfigurationError
from ..resources.nlp import parse, parse_many
from ..resources.text import joined
from ..types import Perturbation, PronounRole
from ..validation import check_int, check_text, check_texts
from ._edit import Edit, apply_casing, apply_edits, casing_of, indefinite_article
from .kinds import PerturbationKind

__all__ = [
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

Target = Literal["opposite", "neutral"]
_GENDERS = ("male", "female")
_OPPOSITE = {"male": "female", "female": "male"}
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_HONORIFICS = frozenset(
    {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "mx", "mx.", "dr", "dr.", "prof",
     "prof.", "sir", "madam", "lady", "lord", "dame", "mister"}
)
#: How many names of each gender `default_name_pairs` pairs by rank.
DEFAULT_NAME_PAIRS = 200


@dataclass(frozen=True)
class _Tables:
    pronouns: dict[str, dict[str, str]]
    pronoun_gender: dict[str, str]
    agreement: dict[str, str]
    word_gender: dict[str, str]
    to_gender: dict[str, dict[str, str]]
    to_neutral: dict[str, str | None]
    titles: frozenset[str]


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
    return frozenset(int(hash_string(w)) for w in gendered_words())


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

    "her" is a possessive determiner when tagged PRP$ (or attached as ``poss``), else an
    object; "his" is a possessive determiner when tagged PRP$ (or ``poss``), else a
    possessive pronoun ("the book is his").
    """
    low = token.text.lower()
    if low in ("he", "she"):
        return "subject"
    if low == "him":
        return "object"
    if low in ("himself", "herself"):
        return "reflexive"
    if low == "hers":
        return "possessive_pronoun"
    determiner = token.tag_ == "PRP$" or token.dep_ == "poss"
    if low == "her":
        return "possessive_determiner" if determiner else "object"
    if low == "his":
        return "possessive_determiner" if determiner else "possessive_pronoun"
    return None


@functools.lru_cache(maxsize=1)
def default_name_pairs() -> dict[str, tuple[str, str]]:
    """Name -> (its gender, its counterpart): the k-th male name <-> the k-th female name.

    Built from `pytest_fairness.resources.names.by_gender` (1990 US Census, cleaned, names of one
    gender only), the first `DEFAULT_NAME_PAIRS` of each, paired by frequency rank.
    """
    from ..resources import names as name_lists

    male = name_lists.by_gender("male", n=DEFAULT_NAME_PAIRS)
    female = name_lists.by_gender("female", n=DEFAULT_NAME_PAIRS)
    pairs: dict[str, tuple[str, str]] = {}
    for m, f in zip(male, female, strict=False):
        pairs[m] = ("male", f)
        pairs[f] = ("female", m)
    return pairs


def _name_pairs(swap_names: bool | Mapping[str, str]) -> dict[str, tuple[str | None, str]]:
    if swap_names is False:
        return {}
    if swap_names is True:
        return dict(default_name_pairs())
    if not isinstance(swap_names, Mapping):
        raise ConfigurationError(
            f"swap_names must be True, False or a mapping name -> name, not {swap_names!r}"
        )
    from ..resources import names as name_lists

    pairs: dict[str, tuple[str | None, str]] = {}
    for a, b in swap_names.items():
        pairs.setdefault(b, (name_lists.gender_of(b), a))
    for a, b in swap_names.items():
        pairs[a] = (name_lists.gender_of(a), b)
    return pairs


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


def _is_first_name_token(token: Any) -> bool:
    if token.pos_ != "PROPN" or token.ent_type_ not in ("", "PERSON"):
        return False
    if token.ent_iob_ == "I":
        return False
    if token.i > 0:
        prev = token.doc[token.i - 1]
        if prev.text.lower() in _HONORIFICS:
            return False
        if not token.ent_type_ and prev.pos_ == "PROPN":
            return False
    return True


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


def _check_target(target: str) -> None:
    if not isinstance(target, str) or target not in ("opposite", "neutral"):
        raise ConfigurationError(f"target must be 'opposite' or 'neutral', not {target!r}")


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
    for token in doc:
        low = token.text.lower()
        if (low in tables.pronoun_gender or low in tables.word_gender or pairs) and joined(
            text, token.idx, token.idx + len(token.text)
        ):
            continue  # a token cut from its grapheme cluster is not the word it spells
        role = pronoun_role(token) if low in tables.pronoun_gender else None
        if role is not None:
            gender = tables.pronoun_gender[low]
            new_gender = _OPPOSITE[gender] if target == "opposite" else "neutral"
            edits[token.idx] = _span_edit(token, tables.pronouns[new_gender][role])
            sources.add(gender)
            if target == "neutral" and role == "subject":
                verb_edits = _agreement_edits(token, tables.agreement)
                if verb_edits is None:
                    return None
                for edit in verb_edits:
                    edits[edit.start] = edit
            continue
        if low in tables.word_gender:
            if low in tables.titles and not _title_applies(token, tables.titles):
                continue
            gender = tables.word_gender[low]
            new_word = (
                tables.to_gender[_OPPOSITE[gender]].get(low)
                if target == "opposite"
                else tables.to_neutral.get(low)
            )
            if new_word is None:
                if target == "neutral":
                    return None  # no neutral counterpart: skip rather than half-neutralise
                continue
            if new_word == low:
                continue  # already neutral ("actor" for the neutral target)
            edits[token.idx] = _span_edit(token, new_word)
            sources.add(gender)
            if token.i > 0:
                article = doc[token.i - 1]
                if article.lower_ in ("a", "an") and article.tag_ == "DT":
                    wanted = indefinite_article(new_word)
                    if wanted != article.lower_:
                        edits[article.idx] = _span_edit(article, wanted)
            continue
        if pairs and _is_first_name_token(token):
            key = token.text if casing_of(token.text) != "upper" else token.text.title()
            if key in pairs:
                gender_or_none, other = pairs[key]
                edits[token.idx] = _span_edit(token, other)
                if gender_or_none is not None:
                    sources.add(gender_or_none)
    if not edits:
        return None
    from_group = next(iter(sources)) if len(sources) == 1 else None
    if target == "neutral":
        to_group: str | None = "neutral"
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

    None when the text has no gendered word, or when `target` is "neutral" and the
    sentence cannot be neutralised without breaking its grammar (see the module
    docstring). `nlp` is a spaCy `Language`, a pipeline name, or None for the default
    English pipeline (`pytest_fairness.resources.nlp.load`). `swap_names=True` also swaps first
    names (James <-> Mary, by Census rank); a mapping name -> name gives your own pairs
    (used both ways). Names are never changed for the "neutral" target.

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
    """

    needs_parse = True

    def __init__(self, name: str = "gender_swap") -> None:
        super().__init__(name, "gender")

    @property
    def description(self) -> str:
        return "the gender swap (perturb.gender_swap)"

    @property
    def hint(self) -> str:
        return (
            "the gender swap changes definitional gender words (pronouns, gendered nouns, "
            "titles): use texts that mention a gendered person"
        )

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        """The swap of `doc` (the parse of `text`), or nothing without a gendered word."""
        swapped = swap_doc(doc)
        return [] if swapped is None else [swapped]
