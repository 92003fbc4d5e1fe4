"""What AnalogyMutate and ActiveMutate share: person-noun targets, plurals, a/an, the setup.

mt-nlp Algorithm 2 (section 2.1), lines 2-4: part-of-speech tag the sentence, keep the
noun tokens, keep those that denote a person (IsPerson on the knowledge graph). Here a
target is a spaCy token with POS ``NOUN`` whose lower-cased lemma is a person for the
graph; the graph is asked once per distinct lemma (`KnowledgeGraph.is_person_many`, which
also caches), for one sentence or a whole batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from ..resources.knowledge import KnowledgeGraph
from ..types import Perturbation, Span
from ._edit import indefinite_article

__all__ = [
    "article_before",
    "fix_article",
    "is_plural",
    "noun_forms",
    "nouns",
    "parse",
    "persons_of",
    "plural",
    "replace_span",
    "resolve_graph",
    "resolve_nlp",
    "subpopulations_of",
    "targets",
]

# Irregular plurals of person nouns (English grammar facts, written for this project).
_IRREGULAR = {
    "person": "people",
    "people": "people",
    "child": "children",
    "grandchild": "grandchildren",
    "stepchild": "stepchildren",
    "wife": "wives",
    "housewife": "housewives",
    "midwife": "midwives",
    "fishwife": "fishwives",
    "thief": "thieves",
    "elf": "elves",
    "alumnus": "alumni",
    "alumna": "alumnae",
    "police": "police",
    "staff": "staff",
    "folk": "folk",
    "hero": "heroes",
    "heroine": "heroines",
    "negro": "negroes",
}
# Words ending in -man whose plural is -mans.
_MANS = frozenset({"human", "german", "shaman", "roman", "ottoman", "talisman", "caiman"})
# Words ending in -ch read as /k/, plural -chs.
_CH_K = frozenset({"monarch", "patriarch", "matriarch", "oligarch", "tetrarch", "eunuch", "czech"})
_ARTICLES = frozenset({"a", "an"})


def plural(noun: str) -> str:
    """The plural of a singular English (person) noun, in lower case.

    Irregular forms first (person -> people, wife -> wives, child -> children), then
    -man -> -men (policewoman -> policewomen, not human or German), sibilants take -es
    (actress -> actresses, witch -> witches, but monarch -> monarchs), consonant + y ->
    -ies (lady -> ladies), everything else -s. A hyphenated noun pluralises its last part
    (ex-wife -> ex-wives). Case is handled by the caller.
    """
    word = noun.lower()
    head, sep, last = word.rpartition("-")
    if sep:
        return head + sep + plural(last)
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("man") and word not in _MANS:
        return word[:-3] + "men"
    if word.endswith(("s", "x", "z", "sh")) or (word.endswith("ch") and word not in _CH_K):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def noun_forms(lemma: str) -> frozenset[str]:
    """`lemma` and its plural: the inflections of t that an analogy must not return."""
    return frozenset({lemma.lower(), plural(lemma)})


def is_plural(token: Any) -> bool:
    """Whether a spaCy noun token is plural (tag NNS/NNPS or Number=Plur)."""
    return bool(token.tag_ in ("NNS", "NNPS") or "Plur" in token.morph.get("Number"))


def nouns(doc: Any) -> list[tuple[int, str]]:
    """(index, lower-cased lemma) of every NOUN token of `doc` with a letter in its text.

    Read from ``doc.to_array`` (POS, LEMMA, ORTH) so no spaCy `Token` object is made
    for the other tokens: walking a Doc token by token costs more than the mutations.
    """
    from spacy.attrs import LEMMA, ORTH, POS
    from spacy.symbols import NOUN

    if len(doc) == 0:
        return []
    array = doc.to_array([POS, LEMMA, ORTH])
    strings = doc.vocab.strings
    found: list[tuple[int, str]] = []
    for index in np.flatnonzero(array[:, 0] == NOUN).tolist():
        text: str = strings[int(array[index, 2])]
        if any(c.isalpha() for c in text):
            lemma: str = strings[int(array[index, 1])] or text
            found.append((index, lemma.lower()))
    return found


def targets(
    doc: Any,
    persons: Mapping[str, bool],
    found: list[tuple[int, str]] | None = None,
    prepare: Callable[[list[Any], list[list[tuple[int, str]]]], None] | None = None,
) -> list[tuple[Any, str]]:
    """mt-nlp Algorithm 2, lines 3-4: (token, lemma) of the NOUN tokens that are persons.

    `persons` maps lemmas to IsPerson (from `KnowledgeGraph.is_person_many` on
    `target_lemmas`); lemmas missing from it count as not a person, unless `prepare` is
    given: it is called as ``prepare([doc], [found])`` first to fill `persons` in. `found`
    is ``nouns(doc)`` when the caller already has it.
    """
    if found is None:
        found = nouns(doc)
    if prepare is not None and any(lemma not in persons for _, lemma in found):
        prepare([doc], [found])
    return [(doc[i], lemma) for i, lemma in found if persons.get(lemma, False)]


def replace_span(
    text: str,
    span: Span,
    new: str,
    *,
    article: Span | None = None,
    new_article: str | None = None,
    kind: str,
    attribute: str,
    from_group: str | None = None,
    to_group: str | None = None,
) -> Perturbation:
    """`text` with `span` replaced by `new` and, when given, `article` (a span before
    `span`) by `new_article`: the `Perturbation` with exact spans, one per change.

    The same result as `_edit.apply_edits` for these one or two edits, built directly:
    mutating a corpus makes hundreds of thousands of them.
    """
    if article is None or new_article is None:
        perturbed = text[: span.start] + new + text[span.end :]
        return Perturbation(
            original=text,
            perturbed=perturbed,
            original_spans=(span,),
            perturbed_spans=(Span(span.start, span.start + len(new), new),),
            kind=kind,
            attribute=attribute,
            from_group=from_group,
            to_group=to_group,
            from_words=(span.text,),
            to_words=(new,),
        )
    if article.end > span.start:
        raise ValueError(f"article {article!r} must come before {span!r}")
    perturbed = (
        text[: article.start] + new_article + text[article.end : span.start] + new
        + text[span.end :]
    )
    start = span.start + len(new_article) - len(article.text)
    return Perturbation(
        original=text,
        perturbed=perturbed,
        original_spans=(article, span),
        perturbed_spans=(
            Span(article.start, article.start + len(new_article), new_article),
            Span(start, start + len(new), new),
        ),
        kind=kind,
        attribute=attribute,
        from_group=from_group,
        to_group=to_group,
        from_words=(article.text, span.text),
        to_words=(new_article, new),
    )


def article_before(doc: Any, position: int) -> Span | None:
    """The span of an indefinite article right before token `position`, if any."""
    if position <= 0:
        return None
    article = doc[position - 1]
    text: str = article.text
    if text.lower() not in _ARTICLES:
        return None
    return Span(article.idx, article.idx + len(text), text)


def fix_article(article: str, next_word: str) -> str | None:
    """The indefinite article that must replace `article` before `next_word`, or None
    when `article` is no indefinite article or already agrees.

    `next_word` is read as an ordinary word, never an acronym (the words inserted here
    are vocabulary words and adjectives). Keeps the article's casing ("A" -> "An",
    "AN" -> "A", and "A" before an all-capitals word -> "AN").
    """
    low = article.lower()
    if low not in _ARTICLES:
        return None
    wanted = indefinite_article(next_word.lower())
    if wanted == low:
        return None
    shouting = (len(article) > 1 or len(next_word) > 1) and next_word.isupper()
    if article.isupper() and (len(article) > 1 or shouting):
        return wanted.upper()
    if article[:1].isupper():
        return wanted.capitalize()
    return wanted


def resolve_graph(graph: KnowledgeGraph | None) -> KnowledgeGraph:
    """`graph`, or the bundled `default_graph()` when None."""
    if graph is not None:
        return graph
    from ..resources.knowledge import default_graph

    return default_graph()


def resolve_nlp(nlp: Any) -> Any:
    """A spaCy `Language`: `nlp` itself, or loaded by name / the default when str / None."""
    if nlp is None or isinstance(nlp, str):
        from ..resources import nlp as nlp_module

        return nlp_module.load(nlp)
    return nlp


def parse(nlp: Any, text: str) -> Any:
    """`text` parsed by `nlp` (see `resolve_nlp`) without the entity recogniser, which no
    analogy or active mutation reads (`pytest_fairness.resources.nlp.disabled`). A text
    that is not a str, or that spaCy cannot parse, raises `ConfigurationError`
    (`pytest_fairness.resources.nlp.parse`)."""
    from ..resources.nlp import disabled
    from ..resources.nlp import parse as parse_text
    from ..validation import check_text

    check_text(text, "text")
    pipeline = resolve_nlp(nlp)
    return parse_text(pipeline, text, disable=disabled(pipeline))


def subpopulations_of(graph: KnowledgeGraph, attribute: str) -> list[str]:
    """S_p = G.IsA_rev(A) (mt-nlp Algorithms 3 and 4, line 2); an error when empty.

    An attribute the graph knows no subpopulations of would silently give no mutation,
    so it raises `ConfigurationError` naming the attribute.
    """
    groups = graph.subpopulations(attribute)
    if not groups:
        raise ConfigurationError(
            f"the knowledge graph knows no subpopulations of attribute {attribute!r} (no "
            "IsA edge points to it); use one it has, such as gender, religion, race, "
            "ethnicity, nationality, sexual_orientation, age or disability"
        )
    return groups


def persons_of(
    graph: KnowledgeGraph,
    docs: Iterable[Any],
    *,
    known: Mapping[str, bool] | None = None,
    found: Iterable[list[tuple[int, str]]] | None = None,
) -> dict[str, bool]:
    """IsPerson of every candidate lemma of `docs` not in `known`, in one batched lookup.

    `found` holds ``nouns(doc)`` of each doc when the caller already has them.
    """
    lemmas: set[str] = set()
    for noun_list in found if found is not None else (nouns(d) for d in docs):
        lemmas.update(lemma for _, lemma in noun_list)
    if known:
        lemmas -= known.keys()
    return graph.is_person_many(sorted(lemmas)) if lemmas else {}
