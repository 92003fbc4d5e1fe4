"""Rows put back in the caller's order however they were scored (issue 31): texts sorted
by length for transformers, many batches, cache hits, duplicates, a request larger than
the cache, a model failing midway; and the bounded count of distinct texts scored."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from _tiny_models import WORDS, build_tiny_bert
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.errors import ModelCallError
from pytest_fairness.models.classifiers.distinct import DistinctCount, hashes


def by_text(texts: list[str]) -> np.ndarray:
    """A deterministic score of each text on its own: its position in the batch cannot
    leak into it."""
    return np.array([(sum(map(ord, t)) % 997) / 996.0 for t in texts])


class Recorder:
    def __init__(self, fail_at: int | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail_at = fail_at

    def __call__(self, texts: list[str]) -> np.ndarray:
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise RuntimeError("the model fell over")
        self.calls.append(list(texts))
        return by_text(texts)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=12), min_size=0, max_size=120),
    st.integers(1, 17),
    st.lists(st.integers(0, 119), max_size=40),
)
def test_rows_follow_the_callers_order_whatever_the_batches_hits_and_repeats(
    pool: list[str], batch_size: int, first: list[int]
) -> None:
    model = pf.as_model(Recorder(), output="score", batch_size=batch_size)
    texts = [pool[i % len(pool)] for i in first] if pool else []
    model.score(texts)  # some texts in the cache first
    asked = pool + pool[::2]  # repeats too
    assert np.array_equal(model.score(asked), by_text(asked))


def test_many_batches_past_the_old_slow_path_give_the_rows_of_one_call() -> None:
    n = 70_000  # more than MAX_BATCH: two calls
    texts = [f"sentence {i}" for i in range(n)]
    recorder = Recorder()
    model = pf.as_model(recorder, output="score")
    model.score(texts[::3])  # a third from the cache
    mixed = [*texts, *texts[:500]]
    assert np.array_equal(model.score(mixed), by_text(mixed))
    assert sum(len(c) for c in recorder.calls) == n  # each text scored once


def test_a_request_larger_than_the_cache_leaves_its_last_texts_cached() -> None:
    recorder = Recorder()
    model = pf.as_model(recorder, output="score", batch_size=100, cache_size=250)
    texts = [f"t{i}" for i in range(1000)]
    model.score(texts)
    info = model.cache_info()["memory"]
    assert info["entries"] == 250
    recorder.calls.clear()
    model.score(texts[-250:])
    assert recorder.calls == []  # the most recent 250 were kept
    model.score(texts[-251:-250])
    assert recorder.calls == [[texts[-251]]]


def test_batches_scored_before_a_failure_stay_cached_even_past_the_cache_size() -> None:
    recorder = Recorder(fail_at=6)
    model = pf.as_model(recorder, output="score", batch_size=100, cache_size=250)
    texts = [f"t{i}" for i in range(1000)]
    with pytest.raises(ModelCallError, match="fell over"):
        model.score(texts)
    assert model.cache_info()["memory"]["entries"] == 250
    recorder.calls.clear()
    recorder.fail_at = None
    model.score(texts[350:600])  # the last 250 of the 600 scored before the failure
    assert recorder.calls == []


# ------------------------------------------------------------------ length order


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("transformers")
    tiny = build_tiny_bert(tmp_path_factory.mktemp("bert"))
    tiny.model.eval()
    return tiny


def sentences(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 25))) for _ in range(n)]


def alone(tiny: Any, texts: list[str]) -> np.ndarray:
    """Each text through the model on its own: no padding at all."""
    import torch

    rows = []
    with torch.no_grad():
        for text in texts:
            logits = tiny.model(**tiny.tokenizer([text], return_tensors="pt")).logits
            rows.append(torch.softmax(logits, dim=-1)[0].numpy())
    return np.array(rows, dtype=np.float64)


def test_a_transformer_gets_batches_of_like_length_and_rows_in_the_order_asked(bert: Any) -> None:
    texts = sentences(300)
    texts += texts[:40]  # duplicates
    batches: list[list[str]] = []
    tokenizer = bert.tokenizer

    class Watching:  # the real tokenizer, recording each padded batch
        model_max_length = tokenizer.model_max_length

        def __call__(self, batch: list[str], **kwargs: Any) -> Any:
            if kwargs.get("padding"):
                batches.append(list(batch))
            return tokenizer(batch, **kwargs)

    model = pf.as_model((bert.model, Watching()), batch_size=32)
    proba = model.predict_proba(texts)
    np.testing.assert_allclose(proba, alone(bert, texts), atol=1e-6)
    sent = [t for batch in batches for t in batch]
    assert sorted(sent) == sorted(dict.fromkeys(texts))  # each distinct text once
    counts = [len(tokenizer(t)["input_ids"]) for t in sent]
    assert counts == sorted(counts)  # shortest first, by tokens
    n = len(dict.fromkeys(texts))
    assert [len(b) for b in batches] == [32] * (n // 32) + [n % 32]
    # the unsorted path (one text a batch, in the caller's order) agrees with it
    unsorted = pf.as_model((bert.model, tokenizer), batch_size=1, cache_size=0)
    np.testing.assert_allclose(unsorted.predict_proba(texts), proba, atol=1e-6)


def test_token_counts_fall_back_to_characters_for_a_tokenizer_that_cannot_count() -> None:
    from pytest_fairness.models.classifiers.hf import token_counts

    def broken(texts: list[str], **kwargs: Any) -> Any:
        raise TypeError("not a transformers tokenizer")

    assert token_counts(broken, ["ab", "abcd"], None) == [2, 4]


def test_one_batch_is_not_reordered_and_equals_the_raw_model(bert: Any) -> None:
    """A request of one batch goes as it came: the logits are the raw call's, bit for
    bit, so the probabilities agree to float64 rounding of the same softmax."""
    import torch
    from scipy.special import softmax

    texts = sentences(20, seed=1)
    model = pf.as_model((bert.model, bert.tokenizer), batch_size=64)
    with torch.no_grad():
        encoded = bert.tokenizer(texts, padding=True, truncation=True, return_tensors="pt")
        logits = bert.model(**encoded).logits.double().numpy()
    np.testing.assert_allclose(model.predict_proba(texts), softmax(logits, axis=1),
                               rtol=0, atol=1e-15)


def test_a_pipeline_sorts_too_and_keeps_the_order(bert: Any) -> None:
    texts = sentences(150, seed=2)
    sorted_rows = pf.as_model(bert.pipeline, batch_size=16).predict_proba(texts)
    one_by_one = pf.as_model(bert.pipeline, batch_size=1, cache_size=0).predict_proba(texts)
    np.testing.assert_allclose(sorted_rows, one_by_one, atol=1e-6)


# ------------------------------------------------------------------ distinct count


def test_the_count_is_exact_below_the_bound_and_counts_repeats_once() -> None:
    counter = DistinctCount(exact=1000)
    assert counter.add(["a", "b", "a"]) == 2
    assert counter.add(["b", "c"]) == 1
    assert counter.count == 3
    assert counter.exact


@pytest.mark.parametrize("n", [5_000, 60_000, 300_000])
def test_past_the_bound_the_sketch_is_within_three_standard_errors(n: int) -> None:
    counter = DistinctCount(exact=2_000)
    items = [f"text {i}" for i in range(n)]
    for start in range(0, n, 7_000):
        chunk = items[start:start + 7_000]
        counter.add(chunk)
        counter.add(chunk[:100])  # repeats move nothing (much)
    assert not counter.exact
    assert abs(counter.count - n) <= 3 * 0.0081 * n + 5


def test_the_count_never_decreases_and_its_memory_is_bounded() -> None:
    counter = DistinctCount(exact=100)
    last = 0
    for i in range(0, 50_000, 1_000):
        counter.add([f"x{j}" for j in range(i, i + 1_000)])
        assert counter.count >= last
        last = counter.count
    assert counter._hashes is None  # the set of hashes is gone
    assert counter._registers is not None
    assert counter._registers.nbytes == 16_384


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text(max_size=4), max_size=30), max_size=12))
def test_below_the_bound_the_count_is_that_of_a_set(requests: list[list[str]]) -> None:
    """The exact count (a sorted array of hashes, hashes given or computed) agrees with a
    set of the texts after every request."""
    counter = DistinctCount(exact=10_000)
    seen: set[str] = set()
    for i, texts in enumerate(requests):
        added = counter.add(texts) if i % 2 else counter.add_hashes(hashes(texts))
        assert added == len(set(texts) - seen)
        seen.update(texts)
        assert counter.count == len(seen)


def test_repeats_and_cache_hits_are_not_counted_again_by_the_adapter() -> None:
    recorder = Recorder()
    model = pf.as_model(recorder, output="score", batch_size=7)
    texts = [f"r{i}" for i in range(50)]
    model.score([*texts[:20], *texts[:20]])
    model.score(texts)  # 20 from the cache, 30 scored
    assert model.stats.unique_scored == 50
    assert model.stats.cache_hits == 20
    assert sum(len(c) for c in recorder.calls) == 50


def test_the_adapter_counts_distinct_texts_past_the_exact_bound() -> None:
    model = pf.as_model(Recorder(), output="score", cache_size=0)
    texts = [f"s{i}" for i in range(150_000)]
    model.score(texts)
    model.score(texts[:50_000])  # scored again (no cache): not new
    assert abs(model.stats.unique_scored - 150_000) <= 3 * 0.0081 * 150_000


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=6), min_size=1, max_size=80), st.integers(0, 3))
def test_repeats_found_by_hash_give_each_caller_its_row_even_when_hashes_clash(
        texts: list[str], buckets: int) -> None:
    """Repeats are found from the texts' hashes; with hashes forced to clash (`buckets`
    values for every text, 0: real hashes) equal hashes are told apart by the texts, and
    each text is still scored once and given its own row."""
    import pytest_fairness.models.classifiers.base as base

    real = base.hashes
    recorder = Recorder()
    model = pf.as_model(recorder, output="score", cache_size=0)
    if buckets:
        base.hashes = lambda items: np.array([len(t) % buckets for t in items],  # type: ignore[assignment]
                                             dtype=np.int64)
    try:
        got = model.score(texts)
    finally:
        base.hashes = real
    assert np.array_equal(got, by_text(texts))
    assert sorted(t for call in recorder.calls for t in call) == sorted(set(texts))


class PlainTextModel:
    """A `TextModel` that is not an adapter: counts the texts it is asked to score."""

    labels = ("neg", "pos")

    def __init__(self) -> None:
        self.asked: list[str] = []

    def predict_proba(self, texts: list[str]) -> np.ndarray:
        s = by_text(texts)
        return np.column_stack([1 - s, s])

    def score(self, texts: list[str]) -> np.ndarray:
        self.asked += texts
        return by_text(texts)


def test_score_table_gives_each_row_its_scores_by_position() -> None:
    from pytest_fairness.models.classifiers.scoring import score_table

    rows = [["a", "b", "c"], ["d", "b", "e"], ["a", "f", "g"]]  # repeats across rows
    expected = np.array([by_text(row) for row in rows])
    recorder = Recorder()
    adapter = pf.as_model(recorder, output="score")
    assert np.array_equal(score_table(adapter, rows), expected)
    assert sorted(t for call in recorder.calls for t in call) == list("abcdefg")  # once each
    plain = PlainTextModel()
    assert np.array_equal(score_table(plain, rows), expected)
    assert sorted(plain.asked) == list("abcdefg")
    assert score_table(adapter, []).shape == (0, 0)
    with pytest.raises(ValueError, match="one width"):
        score_table(adapter, [["a"], ["b", "c"]])
