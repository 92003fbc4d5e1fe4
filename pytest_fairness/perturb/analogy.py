"""AnalogyMutate: change a person noun to its analogue in another subpopulation.

mt-nlp, section 2.1, Algorithm 3. For a sentence x, a sensitive attribute A and a
knowledge graph G, every target t (a noun that is a person, Algorithm 2 lines 2-4) is
mutated with word-vector arithmetic::

    S_p = G.IsA_rev(A)                                   # line 2: subpopulations of A
    p_t = argmin_{p in S_p} ||W(p) - W(t)||_2            # line 3: the group t belongs to
    for p_i in S_p \\ {p_t}:                               # lines 4-5
        t_M = W^-1(W(p_i) + W(t) - W(p_t))               # line 6
        x'  = x with t replaced by t_M                   # line 7

so under "gender", "The actress smiled." gives "The actor smiled." (female -> male).

Choices, documented:

- Targets are spaCy ``NOUN`` tokens whose lemma IsPerson (`KnowledgeGraph.is_person_many`,
  once per distinct lemma). t is looked up by its lemma ("soldiers" -> "soldier").
- ``W^-1`` returns the nearest word of the table's search vocabulary (`WordVectors`,
  cosine on unit vectors) other than t, its plural, p_i and p_t. t_M is kept only if it
  is a person noun itself (IsPerson): vector neighbours of people are often places or
  verbs ("starring"), and a sentence about a person must stay one. With the default
  ``candidates=1`` this is the paper's rule (the single nearest word, dropped when it is
  no person); ``candidates=k`` takes the nearest person among the k nearest words.
- Number is kept: a plural t gets the plural of t_M ("actresses" -> "actors"), see
  `pytest_fairness.perturb._persons.plural`. Case is kept ("Actress" -> "Actor",
  "ACTRESS" -> "ACTOR"). An indefinite article before t is fixed when t_M needs the
  other one ("an actress" -> "a waiter"); the article is then a second span.
- Subpopulations without a vector in the table take no part (GloVe has no "nonbinary").
- One Perturbation per (target, p_i) whose t_M is a person, in sentence order then S_p
  order, with kind "analogy", `from_group` p_t, `to_group` p_i, and exact spans.
- The default table is GloVe 6B 50d (`pytest_fairness.resources.embeddings.default_vectors`,
  chosen by measured analogy accuracy over MiniLM word embeddings).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigurationError
from ..resources.embeddings import VectorsLike, WordVectors, as_vectors, is_plain_word
from ..resources.knowledge import KnowledgeGraph
from ..types import Perturbation, Span
from ._edit import apply_casing, casing_of
from ._persons import (
    article_before,
    fix_article,
    is_plural,
    noun_forms,
    nouns,
    parse,
    persons_of,
    plural,
    replace_span,
    resolve_graph,
    subpopulations_of,
    targets,
)

__all__ = ["WordAnalogy", "analogy", "analogy_doc", "analogy_words"]


@dataclass(frozen=True)
class WordAnalogy:
    """A kept analogy t -> t_M of mt-nlp Algorithm 3, line 6, for a lemma t."""

    source: str
    """p_t: the subpopulation nearest to t."""
    target: str
    """p_i: the subpopulation t_M belongs to."""
    word: str
    """t_M, lower case, singular."""


@dataclass
class AnalogyMutator:
    """The per-run state of AnalogyMutate: graph, table, S_p and per-lemma answers."""

    graph: KnowledgeGraph
    table: WordVectors
    attribute: str
    groups: list[str]
    candidates: int
    persons: dict[str, bool] = field(default_factory=dict)
    answers: dict[str, list[WordAnalogy]] = field(default_factory=dict)

    def prepare(
        self, docs: Sequence[Any], found: Sequence[list[tuple[int, str]]] | None = None
    ) -> None:
        """Answer IsPerson and Algorithm 3 for every target lemma of `docs` at once.

        `found` holds ``nouns(doc)`` of each doc when the caller already has them.
        """
        self.persons.update(persons_of(self.graph, docs, known=self.persons, found=found))
        lemmas = {
            lemma
            for noun_list in (found if found is not None else [nouns(d) for d in docs])
            for _, lemma in noun_list
            if self.persons.get(lemma, False) and lemma not in self.answers
        }
        if lemmas:
            self.answers.update(
                _word_analogies(
                    sorted(lemmas), self.groups, self.graph, self.table, self.candidates
                )
            )

    def mutate(
        self, doc: Any, found: list[tuple[int, str]] | None = None, text: str | None = None
    ) -> list[Perturbation]:
        """Algorithm 3 for every target of one parsed sentence (`found`: ``nouns(doc)``)."""
        results: list[Perturbation] = []
        if text is None:
            text = doc.text  # built from the tokens on every access: read it once
        for token, lemma in targets(doc, self.persons, found, prepare=self.prepare):
            if lemma not in self.answers:
                self.answers.update(
                    _word_analogies([lemma], self.groups, self.graph, self.table, self.candidates)
                )
            results += _replace(doc, text, token, self.answers[lemma], self.attribute)
        return results


def _word_analogies(
    lemmas: Iterable[str],
    groups: Sequence[str],
    graph: KnowledgeGraph,
    table: WordVectors,
    candidates: int,
) -> dict[str, list[WordAnalogy]]:
    words = [w for w in dict.fromkeys(lemmas) if w]
    found = table.analogies_many(
        words, groups, exclude={w: noun_forms(w) for w in words}, k=candidates
    )
    pool = {c for answers in found.values() for a in answers for c in a.candidates}
    persons = graph.is_person_many(sorted(c for c in pool if is_plain_word(c))) if pool else {}
    result: dict[str, list[WordAnalogy]] = {}
    for word in words:
        kept: list[WordAnalogy] = []
        for answer in found.get(word.lower(), []):
            person = next((c for c in answer.candidates if persons.get(c, False)), None)
            if person is not None:
                kept.append(WordAnalogy(answer.source, answer.target, person))
        result[word] = kept
    return result


def _replace(
    doc: Any, text: str, token: Any, answers: Sequence[WordAnalogy], attribute: str
) -> list[Perturbation]:
    """Algorithm 3, lines 7-8 for one target: one Perturbation per kept analogy."""
    if not answers:
        return []
    plural_target = is_plural(token)
    casing = casing_of(token.text)
    span = Span(token.idx, token.idx + len(token.text), token.text)
    article = article_before(doc, token.i)
    results: list[Perturbation] = []
    for found in answers:
        new = apply_casing(plural(found.word) if plural_target else found.word, casing)
        results.append(
            replace_span(
                text,
                span,
                new,
                article=article,
                new_article=None if article is None else fix_article(article.text, new),
                kind="analogy",
                attribute=attribute,
                from_group=found.source,
                to_group=found.target,
            )
        )
    return results


def analogy_mutator(
    attribute: str,
    graph: KnowledgeGraph | None,
    vectors: VectorsLike | None,
    candidates: int,
) -> AnalogyMutator:
    """The AnalogyMutate state for `attribute` (mt-nlp, Algorithm 3): graph, vector
    table and the subpopulations S_p; shared by `Mutator`."""
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise ConfigurationError(f"candidates must be an integer >= 1, got {candidates!r}")
    resolved = resolve_graph(graph)
    groups = subpopulations_of(resolved, attribute)
    return AnalogyMutator(resolved, as_vectors(vectors), attribute, groups, candidates)


def analogy_words(
    words: Iterable[str],
    attribute: str,
    *,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    candidates: int = 1,
) -> dict[str, list[WordAnalogy]]:
    """mt-nlp Algorithm 3 on bare lemmas: each word -> its kept analogies (t_M a person).

    No parse and no IsPerson check of the words themselves; the same vector search and
    person filter as `analogy`. All queries go through one vectorised search.
    """
    state = analogy_mutator(attribute, graph, vectors, candidates)
    return _word_analogies(
        [w.lower() for w in words], state.groups, state.graph, state.table, candidates
    )


def analogy_doc(
    doc: Any,
    attribute: str,
    *,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    candidates: int = 1,
) -> list[Perturbation]:
    """`analogy` of an already parsed spaCy `Doc` (mt-nlp Algorithm 3)."""
    return analogy_mutator(attribute, graph, vectors, candidates).mutate(doc)


def analogy(
    text: str,
    attribute: str,
    *,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    nlp: Any = None,
    candidates: int = 1,
) -> list[Perturbation]:
    """AnalogyMutate (mt-nlp, section 2.1, Algorithm 3) of every person noun of `text`.

    `graph` is the knowledge graph (default: the bundled one), `vectors` the word-vector
    table (a `WordVectors`, a dict word -> vector, (words, matrix), or None for GloVe),
    `nlp` a spaCy `Language` or pipeline name (None: the default English pipeline).
    Returns one Perturbation per target and other subpopulation whose analogy is a
    person noun (see the module docstring); raises `ConfigurationError` when the graph
    knows no subpopulations of `attribute`.
    """
    state = analogy_mutator(attribute, graph, vectors, candidates)
    return state.mutate(parse(nlp, text))
