"""Model-level analyses: input coercion, scoring through the cache, PSA over a corpus."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import pytest_fairness as pf
from pytest_fairness import checks as analysis
from pytest_fairness import perturb
from pytest_fairness.checks import psa as psa_module
from pytest_fairness.metrics import psa_from_scores
from pytest_fairness.models.classifiers import scoring, thresholds
from pytest_fairness.perturb import coerce
from pytest_fairness.types import Case, Perturbation, Span

SENTENCES = [
    "He is a doctor.",
    "I met her at the station.",
    "She said it was fine.",
    "They left early.",
    "His book is red.",
    "I talked to him yesterday.",
    "Mary talked to herself on the stairs.",
    "Her idea was good.",
    "The plan worked well.",
    "He thinks the food is awful.",
]
NAMES = ["Alice", "Bob", "Carol"]


def planted(texts: Sequence[str]) -> list[float]:
    """A toxicity-like score that jumps when the name Alice is present."""
    return [
        (0.85 if "Alice" in t else 0.2) + (0.1 if "awful" in t else 0.0) for t in texts
    ]


def fair(texts: Sequence[str]) -> list[float]:
    """Depends on a content word only."""
    return [0.7 if "awful" in t else 0.3 for t in texts]


# --------------------------------------------------------------------------- coercion


def test_perturbation_from_texts_marks_the_changed_words() -> None:
    p = coerce.perturbation_from_texts("He is a doctor.", "Alice is a doctor.")
    assert p.original_spans == (Span(0, 2, "He"),)
    assert p.perturbed_spans == (Span(0, 5, "Alice"),)
    assert p.from_words == ("He",)
    assert p.to_words == ("Alice",)


def test_perturbation_from_texts_handles_an_insertion() -> None:
    p = coerce.perturbation_from_texts("I saw the doctor.", "I saw the female doctor.")
    assert p.perturbed_spans == (Span(10, 16, "female"),)
    assert p.original_spans[0].start == p.original_spans[0].end == 10


def test_identical_texts_are_a_configuration_error() -> None:
    with pytest.raises(pf.ConfigurationError, match="identical"):
        coerce.perturbation_from_texts("same", "same")


def test_coerce_cases_accepts_what_users_have() -> None:
    swap = perturb.gender_swap("He is a good man.")
    assert swap is not None
    one = coerce.coerce_cases("He left.", "She left.")
    alice = Perturbation(
        "He left.", "Alice left.", (Span(0, 2, "He"),), (Span(0, 5, "Alice"),), "name", "name"
    )
    many = coerce.coerce_cases("He left.", ["She left.", alice])
    assert [len(c.perturbations) for c in one + many] == [1, 2]
    assert coerce.coerce_cases(swap)[0].original == "He is a good man."
    assert coerce.coerce_cases(Case(swap.original, (swap,)))[0].perturbed == (swap.perturbed,)
    grouped = coerce.coerce_cases([swap, swap])
    assert len(grouped) == 1
    assert len(grouped[0].perturbations) == 2


@pytest.mark.parametrize(
    ("original", "perturbed", "message"),
    [
        ("He left.", None, "tests nothing"),
        ("He left.", [], "no perturbed texts"),
        ("He left.", "He left.", "identical"),
        ([], None, "empty"),
        (Case("He left."), None, "no perturbations"),
        (Case("He left."), "She left.", "perturbed= goes with"),
        ([1, 2], None, "expected Cases or Perturbations"),
        (3, None, "expected a text"),
        ("He left.", [3], "must be a str or a Perturbation"),
    ],
)
def test_coerce_cases_rejects_bad_input(original: object, perturbed: object, message: str) -> None:
    with pytest.raises(pf.ConfigurationError, match=message):
        coerce.coerce_cases(original, perturbed)


def test_a_perturbation_of_another_text_is_rejected() -> None:
    swap = perturb.gender_swap("He left.")
    assert swap is not None
    with pytest.raises(pf.ConfigurationError, match="must start from the text"):
        coerce.coerce_cases("Something else.", [swap])


def test_resolve_perturber_needs_a_source() -> None:
    with pytest.raises(pf.ConfigurationError, match="attribute="):
        coerce.resolve_perturber()
    with pytest.raises(pf.ConfigurationError, match="callable"):
        coerce.resolve_perturber(42)  # type: ignore[arg-type]
    resolved = coerce.resolve_perturber(lambda t: [t.replace("He", "She")] * 2)
    assert [p.perturbed for p in resolved.one("He left.")] == ["She left."]  # deduplicated


def test_a_perturber_returning_the_text_itself_is_rejected() -> None:
    resolved = coerce.resolve_perturber(lambda t: [t])
    with pytest.raises(pf.ConfigurationError, match="identical"):
        resolved.one("He left.")


# --------------------------------------------------------------------------- thresholds


def test_decision_threshold_follows_the_model() -> None:
    score_model = pf.as_model(planted)
    proba_model = pf.as_model(lambda ts: [[0.2, 0.3, 0.5] for _ in ts])
    scoring.score_texts(score_model, ["x"])
    scoring.score_texts(proba_model, ["x"])
    assert thresholds.decision_threshold(score_model, None) == 0.5
    assert thresholds.decision_threshold(proba_model, None) is None
    polar = pf.as_model(lambda ts: [0.0 for _ in ts], score_range=(-1.0, 1.0))
    scoring.score_texts(polar, ["x"])
    assert thresholds.decision_threshold(polar, None) == 0.0  # 0.5 of the way through [-1, 1]
    with pytest.raises(pf.ConfigurationError, match="outside the model's score range"):
        thresholds.decision_threshold(score_model, 1.5)
    with pytest.raises(pf.ConfigurationError, match="3 labels"):
        thresholds.decision_threshold(proba_model, 0.5)


# --------------------------------------------------------------------------- invariance


def test_invariance_finds_the_discriminatory_pairs() -> None:
    found = analysis.invariance(
        planted, "He is a doctor.", ["Alice is a doctor.", "Bob is a doctor."]
    )
    assert len(found.pairs) == 2
    assert [p.perturbation.perturbed for p in found.discriminatory] == ["Alice is a doctor."]
    assert found.max_abs_shift == pytest.approx(0.65)
    assert found.threshold == 0.5


def test_invariance_of_a_multiclass_model_uses_argmax() -> None:
    def three(texts: Sequence[str]) -> list[list[float]]:
        return [[0.1, 0.2, 0.7] if "Alice" in t else [0.6, 0.3, 0.1] for t in texts]

    model = pf.as_model(three, labels=("neg", "neu", "pos"))
    found = analysis.invariance(model, "He left.", ["Alice left.", "Bob left."])
    [bad] = found.discriminatory
    assert (bad.original_label, bad.perturbed_label) == ("neg", "pos")
    assert found.threshold is None


# --------------------------------------------------------------------------- counterfactual


def test_counterfactual_skips_texts_without_gendered_words() -> None:
    def by_she(texts: Sequence[str]) -> list[float]:
        return [0.9 if "She" in t or "she" in t else 0.1 for t in texts]

    found = analysis.counterfactual(by_she, ["He is a doctor.", "The plan worked well."])
    assert found.n_texts == 2
    assert found.n_without_counterfactual == 1
    assert found.result.mean == pytest.approx(1.6)  # L1 over [1 - p, p]: 2 * 0.8
    with pytest.raises(pf.ConfigurationError, match="none of the 1 texts"):
        analysis.counterfactual(by_she, ["The plan worked well."])
    with pytest.raises(pf.ConfigurationError, match="empty"):
        analysis.counterfactual(by_she, [])
    with pytest.raises(pf.ConfigurationError, match="not one string"):
        analysis.counterfactual(by_she, "He left.")


# --------------------------------------------------------------------------- PSA


def test_psa_on_a_corpus_equals_psa_from_scores_on_the_same_scores() -> None:
    model = pf.as_model(planted)
    anchors = pf.Corpus(SENTENCES).anchored(balance_gender=False)
    kept = [a for a in anchors if perturb.names([a], NAMES)]  # reflexives are skipped
    original = model.score([a.text for a in kept])
    perturbed = np.array([model.score([p.perturbed for p in perturb.names([a], NAMES)])
                          for a in kept])
    expected = psa_from_scores(original, perturbed, NAMES)
    for chunk_size in (3, 2000):
        got = pf_psa(model, pf.Corpus(SENTENCES), chunk_size=chunk_size)
        assert got.n_sentences == expected.n_sentences == len(kept)
        assert got.score_sens == pytest.approx(expected.score_sens)
        assert got.score_dev == pytest.approx(expected.score_dev)
        assert got.score_range == pytest.approx(expected.score_range)
        assert got.shift_correlation == pytest.approx(expected.shift_correlation)
        for t in (0.1, 0.5, 0.9):
            assert got.label_dist(t) == pytest.approx(expected.label_dist(t))
    assert expected.score_sens["Alice"] == pytest.approx(0.65)


def pf_psa(model: object, source: object, **kw: object) -> pf.metrics.PSAResult:
    return psa_module.psa(model, source, NAMES, balance_gender=False, **kw)  # type: ignore[arg-type]


def test_psa_accepts_texts_and_anchors_and_scores_through_the_cache() -> None:
    model = pf.as_model(planted)
    from_texts = pf_psa(model, SENTENCES)
    scored = model.stats.unique_scored
    from_anchors = pf_psa(model, pf.Corpus(SENTENCES).anchored(balance_gender=False))
    assert from_anchors.score_sens == from_texts.score_sens
    assert model.stats.unique_scored == scored  # everything came from the cache


def test_with_the_cache_off_each_text_reaches_the_model_once() -> None:
    seen: list[str] = []

    def counting(texts: list[str]) -> list[float]:
        seen.extend(texts)
        return planted(texts)

    model = pf.as_model(counting, output="score", cache_size=0)
    pf_psa(model, SENTENCES)
    assert seen
    assert len(seen) == len(set(seen))  # probabilities and scores come from one pass
    assert model.stats.cache_hits == 0


def test_psa_skips_reflexive_anchors() -> None:
    run = psa_module.psa_run(planted, SENTENCES, NAMES, balance_gender=False, keep_anchors=True)
    # a reflexive is not an anchor (issue 15): "Mary talked to herself" has none
    assert run.n_without_perturbation == 0
    assert run.anchors is not None
    assert all(a.role != "reflexive" for a in run.anchors)
    assert "Mary talked to herself on the stairs." not in [a.text for a in run.anchors]


def test_psa_takes_the_model_score_range() -> None:
    def polarity(texts: Sequence[str]) -> list[float]:
        return [-0.8 if "Alice" in t else 0.4 for t in texts]

    result = pf_psa(pf.as_model(polarity, score_range=(-1.0, 1.0)), SENTENCES)
    assert result.score_bounds == (-1.0, 1.0)
    assert result.score_sens["Alice"] == pytest.approx(-1.2)


@pytest.mark.parametrize(
    ("source", "names", "message"),
    [
        ([], NAMES, "empty"),
        (SENTENCES, [], "names is empty"),
        (SENTENCES, "Alice", "list of names"),
        (SENTENCES, ["Alice", "Alice"], "unique"),
        (SENTENCES, ["Alice", ""], "non-empty"),
        ([1, 2], NAMES, "expected texts or Anchors"),
        (["The plan worked well."], NAMES, "anchor"),
        (["Mary talked to herself."], NAMES, "reflexives are not anchors"),
    ],
)
def test_psa_rejects_bad_input(source: object, names: object, message: str) -> None:
    with pytest.raises(pf.ConfigurationError, match=message):
        psa_module.psa(planted, source, names, balance_gender=False)  # type: ignore[arg-type]


def test_psa_rejects_a_bad_chunk_size_and_threshold() -> None:
    with pytest.raises(pf.ConfigurationError, match="chunk_size"):
        psa_module.psa(planted, SENTENCES, NAMES, chunk_size=0)
    with pytest.raises(pf.ConfigurationError, match="outside the score range"):
        psa_module.psa_run(planted, SENTENCES, NAMES, threshold=2.0)


def test_name_groups_come_from_the_census_lists() -> None:
    assert psa_module.name_groups(["Alice", "Bob", "Zorblax"]) == {
        "Alice": "female (US Census 1990)", "Bob": "male (US Census 1990)", "Zorblax": None
    }


def test_psa_streams_a_file_a_generator_and_a_list_alike(tmp_path: object) -> None:
    from pathlib import Path

    texts = [f"{s[:-1]} on day {i}." for i in range(12) for s in SENTENCES]
    path = Path(str(tmp_path)) / "corpus.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    model = pf.as_model(planted)
    expected = psa_module.psa(model, texts, NAMES, seed=1, chunk_size=40)
    for source in (path, pf.Corpus(path), (t for t in texts), pf.Corpus(iter(texts))):
        got = psa_module.psa(model, source, NAMES, seed=1, chunk_size=40)
        assert got.n_sentences == expected.n_sentences
        assert got.score_sens == pytest.approx(expected.score_sens)
        assert got.worst_pairs == expected.worst_pairs
    anchors = pf.Corpus(texts).anchored(balance_gender=False)
    from_iterator = psa_module.psa(model, iter(anchors), NAMES, balance_gender=False)
    assert from_iterator.score_sens == pytest.approx(
        psa_module.psa(model, anchors, NAMES, balance_gender=False).score_sens
    )
    with pytest.raises(pf.ConfigurationError, match="not a mix; item 1"):
        psa_module.psa(model, iter([anchors[0], "He left."]), NAMES)
    with pytest.raises(pf.ConfigurationError, match="empty"):
        psa_module.psa(model, iter([]), NAMES)


def test_a_streamed_run_keeps_only_the_anchors_of_the_worst_cases() -> None:
    texts = [f"{s[:-1]} on day {i}." for i in range(30) for s in SENTENCES]
    run = psa_module.psa_run(planted, texts, NAMES, balance_gender=False, top_n=3,
                           chunk_size=20, threshold=0.5)
    assert run.anchors is None
    assert run.n_flips > 3
    assert 0 < len(run.shown_anchors) <= 3 * 3
    for pair in run.result.worst_pairs:  # what the report shows can still be rebuilt
        assert run.perturbation(pair.index, pair.name).original == pair.key
    for _, index, j, _, _ in run.worst_flips:
        assert NAMES[j] in run.perturbation(index, NAMES[j]).perturbed
    missing = next(i for i in range(run.result.n_sentences) if i not in run.shown_anchors)
    with pytest.raises(pf.ConfigurationError, match="keep_anchors=True"):
        run.perturbation(missing, "Alice")
    kept = psa_module.psa_run(planted, texts, NAMES, balance_gender=False, keep_anchors=True)
    assert kept.anchors is not None
    assert len(kept.anchors) == kept.result.n_sentences
    assert kept.anchor(missing).text == kept.anchors[missing].text
