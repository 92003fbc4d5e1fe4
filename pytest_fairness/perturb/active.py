"""ActiveMutate: put a sensitive adjective before a neutral person noun.

mt-nlp, section 2.1, Algorithm 4. For a sentence x, a sensitive attribute A and a
knowledge graph G, every target t (a noun that is a person, Algorithm 2 lines 2-4) that
has no adjective ahead and is *neutral* w.r.t. A gets each subpopulation of A inserted
as an adjective::

    S_p = G.IsA_rev(A)                                  # line 2
    if any G.hasIsAEdge(t, p_i) for p_i in S_p: skip    # lines 3-7: t is not neutral
    for p_i in S_p:                                     # line 8
        x' = x with t replaced by "p_i t"               # lines 9-10

so under "gender", "The soldiers fought bravely." gives "The female soldiers fought
bravely.", "The male soldiers fought bravely.", ...; "The actress smiled." gives
nothing ("actress" IsA "female": no "male actress").

Choices, documented:

- Targets are spaCy ``NOUN`` tokens whose lemma IsPerson, as for AnalogyMutate, that are
  not themselves the modifier of another noun (dependency ``compound``: "student" in
  "student union").
- "No adjective ahead" (the paper leaves it to part-of-speech analysis): no ``amod``
  child, and no word of the noun phrase before the noun that names a subpopulation of A
  (spaCy may parse "Muslim" in "Muslim doctor" as a compound noun).
- Neutral: no IsA edge from the lemma to any p_i (``G.hasIsAEdge``), and the lemma is not
  itself a subpopulation ("Muslims" under religion).
- The adjectives are `KnowledgeGraph.adjectives(A)` (the subpopulations with an
  adjective sense, spelled as the graph gives them: "female", "Asian", "Muslim",
  "Native American"); `to_group` is the subpopulation in lower case ("asian").
- The adjective goes before the noun's compound modifiers ("the police officer" -> "the
  female police officer"). The changed span is the noun (with its compound modifiers):
  "soldiers" -> "male soldiers". An indefinite article before it is fixed ("a soldier"
  -> "an Asian soldier"); the article is then a second span. Case: at the start of a
  sentence the adjective takes the capital ("Soldiers fought." -> "Male soldiers
  fought."); in an all-capitals phrase it is written in capitals.
- One Perturbation per (target, adjective), in sentence order then S_p order, kind
  "active", `from_group` None (the noun is neutral), exact spans.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..resources.knowledge import KnowledgeGraph
from ..types import Perturbation, Span
from ._edit import casing_of
from ._persons import (
    article_before,
    fix_article,
    parse,
    persons_of,
    replace_span,
    resolve_graph,
    subpopulations_of,
    targets,
)

__all__ = ["active", "active_doc", "is_neutral"]


def is_neutral(word: str, attribute: str, *, graph: KnowledgeGraph | None = None) -> bool:
    """mt-nlp Algorithm 4, lines 3-7: no IsA edge from `word` to a subpopulation of
    `attribute` (and `word` is not one itself). "soldier" is neutral for gender,
    "actress" (IsA female) is not."""
    resolved = resolve_graph(graph)
    groups = subpopulations_of(resolved, attribute)
    return _neutral(word.lower(), groups, resolved)


def _neutral(lemma: str, groups: Sequence[str], graph: KnowledgeGraph) -> bool:
    if lemma in groups or lemma.replace("_", " ") in groups:
        return False
    return not any(graph.has_isa_edge(lemma, group) for group in groups)


@dataclass
class ActiveMutator:
    """The per-run state of ActiveMutate: graph, S_p, adjectives, per-lemma neutrality."""

    graph: KnowledgeGraph
    attribute: str
    groups: list[str]
    adjectives: list[tuple[str, str]]
    """(adjective as written, subpopulation label) pairs."""
    persons: dict[str, bool] = field(default_factory=dict)
    neutral: dict[str, bool] = field(default_factory=dict)

    @functools.cached_property
    def group_words(self) -> frozenset[str]:
        """The subpopulations as single words, lower case ("muslim", "middle-aged")."""
        return frozenset(g for g in self.groups if " " not in g)

    def prepare(
        self, docs: Sequence[Any], found: Sequence[list[tuple[int, str]]] | None = None
    ) -> None:
        """Answer IsPerson for every target lemma of `docs` in one batched lookup."""
        self.persons.update(persons_of(self.graph, docs, known=self.persons, found=found))

    def mutate(
        self, doc: Any, found: list[tuple[int, str]] | None = None, text: str | None = None
    ) -> list[Perturbation]:
        """Algorithm 4 for every target of one parsed sentence (`found`: ``nouns(doc)``)."""
        results: list[Perturbation] = []
        if text is None:
            text = doc.text  # built from the tokens on every access: read it once
        for token, lemma in targets(doc, self.persons, found, prepare=self.prepare):
            if lemma not in self.neutral:
                self.neutral[lemma] = _neutral(lemma, self.groups, self.graph)
            if not self.neutral[lemma] or token.dep_ == "compound":
                continue
            if any(child.dep_ == "amod" for child in token.children):
                continue
            start = _phrase_start(token)
            if any(doc[i].lower_ in self.group_words for i in range(start, token.i)):
                continue
            results += _insert(doc, text, token, start, self.adjectives, self.attribute)
        return results


def _phrase_start(token: Any) -> int:
    """Index of the first token of `token`'s run of compound modifiers (itself if none)."""
    doc = token.doc
    start: int = token.i
    while start > 0:
        previous = doc[start - 1]
        if previous.dep_ != "compound" or not (start - 1 < previous.head.i <= token.i):
            break
        start -= 1
    return start


def _insert(
    doc: Any,
    text: str,
    token: Any,
    start: int,
    adjectives: Sequence[tuple[str, str]],
    attribute: str,
) -> list[Perturbation]:
    """Algorithm 4, lines 8-12 for one target: one Perturbation per adjective."""
    first = doc[start]
    begin, end = first.idx, token.idx + len(token.text)
    span = Span(begin, end, text[begin:end])
    phrase = span.text
    casing = casing_of(first.text)
    shout = casing == "upper" and len(first.text) > 1
    capital = not shout and bool(first.is_sent_start) and casing == "title"
    if capital and first.pos_ != "PROPN":
        phrase = phrase[:1].lower() + phrase[1:]
    article = article_before(doc, start)
    results: list[Perturbation] = []
    for adjective, group in adjectives:
        if shout:
            new = f"{adjective.upper()} {phrase}"
        elif capital:
            new = f"{adjective[:1].upper()}{adjective[1:]} {phrase}"
        else:
            new = f"{adjective} {phrase}"
        results.append(
            replace_span(
                text,
                span,
                new,
                article=article,
                new_article=None if article is None else fix_article(article.text, new),
                kind="active",
                attribute=attribute,
                to_group=group,
            )
        )
    return results


def active_mutator(attribute: str, graph: KnowledgeGraph | None) -> ActiveMutator:
    """The ActiveMutate state for `attribute` (mt-nlp, Algorithm 4): the graph's
    subpopulations S_p of the attribute and their adjectives; shared by `Mutator`."""
    resolved = resolve_graph(graph)
    groups = subpopulations_of(resolved, attribute)
    labels = {g.lower(): g for g in groups}
    adjectives = [
        (adjective, labels.get(adjective.lower(), adjective.lower()))
        for adjective in resolved.adjectives(attribute)
    ]
    return ActiveMutator(resolved, attribute, groups, adjectives)


def active_doc(
    doc: Any, attribute: str, *, graph: KnowledgeGraph | None = None
) -> list[Perturbation]:
    """`active` of an already parsed spaCy `Doc` (mt-nlp Algorithm 4)."""
    return active_mutator(attribute, graph).mutate(doc)


def active(
    text: str,
    attribute: str,
    *,
    graph: KnowledgeGraph | None = None,
    nlp: Any = None,
) -> list[Perturbation]:
    """ActiveMutate (mt-nlp, section 2.1, Algorithm 4) of every neutral person noun.

    `graph` is the knowledge graph (default: the bundled one), `nlp` a spaCy `Language`
    or pipeline name (None: the default English pipeline). Returns one Perturbation per
    target and adjective of `attribute` (see the module docstring); raises
    `ConfigurationError` when the graph knows no subpopulations of `attribute`.
    """
    return active_mutator(attribute, graph).mutate(parse(nlp, text))
