"""`Dataset`: every reader, the group masks, selection, streaming and every bad input.

The samples are invented sentences in an equity-corpus layout (template, emotion word,
name, gender, race), written by each test to tmp_path.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_fairness.corpus.dataset import (
    Dataset,
    DatasetError,
    GroupMasks,
    SmallGroupError,
)
from pytest_fairness.errors import ConfigurationError, MissingDependencyError

NAMES = [("Ama", "female", "black"), ("Jamal", "male", "black"),
         ("Emily", "female", "white"), ("Adam", "male", "white")]
TEMPLATES = [("t1", "{} feels furious about the delay.", "anger"),
             ("t2", "The trip made {} feel cheerful.", "joy")]
ROWS: list[dict[str, str]] = [
    {"template_id": tid, "text": template.format(name), "label": label, "name": name,
     "gender": gender, "race": race}
    for tid, template, label in TEMPLATES for name, gender, race in NAMES
]
COLUMNS = list(ROWS[0])
SPEC: dict[str, Any] = {"label": "label", "groups": ("gender", "race"), "keys": "template_id"}


def write_delimited(path: Path, rows: list[dict[str, Any]], delimiter: str = ",") -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_json(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def pandas_frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows)


def polars_frame(rows: list[dict[str, Any]]) -> Any:
    import polars as pl

    return pl.DataFrame(rows)


SOURCES: dict[str, Callable[[Path, list[dict[str, Any]]], object]] = {
    "csv": lambda d, rows: write_delimited(d / "data.csv", rows),
    "tsv": lambda d, rows: write_delimited(d / "data.tsv", rows, "\t"),
    "jsonl": lambda d, rows: write_jsonl(d / "data.jsonl", rows),
    "json": lambda d, rows: write_json(d / "data.json", rows),
    "parquet": lambda d, rows: write_parquet(d / "data.parquet", rows),
    "pandas": lambda d, rows: pandas_frame(rows),
    "polars": lambda d, rows: polars_frame(rows),
    "dicts": lambda d, rows: list(rows),
    "generator": lambda d, rows: (dict(r) for r in rows),
}


@pytest.fixture
def data() -> Dataset:
    return Dataset(ROWS, **SPEC)


# --- readers --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_every_reader_gives_the_same_dataset(kind: str, tmp_path: Path) -> None:
    read = Dataset(SOURCES[kind](tmp_path, ROWS), **SPEC)
    assert read == Dataset(ROWS, **SPEC)
    assert len(read) == 8
    assert read.columns == tuple(COLUMNS)
    assert read.texts[0] == "Ama feels furious about the delay."
    assert read.labels == ("anger",) * 4 + ("joy",) * 4
    assert read.group_columns == ("gender", "race")
    assert read.key_columns == ("template_id",)
    assert read.column("name") == tuple(n for _ in TEMPLATES for n, _, _ in NAMES)


def test_file_paths_as_str_and_pathlike(tmp_path: Path) -> None:
    path = write_delimited(tmp_path / "d.csv", ROWS)
    assert Dataset(str(path), **SPEC) == Dataset(path, **SPEC)
    assert "d.csv" in Dataset(path).name


def test_a_utf8_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufefftext,label\nZoë is calm.,joy\n".encode())
    assert Dataset(path, label="label").texts == ("Zoë is calm.",)


def test_other_encodings(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("text\nZoë is calm.\n".encode("latin-1"))
    assert Dataset(path, encoding="latin-1").texts == ("Zoë is calm.",)


def test_int_labels_from_json_and_frames_and_integral_floats(tmp_path: Path) -> None:
    rows = [{"text": "a", "y": 1}, {"text": "b", "y": 0}]
    assert Dataset(write_jsonl(tmp_path / "y.jsonl", rows), label="y").labels == (1, 0)
    assert Dataset(pandas_frame(rows), label="y").labels == (1, 0)
    floats = [{"text": "a", "y": 1.0}, {"text": "b", "y": 0.0}]
    labels = Dataset(floats, label="y").labels
    assert labels == (1, 0)
    assert labels is not None
    assert all(type(v) is int for v in labels)


def test_csv_cells_stay_strings(tmp_path: Path) -> None:
    rows = [{"text": "a", "y": 1}, {"text": "b", "y": 0}]
    assert Dataset(write_delimited(tmp_path / "y.csv", rows), label="y").labels == ("1", "0")


def test_missing_cells_read_as_none_from_every_reader(tmp_path: Path) -> None:
    rows = [{"text": "a", "g": "x", "k": "1"}, {"text": "b", "g": None, "k": "2"}]
    csv_rows = [{**r, "g": r["g"] or ""} for r in rows]
    sources = [rows, pandas_frame(rows), polars_frame(rows),
               write_delimited(tmp_path / "m.csv", csv_rows),
               write_jsonl(tmp_path / "m.jsonl", rows)]
    for source in sources:
        assert Dataset(source, groups="g").column("g") == ("x", None)


def test_rows_with_different_keys_in_dicts_and_jsonl(tmp_path: Path) -> None:
    rows = [{"text": "a"}, {"text": "b", "extra": 3}]
    for source in (rows, write_jsonl(tmp_path / "k.jsonl", rows)):
        got = Dataset(source)
        assert got.columns == ("text", "extra")
        assert got.column("extra") == (None, 3)


def test_a_jsonl_column_first_seen_on_a_later_line(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"text": "a"}, {"text": "b", "g": "x"}]
    assert Dataset(write_jsonl(tmp_path / "late.jsonl", rows), groups="g").column("g") == (
        None, "x")


# --- reading it -----------------------------------------------------------------------


def test_groups_masks_sorted_with_missing_counted() -> None:
    rows = [*ROWS, {**ROWS[0], "gender": "", "text": "Somebody feels furious."}]
    data = Dataset(rows, **SPEC)
    masks = data.groups("gender")
    assert isinstance(masks, GroupMasks)
    assert list(masks) == ["female", "male"]
    assert masks.n_missing == 1
    assert masks.sizes() == {"female": 4, "male": 4}
    assert masks["female"].dtype == np.bool_
    assert masks["female"].tolist() == [True, False, True, False] * 2 + [False]


def test_group_values_are_compared_as_str() -> None:
    data = Dataset([{"text": "a", "g": 1}, {"text": "b", "g": 2}], groups="g")
    assert list(data.groups("g")) == ["1", "2"]


def test_intersections(data: Dataset) -> None:
    masks = data.intersections(("gender", "race"), min_size=2)
    assert list(masks) == [("female", "black"), ("female", "white"),
                           ("male", "black"), ("male", "white")]
    assert masks[("female", "black")].tolist() == [True, False, False, False] * 2
    assert masks.dropped == {}
    assert masks.n_missing == 0


def test_intersections_too_small_names_every_group(data: Dataset) -> None:
    rows = [r for r in ROWS if not (r["gender"] == "male" and r["race"] == "black")]
    rows = rows[:-1]  # one (male, white) row left
    small = Dataset(rows, **SPEC)
    with pytest.raises(SmallGroupError) as info:
        small.intersections(["gender", "race"], min_size=2)
    message = str(info.value)
    assert "male x black: 0 row(s)" in message
    assert "male x white: 1 row(s)" in message
    assert "drop_small=True" in message
    assert info.value.sizes == {("male", "black"): 0, ("male", "white"): 1}
    assert isinstance(info.value, ConfigurationError)
    kept = small.intersections(["gender", "race"], min_size=2, drop_small=True)
    assert list(kept) == [("female", "black"), ("female", "white")]
    assert kept.dropped == {("male", "black"): 0, ("male", "white"): 1}


def test_intersections_bad_arguments(data: Dataset) -> None:
    with pytest.raises(DatasetError, match="at least one column"):
        data.intersections(())
    with pytest.raises(ConfigurationError, match="min_size"):
        data.intersections(("gender",), min_size=0)
    with pytest.raises(DatasetError, match="Did you mean 'gender'"):
        data.intersections(("gendr",))


def test_select_by_mask_and_by_indices(data: Dataset) -> None:
    female = data.select(data.groups("gender")["female"])
    assert len(female) == 4
    assert set(female.column("gender")) == {"female"}
    assert female.group_columns == data.group_columns
    by_index = data.select([3, 0, -1])
    assert by_index.texts == (data.texts[3], data.texts[0], data.texts[7])
    assert len(data.select([])) == 0
    with pytest.raises(DatasetError, match="needs 8 values"):
        data.select(np.array([True, False]))
    with pytest.raises(ConfigurationError, match="row index"):
        data.select([8])
    with pytest.raises(DatasetError, match="boolean mask or integer"):
        data.select([0.5])


def test_rows_and_columns(data: Dataset) -> None:
    rows = list(data.rows())
    assert rows == ROWS
    with pytest.raises(DatasetError, match=r"no column 'nme'.*Did you mean 'name'"):
        data.column("nme")


def test_it_is_immutable(data: Dataset) -> None:
    with pytest.raises(AttributeError, match="immutable"):
        data.name = "x"  # type: ignore[misc]
    assert isinstance(data.texts, tuple)
    with pytest.raises(TypeError):
        hash(data)


def test_no_label_gives_none(tmp_path: Path) -> None:
    assert Dataset(ROWS).labels is None


# --- streaming ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "json", "parquet"])
def test_iter_rows_yields_the_dataset_rows(kind: str, tmp_path: Path) -> None:
    path = SOURCES[kind](tmp_path, ROWS)
    assert isinstance(path, Path)
    assert list(Dataset.iter_rows(path, **SPEC)) == list(Dataset(path, **SPEC).rows())


def test_iter_rows_streams_and_fails_at_the_bad_row(tmp_path: Path) -> None:
    rows = [*ROWS, {**ROWS[0], "label": ""}]
    stream = Dataset.iter_rows(write_delimited(tmp_path / "s.csv", rows), **SPEC)
    for _ in range(8):  # the good rows come before the bad one is read
        next(stream)
    with pytest.raises(DatasetError, match=r"row 9 \(.*line 10\)"):
        next(stream)


def test_iter_rows_checks_columns_up_front(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="Did you mean 'label'"):
        Dataset.iter_rows(write_jsonl(tmp_path / "s.jsonl", ROWS), label="lable")
    with pytest.raises(DatasetError, match="streams a data file"):
        Dataset.iter_rows(ROWS)  # type: ignore[arg-type]


def test_iter_rows_group_without_values_fails_at_the_end(tmp_path: Path) -> None:
    rows = [{**r, "gender": ""} for r in ROWS]
    stream = Dataset.iter_rows(write_delimited(tmp_path / "g.csv", rows), groups="gender")
    with pytest.raises(DatasetError, match="group column 'gender' has no value"):
        list(stream)


# --- bad input ------------------------------------------------------------------------


def test_missing_column_lists_the_columns_and_suggests_the_closest(tmp_path: Path) -> None:
    path = write_delimited(tmp_path / "c.csv", ROWS)
    with pytest.raises(DatasetError) as info:
        Dataset(path, text="txt")
    message = str(info.value)
    assert "no column 'txt' (asked for as text=)" in message
    assert "'template_id', 'text', 'label', 'name', 'gender', 'race'" in message
    assert "Did you mean 'text'? Pass text='text'" in message
    with pytest.raises(DatasetError, match="Did you mean 'gender'"):
        Dataset(ROWS, groups=("Gender",))
    with pytest.raises(DatasetError, match="asked for as keys="):
        Dataset(ROWS, keys="pair")


def test_a_column_in_two_roles() -> None:
    with pytest.raises(DatasetError, match="both as text= and as groups="):
        Dataset(ROWS, groups="text")


@pytest.mark.parametrize("cell", [None, "", "   ", float("nan")])
def test_empty_text_names_the_row(cell: object) -> None:
    rows = [dict(r) for r in ROWS]
    rows[2]["text"] = cell  # type: ignore[assignment]
    with pytest.raises(DatasetError, match=r"1 row\(s\) have no usable text.*row 3: an empty"):
        Dataset(rows)


def test_non_text_cell_names_the_row_and_line(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [dict(r) for r in ROWS]
    rows[1]["text"] = 42
    with pytest.raises(DatasetError, match=r"row 2 \(data file .*line 2\): a int \(42\)"):
        Dataset(write_jsonl(tmp_path / "n.jsonl", rows))


def test_missing_labels_list_the_rows_and_how_to_drop_them(tmp_path: Path) -> None:
    rows = [dict(r) for r in ROWS]
    rows[1]["label"] = ""
    rows[5]["label"] = ""
    with pytest.raises(DatasetError) as info:
        Dataset(write_delimited(tmp_path / "l.csv", rows), label="label")
    message = str(info.value)
    assert "2 row(s) have no label in column 'label'" in message
    assert "row 2 (data file" in message
    assert "row 6 (data file" in message
    assert "dropna(subset=['label'])" in message
    assert "drop_missing=True" in message
    kept = Dataset(write_delimited(tmp_path / "l.csv", rows), label="label", drop_missing=True)
    assert len(kept) == 6
    assert kept.dropped == {"missing label": 2}


def test_nan_labels_from_pandas() -> None:
    rows: list[dict[str, Any]] = [{"text": "a", "y": 1}, {"text": "b", "y": None}]
    with pytest.raises(DatasetError, match=r"no label in column 'y'.*row 2"):
        Dataset(pandas_frame(rows), label="y")
    kept = Dataset(pandas_frame(rows), label="y", drop_missing=True)
    assert kept.labels == (1,)
    assert kept.dropped == {"missing label": 1}


def test_drop_missing_drops_empty_texts_counted() -> None:
    rows = [*ROWS, {**ROWS[0], "text": " "}]
    kept = Dataset(rows, drop_missing=True)
    assert len(kept) == 8
    assert kept.dropped == {"empty text": 1}


def test_mixed_label_types() -> None:
    rows = [{"text": "a", "y": "pos"}, {"text": "b", "y": 1}]
    with pytest.raises(DatasetError, match=r"mix types: str in row 1, int \(1\) in row 2"):
        Dataset(rows, label="y")


@pytest.mark.parametrize(("value", "why"), [(True, "a bool"), (0.5, "a float")])
def test_bool_and_fractional_labels_are_refused(value: object, why: str) -> None:
    with pytest.raises(DatasetError, match=f"row 1: the label in column 'y' is {why}"):
        Dataset([{"text": "a", "y": value}], label="y")


def test_a_group_column_without_values() -> None:
    rows = [{**r, "race": None} for r in ROWS]
    with pytest.raises(DatasetError, match=r"group column 'race' has no value in any of its 8"):
        Dataset(rows, groups=("gender", "race"))
    data = Dataset(rows)
    with pytest.raises(DatasetError, match="defines no group"):
        data.groups("race")


def test_file_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"data file '.*nope.csv' does not exist"):
        Dataset(tmp_path / "nope.csv")


def test_unknown_suffix(tmp_path: Path) -> None:
    path = tmp_path / "data.xlsx"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"must end in .csv, .tsv, .jsonl, .json, .parquet"):
        Dataset(path)


def test_invalid_encoding_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(b"text\nfine\ncaf\xe9 time\n")
    with pytest.raises(DatasetError, match=r"bad.csv', line 3: bytes b'\\xe9' are not valid "
                                           r"utf-8-sig.*encoding='latin-1'"):
        Dataset(path)
    with pytest.raises(DatasetError, match=r"ok.jsonl', line 1: its bytes are not valid utf-16"):
        Dataset(write_jsonl(tmp_path / "ok.jsonl", ROWS), encoding="utf-16")
    with pytest.raises(DatasetError, match="not a text encoding"):
        Dataset(path, encoding="nope")


@pytest.mark.parametrize("content", ["", "text,label\n"])
def test_empty_files(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=r"empty|no rows"):
        Dataset(path)


def test_empty_sources(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="holds no rows"):
        Dataset([])
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="holds no rows"):
        Dataset(empty)
    with pytest.raises(DatasetError, match=r"holds no rows \(dropped: 1 empty text\)"):
        Dataset([{"text": ""}], drop_missing=True)


def test_duplicate_column_names(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("text,group,group\na,x,y\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="duplicate column names: 'group'"):
        Dataset(path)
    import pandas as pd

    with pytest.raises(DatasetError, match="duplicate column names: 'g'"):
        Dataset(pd.DataFrame([["a", "x", "y"]], columns=["text", "g", "g"]))
    jsonl = tmp_path / "dup.jsonl"
    jsonl.write_text('{"text": "a", "g": "x"}\n{"text": "b", "g": "x", "g": "y"}\n',
                     encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2, has duplicate column names: 'g'"):
        Dataset(jsonl)


def test_csv_row_with_the_wrong_number_of_fields(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    path.write_text("text,label\na,pos\nb,neg,extra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"row 2 \(.*line 3\) has 3 fields, the header has 2"):
        Dataset(path)


def test_bad_json_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a"}\n{"text": \n', encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2 is not valid JSON"):
        Dataset(path)
    path.write_text('{"text": "a"}\n["b"]\n', encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2 is a JSON list, not an object"):
        Dataset(path)
    one = tmp_path / "one.json"
    one.write_text('{"text": "a"}', encoding="utf-8")
    with pytest.raises(DatasetError, match="list of objects"):
        Dataset(one)


def test_bad_sources_and_arguments() -> None:
    with pytest.raises(DatasetError, match="cannot read a data set from int"):
        Dataset(3)
    with pytest.raises(DatasetError, match="cannot read a data set from dict"):
        Dataset({"text": ["a"]})
    with pytest.raises(DatasetError, match="item 2 is a str"):
        Dataset([{"text": "a"}, "b"])
    with pytest.raises(DatasetError, match="text must be the name"):
        Dataset(ROWS, text="")
    with pytest.raises(DatasetError, match="groups names a column twice"):
        Dataset(ROWS, groups=("gender", "gender"))
    with pytest.raises(ConfigurationError, match="drop_missing must be True or False"):
        Dataset(ROWS, drop_missing="yes")  # type: ignore[arg-type]
    import pandas as pd

    with pytest.raises(DatasetError, match="not str"):
        Dataset(pd.DataFrame([["a"]], columns=[0]), text="0")


def test_parquet_without_pyarrow_names_the_frames_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_parquet(tmp_path / "p.parquet", ROWS)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingDependencyError,
                       match=r"(?s)'frames' extra.*pip install -e \".\[frames\]\""):
        Dataset(path)


def test_no_frame_library_is_imported_by_reading_dicts() -> None:
    import subprocess

    code = ("import sys; from pytest_fairness.corpus.dataset import Dataset; "
            "Dataset([{'text': 'a'}]); "
            "print(sorted(m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
