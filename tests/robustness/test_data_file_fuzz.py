"""Hypothesis fuzz of the file readers (issue 26): any bytes under a data-file suffix --
CSV, TSV, JSONL, JSON, Parquet, and the corpus and benchmark files -- give a result or a
named `ConfigurationError`, never an internal exception and never a hang (each example
runs under `_bounded.time_limit`). FUZZ_EXAMPLES=N in the environment runs N examples
per test instead of 60, for a deeper search."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from _bounded import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness.corpus.benchmarks import bbq, crows_pairs, identity_term_templates
from pytest_fairness.corpus.dataset import Dataset
from pytest_fairness.corpus.sources import Corpus
from pytest_fairness.errors import ConfigurationError

FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")), deadline=None,
                derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Bytes that look like the format often enough to pass its first checks: fragments of
#: valid files (quotes, delimiters, braces, escapes, BOMs, NUL, invalid UTF-8) spliced.
FRAGMENTS = [b"text", b"label", b"g", b",", b"\t", b";", b'"', b'""', b"\n", b"\r\n", b"\r",
             b"{", b"}", b"[", b"]", b":", b'"text"', b'"label"', b"null", b"NaN", b"1",
             b"1.5", b"-0", b"1e999", b"true", b"\\", b"\\u", b"\\ud800", b"\x00", b"\xff",
             b"\xef\xbb\xbf", b"\xe9", b"caf\xc3\xa9", b" ", b"she", b"{identity}", b"[[",
             b"PAR1", b"\x15\x04", b"9" * 4400]
spliced = st.lists(st.sampled_from(FRAGMENTS) | st.binary(max_size=8), max_size=60).map(
    b"".join)
any_bytes = st.binary(max_size=400) | spliced

#: JSON values of any shape, texts of any Unicode (lone surrogates are not encodable).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)
cells = st.text(max_size=12) | st.sampled_from(["", "NaN", "NA", " ", "none", "1", "0"])
records = st.lists(st.fixed_dictionaries(
    {"text": cells | json_values}, optional={"label": cells | json_values,
                                             "g": cells, "x": json_values}), max_size=5)


def _csv_text(rows: list[list[str]], delimiter: str) -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter).writerows(rows)
    return out.getvalue().encode("utf-8", "surrogatepass")


def _structured(suffix: str) -> st.SearchStrategy[bytes]:
    """Files valid in the format (often a correct data set), to reach the checks past
    parsing; `_mutated` then breaks some of them."""
    if suffix in (".csv", ".tsv"):
        delimiter = "," if suffix == ".csv" else "\t"
        rows = st.lists(st.lists(cells, min_size=2, max_size=2), max_size=5)
        return rows.map(lambda r: _csv_text([["text", "label"], *r], delimiter))
    if suffix == ".jsonl":
        return records.map(lambda rs: "".join(json.dumps(r) + "\n" for r in rs).encode(
            "utf-8", "surrogatepass"))
    return records.map(lambda rs: json.dumps(rs).encode("utf-8", "surrogatepass"))


def _mutated(data: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    def splice(pair: tuple[bytes, tuple[int, bytes]]) -> bytes:
        body, (at, piece) = pair
        at = at % (len(body) + 1)
        return body[:at] + piece + body[at:]
    return st.tuples(data, st.tuples(st.integers(min_value=0),
                                     st.sampled_from(FRAGMENTS))).map(splice)


def file_bytes(suffix: str) -> st.SearchStrategy[bytes]:
    """Any bytes, format-shaped splices, valid files and valid files with a splice."""
    valid = _structured(suffix)
    return any_bytes | valid | _mutated(valid)


def _outcome(read: Callable[[Path], object], data: bytes, name: str) -> None:
    """`read` of a file holding `data`: a result or a `ConfigurationError`, in time."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        message = "read"
        with time_limit():
            try:
                read(path)
            except ConfigurationError as exc:
                message = str(exc)
    assert message  # a result, or a named error that says something


def _dataset(path: Path) -> object:
    return Dataset(path, label=None)


def _dataset_labelled(path: Path) -> object:
    return Dataset(path, label="label", drop_missing=True)


def _streamed(path: Path) -> object:
    return list(Dataset.iter_rows(path))


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".json"])
@pytest.mark.parametrize("read", [_dataset, _dataset_labelled, _streamed],
                         ids=["Dataset", "labelled", "iter_rows"])
@FUZZ
@given(data=st.data())
def test_text_data_files_of_any_bytes(suffix: str, read: Callable[[Path], object],
                                      data: st.DataObject) -> None:
    if read is _streamed and suffix in (".tsv", ".json"):
        return  # the same readers as .csv and Dataset
    _outcome(read, data.draw(file_bytes(suffix)), f"data{suffix}")


@pytest.mark.parametrize("data", [b'text\n"' + b"x" * 140_000, b"[" * 5000,
                                  b'{"text": "a", "text": "b"}\n', b"text,label\nhi,NaN\n"])
@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json"])
def test_text_data_files_of_chosen_bytes(suffix: str, data: bytes) -> None:
    _outcome(_dataset_labelled, data, f"data{suffix}")


def _parquet_bytes() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({"text": ["She won.", "He won."], "label": [1, 0],
                             "nested": [[1, 2], [3]]}), buffer)
    return buffer.getvalue()


@FUZZ
@given(cut=st.integers(min_value=0, max_value=2000),
       flips=st.lists(st.tuples(st.integers(min_value=0, max_value=2000),
                                st.integers(min_value=0, max_value=255)), max_size=4),
       junk=st.binary(max_size=16))
def test_parquet_files_cut_flipped_or_padded(cut: int, flips: list[tuple[int, int]],
                                             junk: bytes) -> None:
    pytest.importorskip("pyarrow")
    data = bytearray(_parquet_bytes())
    for position, value in flips:
        if position < len(data):
            data[position] = value
    mangled = bytes(data[: len(data) - cut % (len(data) + 1)]) + junk
    _outcome(_dataset, mangled, "data.parquet")


@FUZZ
@given(data=any_bytes)
def test_random_bytes_as_parquet(data: bytes) -> None:
    pytest.importorskip("pyarrow")
    _outcome(_dataset, data, "data.parquet")


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".jsonl"])
@FUZZ
@given(data=st.data())
def test_corpus_files_of_any_bytes(suffix: str, data: st.DataObject) -> None:
    strategy = any_bytes if suffix == ".txt" else file_bytes(suffix)
    _outcome(lambda p: list(Corpus(p)), data.draw(strategy), f"corpus{suffix}")


BBQ_LINE = json.dumps({
    "example_id": 0, "question_index": "1", "question_polarity": "neg",
    "context_condition": "ambig", "category": "Age",
    "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"],
                    "ans2": ["Unknown", "unknown"]},
    "additional_metadata": {"stereotyped_groups": ["old"]},
    "context": "c", "question": "q", "ans0": "a", "ans1": "b", "ans2": "Unknown", "label": 2,
}).encode()


@FUZZ
@given(prefix=st.binary(max_size=20), cut=st.integers(min_value=0, max_value=400),
       tail=any_bytes)
def test_bbq_lines_cut_and_spliced(prefix: bytes, cut: int, tail: bytes) -> None:
    _outcome(bbq, prefix + BBQ_LINE[: len(BBQ_LINE) - cut] + tail, "Age.jsonl")


@FUZZ
@given(fields=st.dictionaries(st.sampled_from(sorted(json.loads(BBQ_LINE))), json_values,
                              min_size=1, max_size=3))
def test_bbq_rows_with_fields_of_any_json(fields: dict[str, object]) -> None:
    row = dict(json.loads(BBQ_LINE), **fields)
    _outcome(bbq, json.dumps(row).encode(), "Age.jsonl")


@pytest.mark.parametrize("reader", [crows_pairs, identity_term_templates],
                         ids=["crows_pairs", "identity_term_templates"])
@FUZZ
@given(data=any_bytes)
def test_benchmark_csvs_of_any_bytes(reader: Callable[[Path], object], data: bytes) -> None:
    header = (b"sent_more,sent_less,stereo_antistereo,bias_type\n"
              if reader is crows_pairs else b"template,label,identity\n")
    _outcome(reader, header + data, "data.csv")
