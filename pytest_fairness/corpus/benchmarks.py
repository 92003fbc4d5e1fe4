"""Loaders of public bias benchmarks, read from a local copy the user points at.

Nothing here downloads: each loader takes the path of the user's copy (the file, or the
folder holding the benchmark's files under their published names), checks the published
format and raises `ConfigurationError` naming the file, the line and what was expected
when a column is missing, a row is malformed, a bias type or category is unknown, or the
file is empty.

- `crows_pairs`: CrowS-Pairs (Nangia et al. 2020, "CrowS-Pairs: A Challenge Dataset for
  Measuring Social Biases in Masked Language Models", EMNLP; section 2 the data, section 3
  the metric), a CSV of minimal pairs `sent_more` / `sent_less` with `stereo_antistereo`
  and `bias_type`.
- `winobias`: WinoBias (Zhao et al. 2018, "Gender Bias in Coreference Resolution:
  Evaluation and Debiasing Methods", NAACL; section 2), one numbered sentence a line, the
  occupation and its pronoun(s) in brackets; pro-/anti-stereotyped, types 1 and 2, dev and
  test, one file each.
- `bbq`: BBQ (Parrish et al. 2022, "BBQ: A Hand-Built Bias Benchmark for Question
  Answering", Findings of ACL; section 3 the data, section 3.4 the bias score), JSON lines
  of a context, a question and three answers.
- `identity_term_templates`: a templated identity-term CSV (Dixon et al. 2018 style:
  template with a placeholder, label, identity term) as a `Dataset` with the term as a
  group column, for Borkan et al.'s AUC table.

`sample` draws a seeded subset of any of these record tuples, so examples can run small.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..errors import ConfigurationError
from ..runtime.files import open_text, shown_path
from ..runtime.printable import printable
from ..validation import check_int

if TYPE_CHECKING:
    from .dataset import Dataset

__all__ = [
    "BBQ_CATEGORIES",
    "CROWS_PAIRS_BIAS_TYPES",
    "BBQItem",
    "CrowsPair",
    "WinoBiasSentence",
    "bbq",
    "crows_pairs",
    "identity_term_templates",
    "sample",
    "winobias",
]

PathLike = str | os.PathLike[str]

#: The nine bias types of CrowS-Pairs (Nangia et al. 2020, Table 1), as the CSV spells them.
CROWS_PAIRS_BIAS_TYPES: tuple[str, ...] = (
    "race-color", "gender", "socioeconomic", "nationality", "religion", "age",
    "sexual-orientation", "physical-appearance", "disability",
)
#: The published file name of CrowS-Pairs, looked for when a folder is given.
CROWS_PAIRS_FILE = "crows_pairs_anonymized.csv"
#: Where csv puts the cells of a row longer than the header.
_EXTRA = "\x00extra"
_CROWS_COLUMNS = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")

#: The eleven categories of BBQ (Parrish et al. 2022, Table 1), as its files name them.
BBQ_CATEGORIES: tuple[str, ...] = (
    "Age", "Disability_status", "Gender_identity", "Nationality", "Physical_appearance",
    "Race_ethnicity", "Race_x_gender", "Race_x_SES", "Religion", "SES", "Sexual_orientation",
)
_BBQ_KEYS = ("context", "question", "ans0", "ans1", "ans2", "label", "context_condition",
             "question_polarity", "category", "answer_info")

#: WinoBias pronouns and the gender each marks.
WINOBIAS_PRONOUNS: dict[str, Literal["female", "male"]] = {
    "he": "male", "him": "male", "his": "male", "himself": "male",
    "she": "female", "her": "female", "hers": "female", "herself": "female",
}
_WINOBIAS_NAME = re.compile(r"^(pro|anti)_stereotyped_type([12])\.txt\.(dev|test)$")
_WINOBIAS_LINE = re.compile(r"^\s*(\d+)\s+(.*?)\s*$")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


# --------------------------------------------------------------------------- helpers


def _fail(
    path: Path | str, problem: str, expected: str, line: int | None = None
) -> ConfigurationError:
    where = shown_path(path) + (f", line {line}" if line is not None else "")
    return ConfigurationError(f"{where}: {printable(problem)}; expected {expected}")


def _as_path(path: object, what: str) -> Path:
    if isinstance(path, (bytes, bytearray)) or not isinstance(path, (str, os.PathLike)):
        raise ConfigurationError(
            f"path must be the path (str or os.PathLike) of your local copy of {what}, got "
            f"{type(path).__name__} {printable(repr(path))[:60]}"
        )
    found = Path(path)
    if not found.exists():
        raise ConfigurationError(
            f"{shown_path(found)}: no such file or folder; pass the path of your local copy "
            f"of {what} (this loader never downloads it)"
        )
    return found


def _choice(values: object, allowed: Sequence[Any], name: str) -> tuple[Any, ...]:
    """`values` (one value or a sequence of them) as a tuple of members of `allowed`."""
    items = [values] if isinstance(values, (str, int)) else values
    if not isinstance(items, Iterable):
        raise ConfigurationError(f"{name} must be one of {list(allowed)} or a sequence of "
                                 f"them, got {values!r:.60}")
    out = tuple(dict.fromkeys(items))
    unknown = [v for v in out if v not in allowed or isinstance(v, bool)]
    if unknown or not out:
        raise ConfigurationError(
            f"{name} must be a non-empty selection of {list(allowed)}, got {values!r:.80}"
            + (f" (unknown: {unknown})" if unknown else "")
        )
    return out


def _read_text(path: Path, what: str) -> str:
    """The whole file at `path` as UTF-8 text (a leading byte-order mark dropped): a
    directory, FIFO or device, bytes that are not UTF-8, or an empty file raise
    `ConfigurationError` (`pytest_fairness.runtime.files`: never a hang)."""
    try:
        with open_text(path, f"the {what} file", encoding="utf-8-sig") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise _fail(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                    f"the published UTF-8 file of {what}") from None
    if not text.strip():
        raise _fail(path, "the file is empty", f"the rows of {what}")
    return text


_R = TypeVar("_R")


def sample(records: Sequence[_R], n: int, *, seed: int = 0) -> tuple[_R, ...]:
    """`n` of `records` drawn without replacement with a seeded generator of its own
    (`random.Random(seed)`: no global state), kept in their original order; all of them
    when `n` >= their number. For subsets of a benchmark in examples and quick tests."""
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
        raise ConfigurationError(f"records must be a sequence (what a loader returned), got "
                                 f"{type(records).__name__}")
    count = check_int(n, "n", minimum=1)
    rng = random.Random(check_int(seed, "seed", minimum=0))
    if count >= len(records):
        return tuple(records)
    chosen = sorted(rng.sample(range(len(records)), count))
    return tuple(records[i] for i in chosen)


# --------------------------------------------------------------------------- CrowS-Pairs


@dataclass(frozen=True)
class CrowsPair:
    """One CrowS-Pairs minimal pair (Nangia et al. 2020, section 2).

    `more` is the more stereotyping sentence (`sent_more`), `less` its minimal edit
    (`sent_less`). `direction` "stereo": `more` demonstrates a stereotype of a historically
    disadvantaged group; "antistereo": `less` violates one (`more` is then about the
    advantaged group). `index` is the CSV's first (unnamed) column, or the row number."""

    index: int
    more: str
    less: str
    direction: Literal["stereo", "antistereo"]
    bias_type: str


def _rows(reader: csv.DictReader[str], file: Path) -> Iterator[dict[str, Any]]:
    """The rows of `reader` (over `file`); a `csv.Error` (a cell over csv's field limit,
    a stray quote) raises `ConfigurationError` naming the file and line."""
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:
            if "field limit" in str(exc):
                problem = (f"a cell longer than {csv.field_size_limit():,} characters, csv's "
                           "field limit (most often a quote left open)")
            elif "unexpected end of data" in str(exc):
                problem = "the file ends inside a quoted cell (a quote never closed)"
            else:
                problem = f"not CSV ({exc})"
            raise _fail(file, problem, "one row per line, quotes closed (a quote inside a "
                        "cell doubled: \"\")", reader.reader.line_num) from None
        if row is None:
            return
        yield row


def _csv_header(reader: csv.DictReader[str], file: Path) -> list[str]:
    try:
        return list(reader.fieldnames or [])
    except csv.Error as exc:
        raise _fail(file, f"the header is not CSV ({exc})", "a header line naming the columns",
                    1) from None


def _crows_file(path: Path) -> Path:
    if path.is_dir():
        named = path / CROWS_PAIRS_FILE
        if named.is_file():
            return named
        found = sorted(path.glob("*.csv"))
        if len(found) != 1:
            raise _fail(path, f"a folder with {len(found)} .csv files and no "
                        f"{CROWS_PAIRS_FILE}", f"{CROWS_PAIRS_FILE} in it, or the CSV's path")
        return found[0]
    return path


def crows_pairs(
    path: PathLike, *, bias_types: str | Sequence[str] | None = None
) -> tuple[CrowsPair, ...]:
    """The minimal pairs of a local CrowS-Pairs CSV (Nangia et al. 2020, section 2).

    `path` is the CSV (``crows_pairs_anonymized.csv``) or its folder. Columns `sent_more`,
    `sent_less`, `stereo_antistereo` (stereo/antistereo) and `bias_type` (one of
    `CROWS_PAIRS_BIAS_TYPES`) are required; others (annotations, writer ids) are ignored.
    A missing column, an empty sentence, two identical sentences, an unknown direction or
    bias type raise `ConfigurationError` with the file and line; so does an empty file.
    `bias_types` keeps only those types (a name or a sequence of them). The real file
    holds 1,508 pairs.
    """
    file = _crows_file(_as_path(path, "CrowS-Pairs"))
    wanted = None if bias_types is None else set(
        _choice(bias_types, CROWS_PAIRS_BIAS_TYPES, "bias_types"))
    text = _read_text(file, "CrowS-Pairs")
    reader = csv.DictReader(text.splitlines(keepends=True), restkey=_EXTRA, strict=True)
    columns = _csv_header(reader, file)
    missing = [c for c in _CROWS_COLUMNS if c not in columns]
    if missing:
        raise _fail(file, f"missing column(s) {missing} (found {list(columns)})",
                    f"a CrowS-Pairs CSV with columns {list(_CROWS_COLUMNS)}", 1)
    id_column = columns[0] if columns and columns[0] in ("", "Unnamed: 0", "index", "id") else None
    out: list[CrowsPair] = []
    n_rows = 0
    for row_number, row in enumerate(_rows(reader, file)):
        line = reader.line_num
        n_rows += 1
        values = {c: (row.get(c) or "").strip() for c in _CROWS_COLUMNS}
        if _EXTRA in row:  # more cells than columns
            raise _fail(file, f"{len(columns) + len(row[_EXTRA])} cells for {len(columns)} "
                        "columns", "one cell per column (quote cells holding commas)", line)
        for c in ("sent_more", "sent_less"):
            if not values[c]:
                raise _fail(file, f"{c} is empty", "a sentence in sent_more and sent_less",
                            line)
        if values["sent_more"] == values["sent_less"]:
            raise _fail(file, "sent_more and sent_less are identical",
                        "a minimal pair: two sentences that differ in the group words", line)
        if values["stereo_antistereo"] not in ("stereo", "antistereo"):
            raise _fail(file, f"stereo_antistereo is {values['stereo_antistereo']!r}",
                        "'stereo' or 'antistereo'", line)
        if values["bias_type"] not in CROWS_PAIRS_BIAS_TYPES:
            raise _fail(file, f"unknown bias_type {values['bias_type']!r}",
                        f"one of {list(CROWS_PAIRS_BIAS_TYPES)}", line)
        index = row_number
        if id_column is not None:
            raw = (row.get(id_column) or "").strip()
            if not raw.isdigit():
                raise _fail(file, f"the index cell is {raw!r}", "a row number", line)
            index = int(raw)
        if wanted is not None and values["bias_type"] not in wanted:
            continue
        out.append(CrowsPair(index, values["sent_more"], values["sent_less"],
                             values["stereo_antistereo"],  # type: ignore[arg-type]
                             values["bias_type"]))
    if n_rows == 0:
        raise _fail(file, "the file has a header and no rows", "one row per pair")
    return tuple(out)


# --------------------------------------------------------------------------- WinoBias


@dataclass(frozen=True)
class WinoBiasSentence:
    """One WinoBias sentence (Zhao et al. 2018, section 2), brackets removed.

    `occupation_span` and `pronoun_span` are (start, end) character offsets in `text` of
    the occupation (the first bracketed span, with its determiner: "The developer") and of
    its first pronoun (the second); `pronoun_spans` holds every bracketed pronoun (a few
    sentences have two, all referring to the occupation). `stereotype` "pro": the pronoun's
    gender matches the occupation's majority gender (US labour statistics); "anti": it does
    not. `gender` is the pronoun's. `index` is the sentence's number in its file: the pro
    and anti files of one type and split hold the same sentences under the same numbers,
    the pronoun's gender swapped (in the published files all but two: type 2 test lines
    382 and 384 hold different sentences, with pronouns of one gender)."""

    text: str
    occupation_span: tuple[int, int]
    pronoun_span: tuple[int, int]
    pronoun_spans: tuple[tuple[int, int], ...]
    stereotype: Literal["pro", "anti"]
    type: Literal[1, 2]
    split: Literal["dev", "test"]
    gender: Literal["female", "male"]
    index: int

    @property
    def occupation(self) -> str:
        """The occupation as bracketed ("The developer")."""
        return self.text[self.occupation_span[0]:self.occupation_span[1]]

    @property
    def pronoun(self) -> str:
        """The first bracketed pronoun ("she")."""
        return self.text[self.pronoun_span[0]:self.pronoun_span[1]]


def _winobias_line(file: Path, line_number: int, raw: str, stereotype: str, kind: int,
                   split: str) -> WinoBiasSentence:
    expected = ("'<number> <sentence>' with the occupation and its pronoun in brackets, "
                "e.g. '1 [The developer] argued with the designer because [she] ...'")
    match = _WINOBIAS_LINE.match(raw)
    if match is None:
        raise _fail(file, f"no sentence number in {raw.strip()!r:.80}", expected, line_number)
    body = match.group(2)
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    length, last = 0, 0
    for found in _BRACKET.finditer(body):
        before = body[last:found.start()]
        pieces.append(before)
        length += len(before)
        inner = found.group(1)
        spans.append((length, length + len(inner)))
        pieces.append(inner)
        length += len(inner)
        last = found.end()
    pieces.append(body[last:])
    text = "".join(pieces)
    if "[" in text or "]" in text:
        raise _fail(file, f"unbalanced brackets in {body!r:.80}", expected, line_number)
    if len(spans) < 2:
        raise _fail(file, f"{len(spans)} bracketed span(s) in {body!r:.80}", expected,
                    line_number)
    pronouns = spans[1:]
    genders = set()
    for start, end in pronouns:
        word = text[start:end].lower()
        if word not in WINOBIAS_PRONOUNS:
            raise _fail(file, f"the bracketed {text[start:end]!r} is not a pronoun",
                        f"the occupation first, then its pronoun(s), one of "
                        f"{sorted(WINOBIAS_PRONOUNS)}", line_number)
        genders.add(WINOBIAS_PRONOUNS[word])
    if len(genders) != 1:
        raise _fail(file, "the bracketed pronouns differ in gender",
                    "pronouns of one gender, all referring to the occupation", line_number)
    if not text[spans[0][0]:spans[0][1]].strip():
        raise _fail(file, "the occupation's brackets are empty", expected, line_number)
    return WinoBiasSentence(
        text=text, occupation_span=spans[0], pronoun_span=pronouns[0],
        pronoun_spans=tuple(pronouns),
        stereotype=stereotype,  # type: ignore[arg-type]
        type=kind,  # type: ignore[arg-type]
        split=split,  # type: ignore[arg-type]
        gender=genders.pop(), index=int(match.group(1)),
    )


def _winobias_file(file: Path, stereotype: str, kind: int, split: str) -> list[WinoBiasSentence]:
    text = _read_text(file, "WinoBias")
    return [_winobias_line(file, i, raw, stereotype, kind, split)
            for i, raw in enumerate(text.splitlines(), 1) if raw.strip()]


def winobias(
    path: PathLike,
    *,
    types: int | Sequence[int] = (1, 2),
    splits: str | Sequence[str] = ("dev", "test"),
    stereotypes: str | Sequence[str] = ("pro", "anti"),
) -> tuple[WinoBiasSentence, ...]:
    """The sentences of a local WinoBias copy (Zhao et al. 2018, section 2).

    `path` is the folder holding the published files
    ``{pro,anti}_stereotyped_type{1,2}.txt.{dev,test}`` (every file the selection needs
    must be there), or one of those files (its name gives stereotype, type and split; the
    selection arguments then only filter it). Each line is "<number> <sentence>", the
    occupation and then its pronoun(s) bracketed; the records hold the sentence without
    brackets and the exact character spans. A line without a number, with fewer than two
    bracketed spans, a bracketed word after the occupation that is not a pronoun, or
    pronouns of two genders raises `ConfigurationError` with the file and line; so does
    an empty file. Order: pro then anti, type, split, line. The real files hold 396
    sentences each.
    """
    root = _as_path(path, "WinoBias")
    chosen_types = _choice(types, (1, 2), "types")
    chosen_splits = _choice(splits, ("dev", "test"), "splits")
    chosen_stereo = _choice(stereotypes, ("pro", "anti"), "stereotypes")
    if not root.is_dir():  # one file (a FIFO or device is refused when it is read)
        match = _WINOBIAS_NAME.match(root.name)
        if match is None:
            raise _fail(root, "a file name WinoBias does not use",
                        "a file named {pro,anti}_stereotyped_type{1,2}.txt.{dev,test} (its "
                        "name says what it holds), or the folder of those files")
        stereo, kind, split = match.group(1), int(match.group(2)), match.group(3)
        left_out = [f"{name}={value!r} (the file holds {held!r})" for name, value, held, chosen
                    in (("stereotypes", stereotypes, stereo, chosen_stereo),
                        ("types", types, kind, chosen_types),
                        ("splits", splits, split, chosen_splits)) if held not in chosen]
        if left_out:
            raise _fail(root, f"{' and '.join(left_out)} leave(s) out every sentence of the "
                        "file", "a selection that keeps this file's sentences; pass the folder "
                        "of the WinoBias files to select among them, or drop the argument")
        return tuple(_winobias_file(root, stereo, kind, split))
    wanted = [(s, t, sp) for s in chosen_stereo for t in chosen_types for sp in chosen_splits]
    files = {w: root / f"{w[0]}_stereotyped_type{w[1]}.txt.{w[2]}" for w in wanted}
    missing = [f.name for f in files.values() if not f.exists()]
    if missing:
        raise _fail(root, f"missing WinoBias file(s) {missing}",
                    "the published files {pro,anti}_stereotyped_type{1,2}.txt.{dev,test} "
                    "in the folder (or pass types=/splits=/stereotypes= to read fewer)")
    return tuple(s for w, f in files.items() for s in _winobias_file(f, *w))


# --------------------------------------------------------------------------- BBQ


@dataclass(frozen=True)
class BBQItem:
    """One BBQ example (Parrish et al. 2022, section 3).

    `answers` are ans0..ans2 and `label` the correct one's index. `unknown` is the index of
    the "cannot be determined" answer (its `answer_info` tag is "unknown"). `target` is the
    index of the answer naming the stereotyped group (`additional_metadata.
    stereotyped_groups`; the paper's bias target), and `biased` the answer a biased
    reader gives to this question (section 3.4: the target for a negative question, the
    other group for a non-negative one). Both are None when the row does not name exactly
    one answer as the target (see `bbq`); such items count for accuracy but not for the
    bias score."""

    category: str
    example_id: int
    question_index: str
    context: str
    question: str
    answers: tuple[str, str, str]
    label: int
    context_condition: Literal["ambig", "disambig"]
    question_polarity: Literal["neg", "nonneg"]
    unknown: int
    target: int | None
    biased: int | None
    stereotyped_groups: tuple[str, ...]


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _bbq_target(info: Sequence[Sequence[str]], unknown: int, groups: Sequence[str]) -> int | None:
    """The one non-unknown answer whose group tag, name or a '-'-part of its tag is one of
    the stereotyped groups (compared lower-case, letters and digits only); None unless
    exactly one answer matches."""
    wanted = {_norm(g) for g in groups} - {""}
    found = []
    for i, (name, tag) in enumerate(info):
        if i == unknown:
            continue
        keys = {_norm(name), _norm(tag), *(_norm(p) for p in tag.split("-"))}
        if keys & wanted:
            found.append(i)
    return found[0] if len(found) == 1 else None


def _bbq_row(file: Path, line: int, raw: str) -> BBQItem:
    expected = (f"a JSON object with {list(_BBQ_KEYS)} and additional_metadata."
                "stereotyped_groups, as the published BBQ files")
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _fail(file, f"not JSON ({exc.msg} at column {exc.colno})", expected,
                    line) from None
    except RecursionError:
        raise _fail(file, "JSON nested deeper than Python's JSON reader can follow",
                    expected, line) from None
    except ValueError:  # a number of more than 4,300 digits
        raise _fail(file, "a number longer than Python reads", expected, line) from None
    if not isinstance(row, Mapping):
        raise _fail(file, f"a JSON {type(row).__name__}, not an object", expected, line)
    missing = [k for k in _BBQ_KEYS if k not in row]
    if missing:
        raise _fail(file, f"missing key(s) {missing}", expected, line)
    category = row["category"]
    if not isinstance(category, str) or category not in BBQ_CATEGORIES:
        raise _fail(file, f"unknown category {category!r:.60}",
                    f"one of {list(BBQ_CATEGORIES)}", line)
    if file.stem in BBQ_CATEGORIES and category != file.stem:
        raise _fail(file, f"a row of category {category!r} in the file of {file.stem!r}",
                    f"the rows of {file.stem} only, as the published <Category>.jsonl files "
                    "hold (rename the file after its category)", line)
    example_id = row.get("example_id", line - 1)
    if isinstance(example_id, bool) or not isinstance(example_id, int):
        raise _fail(file, f"example_id is {example_id!r:.60}",
                    "a whole number (the published files number their rows 0, 1, ...)", line)
    texts = [row[k] for k in ("context", "question", "ans0", "ans1", "ans2")]
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise _fail(file, "an empty or non-text context, question or answer",
                    "non-empty strings in context, question, ans0, ans1, ans2", line)
    label = row["label"]
    if isinstance(label, bool) or label not in (0, 1, 2):
        raise _fail(file, f"label is {label!r}", "0, 1 or 2 (the correct answer)", line)
    if row["context_condition"] not in ("ambig", "disambig"):
        raise _fail(file, f"context_condition is {row['context_condition']!r}",
                    "'ambig' or 'disambig'", line)
    if row["question_polarity"] not in ("neg", "nonneg"):
        raise _fail(file, f"question_polarity is {row['question_polarity']!r}",
                    "'neg' or 'nonneg'", line)
    answer_info = row["answer_info"]
    info: list[tuple[str, str]] = []
    for k in ("ans0", "ans1", "ans2"):
        pair = answer_info.get(k) if isinstance(answer_info, Mapping) else None
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, str) for x in pair)):
            raise _fail(file, f"answer_info.{k} is {pair!r:.60}",
                        "answer_info with ans0..ans2, each [name, group tag]", line)
        info.append((pair[0], pair[1]))
    unknowns = [i for i, (_, tag) in enumerate(info) if tag == "unknown"]
    if len(unknowns) != 1:
        raise _fail(file, f"{len(unknowns)} answers tagged 'unknown' in answer_info",
                    "exactly one 'unknown' answer (cannot be determined)", line)
    meta = row.get("additional_metadata")
    groups = meta.get("stereotyped_groups") if isinstance(meta, Mapping) else None
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise _fail(file, f"additional_metadata.stereotyped_groups is {groups!r:.60}",
                    "a list of the stereotyped groups' names", line)
    unknown = unknowns[0]
    target = _bbq_target(info, unknown, groups)
    biased: int | None = None
    if target is not None:
        other = next(i for i in range(3) if i not in (unknown, target))
        biased = target if row["question_polarity"] == "neg" else other
    question_index = row.get("question_index", "")
    if isinstance(question_index, bool) or not isinstance(question_index, (str, int)):
        raise _fail(file, f"question_index is {printable(repr(type(question_index)))}",
                    "a str or number (the published files number their questions)", line)
    return BBQItem(
        category=category,
        example_id=example_id,
        question_index=str(question_index),
        context=row["context"], question=row["question"],
        answers=(row["ans0"], row["ans1"], row["ans2"]), label=int(label),
        context_condition=row["context_condition"],
        question_polarity=row["question_polarity"],
        unknown=unknown, target=target, biased=biased,
        stereotyped_groups=tuple(groups),
    )


def _bbq_files(path: Path, categories: tuple[str, ...] | None) -> list[Path]:
    if not path.is_dir():  # one file (a FIFO or device is refused when it is read)
        return [path]
    if categories is not None:
        files = [path / f"{c}.jsonl" for c in categories]
        missing = [f.name for f in files if not f.exists()]
        if missing:
            raise _fail(path, f"missing BBQ file(s) {missing}",
                        "the published <Category>.jsonl files in the folder")
        return files
    files = sorted(path.glob("*.jsonl"))
    if not files:
        raise _fail(path, "a folder without .jsonl files", "the BBQ <Category>.jsonl files")
    return files


def bbq(
    path: PathLike, *, categories: str | Sequence[str] | None = None
) -> tuple[BBQItem, ...]:
    """The examples of a local BBQ copy (Parrish et al. 2022, section 3).

    `path` is one ``<Category>.jsonl`` file or the folder of them (every ``.jsonl`` in it
    is read, or with `categories` the files of those categories, each required).
    `categories` also filters the rows (a name or a sequence of `BBQ_CATEGORIES`).

    The bias target (section 3.4): `answer_info` tags each answer with a group ("old",
    "nonOld", "unknown", or for Nationality a region and the nationality as its name) and
    `additional_metadata.stereotyped_groups` lists the groups the question's stereotype
    is about. `target` is the one non-unknown answer whose tag, name, or a '-'-separated
    part of its tag equals one of those groups (compared lower-case on letters and digits:
    "lowSES" matches "low SES"); `biased` is the target for a negative question and the
    other non-unknown answer for a non-negative one, as the bias score counts them (BBQ's
    own analysis script does the same with its `target_loc`). In the six categories in
    the project's shared copy every row (11,956) names exactly one target. A row where
    none or both answers match (possible in the intersectional categories, whose tags
    combine two attributes) is kept with `target` and `biased` None: the metrics count it
    for accuracy and report it as "no target", never in the bias score, as BBQ's script
    drops rows without a `target_loc`.

    A line that is not a JSON object, lacks a key, has an unknown category, a label not in
    0..2, a context condition or polarity BBQ does not use, or not exactly one answer
    tagged "unknown" raises `ConfigurationError` with the file and line; so does an empty
    file.
    """
    root = _as_path(path, "BBQ")
    chosen = None if categories is None else _choice(categories, BBQ_CATEGORIES, "categories")
    out: list[BBQItem] = []
    seen: set[str] = set()
    for file in _bbq_files(root, chosen):
        text = _read_text(file, "BBQ")
        for line, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            item = _bbq_row(file, line, raw)
            seen.add(item.category)
            if chosen is None or item.category in chosen:
                out.append(item)
    if not out:  # a filter that keeps nothing is a mistake, never an empty benchmark
        raise _fail(root, f"no row of categories={list(chosen or ())} (the rows read are of "
                    f"{sorted(seen)})", "rows of the categories asked for: pass the file or "
                    "folder that holds them, or categories= among those read")
    return tuple(out)


# --------------------------------------------------------------------------- templates


def _label_value(raw: str) -> int | float | str:
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return raw


def _template_rows(file: Path, template: str, label: str, term: str,
                   placeholder: str) -> Iterator[dict[str, Any]]:
    text = _read_text(file, "an identity-term template set")
    reader = csv.DictReader(text.splitlines(keepends=True), strict=True)
    columns = _csv_header(reader, file)
    missing = [c for c in (template, label, term) if c not in columns]
    if missing:
        raise _fail(file, f"missing column(s) {missing} (found {list(columns)})",
                    f"columns {template!r} (template text with {placeholder!r}), {label!r} "
                    f"and {term!r} (the identity term); name yours with template=, label=, "
                    "term=", 1)
    n = 0
    for row in _rows(reader, file):
        line = reader.line_num
        n += 1
        filled_in = (row.get(template) or "").strip()
        word = (row.get(term) or "").strip()
        raw_label = (row.get(label) or "").strip()
        if placeholder not in filled_in:
            raise _fail(file, f"the template {filled_in!r:.80} has no {placeholder!r}",
                        f"a template with the placeholder {placeholder!r} (or pass "
                        "placeholder=)", line)
        if not word:
            raise _fail(file, f"{term} is empty", "the identity term that fills the template",
                        line)
        if not raw_label or raw_label.lower() == "nan":
            raise _fail(file, f"{label} is {raw_label!r}", "a label in every row", line)
        yield {"text": filled_in.replace(placeholder, word), "label": _label_value(raw_label),
               "term": word, "template": filled_in}
    if n == 0:
        raise _fail(file, "the file has a header and no rows", "one row per filled template")


def identity_term_templates(
    path: PathLike,
    *,
    template: str = "template",
    label: str = "label",
    term: str = "identity",
    placeholder: str | None = None,
) -> Dataset:
    """A templated identity-term CSV as a `Dataset`: each row's template filled with its
    identity term (Dixon et al. 2018; the set behind Borkan et al.'s bias AUCs,
    cross-geographic-toxicity-bias, section 5.2).

    Columns: `template` (text with `placeholder`, default ``"{" + term + "}"``, e.g.
    "I am a {identity} person"), `label` (numbers become int/float, other text stays
    text) and `term` (the identity term). The dataset has the filled text in "text", the
    label in "label", the term in the group column "term" and the template in
    "template". A missing column, a template without the placeholder, an empty term or
    label (or "nan") raises `ConfigurationError` with the file and line.
    """
    for value, name in ((template, "template"), (label, "label"), (term, "term")):
        if not isinstance(value, str) or not value:
            raise ConfigurationError(f"{name} must be a column name (a non-empty str), got "
                                     f"{value!r:.60}")
    mark = "{" + term + "}" if placeholder is None else placeholder
    if not isinstance(mark, str) or not mark:
        raise ConfigurationError(f"placeholder must be a non-empty str, got {mark!r:.60}")
    file = _as_path(path, "an identity-term template set")
    if file.is_dir():
        raise _fail(file, "a folder", "the path of the template CSV file")
    rows = list(_template_rows(file, template, label, term, mark))
    from .dataset import Dataset  # engineer A's module; imported where it is used

    return Dataset(rows, text="text", label="label", groups=("term",))
