"""Labelled data sets: a table of texts with a gold label, group columns and pairing keys.

`Dataset` reads the data a user already has -- a ``.csv`` / ``.tsv`` / ``.jsonl`` /
``.json`` / ``.parquet`` file, a pandas or polars DataFrame, or an iterable of dicts --
into an immutable, validated, in-memory table: one text column, an optional gold-label
column, any number of group columns (gender, race, religion, ...; several per row) and
pairing-key columns (template id, pair id). Every other column is kept and readable with
`Dataset.column`. Group masks (`Dataset.groups`, `Dataset.intersections`) feed the group
metrics; `Dataset.pairs` (`pytest_fairness.corpus.pairs`) turns rows that share a key and
differ in a group into counterfactual `Perturbation`s.

`Dataset.iter_rows` streams a file row by row, with the same per-row checks, for the
metrics that need one pass only.

Bad input is refused with a `DatasetError` (a `ConfigurationError`) saying the problem and
the fix, never dropped silently. pandas, polars and pyarrow are imported only when a frame
or a Parquet file is read (the ``frames`` extra).
"""

from __future__ import annotations

import codecs
import csv
import difflib
import json
import math
import os
import reprlib
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError, MissingDependencyError, SmallGroupError
from ..runtime.files import open_binary, open_text, regular_file, shown_path, text_encoding
from ..runtime.optional import install_hint
from ..runtime.printable import printable
from ..validation import check_bool, check_int

if TYPE_CHECKING:
    from .pairs import Pairs
    from .sources import Corpus

__all__ = [
    "DATASET_SUFFIXES",
    "Dataset",
    "DatasetError",
    "GroupMasks",
    "SmallGroupError",
    "read_records",
]

#: File types a `Dataset` is read from.
DATASET_SUFFIXES: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".json", ".parquet")
#: How many offending rows an error message lists before it says "and N more".
_LISTED = 10
#: The most intersectional groups `Dataset.intersections` builds (each is a row mask).
MAX_INTERSECTIONS = 10_000

BoolArray = npt.NDArray[np.bool_]
Label = str | int


class DatasetError(ConfigurationError):
    """A data set's source, columns or cells are not what was asked for; the message
    names the file, row or column and the fix."""


class GroupMasks(dict[Any, BoolArray]):
    """Group value (or tuple of values, for intersections) -> boolean row mask, in sorted
    order of the values.

    `column` names the group column(s); `n_missing` counts the rows in no group (a missing
    cell in a group column); `dropped` maps each group left out for being smaller than
    `min_size` (``drop_small=True``) to its size.
    """

    def __init__(
        self,
        masks: Iterable[tuple[Any, BoolArray]],
        *,
        column: str | tuple[str, ...],
        n_missing: int,
        dropped: Mapping[tuple[str, ...], int] | None = None,
    ) -> None:
        super().__init__(masks)
        self.column = column
        self.n_missing = n_missing
        self.dropped: dict[tuple[str, ...], int] = dict(dropped or {})

    def sizes(self) -> dict[Any, int]:
        """Group -> its number of rows."""
        return {group: int(mask.sum()) for group, mask in self.items()}


# --------------------------------------------------------------------------- cells


def is_missing(value: object) -> bool:
    """Whether a cell is missing: None, a blank string, NaN, or pandas' NA / NaT."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (float, np.floating)):
        return bool(math.isnan(value))
    return type(value).__name__ in ("NAType", "NaTType")


def _cell(value: object) -> object:
    """A cell as stored: numpy scalars as Python ones, every missing marker as None."""
    if isinstance(value, np.generic):
        value = value.item()
    return None if is_missing(value) else value


#: Texts that spell a missing value: what pandas' ``astype(str)`` makes of NaN, NA and
#: NaT, what R's ``write.csv`` and spreadsheets write for an empty cell. In a text, label,
#: group or key column such a cell is missing, never the class or group "NaN". ("None" and
#: "none" are left alone: a class may be called that.)
MISSING_SPELLINGS: frozenset[str] = frozenset(
    ("nan", "NaN", "NAN", "-nan", "NA", "N/A", "n/a", "#N/A", "<NA>", "NaT", "null", "NULL"))


def _role_cell(value: object) -> object:
    """A cell of a text, label, group or key column: `_cell`'s value, or None for a text
    that spells a missing value (`MISSING_SPELLINGS`)."""
    if isinstance(value, str) and value.strip() in MISSING_SPELLINGS:
        return None
    return value


def _label(value: object) -> Label | str:
    """A non-missing gold label as stored (str or int), or a str saying why it is refused
    (starting with "!")."""
    if isinstance(value, bool):
        return "!a bool: map it to a class name or id first (e.g. 0/1, or 'yes'/'no')"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return (f"!a {type(value).__name__} ({_shown(value)}): a label is a class name (str) or "
            "class id (int); for a score use another column, not label=")


def _columns_arg(value: object, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        raise DatasetError(f"{name} must be a column name or a sequence of them, got "
                           f"{type(value).__name__} {_shown(value)}")
    out = tuple(items)
    for item in out:
        if not isinstance(item, str) or not item:
            raise DatasetError(f"{name} must hold column names (non-empty str), got {_shown(item)}")
    if len(set(out)) != len(out):
        raise DatasetError(f"{name} names a column twice: {out!r}")
    return out


def _unknown_column(column: str, role: str, columns: Sequence[str], where: str) -> DatasetError:
    close = difflib.get_close_matches(column, list(columns), n=1, cutoff=0.5)
    lowered = [c for c in columns if c.lower() == column.lower()]
    guess = lowered[0] if lowered else close[0] if close else None
    hint = f" Did you mean {guess!r}? Pass {role}={guess!r}." if guess else (
        f" Pass {role}= one of them.")
    return DatasetError(f"{where} has no column {column!r} (asked for as {role}=); its columns "
                        f"are: {', '.join(map(repr, columns))}.{hint}")


def _rows_listed(rows: Sequence[str]) -> str:
    shown = ", ".join(rows[:_LISTED])
    return shown + (f" and {len(rows) - _LISTED} more" if len(rows) > _LISTED else "")


# --------------------------------------------------------------------------- reading


class _Raw:
    """What a reader produced: the column names and (location, record) pairs."""

    def __init__(self, name: str, columns: list[str],
                 records: Iterator[tuple[str, Mapping[str, object]]]) -> None:
        self.name = name
        self.columns = columns
        self.records = records


def _duplicates(columns: Sequence[str], where: str) -> None:
    seen: set[str] = set()
    twice = [c for c in columns if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    if twice:
        raise DatasetError(f"{where} has duplicate column names: {', '.join(map(repr, twice))}; "
                           "rename them so that every column has its own name")


def _path(source: str | os.PathLike[str]) -> Path:
    path = Path(source).expanduser()
    if path.suffix.lower() not in DATASET_SUFFIXES:
        raise DatasetError(f"data file '{shown_path(path)}' must end in "
                           f"{', '.join(DATASET_SUFFIXES)} (got "
                           f"{printable(repr(path.suffix or 'no suffix'))}); rename it or read "
                           "it into a list of dicts or a DataFrame first")
    # A directory, FIFO or device named like a data file is refused here, by its type.
    return regular_file(path, "data file", error=DatasetError)


def _encoding(encoding: object) -> str:
    checked = text_encoding(encoding, error=DatasetError)
    # A UTF-8 file may start with a byte-order mark (Excel writes one): drop it.
    return "utf-8-sig" if codecs.lookup(checked).name == "utf-8" else checked


#: How a cell is shown in a message: short, and never deeper than a few levels (a cell
#: nested a thousand lists deep would exhaust `repr`'s recursion).
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 40, 40


def _shown(value: object) -> str:
    """A cell as a message shows it: a short repr, control characters escaped."""
    try:
        return printable(_REPR.repr(value))
    except ValueError:  # an int too long for repr (sys.get_int_max_str_digits)
        return f"<a {type(value).__name__} too long to show>"


def _decode_error(path: Path, encoding: str, exc: UnicodeError) -> DatasetError:
    line, bad, reason = 1, b"", str(exc)
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    with open_binary(path, "data file", error=DatasetError) as handle:
        for raw in handle:
            try:
                line += decoder.decode(raw).count("\n")
            except UnicodeDecodeError as found:
                bad, reason = bytes(found.object[found.start:found.end]), found.reason
                break
            except UnicodeError:
                break
    shown = f"bytes {bad!r} are" if bad else "its bytes are"
    return DatasetError(
        f"data file '{shown_path(path)}', line {line}: {shown} not valid {encoding} "
        f"({reason}); pass the file's encoding, e.g. encoding='latin-1' (or 'cp1252', "
        "'utf-16', ...)")


def _lines(
    path: Path, encoding: str, newline: str | None = None
) -> Generator[str, None, None]:
    with open_text(path, "data file", encoding=encoding, newline=newline,
                   error=DatasetError) as handle:
        try:
            yield from handle
        except UnicodeError as exc:
            raise _decode_error(path, encoding, exc) from None


#: The delimiters a header is checked for: one a file of the other suffix would use.
_DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}


def _csv_error(path: Path, line: int, exc: csv.Error) -> DatasetError:
    """A `csv.Error` (a cell over csv's field limit, a NUL byte, a stray quote) as a
    `DatasetError` naming the file, the line and the fix."""
    where = f"data file '{shown_path(path)}', line {line}"
    if "field limit" in str(exc):
        return DatasetError(
            f"{where}: a cell is longer than {csv.field_size_limit():,} characters (the csv "
            "module's field limit). Most often a quote is left open, so the rest of the file "
            "reads as one cell: close it, or escape quotes inside cells by doubling them "
            "(\"\"). Texts that long are not sentences to score; if you need them, store the "
            "data as .jsonl or .parquet, which have no such limit")
    if "unexpected end of data" in str(exc):
        return DatasetError(
            f"{where}: the file ends inside a quoted cell: a quote opened on or before this "
            "line is never closed, so the rest of the file would read as one cell. Close "
            "it, or double a quote that is part of the text (\"\")")
    return DatasetError(f"{where} cannot be read as delimited text ({exc}); fix the line "
                        "(quote cells that hold the delimiter, a quote or a line break, and "
                        "double a quote inside a quoted cell: \"\")")


def _wrong_delimiter(path: Path, header: Sequence[str], delimiter: str) -> None:
    """Refuse a header that is one column holding another delimiter: a comma-separated
    ``.tsv`` (or a semicolon-separated ``.csv``) would otherwise read as one column whose
    name is the whole header line."""
    if len(header) != 1:
        return
    found = [(d, name) for d, name in _DELIMITERS.items() if d != delimiter and d in header[0]]
    if not found:
        return
    other, name = found[0]
    expected = _DELIMITERS[delimiter]
    fix = ("rename it to .csv" if other == "," else
           "rename it to .tsv" if other == "\t" else
           f"save it {expected}-separated (or read it with pandas.read_csv(path, "
           f"sep={other!r}) and pass the DataFrame)")
    raise DatasetError(
        f"data file '{shown_path(path)}' is read as {expected}-separated (its suffix is "
        f"{path.suffix!r}), but its header line {_shown(header[0])} holds no {expected} but "
        f"{name}s: it looks {name}-separated. {fix[0].upper()}{fix[1:]}")


def _read_delimited(path: Path, encoding: str, delimiter: str) -> _Raw:
    lines = _lines(path, encoding, newline="")
    # strict: a quote never closed, or text after a closing quote, is an error, not a
    # cell that silently swallows the rest of the file or drops the quote.
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        lines.close()
        raise _csv_error(path, reader.line_num, exc) from None
    except BaseException:
        lines.close()
        raise
    if header is None:
        lines.close()
        raise DatasetError(f"data file '{shown_path(path)}' is empty: it needs a header line "
                           "naming the columns and at least one row")
    try:
        _duplicates(header, f"data file '{shown_path(path)}'")
        _wrong_delimiter(path, header, delimiter)
    except DatasetError:
        lines.close()
        raise

    def records() -> Iterator[tuple[str, Mapping[str, object]]]:
        try:
            while True:
                try:
                    row = next(reader, None)
                except csv.Error as exc:
                    raise _csv_error(path, reader.line_num, exc) from None
                if row is None:
                    return
                if not row:
                    continue
                where = (f"row {reader.line_num - 1} (data file '{shown_path(path)}', line "
                         f"{reader.line_num})")
                if len(row) != len(header):
                    raise DatasetError(
                        f"{where} has {len(row)} fields, the header has {len(header)}; quote "
                        f"cells that hold the delimiter {delimiter!r}, or fix the row")
                yield where, dict(zip(header, row, strict=True))
        finally:
            lines.close()

    return _Raw(f"data file '{shown_path(path)}'", list(header), records())


def _pairs_hook(where: Callable[[], str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            _duplicates(keys, where())
        return dict(pairs)
    return hook


def _too_deep(where: str) -> DatasetError:
    return DatasetError(
        f"{where} holds JSON nested deeper than Python's JSON reader can follow (its "
        "recursion limit): a data set's cells are texts, labels, numbers or shallow lists; "
        "flatten the nested value or drop that field")


def _json(text: str, where: str, hook: Callable[[list[tuple[str, Any]]], dict[str, Any]],
          fix: str) -> Any:
    """`text` parsed as JSON; invalid or too deeply nested JSON raises `DatasetError`
    saying where (`where`, the error's line within `text` when it has more than one) and
    `fix`."""
    try:
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        line = f", line {exc.lineno}" if "\n" in text.strip() else ""
        raise DatasetError(f"{where}{line} is not valid JSON ({exc.msg}, column "
                           f"{exc.colno}); {fix}") from None
    except RecursionError:
        raise _too_deep(where) from None
    except DatasetError:  # the hook's, on a duplicate key
        raise
    except ValueError as exc:  # a number longer than Python converts (4,300 digits)
        raise DatasetError(f"{where} holds a number Python will not read "
                           f"({printable(str(exc))[:120]}); write it as a string, or "
                           "drop it") from None


def _read_jsonl(path: Path, encoding: str) -> _Raw:
    lines = _lines(path, encoding)
    state = {"line": 0}
    hook = _pairs_hook(lambda: f"data file '{shown_path(path)}', line {state['line']},")
    buffered: list[tuple[str, Mapping[str, object]]] = []
    columns: list[str] = []
    known: set[str] = set()

    def parse(number: int, line: str) -> tuple[str, Mapping[str, object]]:
        state["line"] = number
        where = f"data file '{shown_path(path)}', line {number}"
        record = _json(line, where, hook, "fix the line (one JSON object per line)")
        if not isinstance(record, dict):
            raise DatasetError(f"{where} is a JSON {type(record).__name__}, not an object; "
                               "each line must be one JSON object {\"column\": value, ...}")
        return where, record

    numbered = ((n, line) for n, line in enumerate(lines, start=1) if line.strip())
    first = next(numbered, None)
    if first is not None:  # the first record's keys stand for the columns
        try:
            buffered.append(parse(*first))
        except BaseException:
            lines.close()
            raise
        columns = list(buffered[0][1])
        known.update(columns)

    def records() -> Iterator[tuple[str, Mapping[str, object]]]:
        try:
            for count, (where, record) in enumerate(buffered, start=1):
                yield f"row {count} ({where})", record
            for count, (number, line) in enumerate(numbered, start=len(buffered) + 1):
                where, record = parse(number, line)
                for key in record:
                    if key not in known:
                        known.add(key)
                        columns.append(key)
                yield f"row {count} ({where})", record
        finally:
            lines.close()

    return _Raw(f"data file '{shown_path(path)}'", columns, records())


def _read_json(path: Path, encoding: str) -> _Raw:
    name = f"data file '{shown_path(path)}'"
    hook = _pairs_hook(lambda: f"an object in {name}")
    with open_text(path, "data file", encoding=encoding, error=DatasetError) as handle:
        try:
            text = handle.read()
        except UnicodeError as exc:
            raise _decode_error(path, encoding, exc) from None
    data = _json(text, name, hook, "fix the file")
    if not isinstance(data, list):
        raise DatasetError(f"{name} holds a JSON {type(data).__name__}; a .json "
                           "data set is a list of objects [{\"text\": ...}, ...] (for one "
                           "object per line, name the file .jsonl)")
    return _from_mappings(data, name, "object")


def _read_parquet(path: Path) -> _Raw:
    import importlib

    try:
        pq: Any = importlib.import_module("pyarrow.parquet")
    except ImportError:
        raise MissingDependencyError(
            f"reading the Parquet file '{shown_path(path)}' needs the optional dependency "
            f"'pyarrow' (the 'frames' extra), which is not installed. Install it with:\n    "
            f"{install_hint('frames')}") from None
    name = f"data file '{shown_path(path)}'"
    errors: tuple[type[BaseException], ...] = (
        importlib.import_module("pyarrow").ArrowException, OSError, ValueError)
    with open_binary(path, "data file", error=DatasetError) as handle:
        try:
            schema = pq.read_schema(handle)
            _duplicates(list(schema.names), name)
            handle.seek(0)
            table = pq.read_table(handle)
            values = [table.column(i).to_pylist() for i in range(table.num_columns)]
        except DatasetError:
            raise
        except errors as exc:
            raise DatasetError(
                f"{name} cannot be read as Parquet ({printable(str(exc))[:200]}): it is "
                "empty, cut short, or not a Parquet file. Write it again (e.g. "
                "frame.to_parquet(path)), or give it the suffix of what it holds "
                "(.csv, .jsonl, ...)") from None
    return _from_column_lists(name, list(table.column_names), values)


def _from_column_lists(name: str, columns: list[str], values: list[list[object]]) -> _Raw:
    _duplicates(columns, name)
    rows = zip(*values, strict=True) if values else iter(())
    records = ((f"row {i}", dict(zip(columns, row, strict=True)))
               for i, row in enumerate(rows, start=1))
    return _Raw(name, columns, records)


def _read_frame(frame: Any, library: str) -> _Raw:
    columns = list(frame.columns)
    name = f"the {library} DataFrame"
    if not all(isinstance(c, str) for c in columns):
        bad = [c for c in columns if not isinstance(c, str)]
        raise DatasetError(f"{name} has column names that are not str: {bad[:5]!r}; rename "
                           "them, e.g. frame.columns = [str(c) for c in frame.columns]")
    _duplicates(columns, name)
    if library == "pandas":
        values = [frame[c].tolist() for c in columns]
    else:
        values = [frame.get_column(c).to_list() for c in columns]
    return _from_column_lists(name, columns, values)


def _from_mappings(items: Iterable[object], name: str, what: str) -> _Raw:
    columns: list[str] = []
    records: list[tuple[str, Mapping[str, object]]] = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise DatasetError(f"{name}: {what} {i} is a {type(item).__name__} ({_shown(item)}), "
                               "not a mapping; a data set is read from dicts {column: value}")
        for key in item:
            if not isinstance(key, str):
                raise DatasetError(f"{name}: {what} {i} has a key that is not a str: {_shown(key)}")
            if key not in columns:
                columns.append(key)
        records.append((f"row {i}", item))
    return _Raw(name, columns, iter(records))


def _frame_library(source: object) -> str | None:
    module = type(source).__module__.split(".")[0]
    if module in ("pandas", "polars") and type(source).__name__ == "DataFrame":
        return module
    return None


def _open(source: object, encoding: str) -> _Raw:
    if isinstance(source, (str, os.PathLike)):
        path = _path(source)
        suffix = path.suffix.lower()
        if suffix == ".csv":
            return _read_delimited(path, encoding, ",")
        if suffix == ".tsv":
            return _read_delimited(path, encoding, "\t")
        if suffix == ".jsonl":
            return _read_jsonl(path, encoding)
        if suffix == ".json":
            return _read_json(path, encoding)
        return _read_parquet(path)
    library = _frame_library(source)
    if library is not None:
        return _read_frame(source, library)
    if isinstance(source, (bytes, bytearray, Mapping)) or not isinstance(source, Iterable):
        raise DatasetError(
            f"cannot read a data set from {type(source).__name__} {_shown(source)}; pass a "
            f"{'/'.join(DATASET_SUFFIXES)} file path, a pandas or polars DataFrame, or a list "
            "of dicts {column: value}")
    return _from_mappings(source, f"the {type(source).__name__} of records", "item")


def read_records(
    source: object, *, encoding: str = "utf-8"
) -> tuple[str, list[str], Iterator[tuple[str, Mapping[str, object]]]]:
    """The raw records of a data source, read as `Dataset` reads them (a file of
    `DATASET_SUFFIXES`, a pandas or polars frame, a list of dicts), for readers with their
    own columns (`checks.answers_file`): how messages name the source, its columns (empty
    when a source of dicts names them record by record), and (location, record) pairs,
    the location as "row 3 (data file 'x.csv', line 4)". Cells are as read (a CSV's
    empty cell is ""); errors are `DatasetError`."""
    raw = _open(source, _encoding(encoding))
    return raw.name, list(raw.columns), raw.records


# --------------------------------------------------------------------------- spec


class _Spec:
    """The column roles asked for, checked."""

    def __init__(self, text: object, label: object, groups: object, keys: object) -> None:
        if not isinstance(text, str) or not text:
            raise DatasetError(f"text must be the name of the text column, got {_shown(text)}")
        if label is not None and (not isinstance(label, str) or not label):
            raise DatasetError(f"label must be the name of the gold-label column or None, got "
                               f"{_shown(label)}")
        self.text: str = text
        self.label: str | None = label
        self.groups = _columns_arg(groups, "groups")
        self.keys = _columns_arg(keys, "keys")
        roles = [("text", text)] + ([("label", label)] if label else [])
        roles += [("groups", g) for g in self.groups] + [("keys", k) for k in self.keys]
        named: dict[str, str] = {}
        for role, column in roles:
            if column in named:
                raise DatasetError(f"column {column!r} is given both as {named[column]}= and "
                                   f"as {role}=; a column plays one role")
            named[column] = role

    def roles(self) -> tuple[str, ...]:
        """Every column given a role (text, label, groups, keys)."""
        return tuple(column for _, column in self.required())

    def row(self, record: Mapping[str, object], columns: Sequence[str]) -> dict[str, object]:
        """One record as a row of every column: missing cells None (in the role columns,
        also a missing value spelled out, `MISSING_SPELLINGS`)."""
        row = {c: _cell(record.get(c)) for c in columns}
        for column in self.roles():
            row[column] = _role_cell(row[column])
        return row

    def required(self) -> list[tuple[str, str]]:
        out = [("text", self.text)] + ([("label", self.label)] if self.label else [])
        return out + [("groups", g) for g in self.groups] + [("keys", k) for k in self.keys]

    def check_columns(self, raw: _Raw) -> None:
        if not raw.columns:
            raise DatasetError(f"{raw.name} holds no rows (no record, no column): a data set "
                               "needs at least one row with a text")
        for role, column in self.required():
            if column not in raw.columns:
                raise _unknown_column(column, role, raw.columns, raw.name)


class _RowChecker:
    """The per-row checks: a text cell, a label cell, one label type."""

    def __init__(self, spec: _Spec, name: str) -> None:
        self.spec = spec
        self.name = name
        self.label_type: type | None = None
        self.label_type_row = ""

    def text_problem(self, value: object) -> str | None:
        if value is None:
            return "an empty text (or a missing value written out, such as 'NaN' or 'NA')"
        if not isinstance(value, str):
            return f"a {type(value).__name__} ({_shown(value)}), not a text"
        return None

    def label(self, value: object, where: str) -> Label:
        checked = _label(value)
        if isinstance(checked, str) and checked.startswith("!") and not isinstance(
                value, str):
            raise DatasetError(f"{self.name}, {where}: the label in column {self.spec.label!r} "
                               f"is {checked[1:]}")
        kind = type(checked)
        if self.label_type is None:
            self.label_type, self.label_type_row = kind, where
        elif kind is not self.label_type:
            raise DatasetError(
                f"{self.name}: labels in column {self.spec.label!r} mix types: "
                f"{self.label_type.__name__} in {self.label_type_row}, {kind.__name__} "
                f"({_shown(value)}) in {where}; make them all class names (str) or all class "
                "ids (int)")
        return checked


def _missing_labels_error(name: str, column: str, rows: Sequence[str]) -> DatasetError:
    return DatasetError(
        f"{name}: {len(rows)} row(s) have no label in column {column!r} (None, empty, NaN, "
        f"or a missing value written out such as 'NaN' or 'NA'): {_rows_listed(rows)}. "
        "Fill them in, drop those rows before reading (e.g. "
        f"frame.dropna(subset=[{column!r}])), or pass drop_missing=True to drop them (they "
        "are counted in Dataset.dropped)")


def _bad_text_error(name: str, column: str, rows: Sequence[str]) -> DatasetError:
    return DatasetError(
        f"{name}: {len(rows)} row(s) have no usable text in column {column!r}: "
        f"{_rows_listed(rows)}. Every row needs a non-empty text: fix or remove those rows "
        "(empty texts can be dropped with drop_missing=True, counted in Dataset.dropped)")


# --------------------------------------------------------------------------- Dataset


class Dataset:
    """An immutable table of texts with an optional gold label, group columns and
    pairing keys, read and checked once.

    `source` is a path to a ``.csv`` / ``.tsv`` (header line first) / ``.jsonl`` (one
    object per line) / ``.json`` (a list of objects) / ``.parquet`` file (through pyarrow,
    the ``frames`` extra), a pandas or polars DataFrame, or an iterable of mappings
    ``{column: value}``. `text` names the text column; `label` the gold-label column
    (optional); `groups` one or more group columns (a str or a sequence: ``("gender",
    "race")``); `keys` the pairing-key columns (template id, pair id) used by `pairs`.
    Every other column is kept (`column`). Files are decoded with `encoding` (UTF-8 by
    default, a leading byte-order mark dropped).

    Cells are stored as read -- CSV and TSV cells are str (no type guessing: a label
    "1" stays "1"; use JSON or a frame for int labels) -- except that every missing cell
    (None, a blank string, NaN, pandas' NA) is stored as None, and so is a cell of the
    text, label, group or key columns that spells a missing value (`MISSING_SPELLINGS`:
    "NaN", "NA", "N/A", "null", ...; not "none").

    A path must be a regular file (`pytest_fairness.runtime.files`): a directory, FIFO or
    device is refused by its type, never waited on. CSV and TSV are read strictly (a
    quote never closed, or text after a closing quote, is an error), and a cell over the
    csv module's field limit is refused rather than the process-wide limit raised.

    Checked, each failure a `DatasetError` (a `ConfigurationError`) naming the file, the
    rows or the column and the fix, never a silent drop: a missing column (the existing
    ones listed, the closest suggested), duplicate column names, an empty source, a text
    cell that is empty or not a str, a missing label, a label that is a bool or a
    fractional float (labels are class names, str, or class ids, int; an integral float
    such as 1.0 is read as 1), labels of both types, a group column with no value at all,
    a file that does not exist or has an unknown suffix or bytes invalid in `encoding`.
    With ``drop_missing=True`` rows with an empty text or a missing label are dropped
    instead and counted in `dropped`.

    `lang` is the language of the texts, as for `Corpus` ("en" by default, "fr"): the
    relations that perturb use it when not given ``lang=`` and raise
    `LanguageConflictError` when given another one; `corpus()` hands it on.
    """

    __slots__ = ("_columns", "_dropped", "_n", "_spec", "lang", "lang_given", "name")

    def __init__(
        self,
        source: object,
        *,
        text: str = "text",
        label: str | None = None,
        groups: str | Sequence[str] = (),
        keys: str | Sequence[str] = (),
        encoding: str = "utf-8",
        drop_missing: bool = False,
        name: str | None = None,
        lang: str | None = None,
    ) -> None:
        from .sources import language_code

        spec = _Spec(text, label, groups, keys)
        code = language_code("en" if lang is None else lang)
        drop = check_bool(drop_missing, "drop_missing")
        if name is not None and not isinstance(name, str):
            raise DatasetError(f"name must be a str or None, got {_shown(name)}")
        raw = _open(source, _encoding(encoding))
        records = list(raw.records)  # all read first: a JSONL key may appear on a later line
        spec.check_columns(raw)
        checker = _RowChecker(spec, raw.name)
        store: dict[str, list[object]] = {}
        bad_text: list[str] = []
        no_label: list[str] = []
        dropped = {"empty text": 0, "missing label": 0}
        n = 0
        for where, record in records:
            row = spec.row(record, raw.columns)
            problem = checker.text_problem(row[spec.text])
            if problem is not None:
                if drop and row[spec.text] is None:
                    dropped["empty text"] += 1
                    continue
                bad_text.append(f"{where}: {problem}")
                continue
            if spec.label is not None:
                if row[spec.label] is None:
                    if drop:
                        dropped["missing label"] += 1
                        continue
                    no_label.append(where)
                    continue
                row[spec.label] = checker.label(row[spec.label], where)
            for column in raw.columns:  # a later record may add a column (dicts, JSONL)
                cells = store.get(column)
                if cells is None:  # padded once, when the column first appears
                    cells = store[column] = [None] * n
                cells.append(row[column])
            n += 1
        for column in raw.columns:
            if column not in store:
                store[column] = [None] * n
        if bad_text:
            raise _bad_text_error(raw.name, spec.text, bad_text)
        if no_label:
            raise _missing_labels_error(raw.name, spec.label or "", no_label)
        if n == 0:
            why = f" (dropped: {_counts(dropped)})" if any(dropped.values()) else ""
            raise DatasetError(f"{raw.name} holds no rows{why}: a data set needs at least "
                               "one row with a text")
        for column in spec.groups:
            if all(v is None for v in store[column]):
                raise DatasetError(
                    f"{raw.name}: the group column {column!r} has no value in any of its {n} "
                    "rows (all empty, None or NaN); fill it in, or leave it out of groups=")
        self._spec = spec
        self._n = n
        self._columns = {c: tuple(store[c]) for c in raw.columns}
        self._dropped = {k: v for k, v in dropped.items() if v}
        self.lang: str = code
        """The language of the texts, as a code ("en" by default; "fr-FR" is kept as "fr"),
        which the relations that perturb read as they read `Corpus.lang`."""
        self.lang_given: bool = lang is not None
        """Whether `lang` was given (a relation given another ``lang=`` then raises
        `LanguageConflictError`)."""
        self.name: str = name if name is not None else raw.name
        """How messages refer to the data set (the file, or the kind of source)."""

    @classmethod
    def iter_rows(
        cls,
        source: str | os.PathLike[str],
        *,
        text: str = "text",
        label: str | None = None,
        groups: str | Sequence[str] = (),
        keys: str | Sequence[str] = (),
        encoding: str = "utf-8",
    ) -> Iterator[dict[str, object]]:
        """The rows of a data file, one dict ``{column: cell}`` at a time, read lazily
        (``.csv``, ``.tsv`` and ``.jsonl`` are streamed; ``.json`` and ``.parquet`` are
        read whole first).

        Columns are checked when this is called (for ``.jsonl``, against the keys of the
        first object, the only one read by then); each row goes through the same checks
        as in `Dataset` as it is read, and the first bad row raises `DatasetError` naming
        it (a streamed file cannot list every bad row up front). A group column with no
        value at all, or a file with no row, raises at the end.
        """
        spec = _Spec(text, label, groups, keys)
        if not isinstance(source, (str, os.PathLike)):
            raise DatasetError(f"Dataset.iter_rows streams a data file; got "
                               f"{type(source).__name__}: build a Dataset(...) instead")
        raw = _open(source, _encoding(encoding))
        spec.check_columns(raw)
        return cls._stream(raw, spec)

    @staticmethod
    def _stream(raw: _Raw, spec: _Spec) -> Iterator[dict[str, object]]:
        checker = _RowChecker(spec, raw.name)
        seen_group = dict.fromkeys(spec.groups, False)
        n = 0
        for where, record in raw.records:
            row = spec.row(record, raw.columns)
            problem = checker.text_problem(row[spec.text])
            if problem is not None:
                raise _bad_text_error(raw.name, spec.text, [f"{where}: {problem}"])
            if spec.label is not None:
                if row[spec.label] is None:
                    raise _missing_labels_error(raw.name, spec.label, [where])
                row[spec.label] = checker.label(row[spec.label], where)
            for column in spec.groups:
                seen_group[column] = seen_group[column] or row[column] is not None
            n += 1
            yield row
        if n == 0:
            raise DatasetError(f"{raw.name} holds no rows: a data set needs at least one row")
        for column, seen in seen_group.items():
            if not seen:
                raise DatasetError(f"{raw.name}: the group column {column!r} has no value in "
                                   f"any of its {n} rows; fill it in, or leave it out of groups=")

    # ----------------------------------------------------------------- reading it

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        label = f", label={self._spec.label!r}" if self._spec.label else ""
        return (f"Dataset({self.name}: {self._n} rows, text={self._spec.text!r}{label}, "
                f"groups={self._spec.groups!r}, keys={self._spec.keys!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        mine, theirs = self._spec, other._spec
        return (
            (mine.text, mine.label, mine.groups, mine.keys)
            == (theirs.text, theirs.label, theirs.groups, theirs.keys)
            and self._columns == other._columns and self.lang == other.lang
        )

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, "name"):
            raise AttributeError(f"a Dataset is immutable; cannot set {name!r} (use select())")
        object.__setattr__(self, name, value)

    @property
    def text_column(self) -> str:
        """The name of the text column."""
        return self._spec.text

    @property
    def label_column(self) -> str | None:
        """The name of the gold-label column, or None."""
        return self._spec.label

    @property
    def group_columns(self) -> tuple[str, ...]:
        """The group columns, as given to ``groups=``."""
        return self._spec.groups

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The pairing-key columns, as given to ``keys=``."""
        return self._spec.keys

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column read, in the source's order."""
        return tuple(self._columns)

    @property
    def dropped(self) -> dict[str, int]:
        """Rows dropped by ``drop_missing=True``, by reason ("empty text", "missing
        label"); empty when none was."""
        return dict(self._dropped)

    @property
    def texts(self) -> tuple[str, ...]:
        """The texts, in row order."""
        return self._columns[self._spec.text]  # type: ignore[return-value]

    @property
    def labels(self) -> tuple[Label, ...] | None:
        """The gold labels (all str or all int), in row order; None without ``label=``."""
        if self._spec.label is None:
            return None
        return self._columns[self._spec.label]  # type: ignore[return-value]

    def column(self, name: str) -> tuple[object, ...]:
        """The cells of any column read (missing cells are None)."""
        if name not in self._columns:
            raise _unknown_column(name, "column", list(self._columns), self.name)
        return self._columns[name]

    def corpus(self) -> Corpus:
        """The texts as a `Corpus` in the data set's language (``lang=`` kept, given or
        not), for the relations that anchor a corpus (`pytest_fairness.psa`)."""
        from .sources import Corpus

        return Corpus(list(self.texts), name=self.name,
                      lang=self.lang if self.lang_given else None)

    def rows(self) -> Iterator[dict[str, object]]:
        """Each row as a dict ``{column: cell}``, in order."""
        names = list(self._columns)
        for values in zip(*self._columns.values(), strict=True):
            yield dict(zip(names, values, strict=True))

    def select(self, rows: object) -> Dataset:
        """The rows picked by a boolean mask of length ``len(self)`` or a sequence of row
        indices (in the order given), as a new `Dataset` with the same column roles."""
        index = self._indices(rows)
        picked = object.__new__(Dataset)
        object.__setattr__(picked, "_spec", self._spec)
        object.__setattr__(picked, "_n", len(index))
        object.__setattr__(picked, "_dropped", self._dropped)
        object.__setattr__(picked, "lang", self.lang)
        object.__setattr__(picked, "lang_given", self.lang_given)
        object.__setattr__(picked, "_columns",
                           {c: tuple(v[i] for i in index) for c, v in self._columns.items()})
        object.__setattr__(picked, "name", f"{self.name} [{len(index)} selected rows]")
        return picked

    def _indices(self, rows: object) -> list[int]:
        if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
            raise DatasetError(f"select() takes a boolean mask or row indices, got "
                               f"{type(rows).__name__} {_shown(rows)}")
        arr = np.asarray(list(rows) if not isinstance(rows, np.ndarray) else rows)
        if arr.dtype == np.bool_:
            if arr.shape != (self._n,):
                raise DatasetError(f"a boolean mask for select() needs {self._n} values (one per "
                                   f"row), got shape {arr.shape}")
            return [int(i) for i in np.flatnonzero(arr)]
        if arr.size == 0:
            return []
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise DatasetError(f"select() takes a boolean mask or integer row indices, got an "
                               f"array of {arr.dtype} with shape {arr.shape}")
        out = [check_int(int(i), "a row index", minimum=-self._n, maximum=self._n - 1)
               for i in arr]
        return [i % self._n for i in out]

    # ----------------------------------------------------------------- groups

    def _group_values(self, column: str) -> tuple[object, ...]:
        values = self.column(column)
        if all(v is None for v in values):
            raise DatasetError(f"{self.name}: the column {column!r} has no value in any of its "
                               f"{self._n} rows, so it defines no group; pick a group column "
                               f"({', '.join(map(repr, self._spec.groups)) or 'none set'})")
        return values

    def groups(self, column: str) -> GroupMasks:
        """Group value -> boolean mask of its rows, for the values of `column` in sorted
        order (values are compared as str: a cell 1 is the group "1").

        Rows whose cell is missing belong to no group; `GroupMasks.n_missing` counts them.
        """
        values = self._group_values(column)
        for row, value in enumerate(values, start=1):
            if value is not None and not isinstance(value, (str, int, float)):
                raise DatasetError(
                    f"{self.name}, row {row}: the group cell in column {column!r} is a "
                    f"{type(value).__name__} ({_shown(value)}); a group is one value per "
                    "column (a str or number): for a row in several groups, give each "
                    "attribute its own column")
        keys = [None if v is None else str(v) for v in values]
        arr = np.array([k if k is not None else "" for k in keys], dtype=object)
        present = sorted({k for k in keys if k is not None})
        return GroupMasks(((g, arr == g) for g in present), column=column,
                          n_missing=sum(k is None for k in keys))

    def intersections(
        self,
        columns: Sequence[str],
        *,
        min_size: int = 1,
        drop_small: bool = False,
    ) -> GroupMasks:
        """Intersectional groups: a tuple of values, one per column of `columns` (e.g.
        ``("female", "black")`` for ``("gender", "race")``) -> boolean mask of its rows.

        Every combination of the values seen in each column is a group, also one with no
        row. A group with fewer than `min_size` rows makes this raise `SmallGroupError`
        listing every such group and its size; with ``drop_small=True`` they are left out
        and reported in `GroupMasks.dropped` instead. Rows with a missing cell in any of
        the columns are in no group (`GroupMasks.n_missing`). Intersectional subgroups as
        in Kearns et al. (2018), "Preventing fairness gerrymandering".
        """
        names = _columns_arg(columns, "columns")
        if not names:
            raise DatasetError("intersections() needs at least one column, e.g. "
                               "intersections(('gender', 'race'))")
        minimum = check_int(min_size, "min_size", minimum=1)
        drop = check_bool(drop_small, "drop_small")
        per_column = [self.groups(c) for c in names]
        n_combos = math.prod(len(masks) for masks in per_column)
        if n_combos > MAX_INTERSECTIONS:
            sizes = ", ".join(f"{c!r}: {len(m)}" for c, m in zip(names, per_column, strict=True))
            raise DatasetError(
                f"{self.name}: the columns {names!r} make {n_combos:,} intersectional groups "
                f"(values per column: {sizes}), more than the {MAX_INTERSECTIONS:,} this "
                "computes; intersect fewer columns, or columns with fewer values (bin a "
                "column first)")
        missing = np.zeros(self._n, dtype=bool)
        for c in names:
            missing |= np.array([v is None for v in self.column(c)], dtype=bool)
        combos: list[tuple[tuple[str, ...], BoolArray]] = [((), np.ones(self._n, dtype=bool))]
        for masks in per_column:
            combos = [((*key, g), mask & m) for key, mask in combos for g, m in masks.items()]
        small = {key: int(mask.sum()) for key, mask in combos if mask.sum() < minimum}
        if small and not drop:
            listed = "; ".join(f"{' x '.join(k)}: {n} row(s)" for k, n in small.items())
            raise SmallGroupError(
                f"{self.name}: {len(small)} intersectional group(s) of {' x '.join(names)} have "
                f"fewer than min_size={minimum} rows: {listed}. Collect more rows for them, "
                "lower min_size, or pass drop_small=True to leave them out (they are reported "
                "in the result's .dropped)", small)
        return GroupMasks(((k, m) for k, m in combos if k not in small), column=names,
                          n_missing=int(missing.sum()), dropped=small)

    # ----------------------------------------------------------------- pairs

    def pairs(
        self,
        key: str | Sequence[str] | None = None,
        group: str | None = None,
        *,
        a: str,
        b: str,
        match: Literal["one", "all"] = "one",
    ) -> Pairs:
        """Counterfactual pairs of rows that share `key` and differ in `group`: see
        `pytest_fairness.corpus.pairs.pairs_from_dataset`."""
        from .pairs import pairs_from_dataset

        return pairs_from_dataset(self, key=key, group=group, a=a, b=b, match=match)


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {what}" for what, n in counts.items() if n)
