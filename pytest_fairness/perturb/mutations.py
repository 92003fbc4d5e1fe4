"""The perturbation set S of a sentence: mt-nlp's sentence perturbator P.

mt-nlp, section 2.1, Algorithm 2: part-of-speech tag x, keep the nouns that are persons,
add their AnalogyMutate (Algorithm 3) and ActiveMutate (Algorithm 4) mutations, then
filter by fluency (line 9). This module puts the pieces together:

- `mutations(text, attribute)`: S for one sentence, as `Perturbation` records:
  analogy mutations, then active mutations, then (for attribute "gender") the gender
  swap of `pytest_fairness.perturb.gender.swap_doc` (every definitional gender word
  swapped at once, a hand-written complement to the analogy search), deduplicated by
  perturbed text (the first one is kept; the original text itself is never in S), and
  fluency-filtered when a `FluencyScorer` is given. |S| is the k of (eps, k)-fairness
  (mt-nlp section 3.1).
- `mutations_many(texts, attribute)`: the same for many texts: parsed with
  ``nlp.pipe`` in batches without the entity recogniser (nothing here reads entities;
  `pytest_fairness.resources.nlp.disabled`), each Doc shared by the analogy, active and gender-swap
  mutators; the knowledge graph is asked once per distinct lemma for the whole batch
  (`is_person_many`), the analogy search runs once per distinct person lemma, and the
  fluency model scores all texts of a batch together.
- `Mutator`: the reusable state behind both (graph, table, subpopulations, per-lemma
  answers), for callers that mutate several corpora with the same settings.
- `MutationsKind`: S as a perturbation kind (`pytest_fairness.perturb.kinds`), built in as
  "gender" and, unbound, as "mt-nlp" for every other attribute of the knowledge graph.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigurationError
from ..resources.embeddings import VectorsLike
from ..resources.fluency import DEFAULT_MIN_RATIO
from ..resources.knowledge import KnowledgeGraph
from ..resources.nlp import disabled, parse, parse_many
from ..types import Perturbation
from ..validation import check_int, check_number, check_text, check_texts
from ._persons import nouns, resolve_graph, resolve_nlp
from .active import ActiveMutator, active_mutator
from .analogy import AnalogyMutator, analogy_mutator
from .gender import has_gendered_word, swap_doc
from .kinds import DEFAULT_BATCH_SIZE, MT_NLP, PerturbationKind

if TYPE_CHECKING:
    from ..resources.fluency import FluencyScorer

__all__ = ["KINDS", "MutationKind", "MutationsKind", "Mutator", "mutations", "mutations_many"]

MutationKind = Literal["analogy", "active", "gender_swap"]
#: Every kind of mutation, in the order they are generated.
KINDS: tuple[MutationKind, ...] = ("analogy", "active", "gender_swap")


class Mutator:
    """mt-nlp's sentence perturbator P (Algorithm 2) for one attribute, with its caches.

    `kinds` selects the mutations ("gender_swap" only applies to attribute "gender");
    `graph` defaults to the bundled knowledge graph, `vectors` to
    `pytest_fairness.resources.embeddings.default_vectors` (loaded only if "analogy" is asked
    for), `candidates` is passed to AnalogyMutate. `fluency` and `min_ratio` set up the
    fluency filter (Algorithm 2, line 9); without a scorer nothing is filtered.
    """

    def __init__(
        self,
        attribute: str,
        *,
        graph: KnowledgeGraph | None = None,
        vectors: VectorsLike | None = None,
        kinds: Iterable[MutationKind] = KINDS,
        candidates: int = 1,
        fluency: FluencyScorer | None = None,
        min_ratio: float | None = None,
    ) -> None:
        chosen = _check_kinds(kinds)
        if not isinstance(attribute, str) or not attribute.strip():
            raise ConfigurationError(
                f"attribute must be a non-empty string such as 'gender', got {attribute!r:.60}"
            )
        check_int(candidates, "candidates", minimum=1)
        self.attribute = attribute
        self.kinds = chosen
        self.graph = resolve_graph(graph)
        self.fluency = fluency
        self.min_ratio = DEFAULT_MIN_RATIO if min_ratio is None else check_number(
            min_ratio, "min_ratio", minimum=0)
        self._analogy: AnalogyMutator | None = (
            analogy_mutator(attribute, self.graph, vectors, candidates)
            if "analogy" in chosen
            else None
        )
        self._active: ActiveMutator = active_mutator(attribute, self.graph)
        if self._analogy is not None:
            self._active.persons = self._analogy.persons  # one IsPerson cache for both
        self._swap = "gender_swap" in chosen and attribute == "gender"

    def prepare(
        self, docs: Sequence[Any], found: Sequence[list[tuple[int, str]]] | None = None
    ) -> None:
        """Ask the graph (and the vector table) about every person lemma of `docs` at once.

        `found` holds ``nouns(doc)`` of each doc when the caller already has them.
        """
        if self._analogy is not None:
            self._analogy.prepare(docs, found)
        else:
            self._active.prepare(docs, found)

    def mutate_doc(
        self, doc: Any, found: list[tuple[int, str]] | None = None
    ) -> list[Perturbation]:
        """S for one parsed sentence, deduplicated, before the fluency filter."""
        if found is None:
            found = nouns(doc)
        text: str = doc.text  # built from the tokens on every access: read it once
        results: list[Perturbation] = []
        if self._analogy is not None:
            results += self._analogy.mutate(doc, found, text)
        if "active" in self.kinds:
            results += self._active.mutate(doc, found, text)
        if self._swap and has_gendered_word(doc):
            swapped = swap_doc(doc)
            if swapped is not None:
                results.append(swapped)
        return _unique(text, results)

    def filter(
        self, texts: Sequence[str], sets: list[list[Perturbation]]
    ) -> list[list[Perturbation]]:
        """Algorithm 2, line 9 for each text and its set; scored in one batch."""
        if self.fluency is None:
            return sets
        everything = [*texts, *(p.perturbed for s in sets for p in s)]
        if everything:
            self.fluency.score(everything)  # one batched pass; `keep` then hits the cache
        return [
            self.fluency.keep(text, found, self.min_ratio)
            for text, found in zip(texts, sets, strict=True)
        ]

    def mutate(self, text: str, *, nlp: Any = None) -> list[Perturbation]:
        """S for one sentence (Algorithm 2). A `text` that is not a str, or that spaCy
        cannot parse (`pytest_fairness.resources.nlp.unparsable`), raises
        `ConfigurationError`."""
        check_text(text, "text")
        pipeline = resolve_nlp(nlp)
        doc = parse(pipeline, text, disable=disabled(pipeline))
        return self.filter([text], [self.mutate_doc(doc)])[0]

    def mutate_many(
        self, texts: Iterable[str], *, nlp: Any = None, batch_size: int = 256
    ) -> Iterator[list[Perturbation]]:
        """S for each of `texts`, in order, parsed with ``nlp.pipe`` in batches. A text
        that is not a str, or that spaCy cannot parse, raises `ConfigurationError` naming
        it (``texts[i]``) before its batch is parsed."""
        check_int(batch_size, "batch_size", minimum=1)
        if isinstance(texts, (str, bytes, bytearray)):
            check_texts(texts)  # raises: one string is not a list of texts
        pipeline = resolve_nlp(nlp)
        batch: list[str] = []
        first = 0
        for text in texts:
            batch.append(text)
            if len(batch) >= batch_size:
                yield from self._batch(pipeline, batch, batch_size, first)
                first += len(batch)
                batch = []
        if batch:
            yield from self._batch(pipeline, batch, batch_size, first)

    def _batch(
        self, pipeline: Any, texts: list[str], batch_size: int, first: int
    ) -> list[list[Perturbation]]:
        docs = list(parse_many(pipeline, texts, batch_size=batch_size,
                               disable=disabled(pipeline), first=first))
        found = [nouns(doc) for doc in docs]
        self.prepare(docs, found)
        return self.filter(
            texts, [self.mutate_doc(doc, f) for doc, f in zip(docs, found, strict=True)]
        )


def _check_kinds(kinds: Iterable[MutationKind]) -> tuple[MutationKind, ...]:
    if isinstance(kinds, str):
        raise ConfigurationError(f"kinds must be a list of mutation kinds, not {kinds!r}")
    chosen = tuple(dict.fromkeys(kinds))
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise ConfigurationError(
            f"unknown mutation kind(s) {unknown}; choose from {', '.join(KINDS)}"
        )
    return chosen


def _unique(original: str, found: Iterable[Perturbation]) -> list[Perturbation]:
    seen = {original}
    kept: list[Perturbation] = []
    for p in found:
        if p.perturbed not in seen:
            seen.add(p.perturbed)
            kept.append(p)
    return kept


def mutations(
    text: str,
    attribute: str,
    *,
    fluency: FluencyScorer | None = None,
    min_ratio: float | None = None,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    nlp: Any = None,
    kinds: Iterable[MutationKind] = KINDS,
    candidates: int = 1,
) -> list[Perturbation]:
    """The perturbation set S of `text` for `attribute` (mt-nlp section 2.1, Algorithm 2).

    AnalogyMutate and ActiveMutate of every person noun, plus the gender swap when
    `attribute` is "gender", deduplicated by perturbed text; with `fluency` (a
    `pytest_fairness.resources.fluency.FluencyScorer`) only mutations with fluency >= `min_ratio`
    (default 0.7) times the original's are kept. See `Mutator` for the other arguments.

    When `attribute` names a registered kind that is not mt-nlp's (your dictionary,
    `pytest_fairness.perturb.register_dictionary`), that kind's perturbations are returned
    instead, and the mt-nlp options must be left at their defaults.
    """
    other = _other_kind(attribute, fluency=fluency, min_ratio=min_ratio, graph=graph,
                        vectors=vectors, kinds=kinds, candidates=candidates)
    if other is not None:
        return other.perturb_many([text], nlp=nlp)[0]
    mutator = Mutator(
        attribute,
        graph=graph,
        vectors=vectors,
        kinds=kinds,
        candidates=candidates,
        fluency=fluency,
        min_ratio=min_ratio,
    )
    return mutator.mutate(text, nlp=nlp)


def mutations_many(
    texts: Iterable[str],
    attribute: str,
    *,
    fluency: FluencyScorer | None = None,
    min_ratio: float | None = None,
    graph: KnowledgeGraph | None = None,
    vectors: VectorsLike | None = None,
    nlp: Any = None,
    kinds: Iterable[MutationKind] = KINDS,
    candidates: int = 1,
    batch_size: int = 256,
) -> list[list[Perturbation]]:
    """`mutations` of many texts, one list per text, in order (mt-nlp Algorithm 2).

    Parsed with ``nlp.pipe`` in batches of `batch_size`; every Doc is shared by the
    mutators, and the graph, vector and fluency lookups are batched (module docstring).
    A registered kind other than mt-nlp's is used as in `mutations`.
    """
    other = _other_kind(attribute, fluency=fluency, min_ratio=min_ratio, graph=graph,
                        vectors=vectors, kinds=kinds, candidates=candidates)
    if other is not None:
        return other.perturb_many(texts, nlp=nlp, batch_size=batch_size)
    mutator = Mutator(
        attribute,
        graph=graph,
        vectors=vectors,
        kinds=kinds,
        candidates=candidates,
        fluency=fluency,
        min_ratio=min_ratio,
    )
    return list(mutator.mutate_many(texts, nlp=nlp, batch_size=batch_size))


def _other_kind(attribute: object, **options: object) -> PerturbationKind | None:
    """The kind registered under `attribute` when it is not mt-nlp's (a dictionary), else
    None; `ConfigurationError` when mt-nlp `options` differ from their defaults for it."""
    from .kinds import KIND_REGISTRY

    if not isinstance(attribute, str):
        return None
    kind = KIND_REGISTRY.find(attribute)
    if kind is None or isinstance(kind, MutationsKind):
        return None
    given = [name for name, value in options.items() if not _is_default(name, value)]
    if given:
        raise ConfigurationError(
            f"{', '.join(given)} configure mt-nlp's mutations, but {attribute!r} is "
            f"{kind.description}; leave them out, or register the attribute's mt-nlp "
            "mutations under another name"
        )
    return kind


def _is_default(option: str, value: object) -> bool:
    """Whether `value` is the default of the mt-nlp `option` of `mutations`."""
    if option == "kinds":
        return isinstance(value, Iterable) and tuple(value) == tuple(KINDS)
    if option == "candidates":
        return value == 1
    return value is None


class MutationsKind(PerturbationKind):
    """mt-nlp's perturbation set S (section 2.1, Algorithm 2) as a perturbation kind.

    With an `attribute`, S of that attribute: AnalogyMutate (Algorithm 3) and
    ActiveMutate (Algorithm 4) of every person noun, plus the gender swap for "gender",
    from one parse per text shared by the three mutators, with the graph, vector and
    fluency look-ups batched (`Mutator.mutate_many`). The options are those of `Mutator`;
    the `Mutator` is built on first use and kept, so its caches serve every later call.

    Without an `attribute` it is the unbound entry "mt-nlp" of the kind registry: it
    perturbs nothing itself, and `bind` gives the kind of each attribute the graph knows
    (`pytest_fairness.perturb.kinds.find_kind` asks it for names no kind is registered
    under).
    """

    needs_parse = True

    def __init__(
        self,
        attribute: str | None = None,
        *,
        graph: KnowledgeGraph | None = None,
        vectors: VectorsLike | None = None,
        kinds: Iterable[MutationKind] = KINDS,
        candidates: int = 1,
        fluency: FluencyScorer | None = None,
        min_ratio: float | None = None,
    ) -> None:
        super().__init__(MT_NLP if attribute is None else attribute)
        check_int(candidates, "candidates", minimum=1)
        if min_ratio is not None:
            check_number(min_ratio, "min_ratio", minimum=0)
        self.bound = attribute is not None
        """False for the "mt-nlp" entry, which serves attributes through `bind`."""
        self.graph = graph
        self.vectors = vectors
        self.kinds = _check_kinds(kinds)
        self.candidates = candidates
        self.fluency = fluency
        self.min_ratio = min_ratio
        self._mutator: Mutator | None = None
        self._by_attribute: dict[str, MutationsKind | None] = {}
        self._lock = threading.Lock()

    @property
    def description(self) -> str:
        if not self.bound:
            return "the mt-nlp mutations of any attribute of the knowledge graph"
        return f"{self.attribute} mutations (perturb.mutations)"

    @property
    def hint(self) -> str:
        return (
            "mt-nlp mutates nouns that name a person, section 2.1: use texts about people, "
            "or check the attribute"
        )

    def configured(
        self,
        *,
        graph: KnowledgeGraph | None = None,
        vectors: VectorsLike | None = None,
        kinds: Iterable[MutationKind] | None = None,
        candidates: int | None = None,
        fluency: FluencyScorer | None = None,
        min_ratio: float | None = None,
    ) -> MutationsKind:
        """A new kind for the same attribute with the given options (None: keep this one's)."""
        return MutationsKind(
            self.attribute if self.bound else None,
            graph=self.graph if graph is None else graph,
            vectors=self.vectors if vectors is None else vectors,
            kinds=self.kinds if kinds is None else kinds,
            candidates=self.candidates if candidates is None else candidates,
            fluency=self.fluency if fluency is None else fluency,
            min_ratio=self.min_ratio if min_ratio is None else min_ratio,
        )

    def bind(self, attribute: str) -> MutationsKind | None:
        """The mutations of `attribute` with this kind's options, or None when the
        knowledge graph knows no subpopulations of it (mt-nlp Algorithms 3 and 4, line 2).

        Reads the graph on first use; one kind per attribute is kept. A bound kind binds
        only its own attribute.
        """
        if self.bound:
            return self if attribute == self.attribute else None
        with self._lock:
            if attribute not in self._by_attribute:
                graph = resolve_graph(self.graph)
                self._by_attribute[attribute] = (
                    MutationsKind(
                        attribute, graph=graph, vectors=self.vectors, kinds=self.kinds,
                        candidates=self.candidates, fluency=self.fluency,
                        min_ratio=self.min_ratio,
                    )
                    if graph.subpopulations(attribute)
                    else None
                )
            return self._by_attribute[attribute]

    def mutator(self) -> Mutator:
        """The `Mutator` behind this kind, built on first use."""
        if not self.bound:
            raise ConfigurationError(
                f"the {MT_NLP!r} kind makes the mt-nlp mutations of an attribute of the "
                "knowledge graph: ask for the attribute by name (attribute='religion'), "
                f"not for {MT_NLP!r}"
            )
        with self._lock:
            if self._mutator is None:
                self._mutator = Mutator(
                    self.attribute, graph=self.graph, vectors=self.vectors, kinds=self.kinds,
                    candidates=self.candidates, fluency=self.fluency, min_ratio=self.min_ratio,
                )
            return self._mutator

    def prepare(self, docs: Sequence[Any]) -> None:
        """One graph (and vector) look-up for every person lemma of `docs`."""
        self.mutator().prepare(docs)

    def perturb(self, text: str, doc: Any) -> list[Perturbation]:
        """S of one parsed text, fluency-filtered when the kind has a scorer."""
        mutator = self.mutator()
        return mutator.filter([text], [mutator.mutate_doc(doc)])[0]

    def perturb_many(
        self, texts: Iterable[str], *, nlp: Any = None, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[list[Perturbation]]:
        """S of each text (`Mutator.mutate_many`: one parse per text, batched look-ups and
        fluency scores)."""
        items = check_texts(texts)
        return list(self.mutator().mutate_many(items, nlp=nlp, batch_size=batch_size))
