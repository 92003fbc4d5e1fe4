"""The persistent prediction cache: across sessions, keyed by fingerprint and adapter
options, safe when damaged, and shared by processes writing at once."""

from __future__ import annotations

import contextvars
import sqlite3
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.context import SessionState
from pytest_fairness.context import TestState as _TestState
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models.classifiers.cache import (
    CacheWarning,
    DiskCache,
    PredictionCache,
    cache_file,
    close_disk_caches,
    open_disk_cache,
)
from pytest_fairness.settings import Settings

TEXTS = ["he is good", "she is bad", "they left", "a doctor stayed home"]


class Recorder:
    """A model that records every batch it is called with; `scale` changes its outputs."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        p = [min(len(t), 40) / 40 * self.scale for t in texts]
        return [[1.0 - v, v] for v in p]

    @property
    def scored(self) -> int:
        return sum(len(c) for c in self.calls)


@pytest.fixture(autouse=True)
def _closed_stores() -> Iterator[None]:
    yield
    close_disk_caches()


def in_new_session(fn: Any, settings: Settings | None = None) -> Any:
    """Run `fn` as one test of a fresh pytest-like session (own memory caches)."""

    def run() -> Any:
        state = SessionState(settings=settings or Settings())
        with recording.session_scope(state), recording.test_scope(_TestState("t", state.settings)):
            return fn()

    return contextvars.Context().run(run)


def test_predictions_persist_across_sessions(tmp_path: Path) -> None:
    first, second = Recorder(), Recorder()

    def score(model_fn: Recorder) -> tuple[Any, Any]:
        model = pf.as_model(model_fn, fingerprint="toy-v1", cache_dir=tmp_path)
        return model.predict_proba(TEXTS), model

    expected, model1 = in_new_session(lambda: score(first))
    assert first.scored == len(TEXTS)
    assert model1.cache_info()["disk"]["writes"] >= len(TEXTS)

    again, model2 = in_new_session(lambda: score(second))
    assert second.calls == []  # every row came from the file
    np.testing.assert_array_equal(again, expected)
    assert again.dtype == np.float64
    assert model2.stats.cache_hits == len(TEXTS)
    assert model2.stats.unique_scored == 0
    assert list(tmp_path.glob("*.sqlite")) == [cache_file(tmp_path, "toy-v1")]


def test_settings_cache_dir_is_used_when_no_argument_is_given(tmp_path: Path) -> None:
    settings = Settings(cache_dir=str(tmp_path))
    first, second = Recorder(), Recorder()
    in_new_session(lambda: pf.as_model(first, fingerprint="fp").score(TEXTS), settings)
    in_new_session(lambda: pf.as_model(second, fingerprint="fp").score(TEXTS), settings)
    assert first.scored == len(TEXTS)
    assert second.calls == []


def test_a_new_fingerprint_starts_a_new_cache(tmp_path: Path) -> None:
    old, new = Recorder(), Recorder(scale=0.5)
    in_new_session(lambda: pf.as_model(old, fingerprint="v1", cache_dir=tmp_path).score(TEXTS))
    got = in_new_session(
        lambda: pf.as_model(new, fingerprint="v2", cache_dir=tmp_path).score(TEXTS)
    )
    assert new.scored == len(TEXTS)
    np.testing.assert_allclose(got, [min(len(t), 40) / 40 * 0.5 for t in TEXTS])
    assert len(list(tmp_path.glob("*.sqlite"))) == 2


def test_adapter_options_are_part_of_the_key(tmp_path: Path) -> None:
    def polarity(texts: list[str]) -> list[float]:
        return [0.5 for _ in texts]

    calls: list[int] = []

    def counted(texts: list[str]) -> list[float]:
        calls.append(len(texts))
        return polarity(texts)

    in_new_session(lambda: pf.as_model(counted, fingerprint="p", cache_dir=tmp_path).score(TEXTS))
    in_new_session(
        lambda: pf.as_model(
            counted, fingerprint="p", cache_dir=tmp_path, score_range=(-1.0, 1.0)
        ).predict_proba(TEXTS)
    )
    assert calls == [len(TEXTS), len(TEXTS)]  # a different score_range is scored again


def test_a_model_without_fingerprint_is_never_persisted(tmp_path: Path) -> None:
    settings = Settings(cache_dir=str(tmp_path))  # the run's --fairness-cache-dir
    first, second = Recorder(), Recorder()
    in_new_session(lambda: pf.as_model(first).score(TEXTS), settings)
    in_new_session(lambda: pf.as_model(second).score(TEXTS), settings)
    assert second.scored == len(TEXTS)
    assert list(tmp_path.iterdir()) == []
    # asked for by the model itself, a cache directory without a fingerprint is refused
    # (issue 14: it used to be ignored in silence)
    with pytest.raises(ConfigurationError, match="fingerprint="):
        pf.as_model(first, cache_dir=tmp_path)


def test_no_cache_also_turns_the_disk_off(tmp_path: Path) -> None:
    settings = Settings(cache_dir=str(tmp_path), no_cache=True)
    first, second = Recorder(), Recorder()
    in_new_session(lambda: pf.as_model(first, fingerprint="fp").score(TEXTS), settings)
    in_new_session(lambda: pf.as_model(second, fingerprint="fp").score(TEXTS), settings)
    assert second.scored == len(TEXTS)
    assert list(tmp_path.iterdir()) == []


def test_a_cache_size_of_zero_for_the_run_also_turns_the_disk_off(tmp_path: Path) -> None:
    settings = Settings(cache_dir=str(tmp_path), cache_size=0)
    model = Recorder()
    in_new_session(lambda: pf.as_model(model, fingerprint="fp").score(TEXTS), settings)
    assert list(tmp_path.iterdir()) == []


def test_a_text_sqlite_cannot_store_is_scored_and_kept_out_of_the_file(tmp_path: Path) -> None:
    texts = ["fine text", "cut-off emoji \ud83d here"]
    first, second = Recorder(), Recorder()
    got = in_new_session(
        lambda: pf.as_model(first, fingerprint="fp", cache_dir=tmp_path).score(texts)
    )
    close_disk_caches()  # flushes: must not raise
    again = in_new_session(
        lambda: pf.as_model(second, fingerprint="fp", cache_dir=tmp_path).score(texts)
    )
    np.testing.assert_array_equal(got, again)
    assert second.calls == [["cut-off emoji \ud83d here"]]  # the good row came from disk


@pytest.mark.parametrize("bad", ["", "   ", 3])
def test_fingerprint_must_be_a_non_empty_string(bad: Any, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"fingerprint=.*non-empty string"):
        pf.as_model(Recorder(), fingerprint=bad, cache_dir=tmp_path)


def test_a_file_that_is_not_a_database_warns_and_falls_back_to_memory(tmp_path: Path) -> None:
    cache_file(tmp_path, "fp").write_bytes(b"this is not an SQLite file" * 100)
    model_fn = Recorder()

    def run() -> tuple[Any, Any, Any]:
        model = pf.as_model(model_fn, fingerprint="fp", cache_dir=tmp_path)
        with pytest.warns(CacheWarning, match="could not be used"):
            first = model.score(TEXTS)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # warned once, then quiet
            second = model.score(TEXTS)
        return first, second, model

    first, second, model = in_new_session(run)
    expected = [min(len(t), 40) / 40 for t in TEXTS]
    np.testing.assert_allclose(first, expected)
    np.testing.assert_allclose(second, expected)
    assert model_fn.scored == len(TEXTS)  # the memory cache still works
    info = model.cache_info()["disk"]
    assert info is not None
    assert "DatabaseError" in info["broken"]


def test_a_cache_dir_that_cannot_be_created_warns(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    model_fn = Recorder()

    def run() -> Any:
        model = pf.as_model(model_fn, fingerprint="fp", cache_dir=blocker / "sub")
        with pytest.warns(CacheWarning):
            return model.score(TEXTS)

    np.testing.assert_allclose(in_new_session(run), [min(len(t), 40) / 40 for t in TEXTS])


def test_damaged_rows_are_scored_again_never_trusted(tmp_path: Path) -> None:
    first = Recorder()
    in_new_session(lambda: pf.as_model(first, fingerprint="fp", cache_dir=tmp_path).score(TEXTS))
    close_disk_caches()
    with sqlite3.connect(cache_file(tmp_path, "fp")) as db:
        # flip the bytes of one row (checksum mismatch) and truncate another
        (data,) = db.execute("SELECT data FROM rows WHERE text = ?", (TEXTS[0],)).fetchone()
        db.execute(
            "UPDATE rows SET data = ? WHERE text = ?", (bytes(b ^ 0xFF for b in data), TEXTS[0])
        )
        db.execute("UPDATE rows SET data = ? WHERE text = ?", (data[:8], TEXTS[1]))
    db.close()
    second = Recorder()

    def run() -> Any:
        model = pf.as_model(second, fingerprint="fp", cache_dir=tmp_path)
        with pytest.warns(CacheWarning, match="2 damaged row"):
            return model.score(TEXTS)

    got = in_new_session(run)
    np.testing.assert_allclose(got, [min(len(t), 40) / 40 for t in TEXTS])
    assert sorted(second.calls[0]) == sorted(TEXTS[:2])
    third = Recorder()  # the rewritten rows are good again
    in_new_session(lambda: pf.as_model(third, fingerprint="fp", cache_dir=tmp_path).score(TEXTS))
    assert third.calls == []


def test_rows_of_another_shape_are_not_trusted(tmp_path: Path) -> None:
    store = open_disk_cache(tmp_path, "fp")
    model = pf.as_model(Recorder(), fingerprint="fp", cache_dir=tmp_path)
    model.score(TEXTS[:1])  # the adapter now knows it returns 2 columns
    config = model._disk_config  # type: ignore[attr-defined]
    store.put_many(config, [(TEXTS[1], "proba", np.array([0.2, 0.3, 0.5]))])
    assert model.predict_proba([TEXTS[1]]).shape == (1, 2)
    assert model.stats.unique_scored == 2


def test_a_file_of_another_schema_version_is_left_alone(tmp_path: Path) -> None:
    path = cache_file(tmp_path, "fp")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '999')")
    db.close()
    with pytest.warns(CacheWarning, match="schema version"):
        store = DiskCache(path)
    assert store.broken is not None
    assert store.get_many("c", ["x"]) == {}
    store.put_many("c", [("x", "score", np.array([0.5]))])  # a no-op, no error
    store.close()


def test_stats_count_memory_and_disk_hits(tmp_path: Path) -> None:
    model_fn = Recorder()
    in_new_session(lambda: pf.as_model(model_fn, fingerprint="fp", cache_dir=tmp_path).score(TEXTS))

    def run() -> Any:
        model = pf.as_model(Recorder(), fingerprint="fp", cache_dir=tmp_path)
        model.score([*TEXTS, "new text"])  # 4 from disk, 1 scored
        model.score(TEXTS)  # 4 from memory
        return model, model.cache_info()

    model, info = in_new_session(run)
    assert info["memory"]["hits"] == len(TEXTS)
    assert info["memory"]["entries"] == len(TEXTS) + 1
    # the store counts for the whole process: the first session missed every text
    assert info["disk"]["hits"] == len(TEXTS)
    assert info["disk"]["misses"] == len(TEXTS) + 1
    assert info["disk"]["writes"] == len(TEXTS) + 1
    assert model.stats.cache_hits == 2 * len(TEXTS)
    assert model.stats.unique_scored == 1


def test_memory_cache_stats() -> None:
    cache = PredictionCache(2)
    cache.put("a", ("score", np.array([0.1])))
    assert cache.get("a") is not None
    assert cache.get("b") is None
    assert cache.stats() == {"entries": 1, "max_entries": 2, "hits": 1, "misses": 1}


_WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from pytest_fairness.models.classifiers.cache import DiskCache

    directory, worker = sys.argv[1], int(sys.argv[2])
    store = DiskCache(directory)
    for start in range(0, 3000, 50):
        # every worker writes the shared texts 0-999 and 2000 texts of its own
        batch = [i for i in range(start, start + 50)]
        texts = [f"shared {i}" if i < 1000 else f"w{worker} {i}" for i in batch]
        store.put_many("cfg", [(t, "proba", np.array([0.25, 0.75])) for t in texts])
    store.close()
    print(store.stats()["broken"])
    """
)


def test_two_processes_write_the_same_file_at_once(tmp_path: Path) -> None:
    path = cache_file(tmp_path, "fp")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), str(w)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in (1, 2)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.strip() == "None", err  # never turned off by a lock
    store = DiskCache(path)
    texts = [f"shared {i}" for i in range(1000)]
    texts += [f"w{w} {i}" for w in (1, 2) for i in range(1000, 3000)]
    rows = store.get_many("cfg", texts)
    store.close()
    assert len(rows) == len(texts) == 5000
    assert all(kind == "proba" and row.tolist() == [0.25, 0.75] for kind, row in rows.values())
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_pytest_runs_share_the_cache_file(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest
        from pathlib import Path
        import pytest_fairness as pf

        def classify(texts):
            with Path("calls.log").open("a") as log:
                log.write(f"{len(texts)}\\n")
            return [[0.3, 0.7] if "she" in t else [0.6, 0.4] for t in texts]

        @pytest.fixture(scope="session")
        def fairness_model():
            return pf.as_model(classify, fingerprint="toy-1")
        """
    )
    pytester.makepyfile(
        """
        def test_scores(fairness_model):
            assert fairness_model.predict(["she left", "he left"]) == ["1", "0"]
        """
    )
    for _ in range(2):
        pytester.runpytest("--fairness-cache-dir=cache", "-p", "no:cacheprovider").assert_outcomes(
            passed=1
        )
    assert (pytester.path / "calls.log").read_text().split() == ["2"]
    assert len(list((pytester.path / "cache").glob("toy-1-*.sqlite"))) == 1
    pytester.runpytest(
        "--fairness-cache-dir=cache", "--fairness-no-cache", "-p", "no:cacheprovider"
    ).assert_outcomes(passed=1)
    assert (pytester.path / "calls.log").read_text().split() == ["2", "2"]


def test_xdist_workers_fill_one_cache_file(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest(
        """
        import os
        import pytest
        from pathlib import Path
        import pytest_fairness as pf

        def classify(texts):
            with Path("calls.log").open("a") as log:
                log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {len(texts)}\\n")
            return [[0.3, 0.7] if "she" in t else [0.6, 0.4] for t in texts]

        @pytest.fixture(scope="session")
        def fairness_model():
            return pf.as_model(classify, fingerprint="toy-x", batch_size=7)
        """
    )
    for i in range(4):
        pytester.makepyfile(
            **{
                f"test_part{i}": f"""
                def test_scores(fairness_model):
                    # overlapping texts (written by both workers) and texts of its own
                    texts = [f"she left {{j}}" for j in range({i * 30}, {i * 30 + 60})]
                    texts += [f"he left {i} {{j}}" for j in range(5)]
                    assert fairness_model.predict(texts) == ["1"] * 60 + ["0"] * 5
                """
            }
        )
    args = ("--fairness-cache-dir=cache", "-p", "no:cacheprovider", "-p", "no:randomly")
    pytester.runpytest_subprocess("-n", "2", *args).assert_outcomes(passed=4)
    log = (pytester.path / "calls.log").read_text().split("\n")
    assert {line.split()[0] for line in log if line} == {"gw0", "gw1"}
    (pytester.path / "calls.log").unlink()
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=4)  # every text on disk
    assert not (pytester.path / "calls.log").exists()


def test_the_disk_key_reads_a_function_by_its_code() -> None:
    from pytest_fairness.models.classifiers.cache import Ident as _Ident

    def by_chars(t: str) -> int:
        return len(t)

    def by_words(t: str) -> int:
        return len(t.split())

    def make() -> Any:
        return lambda t: len([w for w in t.split() if w])

    assert repr(_Ident(by_chars)) == repr(_Ident(by_chars))
    assert repr(_Ident(make())) == repr(_Ident(make()))  # nested code, no addresses
    assert repr(_Ident(by_chars)) != repr(_Ident(by_words))
    assert "0x" not in repr(_Ident(make()))


def test_the_disk_key_reads_a_tokenizer_by_source_and_vocabulary() -> None:
    from pytest_fairness.models.classifiers.cache import Ident as _Ident

    class Tokenizer:
        def __init__(self, source: str, size: int) -> None:
            self.name_or_path, self.size = source, size

        def __len__(self) -> int:
            return self.size

    bert = repr(_Ident(Tokenizer("bert-base", 30522)))
    assert bert == repr(_Ident(Tokenizer("bert-base", 30522)))
    assert bert != repr(_Ident(Tokenizer("roberta", 50265)))


def test_a_changed_length_function_is_scored_again(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def remote(texts: list[str]) -> list[float]:
        calls.append(list(texts))
        return [min(len(t), 40) / 40 for t in texts]

    def by_chars(t: str) -> int:
        return len(t)

    def by_words(t: str) -> int:
        return len(t.split())

    def score(length: Any) -> Any:
        return pf.as_model(remote, remote=True, fingerprint="r", cache_dir=tmp_path,
                           max_length=12, length_policy="truncate", length=length).score(TEXTS)

    in_new_session(lambda: score(by_chars))
    in_new_session(lambda: score(by_chars))
    assert len(calls) == 1  # the same function: from disk
    in_new_session(lambda: score(by_words))
    assert len(calls) == 2  # another length function: scored again


def _entry(value: float) -> Any:
    return ("score", np.array([[value]]), 0)


def test_the_memory_cache_evicts_the_least_recently_used_first() -> None:
    cache = PredictionCache(3)
    cache.put_many("cfg", ["a", "b", "c"], [_entry(1), _entry(2), _entry(3)])
    assert cache.get_many("cfg", ["a"])[0] is not None  # a is now the most recent
    cache.put_many("cfg", ["d"], [_entry(4)])
    found = cache.get_many("cfg", ["a", "b", "c", "d"])
    assert [f is not None for f in found] == [True, False, True, True]
    assert len(cache) == 3


def test_namespaces_share_one_bound_and_the_writer_evicts_its_own_first() -> None:
    cache = PredictionCache(3)
    cache.put_many("other", ["x"], [_entry(0)])
    cache.put_many("cfg", ["a", "b"], [_entry(1), _entry(2)])
    cache.put_many("cfg", ["c"], [_entry(3)])
    assert cache.get_many("other", ["x"])[0] is not None
    assert [f is not None for f in cache.get_many("cfg", ["a", "b", "c"])] == [False, True, True]
    assert cache.get_many("cfg", ["x"]) == [None]  # namespaces never mix
    cache.put_many("cfg", ["d", "e", "f"], [_entry(4), _entry(5), _entry(6)])
    assert len(cache) == 3  # cfg's own oldest (b, c, d) went first; x stays
    assert cache.get_many("other", ["x"])[0] is not None
    assert [f is not None for f in cache.get_many("cfg", ["d", "e", "f"])] == [False, True, True]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from("abcdefg"), max_size=4)),
                max_size=30), st.integers(1, 5))
def test_the_memory_cache_matches_a_reference_lru(ops: list[tuple[bool, list[str]]],
                                                  size: int) -> None:
    cache = PredictionCache(size)
    reference: list[str] = []  # least recently used first
    for is_put, keys in ops:
        keys = list(dict.fromkeys(keys))
        if is_put:
            cache.put_many("ns", keys, [_entry(1.0)] * len(keys))
            for key in keys:
                if key not in reference:
                    reference.append(key)
            del reference[: max(0, len(reference) - size)]
        else:
            found = cache.get_many("ns", keys)
            assert [f is not None for f in found] == [k in reference for k in keys]
            for key in keys:
                if key in reference:
                    reference.remove(key)
                    reference.append(key)
        assert len(cache) == len(reference)


def _block(values: list[float]) -> np.ndarray:
    block = np.array(values, dtype=np.float64).reshape(-1, 1)
    block.setflags(write=False)
    return block


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from("abcdefg"), max_size=4),
                          st.integers(0, 3)), max_size=30), st.integers(1, 5))
def test_stored_rows_match_a_reference_lru_with_their_values(
        ops: list[tuple[bool, list[str], int]], size: int) -> None:
    """`put_rows`/`get_rows` (an int per text, the block kept once) keep the same order
    as a reference LRU and give back each text's latest row, whatever the blocks."""
    cache = PredictionCache(size)
    reference: dict[str, float] = {}  # least recently used first
    serial = 0.0
    for is_put, keys, start in ops:
        keys = list(dict.fromkeys(keys))
        if is_put:
            values = [serial + i for i in range(len(keys))]
            serial += 100.0
            cache.put_rows("ns", keys, "score", _block(values), min(start, len(keys)))
            for key, value in list(zip(keys, values, strict=True))[start:]:
                reference[key] = value  # an existing key keeps its place, takes the row
            for key in list(reference)[: max(0, len(reference) - size)]:
                del reference[key]
        else:
            found = cache.get_rows("ns", keys)
            expected = [k in reference for k in keys]
            if found is None:
                assert not any(expected)
                continue
            assert found.found.tolist() == expected
            got = np.full(len(keys), np.nan)
            for places, kind, rows in found.groups:
                assert kind == "score"
                got[places] = rows[:, 0]
            assert [got[i] for i, k in enumerate(keys) if k in reference] == [
                reference[k] for k in keys if k in reference]
            for key in keys:
                if key in reference:
                    reference[key] = reference.pop(key)
        assert len(cache) == len(reference)


def test_blocks_no_text_refers_to_are_dropped_so_memory_stays_bounded() -> None:
    cache = PredictionCache(100)
    for i in range(200):  # 20,000 rows stored, 100 kept
        keys = [f"t{i}-{j}" for j in range(100)]
        cache.put_rows("ns", keys, "score", _block([float(i)] * 100))
    assert len(cache) == 100
    assert cache._block_rows <= 2 * 100 + 100  # swept: never more than twice the bound
    found = cache.get_rows("ns", [f"t199-{j}" for j in range(100)])
    assert found is not None
    assert found.found.all()
    assert np.array_equal(found.groups[0][2][:, 0], np.full(100, 199.0))


def test_a_block_one_text_still_refers_to_is_kept() -> None:
    cache = PredictionCache(3)
    cache.put_rows("ns", ["a", "b", "c"], "proba", _block([0.1, 0.2, 0.3]))
    for i in range(10):  # b kept in use: its block must survive every sweep
        assert cache.get_rows("ns", ["b"]) is not None
        cache.put_rows("ns", [f"x{i}", f"y{i}"], "proba", _block([1.0, 2.0]))
    found = cache.get_rows("ns", ["b", "a"])
    assert found is not None
    assert found.found.tolist() == [True, False]
    assert found.groups[0][2][0, 0] == 0.2
    with pytest.raises(ValueError, match="2 keys for a block of 3 rows"):
        cache.put_rows("ns", ["p", "q"], "proba", _block([0.1, 0.2, 0.3]))
