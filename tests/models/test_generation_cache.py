"""The generation cache (issue 18): answers keyed by (fingerprint, prompt, seed, sample
index) in SQLite, a rerun makes no call, n growing asks only for the new samples, answers
received before an error are kept, and the file never holds anything but the fingerprint."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _tiny_models import hf_word_tokenizer

from pytest_fairness.errors import ConfigurationError, ModelCallError, ModelOutputError
from pytest_fairness.models.classifiers.cache import CacheWarning, cache_file
from pytest_fairness.models.generators.base import HFGenerator, sample_continuations
from pytest_fairness.models.llm.generation_cache import (
    CachedGenerator,
    cached_generator,
    sample_seed,
)

SENTINEL = "sk-SENTINEL-0123456789-never-stored"
PROMPTS = ["he is a doctor", "she is a doctor", "they are a doctor"]


def answer(prompt: str, seed: int) -> str:
    return f"{prompt} -> {seed}"


class Echo:
    """A deterministic generator that records its calls; no generate_many."""

    def __init__(self, fingerprint: str = "echo-v1", fail_after: int | None = None) -> None:
        self.fingerprint = fingerprint
        self.fail_after = fail_after
        self.calls: list[tuple[str, int, int]] = []
        self.api_key = SENTINEL
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Echo(api_key={self.api_key!r})"

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        with self._lock:
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise ConnectionError("server killed")
            self.calls.append((prompt, n, seed))
        return [answer(prompt, seed + i) for i in range(n)]

    @property
    def samples(self) -> int:
        return sum(n for _, n, _ in self.calls)


class Batched(Echo):
    """With generate_many: records each batched call."""

    def __init__(self, fingerprint: str = "batched-v1", fail_on_call: int | None = None) -> None:
        super().__init__(fingerprint)
        self.batches: list[tuple[list[str], int, int]] = []
        self.fail_on_call = fail_on_call

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        with self._lock:
            if self.fail_on_call is not None and len(self.batches) + 1 >= self.fail_on_call:
                raise TimeoutError("budget spent")
            self.batches.append((list(prompts), n, seed))
        return [[answer(p, seed + i) for i in range(n)] for p in prompts]


def expected(prompt: str, n: int, seed: int) -> list[str]:
    return [answer(prompt, sample_seed(seed, i)) for i in range(n)]


def test_hits_and_misses_are_counted_exactly_and_a_rerun_makes_no_call(tmp_path: Path) -> None:
    gen = Echo()
    cached = cached_generator(gen, tmp_path)
    assert cached("he is a doctor", 3, 7) == expected("he is a doctor", 3, 7)
    assert cached.stats()["hits"] == 0
    assert cached.stats()["misses"] == 3
    assert cached.stats()["stored"] == 3
    assert cached("he is a doctor", 3, 7) == expected("he is a doctor", 3, 7)  # memory
    assert gen.samples == 3
    assert (cached.stats()["hits"], cached.stats()["misses"]) == (3, 3)
    cached.close()
    # a new process-like run: a fresh generator and a fresh cache object on the same file
    again = Echo()
    rerun = cached_generator(again, tmp_path)
    assert rerun.generate_many(["he is a doctor"], 3, 7) == [expected("he is a doctor", 3, 7)]
    assert again.calls == []
    stats = rerun.stats()
    assert (stats["hits"], stats["misses"], stats["stored"], stats["calls"]) == (3, 0, 0, 0)
    rerun.close()


def test_n_growing_asks_only_for_the_new_samples(tmp_path: Path) -> None:
    gen = Echo()
    cached = cached_generator(gen, tmp_path)
    three = cached("she is a doctor", 3, 11)
    five = cached("she is a doctor", 5, 11)
    assert five[:3] == three
    assert five == expected("she is a doctor", 5, 11)
    # samples 3 and 4 only, each with its own seed and n=1
    assert gen.calls[3:] == [("she is a doctor", 1, sample_seed(11, 3)),
                             ("she is a doctor", 1, sample_seed(11, 4))]
    assert cached.stats()["misses"] == 5
    assert cached.stats()["hits"] == 3
    # and from the file in a later run, the same answers whatever n
    cached.close()
    rerun = cached_generator(Echo(), tmp_path)
    assert rerun("she is a doctor", 4, 11) == five[:4]
    rerun.close()


def test_sample_seed_keeps_sample_zero_and_separates_the_others() -> None:
    assert sample_seed(5, 0) == 5
    seeds = {sample_seed(s, i) for s in range(50) for i in range(1, 50)}
    assert len(seeds) == 49 * 50  # no collision at this size
    assert all(0 <= s < 2**31 for s in seeds)
    assert sample_seed(5, 3) == sample_seed(5, 3)
    with pytest.raises(ConfigurationError, match="index"):
        sample_seed(5, -1)


def test_generate_many_passes_only_the_missing_work_in_one_batched_call_per_index(
    tmp_path: Path,
) -> None:
    gen = Batched()
    cached = cached_generator(gen, tmp_path)
    assert cached.generate_many(PROMPTS[:2], 2, 3) == [expected(p, 2, 3) for p in PROMPTS[:2]]
    assert gen.batches == [(PROMPTS[:2], 1, 3), (PROMPTS[:2], 1, sample_seed(3, 1))]
    gen.batches.clear()
    got = cached.generate_many([*PROMPTS, PROMPTS[0]], 3, 3)
    assert got == [expected(p, 3, 3) for p in [*PROMPTS, PROMPTS[0]]]
    assert gen.batches == [
        ([PROMPTS[2]], 1, 3),
        ([PROMPTS[2]], 1, sample_seed(3, 1)),
        (PROMPTS, 1, sample_seed(3, 2)),  # all three miss sample 2: one batched call
    ]
    assert gen.calls == []  # never called prompt by prompt
    stats = cached.stats()
    assert stats["misses"] == 4 + 5
    assert stats["hits"] == 4
    # sample_continuations runs the cache like any generator with generate_many
    assert sample_continuations(cached, [(p, 3) for p in PROMPTS], 3) == [
        expected(p, 3, 3) for p in PROMPTS
    ]
    cached.close()


def test_a_changed_fingerprint_makes_new_calls(tmp_path: Path) -> None:
    first = Echo("model-a temperature=1.0")
    with cached_generator(first, tmp_path) as cached:
        cached("he is a doctor", 2, 0)
    second = Echo("model-a temperature=0.7")
    with cached_generator(second, tmp_path) as cached:
        cached("he is a doctor", 2, 0)
        assert cached.stats()["misses"] == 2
    assert second.samples == 2
    # the explicit fingerprint= wins over the attribute
    third = Echo("model-a temperature=0.7")
    with cached_generator(third, tmp_path, fingerprint="model-a temperature=1.0") as cached:
        cached("he is a doctor", 2, 0)
    assert third.calls == []
    names = sorted(p.name for p in tmp_path.glob("*.sqlite"))
    assert names == sorted(
        cache_file(tmp_path, f"generate:model-a temperature={t}").name for t in ("1.0", "0.7")
    )


def test_a_generator_without_fingerprint_is_refused_with_the_fix(tmp_path: Path) -> None:
    def plain(prompt: str, n: int, seed: int) -> list[str]:
        return [prompt] * n

    with pytest.raises(ConfigurationError, match="fingerprint="):
        cached_generator(plain, tmp_path)
    with pytest.raises(ConfigurationError, match="fingerprint"):
        cached_generator(plain, tmp_path, fingerprint="  ")
    with pytest.raises(ConfigurationError, match="text generator"):
        cached_generator("not a generator", tmp_path, fingerprint="x")
    with cached_generator(plain, tmp_path, fingerprint="plain-v1") as cached:
        assert cached("a", 2, 0) == ["a", "a"]
        with pytest.raises(ConfigurationError, match="n must be"):
            cached("a", 0, 0)
        with pytest.raises(ConfigurationError, match="prompts must be a list"):
            cached.generate_many("a", 1, 0)
        with pytest.raises(ConfigurationError, match="seed"):
            cached("a", 1, 1.5)  # type: ignore[arg-type]


def test_bad_outputs_are_refused_and_never_stored(tmp_path: Path) -> None:
    def wrong(prompt: str, n: int, seed: int) -> list[str]:
        return ["a", "b"]  # two answers for n=1

    with cached_generator(wrong, tmp_path, fingerprint="wrong") as cached:
        with pytest.raises(ModelOutputError, match="exactly n strings"):
            cached("p", 1, 0)
        assert cached.stats()["stored"] == 0


def test_answers_received_before_an_error_are_stored(tmp_path: Path) -> None:
    """A server killed after k prompts: the k answers are in the file when the error
    propagates, and the rerun asks only for the rest."""
    gen = Echo(fail_after=2)
    cached = cached_generator(gen, tmp_path)
    with pytest.raises(ModelCallError, match="server killed") as raised:
        cached.generate_many(PROMPTS, 1, 4)
    # named: the generator (by class, never its repr with the key), the user's exception
    # chained, and what was kept
    message = str(raised.value)
    assert "test_generation_cache.Echo" in message
    assert "ConnectionError" in message
    assert "2 of the 3 sample(s)" in message
    assert SENTINEL not in message
    assert isinstance(raised.value.__cause__, ConnectionError)
    assert cached.stats()["stored"] == 2
    cached.close()
    with sqlite3.connect(cached.path) as db:
        assert db.execute("SELECT COUNT(*) FROM rows").fetchone() == (2,)
    again = Echo()
    with cached_generator(again, tmp_path) as rerun:
        assert rerun.generate_many(PROMPTS, 1, 4) == [expected(p, 1, 4) for p in PROMPTS]
    assert again.calls == [(PROMPTS[2], 1, 4)]


def test_a_batched_call_that_fails_keeps_the_calls_before_it(tmp_path: Path) -> None:
    gen = Batched(fail_on_call=2)
    with cached_generator(gen, tmp_path) as cached:
        with pytest.raises(ModelCallError, match="budget spent") as raised:
            cached.generate_many(PROMPTS, 3, 1)
        assert isinstance(raised.value.__cause__, TimeoutError)
        assert "Batched" in str(raised.value)
        assert cached.stats()["stored"] == 3  # sample 0 of every prompt
    again = Batched()
    with cached_generator(again, tmp_path) as rerun:
        assert rerun.generate_many(PROMPTS, 3, 1) == [expected(p, 3, 1) for p in PROMPTS]
        assert rerun.stats()["hits"] == 3
    assert [seed for _, _, seed in again.batches] == [sample_seed(1, 1), sample_seed(1, 2)]


def test_concurrent_generate_many_asks_each_sample_once(tmp_path: Path) -> None:
    gen = Batched()
    cached = cached_generator(gen, tmp_path)
    barrier = threading.Barrier(8)
    results: list[Any] = [None] * 8
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            barrier.wait(timeout=10)
            prompts = PROMPTS[k % 3 :] + PROMPTS[: k % 3]
            results[k] = (prompts, cached.generate_many(prompts, 4, 9))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    for prompts, got in results:
        assert got == [expected(p, 4, 9) for p in prompts]
    asked = [(p, seed) for prompts, _, seed in gen.batches for p in prompts]
    assert len(asked) == len(set(asked)) == 3 * 4  # every sample asked for once
    stats = cached.stats()
    assert stats["misses"] == 12
    assert stats["hits"] + stats["misses"] == 8 * 12
    assert stats["stored"] == 12
    cached.close()
    with sqlite3.connect(cached.path) as db:
        assert db.execute("SELECT COUNT(*) FROM rows").fetchone() == (12,)


def test_a_failed_call_lets_a_waiting_thread_retry(tmp_path: Path) -> None:
    """A thread waiting for a sample another thread's call failed on asks for it itself."""
    started, release = threading.Event(), threading.Event()
    state = {"calls": 0}

    def flaky(prompt: str, n: int, seed: int) -> list[str]:
        state["calls"] += 1
        if state["calls"] == 1:
            started.set()
            release.wait(timeout=10)
            raise ConnectionError("first call dies")
        return [answer(prompt, seed)]

    cached = cached_generator(flaky, tmp_path, fingerprint="flaky")
    out: dict[str, Any] = {}

    def first() -> None:
        with pytest.raises(ModelCallError, match="first call dies"):
            cached("p", 1, 0)

    def second() -> None:
        out["second"] = cached("p", 1, 0)

    t1 = threading.Thread(target=first)
    t1.start()
    assert started.wait(timeout=10)
    t2 = threading.Thread(target=second)
    t2.start()
    future = cached._inflight[("p", 0, 0)]
    for _ in range(1000):  # until the second thread waits on the first one's call
        if future._condition._waiters:  # type: ignore[attr-defined]
            break
        threading.Event().wait(0.01)
    assert future._condition._waiters  # type: ignore[attr-defined]
    release.set()
    t1.join(timeout=10)
    t2.join(timeout=10)
    assert out["second"] == [answer("p", 0)]
    assert state["calls"] == 2
    cached.close()


def test_a_corrupt_file_warns_and_answers_are_generated_again(tmp_path: Path) -> None:
    gen = Echo()
    path = cache_file(tmp_path, "generate:echo-v1")
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(CacheWarning, match="generation cache .* could not be used"):
        cached = cached_generator(gen, tmp_path)
    assert cached("p", 2, 0) == expected("p", 2, 0)
    assert cached("p", 2, 0) == expected("p", 2, 0)  # from memory
    assert gen.samples == 2
    stats = cached.stats()
    assert stats["broken"] is not None
    assert stats["stored"] == 0
    assert path.read_bytes() == b"this is not a database" * 100  # left alone
    cached.close()


def test_a_damaged_row_warns_and_is_generated_again_and_rewritten(tmp_path: Path) -> None:
    with cached_generator(Echo(), tmp_path) as cached:
        cached("p", 2, 0)
        path = cached.path
    with sqlite3.connect(path) as db:
        db.execute("UPDATE rows SET data = ? WHERE config = ?",
                   (b"tampered", json.dumps(["echo-v1", 0, 1])))
    gen = Echo()
    with cached_generator(gen, tmp_path) as cached:
        with pytest.warns(CacheWarning, match="1 damaged row"):
            assert cached("p", 2, 0) == expected("p", 2, 0)
        assert gen.calls == [("p", 1, sample_seed(0, 1))]
    with cached_generator(Echo(), tmp_path) as cached, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cached("p", 2, 0) == expected("p", 2, 0)
        assert cached.stats()["misses"] == 0


def test_a_file_of_another_schema_is_not_used(tmp_path: Path) -> None:
    with cached_generator(Echo(), tmp_path) as cached:
        cached("p", 1, 0)
        path = cached.path
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    gen = Echo()
    with pytest.warns(CacheWarning, match="schema"):
        cached = cached_generator(gen, tmp_path)
    assert cached("p", 1, 0) == expected("p", 1, 0)
    assert gen.samples == 1
    cached.close()


_READ_ONLY_CHILD = textwrap.dedent(
    """
    import json, sys, warnings
    from pytest_fairness.models.llm.generation_cache import cached_generator

    calls = []
    def gen(prompt, n, seed):
        calls.append(prompt)
        return [f"{prompt} -> {seed + i}" for i in range(n)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cached = cached_generator(gen, sys.argv[1], fingerprint="ro-v1")
        answers = cached.generate_many(sys.argv[2:], 1, 0)
        stats = cached.stats()
        cached.close()
    print(json.dumps({"answers": answers, "calls": calls, "stats": stats,
                      "warnings": [str(w.message) for w in caught]}))
    """
)


def test_a_read_only_directory_is_read_and_never_written(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    with cached_generator(Echo(), directory, fingerprint="ro-v1") as cached:
        cached.generate_many(PROMPTS[:2], 1, 0)
    files = sorted(p.name for p in directory.iterdir())
    assert files == [cache_file(directory, "generate:ro-v1").name]
    for path in directory.iterdir():
        path.chmod(0o444)
    directory.chmod(0o555)
    command = [sys.executable, "-c", _READ_ONLY_CHILD, str(directory), *PROMPTS]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    finally:
        directory.chmod(0o755)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["answers"] == [expected(p, 1, 0) for p in PROMPTS]
    assert got["calls"] == [PROMPTS[2]]  # the two stored answers came from the file
    assert got["stats"]["read_only"] == 1
    assert got["stats"]["broken"] is None
    assert (got["stats"]["hits"], got["stats"]["stored"]) == (2, 0)
    assert not any("Delete the file" in w for w in got["warnings"]), got["warnings"]
    assert sorted(p.name for p in directory.iterdir()) == files


def test_the_file_holds_the_fingerprint_never_the_generator(tmp_path: Path) -> None:
    """A generator whose repr and attributes hold a sentinel key: only the fingerprint, the
    prompts and the answers reach the file (and the cache's own repr and stats)."""
    gen = Batched("served-model temperature=0.7")
    assert SENTINEL in repr(gen)
    cached = cached_generator(gen, tmp_path)
    cached.generate_many(PROMPTS, 2, 5)
    assert SENTINEL not in repr(cached)
    assert SENTINEL not in json.dumps(cached.stats())
    cached.close()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert SENTINEL.encode() not in data
    assert b"served-model temperature=0.7" in data
    # a fingerprint with a key in it would be written as given: the cache trusts it
    assert isinstance(cached, CachedGenerator)


def test_text_sqlite_cannot_store_stays_in_memory(tmp_path: Path) -> None:
    def surrogate(prompt: str, n: int, seed: int) -> list[str]:
        return ["cut \ud83d"] * n

    with cached_generator(surrogate, tmp_path, fingerprint="s") as cached:
        assert cached("p", 1, 0) == ["cut \ud83d"]
        assert cached("p\udc00", 1, 0) == ["cut \ud83d"]
        assert cached.stats()["stored"] == 0
        assert cached("p", 1, 0) == ["cut \ud83d"]
        assert cached.stats()["hits"] == 1


def test_empty_answers_are_stored_and_read_back(tmp_path: Path) -> None:
    def empty(prompt: str, n: int, seed: int) -> list[str]:
        return [""] * n

    with cached_generator(empty, tmp_path, fingerprint="e") as cached:
        assert cached("p", 2, 0) == ["", ""]
    calls: list[str] = []

    def never(prompt: str, n: int, seed: int) -> list[str]:
        calls.append(prompt)
        return ["x"] * n

    with cached_generator(never, tmp_path, fingerprint="e") as cached:
        assert cached("p", 2, 0) == ["", ""]
    assert calls == []


class _Config:
    def __init__(self, **values: Any) -> None:
        self.values = values

    def to_json_string(self, use_diff: bool = True) -> str:
        return json.dumps(self.values, sort_keys=True)


class _Model:
    def __init__(self, layers: int) -> None:
        self.name_or_path = "HuggingFaceTB/SmolLM2-135M"
        self.config = _Config(n_layer=layers)
        self.generation_config = _Config(eos_token_id=2)

    def generate(self, **kwargs: Any) -> Any:  # pragma: no cover - never called here
        raise AssertionError


class _Tokenizer:
    name_or_path = "HuggingFaceTB/SmolLM2-135M"


def test_hf_generator_fingerprint_names_the_model_and_every_sampling_option() -> None:
    gen = HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.7)
    fp = gen.fingerprint
    assert fp.startswith("hf:HuggingFaceTB/SmolLM2-135M config=")
    for part in ("max_new_tokens=20", "temperature=0.7", "top_k=None", "top_p=None",
                 "trim_unfinished=True", "tokenizer=HuggingFaceTB/SmolLM2-135M"):
        assert part in fp
    assert HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20,
                       temperature=0.7).fingerprint == fp  # stable
    assert HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.7,
                       batch_size=4, num_threads=1).fingerprint == fp  # no effect on output
    others = [
        HFGenerator(_Model(3), _Tokenizer(), max_new_tokens=20, temperature=0.7),
        HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=21, temperature=0.7),
        HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.8),
        HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.7, top_k=5),
        HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.7, top_p=0.9),
        HFGenerator(_Model(2), _Tokenizer(), max_new_tokens=20, temperature=0.7,
                    trim_unfinished=False),
    ]
    assert len({fp, *(g.fingerprint for g in others)}) == 7


def test_an_hf_generator_is_cached_on_its_fingerprint(tmp_path: Path) -> None:
    gen = HFGenerator(_Model(2), _Tokenizer())
    calls: list[Any] = []

    def fake_many(prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        calls.append((list(prompts), n, seed))
        return [[f"{p}/{seed}"] * n for p in prompts]

    gen.generate_many = fake_many  # type: ignore[method-assign]
    with cached_generator(gen, tmp_path) as cached:
        assert cached.fingerprint == gen.fingerprint
        cached.generate_many(["a", "b"], 2, 0)
    with cached_generator(gen, tmp_path) as cached:
        cached.generate_many(["a", "b"], 2, 0)
    assert len(calls) == 2  # the first run's two sample indices only


def test_a_real_hf_generator_through_the_cache(tmp_path: Path) -> None:
    """A 1-layer GPT-2 built in memory: its fingerprint reads the transformers configs, and
    sample i of the cache is the wrapped generator's answer with n=1 and sample_seed(seed, i)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    words = ["<pad>", "<unk>", "<eos>", "he", "she", "is", "a", "doctor", "good", "."]
    tokenizer = hf_word_tokenizer(words)
    config = transformers.GPT2Config(vocab_size=len(words), n_positions=32, n_embd=8,
                                     n_layer=1, n_head=2, bos_token_id=2, eos_token_id=2,
                                     pad_token_id=0)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(config)
    gen = HFGenerator(model, tokenizer, max_new_tokens=4, trim_unfinished=False)
    assert "config=" in gen.fingerprint
    assert "max_new_tokens=4" in gen.fingerprint
    with cached_generator(gen, tmp_path) as cached:
        got = cached.generate_many(["he is a", "she is a"], 3, 5)
    assert got == [[gen(p, 1, sample_seed(5, i))[0] for i in range(3)]
                   for p in ["he is a", "she is a"]]
    with cached_generator(gen, tmp_path) as cached:
        assert cached.generate_many(["he is a", "she is a"], 3, 5) == got
        assert cached.stats()["calls"] == 0


# ------------------------------------------------- stored as it arrives, shared (issue 26)


def _claim(path: Path, key: tuple[str, int, int], owner: str, expires: float,
           fingerprint: str = "echo-v1") -> None:
    with sqlite3.connect(path) as db:
        db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                   (json.dumps([fingerprint, key[1], key[2]]), key[0], owner, expires))


def test_a_file_written_before_claims_existed_is_read_and_gets_the_table(
        tmp_path: Path) -> None:
    """The layout of the issue-18 cache (meta and rows only) is read as it is: its answers
    are hits, new answers are added, and the claims table is created beside them."""
    import zlib

    path = cache_file(tmp_path, "generate:echo-v1")
    data = answer("p", 0).encode()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '1')")
        db.execute("CREATE TABLE rows (config TEXT NOT NULL, text TEXT NOT NULL, kind TEXT "
                   "NOT NULL, width INTEGER NOT NULL, data BLOB NOT NULL, crc INTEGER NOT "
                   "NULL, PRIMARY KEY (config, text)) WITHOUT ROWID")
        db.execute("INSERT INTO rows VALUES (?, 'p', 'text', ?, ?, ?)",
                   (json.dumps(["echo-v1", 0, 0]), len(data), data, zlib.crc32(data)))
    gen = Echo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with cached_generator(gen, tmp_path) as cached:
            assert cached.generate_many(["p", "q"], 1, 0) == [[answer("p", 0)],
                                                               [answer("q", 0)]]
            assert (cached.stats()["hits"], cached.stats()["misses"]) == (1, 1)
    assert gen.calls == [("q", 1, 0)]
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == {"meta", "rows", "claims"}
        assert db.execute("SELECT COUNT(*) FROM rows").fetchone() == (2,)
        assert db.execute("SELECT value FROM meta").fetchone() == ("1",)


class Concurrent(Batched):
    """A generator with `concurrency`: checks, at every call, that the answers of the calls
    before it are already in the file (stored as they arrive), and counts calls in flight."""

    def __init__(self, path: Path, concurrency: int) -> None:
        super().__init__("concurrent-v1")
        self.concurrency = concurrency
        self.path = path
        self.in_flight = 0
        self.most = 0
        self.behind: list[int] = []

    def generate_many(self, prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        with self._lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            done = len(self.batches)
        if self.path.exists():
            with sqlite3.connect(self.path) as db:
                stored = db.execute("SELECT COUNT(*) FROM rows").fetchone()[0]
            self.behind.append(done - stored)
        threading.Event().wait(0.02)
        try:
            return super().generate_many(prompts, n, seed)
        finally:
            with self._lock:
                self.in_flight -= 1


def test_a_concurrent_generator_is_asked_one_prompt_per_call_each_stored_as_it_returns(
        tmp_path: Path) -> None:
    prompts = [f"p{i}" for i in range(40)]
    gen = Concurrent(cache_file(tmp_path, "generate:concurrent-v1"), concurrency=4)
    with cached_generator(gen, tmp_path) as cached:
        assert cached.generate_many(prompts, 2, 1) == [expected(p, 2, 1) for p in prompts]
        assert cached.stats()["calls"] == 80
    assert all(len(batch) == 1 for batch, _, _ in gen.batches)
    assert gen.most == 4  # the generator's concurrency, no more
    # when a call starts, at most the calls still in flight are missing from the file
    assert max(gen.behind) <= 4, gen.behind


def test_a_key_claimed_by_a_live_process_is_waited_for_then_taken_over(
        tmp_path: Path) -> None:
    """A claim whose owner renews its lease (here: another host's, never expiring) is
    waited for `wait` seconds, then asked for with a CacheWarning naming the option."""
    with cached_generator(Echo(), tmp_path) as cached:
        path = cached.path
    _claim(path, ("p", 0, 0), "elsewhere:1:abc", time.time() + 1000)
    gen = Echo()
    start = time.monotonic()
    with cached_generator(gen, tmp_path, wait=0.4) as cached:
        with pytest.warns(CacheWarning, match=r"elsewhere:1:abc.*0\.4 s.*wait="):
            assert cached("p", 1, 0) == [answer("p", 0)]
        assert cached.stats()["taken_over"] == 1
    assert time.monotonic() - start >= 0.4
    assert gen.calls == [("p", 1, 0)]


def test_an_expired_claim_or_a_gone_process_is_taken_over_at_once(tmp_path: Path) -> None:
    import socket

    with cached_generator(Echo(), tmp_path) as cached:
        path = cached.path
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname().replace(":", "_")
    _claim(path, ("a", 0, 0), "elsewhere:1:abc", time.time() - 1)  # lease ran out
    _claim(path, ("b", 0, 0), f"{host}:{gone.pid}:abc", time.time() + 1000)  # dead
    gen = Echo()
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with cached_generator(gen, tmp_path, wait=60) as cached:
            assert cached.generate_many(["a", "b"], 1, 0) == [[answer("a", 0)],
                                                               [answer("b", 0)]]
            assert cached.stats()["taken_over"] == 2
    assert time.monotonic() - start < 30
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)


def test_a_running_call_renews_its_lease_and_the_other_cache_gets_its_answer(
        tmp_path: Path) -> None:
    """Two caches on one file (two owners): the second waits for the key the first is
    generating, beyond the lease (the first renews it), and reads its answer: one call."""
    started, calls = threading.Event(), []

    def slow(prompt: str, n: int, seed: int) -> list[str]:
        calls.append(prompt)
        started.set()
        threading.Event().wait(2.5)  # over twice the lease: renewed while it runs
        return [answer(prompt, seed)]

    first = cached_generator(slow, tmp_path, fingerprint="slow", lease=1.0)
    second = cached_generator(slow, tmp_path, fingerprint="slow", lease=1.0)
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.setdefault("first", first("p", 1, 0)))
    thread.start()
    assert started.wait(timeout=10)
    assert second("p", 1, 0) == [answer("p", 0)]
    thread.join(timeout=10)
    assert out["first"] == [answer("p", 0)]
    assert calls == ["p"]
    assert (second.stats()["hits"], second.stats()["misses"]) == (1, 0)
    first.close()
    second.close()


def test_lease_and_wait_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="lease"):
        cached_generator(Echo(), tmp_path, lease=0)
    with pytest.raises(ConfigurationError, match="wait"):
        cached_generator(Echo(), tmp_path, wait=float("nan"))
    with pytest.raises(ConfigurationError, match="wait"):
        cached_generator(Echo(), tmp_path, wait="long")  # type: ignore[arg-type]


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str")


@pytest.mark.parametrize("error", [
    ValueError("bad \x1b[31mred\x07 \u202e"), KeyError("k"), RuntimeError(""),
    OSError(5, "input/output error"), ZeroDivisionError("division"), RecursionError("deep"),
    MemoryError("oom"), _Unprintable(), TimeoutError("x" * 5000),
], ids=lambda e: type(e).__name__)
def test_every_exception_of_a_generator_is_named_and_chained(tmp_path: Path,
                                                              error: Exception) -> None:
    """Whatever the wrapped generator raises after one answer (its message with control
    characters, empty, unprintable, huge): a ModelCallError naming the generator, the
    exception chained, the answer kept, no claim left behind."""
    calls: list[str] = []

    def flaky(prompt: str, n: int, seed: int) -> list[str]:
        calls.append(prompt)
        if len(calls) > 1:
            raise error
        return [answer(prompt, seed)]

    with cached_generator(flaky, tmp_path, fingerprint="flaky-v1") as cached:
        with pytest.raises(ModelCallError) as raised:
            cached.generate_many(PROMPTS, 1, 0)
        path = cached.path
    message = str(raised.value)
    assert raised.value.__cause__ is error
    assert "flaky" in message
    assert type(error).__name__ in message
    assert "1 of the 3 sample(s)" in message
    assert not any(c in message for c in "\x1b\x07\u202e")
    assert len(message) < 1200
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM rows").fetchone() == (1,)
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)


def test_a_concurrent_generator_that_fails_keeps_what_the_calls_in_flight_answered(
        tmp_path: Path) -> None:
    """Concurrency 4: one call fails; the calls already in flight finish and are stored,
    no new call starts, the error names the generator, the claims are dropped."""
    gen = Concurrent(cache_file(tmp_path, "generate:concurrent-v1"), concurrency=4)
    original = gen.generate_many

    def failing(prompts: Sequence[str], n: int, seed: int) -> list[list[str]]:
        if prompts[0] == "p10":
            raise ConnectionResetError("peer reset")
        return original(prompts, n, seed)

    gen.generate_many = failing  # type: ignore[method-assign]
    prompts = [f"p{i}" for i in range(40)]
    with cached_generator(gen, tmp_path) as cached:
        with pytest.raises(ModelCallError, match=r"Concurrent.*ConnectionResetError") as raised:
            cached.generate_many(prompts, 1, 0)
        stored = cached.stats()["stored"]
        calls = cached.stats()["calls"]
    assert isinstance(raised.value.__cause__, ConnectionResetError)
    assert stored == len(gen.batches)  # every answer received is in the file
    assert calls <= 11 + 4  # p0..p10, and at most the calls already in flight
    with sqlite3.connect(cache_file(tmp_path, "generate:concurrent-v1")) as db:
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)
    again = Batched("concurrent-v1")
    with cached_generator(again, tmp_path) as rerun:
        assert rerun.generate_many(prompts, 1, 0) == [expected(p, 1, 0) for p in prompts]
    assert sum(len(b) for b, _, _ in again.batches) == 40 - stored
