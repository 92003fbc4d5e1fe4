"""Corpus sources, streaming and seeded sampling (no spaCy needed)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_fairness import ConfigurationError, Corpus
from pytest_fairness import context as recording
from pytest_fairness.settings import Settings

TEXTS = ["She left.", "I saw her.", "He hurt himself.", "No pronoun here.", "Zoë said — café."]


def write(path: Path, content: str) -> Path:
    path.write_text(content, encoding="utf-8")
    return path


# --- sources ---------------------------------------------------------------------------


@pytest.mark.parametrize("source", [TEXTS, tuple(TEXTS)])
def test_list_and_tuple_are_re_iterable(source: list[str] | tuple[str, ...]) -> None:
    corpus = Corpus(source)
    assert list(corpus) == TEXTS
    assert list(corpus) == TEXTS


def test_txt_skips_blank_lines_and_keeps_line_text(tmp_path: Path) -> None:
    path = write(tmp_path / "c.txt", "She left.\n\n   \nI saw her.\r\n  He ran.  \n")
    assert list(Corpus(path)) == ["She left.", "I saw her.", "  He ran.  "]
    assert list(Corpus(str(path))) == ["She left.", "I saw her.", "  He ran.  "]


def test_files_are_re_read_on_each_pass(tmp_path: Path) -> None:
    path = write(tmp_path / "c.txt", "one\n")
    corpus = Corpus(path)
    assert list(corpus) == ["one"]
    write(path, "one\ntwo\n")
    assert list(corpus) == ["one", "two"]


def test_csv_reads_the_default_and_a_named_column(tmp_path: Path) -> None:
    path = write(tmp_path / "c.csv", 'id,text,body\n1,"She left, then.",x\n2,,y\n3,I saw her.,z\n')
    assert list(Corpus(path)) == ["She left, then.", "I saw her."]
    assert list(Corpus(path, column="body")) == ["x", "y", "z"]


def test_csv_missing_column_names_the_available_ones(tmp_path: Path) -> None:
    path = write(tmp_path / "c.csv", "id,comment\n1,She left.\n")
    with pytest.raises(ConfigurationError, match=r"no column 'text'.*'id', 'comment'"):
        Corpus(path)


def test_empty_csv_is_an_empty_corpus(tmp_path: Path) -> None:
    assert list(Corpus(write(tmp_path / "c.csv", ""))) == []


def test_jsonl_reads_the_default_and_a_named_key(tmp_path: Path) -> None:
    lines = [{"text": "She left.", "body": "a"}, {"text": "I saw her.", "body": "b"}]
    path = write(tmp_path / "c.jsonl", "\n".join(map(json.dumps, lines)) + "\n\n")
    assert list(Corpus(path)) == ["She left.", "I saw her."]
    assert list(Corpus(path, column="body")) == ["a", "b"]


def test_jsonl_missing_key_names_the_line_and_available_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", '{"text": "ok"}\n{"comment": "She left.", "id": 2}\n')
    corpus = Corpus(path)  # the first record is fine
    with pytest.raises(ConfigurationError, match=r"line 2 has no key 'text'.*'comment', 'id'"):
        list(corpus)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": 3}\n', "line 1: 'text' is a int"),
        ("not json\n", "line 1 is not valid JSON"),
        ('["a list"]\n', "line 1 is a JSON list"),
    ],
)
def test_jsonl_bad_records_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Corpus(write(tmp_path / "c.jsonl", content))


def test_one_shot_generator_works_once_then_says_what_to_pass() -> None:
    corpus = Corpus(text for text in TEXTS)
    assert list(corpus) == TEXTS
    with pytest.raises(ConfigurationError, match="one-shot") as info:
        list(corpus)
    assert "list" in str(info.value)
    assert "file path" in str(info.value)
    assert "callable" in str(info.value)


def test_callable_is_called_again_on_each_pass() -> None:
    calls: list[int] = []

    def texts() -> Iterator[str]:
        calls.append(1)
        yield from TEXTS

    corpus = Corpus(texts)
    assert list(corpus) == TEXTS
    assert list(corpus) == TEXTS
    assert len(calls) == 2
    assert "texts()" in corpus.name


def test_callable_must_return_texts() -> None:
    with pytest.raises(ConfigurationError, match="returned str"):
        list(Corpus(lambda: "She left."))


def test_non_str_item_names_its_position() -> None:
    corpus = Corpus(["fine", "also fine", 42])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match=r"item 2 \(counting from 0\) is a int"):
        list(corpus)


@pytest.mark.parametrize("source", [{"a", "b"}, {"a": 1}])
def test_unordered_sources_are_refused(source: object) -> None:
    with pytest.raises(ConfigurationError, match="no fixed order"):
        Corpus(source)  # type: ignore[arg-type]


def test_a_plain_sentence_is_not_taken_for_a_path() -> None:
    with pytest.raises(ConfigurationError, match=r"pass a list: Corpus\(\['She left.'\]\)"):
        Corpus("She left.")


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="does not exist"):
        Corpus(tmp_path / "missing.txt")
    with pytest.raises(ConfigurationError, match=r"must end in \.txt, \.csv, \.jsonl"):
        Corpus(write(tmp_path / "c.tsv", "a\tb\n"))


def test_not_a_source() -> None:
    with pytest.raises(ConfigurationError, match="cannot make a corpus from int"):
        Corpus(3)  # type: ignore[arg-type]


def test_from_source_passes_a_corpus_through_and_builds_others(tmp_path: Path) -> None:
    corpus = Corpus(TEXTS)
    assert Corpus.from_source(corpus) is corpus
    path = write(tmp_path / "c.csv", "body\nhello\n")
    assert list(Corpus.from_source(path, column="body")) == ["hello"]
    assert repr(Corpus(path, column="body")) == f"Corpus({str(path)!r})"


# --- sampling --------------------------------------------------------------------------


def test_sample_is_deterministic_ordered_and_leaves_global_random_alone() -> None:
    corpus = Corpus([f"text {i}" for i in range(100)])
    state = random.getstate()
    first = corpus.sample(10, seed=3)
    assert random.getstate() == state
    assert first == corpus.sample(10, seed=3)
    assert len(first) == 10
    assert first == sorted(first, key=lambda text: int(text.split()[1]))
    assert len({tuple(corpus.sample(10, seed=s)) for s in range(5)}) > 1


def test_sample_larger_than_corpus_returns_everything_in_order() -> None:
    assert Corpus(TEXTS).sample(50, seed=0) == TEXTS
    assert Corpus(TEXTS).sample(0, seed=0) == []


def test_sample_seed_defaults_to_the_run_seed() -> None:
    corpus = Corpus([f"text {i}" for i in range(50)])
    with recording.test_scope(recording.TestState(nodeid="t", settings=Settings(seed=7))):
        assert corpus.sample(5) == corpus.sample(5, seed=7)


def test_sample_streams_a_callable_source() -> None:
    corpus = Corpus(lambda: (f"line {i}" for i in range(200_000)))
    sample = corpus.sample(3, seed=1)
    assert len(sample) == 3
    assert sample == corpus.sample(3, seed=1)


def test_sample_rejects_a_negative_size() -> None:
    with pytest.raises(ConfigurationError, match=">= 0"):
        Corpus(TEXTS).sample(-1)


def test_empty_corpus_names_its_source(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.txt", "\n  \n")
    with pytest.raises(ConfigurationError, match=r"empty\.txt is empty"):
        Corpus(path).sample(3, seed=0)
    with pytest.raises(ConfigurationError, match=r"empty\.txt is empty"):
        Corpus(path).anchored()


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    remaining = iter(whole)
    return all(any(item == other for other in remaining) for item in part)


@given(
    texts=st.lists(st.text(max_size=20), min_size=1, max_size=40),
    n=st.integers(min_value=0, max_value=50),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_sample_is_an_ordered_subset_of_the_right_size(
    texts: list[str], n: int, seed: int
) -> None:
    corpus = Corpus(texts)
    sample = corpus.sample(n, seed=seed)
    assert len(sample) == min(n, len(texts))
    assert is_subsequence(sample, texts)
    assert sample == corpus.sample(n, seed=seed)
