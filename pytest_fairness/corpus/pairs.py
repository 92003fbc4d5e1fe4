"""Counterfactual pairs from data: rows that differ in one group, as `Perturbation`s.

Two layouts are read:

- rows that share a pairing key and differ in a group column (an equity-corpus layout:
  the same template and emotion word, a female and a male name): `pairs_from_dataset`
  (also `Dataset.pairs`);
- two text columns of one row (CrowS-Pairs' ``sent_more`` / ``sent_less``):
  `pairs_from_columns`.

Each pair is a `Perturbation` of kind ``"data"`` (`DATA_KIND`): `original` is the text of
group `a`, `perturbed` the text of group `b`, and the spans mark the minimal runs of
differing tokens on both sides (a word-level diff, exact: ``original[s.start:s.end] ==
s.text``; replacing each original span by its perturbed span rebuilds `perturbed`). So
every counterfactual relation takes them as they are: ``assert_label_invariant(model,
pairs)``, ``assert_counterfactual_fair(model, pairs.unique_originals, swap=pairs.swap)``,
``assert_paired_gap_below(model.score(pairs.originals), model.score(pairs.perturbed),
...)``, ``assert_wasserstein_below`` on the same two score lists.

The result is a `Pairs` (a tuple of `Perturbation`s) carrying a `PairReport`: pairs whose
two texts are identical are skipped and counted there (they test nothing, and every
relation refuses them), as are keys with only one side and rows without a key -- never
dropped silently. Pure: no model, no perturbation library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..runtime.printable import printable
from ..types import BuiltinKind, Perturbation, Span
from .dataset import Dataset, DatasetError, _unknown_column

__all__ = [
    "DATA_KIND",
    "PairReport",
    "Pairs",
    "diff_spans",
    "pairs_from_columns",
    "pairs_from_dataset",
]

#: `Perturbation.kind` of a pair read from data.
DATA_KIND: BuiltinKind = "data"

#: Words (with an inner apostrophe), single punctuation marks, and runs of whitespace: the
#: tokens concatenate back to the text, so the diff's spans rebuild it exactly.
_TOKEN = re.compile(r"\w+(?:'\w+)?|\s+|[^\w\s]")
_LISTED = 10
#: The most pairs one call makes: ``match="all"`` over keys shared by many rows grows as
#: the product of their counts.
MAX_PAIRS = 1_000_000


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


#: The most work (token comparisons and diagonals visited) the word diff does on the part
#: of two texts between their common start and end; past it the differing part is one
#: span. About a second of pure Python: a few hundred changed words in texts of any
#: length, or a middle of about a thousand tokens changed throughout.
DIFF_BUDGET = 1_000_000


def _myers(a: Sequence[int], b: Sequence[int],
           budget: int) -> list[tuple[int, int, int, int]] | None:
    """The runs of differing tokens ``(i1, i2, j1, j2)`` of a shortest edit script from
    `a` to `b` (Myers 1986, "An O(ND) difference algorithm and its variations",
    Algorithmica 1, section 2: the greedy forward search over diagonals, then the path
    traced back), in order; None when the search does more than `budget` steps. Time
    O((N + M) D) for D differing tokens, memory O(D^2)."""
    n, m = len(a), len(b)
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    work = 0
    end_d = -1
    for d in range(n + m + 1):
        trace.append(v[offset - d - 1:offset + d + 2])  # V before step d, k in -d-1..d+1
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            work += 1 + x - start
            v[offset + k] = x
            if x >= n and y >= m:
                end_d = d
                break
        if end_d >= 0:
            break
        if work > budget:
            return None
    matched: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(end_d, -1, -1):
        before = trace[d]
        k = x - y
        if k == -d or (k != d and before[k - 1 + d + 1] < before[k + 1 + d + 1]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = before[prev_k + d + 1] if d > 0 else 0
        prev_y = prev_x - prev_k if d > 0 else 0
        while x > prev_x and y > prev_y:
            x, y = x - 1, y - 1
            matched.append((x, y))
        x, y = prev_x, prev_y
    matched.reverse()
    runs: list[tuple[int, int, int, int]] = []
    i = j = 0
    for mi, mj in [*matched, (n, m)]:
        if mi > i or mj > j:
            runs.append((i, mi, j, mj))
        i, j = mi + 1, mj + 1
    return runs


def _differing_runs(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """The runs of differing tokens between the token lists `a` and `b`: the common start
    and end are trimmed first (linear), then the middle is diffed with `_myers` within
    `DIFF_BUDGET`, or, past it, is one run (exact, only not minimal)."""
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi_a, hi_b = len(a), len(b)
    while hi_a > lo and hi_b > lo and a[hi_a - 1] == b[hi_b - 1]:
        hi_a, hi_b = hi_a - 1, hi_b - 1
    if lo == hi_a and lo == hi_b:
        return []
    ids: dict[str, int] = {}
    mid_a = [ids.setdefault(t, len(ids)) for t in a[lo:hi_a]]
    mid_b = [ids.setdefault(t, len(ids)) for t in b[lo:hi_b]]
    runs = _myers(mid_a, mid_b, DIFF_BUDGET) if mid_a and mid_b else None
    if runs is None:
        runs = [(0, len(mid_a), 0, len(mid_b))]
    return [(i1 + lo, i2 + lo, j1 + lo, j2 + lo) for i1, i2, j1, j2 in runs]


def diff_spans(original: str, perturbed: str) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """The minimal runs of differing tokens between two texts, as aligned spans.

    A word-level diff over words, punctuation marks and whitespace runs: the common start
    and end are set aside, and the rest is a shortest edit script (Myers 1986), so texts
    of any length that differ in a few words are diffed in about linear time.
    ``spans_a[i]`` in `original` became ``spans_b[i]`` in `perturbed`; an insertion or
    deletion has an empty span on one side. The spans are exact (``original[s.start:
    s.end] == s.text``) and replacing every ``spans_a[i]`` by ``spans_b[i]`` turns
    `original` into `perturbed`. Identical texts give no spans. When the texts differ
    in so many places that the diff would pass `DIFF_BUDGET` (e.g. two long texts with
    every word changed), the whole differing middle -- from the first differing token to
    the last -- is one span on each side: still exact, not minimal.
    """
    a, b = _tokens(original), _tokens(perturbed)
    spans_a: list[Span] = []
    spans_b: list[Span] = []
    for i1, i2, j1, j2 in _differing_runs([t for t, _, _ in a], [t for t, _, _ in b]):
        # Whitespace equal on both sides at a replaced run's edges is not part of it.
        while i1 < i2 and j1 < j2 and a[i1][0] == b[j1][0]:
            i1, j1 = i1 + 1, j1 + 1
        while i1 < i2 and j1 < j2 and a[i2 - 1][0] == b[j2 - 1][0]:
            i2, j2 = i2 - 1, j2 - 1
        spans_a.append(_span(original, a, i1, i2))
        spans_b.append(_span(perturbed, b, j1, j2))
    return tuple(spans_a), tuple(spans_b)


def _span(text: str, tokens: list[tuple[str, int, int]], i1: int, i2: int) -> Span:
    if i1 < i2:
        start, end = tokens[i1][1], tokens[i2 - 1][2]
    else:
        start = end = tokens[i1][1] if i1 < len(tokens) else len(text)
    return Span(start, end, text[start:end])


def _pair(original: str, perturbed: str, attribute: str, from_group: str,
          to_group: str) -> Perturbation:
    spans_a, spans_b = diff_spans(original, perturbed)
    return Perturbation(
        original=original,
        perturbed=perturbed,
        original_spans=spans_a,
        perturbed_spans=spans_b,
        kind=DATA_KIND,
        attribute=attribute,
        from_group=from_group,
        to_group=to_group,
        from_words=tuple(s.text for s in spans_a),
        to_words=tuple(s.text for s in spans_b),
    )


@dataclass(frozen=True)
class PairReport:
    """What pairing read, made and skipped (nothing is dropped without being counted)."""

    source: str
    """The data set the pairs came from."""
    attribute: str
    """The group column (or the attribute named for two-column pairs)."""
    groups: tuple[str, str]
    """The two groups, (a, b): `original` is a's text, `perturbed` b's."""
    n_rows: int
    """Rows read."""
    n_pairs: int
    """Pairs made."""
    identical: tuple[str, ...] = ()
    """Where a pair's two texts were identical (a key, or a row): skipped."""
    one_sided: tuple[str, ...] = ()
    """Keys with rows of only one of the two groups: no pair."""
    n_without_key: int = 0
    """Rows with a missing key cell: in no pair."""
    n_other_groups: int = 0
    """Rows of neither group a nor b (or a missing group cell): in no pair."""

    @property
    def n_skipped(self) -> int:
        """Pairs or keys that gave no pair: identical texts plus one-sided keys."""
        return len(self.identical) + len(self.one_sided)

    def __str__(self) -> str:
        a, b = self.groups
        parts = [f"{self.n_pairs} pair(s) {a} -> {b} of {self.attribute!r} from "
                 f"{self.n_rows} rows of {self.source}"]
        if self.identical:
            parts.append(f"{len(self.identical)} skipped: identical texts "
                         f"({_listed(self.identical)})")
        if self.one_sided:
            parts.append(f"{len(self.one_sided)} key(s) with one side only "
                         f"({_listed(self.one_sided)})")
        if self.n_without_key:
            parts.append(f"{self.n_without_key} row(s) without a key")
        if self.n_other_groups:
            parts.append(f"{self.n_other_groups} row(s) of other groups")
        return "; ".join(parts)


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "")


class Pairs(tuple[Perturbation, ...]):
    """Counterfactual pairs read from data: a tuple of `Perturbation`s (kind "data"),
    with the `report` of what was skipped and `pair_keys` / `rows` saying where each pair
    came from. Pass it wherever perturbations are accepted."""

    report: PairReport
    pair_keys: tuple[tuple[object, ...], ...]
    """The key cells of each pair (the row number, for two-column pairs)."""
    rows: tuple[tuple[int, int], ...]
    """The row indices (a-row, b-row) of each pair (the same row twice for two columns)."""

    def __new__(cls, items: Iterable[Perturbation], report: PairReport,
                pair_keys: Iterable[tuple[object, ...]],
                rows: Iterable[tuple[int, int]]) -> Pairs:
        made = super().__new__(cls, items)
        made.report = report
        made.pair_keys = tuple(pair_keys)
        made.rows = tuple(rows)
        return made

    @property
    def originals(self) -> tuple[str, ...]:
        """Group a's text of each pair, aligned with `perturbed`."""
        return tuple(p.original for p in self)

    @property
    def perturbed(self) -> tuple[str, ...]:
        """Group b's text of each pair, aligned with `originals`."""
        return tuple(p.perturbed for p in self)

    @property
    def unique_originals(self) -> list[str]:
        """Group a's texts, each once, in order (the texts for
        ``assert_counterfactual_fair(model, pairs.unique_originals, swap=pairs.swap)``)."""
        return list(dict.fromkeys(self.originals))

    def swap(self, text: str) -> list[Perturbation]:
        """The pairs whose group-a text is `text` (none: an empty list): a ``swap=`` for
        `assert_counterfactual_fair`."""
        return [p for p in self if p.original == text]

    def __repr__(self) -> str:
        return f"<Pairs: {self.report}>"


def _key_arg(key: str | Sequence[str] | None, data: Dataset) -> tuple[str, ...]:
    if key is None:
        if not data.key_columns:
            raise DatasetError(
                f"{data.name} has no pairing keys: pass key='template_id' (the column(s) that "
                "rows of a pair share), or keys= when building the Dataset")
        return data.key_columns
    if isinstance(key, str):
        names: tuple[object, ...] = (key,)
    elif isinstance(key, (bytes, bytearray, Mapping)) or not isinstance(key, Iterable):
        names = ()
    else:
        names = tuple(key)
    if not names or not all(isinstance(k, str) and k for k in names):
        raise DatasetError(f"key must name one or more columns (a str, or a sequence of "
                           f"str such as ('template', 'emotion')), got {type(key).__name__} "
                           f"{printable(repr(key))[:60]}")
    for name in names:
        _known(data, str(name), "key")
    return tuple(str(name) for name in names)


def _known(data: Dataset, column: str, role: str) -> None:
    """An unknown column raises, listing those that exist and naming the option."""
    if column not in data.columns:
        raise _unknown_column(column, role, data.columns, data.name)


def _key_cells(data: Dataset, keys: Sequence[str]) -> list[tuple[object, ...]]:
    """Each row's key cells; a cell that is a list, an object or anything else that is no
    value to compare (unhashable) raises `DatasetError` naming the column and row."""
    columns = [data.column(k) for k in keys]
    for name, cells in zip(keys, columns, strict=True):
        for row, cell in enumerate(cells):
            if cell is None or isinstance(cell, (str, int, float)):
                continue
            try:
                hash(cell)
            except TypeError:
                raise DatasetError(
                    f"{data.name}, row {row + 1}: the key cell in column {name!r} is a "
                    f"{type(cell).__name__} ({printable(repr(cell))[:60]}); a pairing key is "
                    "a value rows share (a str or number, such as a template or pair id): "
                    "write it as one, or pass key= another column") from None
    return list(zip(*columns, strict=True))


def _group_arg(group: str | None, data: Dataset) -> str:
    if group is None:
        if len(data.group_columns) != 1:
            raise DatasetError(
                f"{data.name} has {len(data.group_columns)} group columns "
                f"{data.group_columns!r}: pass group= the one that pairs differ in")
        return data.group_columns[0]
    if not isinstance(group, str) or not group:
        raise DatasetError(f"group must name a column, got {group!r:.60}")
    _known(data, group, "group")
    return group


def _side(value: object, name: str, present: Sequence[str], column: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise DatasetError(f"{name} must be a group value (a non-empty str), got {value!r:.60}")
    if value not in present:
        raise DatasetError(f"{name}={value!r} does not occur in the column {column!r} of "
                           f"{where}; its values are: {', '.join(map(repr, present))}")
    return value


def pairs_from_dataset(
    data: Dataset,
    *,
    key: str | Sequence[str] | None = None,
    group: str | None = None,
    a: str,
    b: str,
    match: Literal["one", "all"] = "one",
) -> Pairs:
    """Counterfactual pairs of rows that share `key` and differ in `group`: each row of
    group `a` with a row of group `b` of the same key, as a `Perturbation` from a's text to
    b's (kind "data", `attribute` the group column, `from_group` a, `to_group` b).

    Counterfactual pairs in the sense of counterfactual token fairness (Garg et al. 2019,
    "Counterfactual fairness in text classification through robustness", section 3) and
    of the Equity Evaluation Corpus (Kiritchenko and Mohammad 2018, section 3): the same
    sentence with the group's term changed, here read from data rather than generated.

    `key` is the column (or columns) rows of a pair share (default: the Dataset's
    ``keys=``); `group` the group column (default: the Dataset's only group column); `a`
    and `b` two of its values (compared as str). With ``match="one"`` (the default) each
    key must have at most one row of each group, and more raises `DatasetError` naming
    the keys and their row counts; ``match="all"`` pairs every a-row with every b-row of
    the key. Keys with rows of only one group, rows without a key and pairs whose two texts
    are identical are skipped and counted in ``result.report``; no pair at all raises.
    """
    if match not in ("one", "all"):
        raise DatasetError(f"match must be 'one' (one row per group and key) or 'all' (every "
                           f"a-row with every b-row of a key), got {match!r:.40}")
    keys = _key_arg(key, data)
    column = _group_arg(group, data)
    masks = data.groups(column)
    present = list(masks)
    side_a = _side(a, "a", present, column, data.name)
    side_b = _side(b, "b", present, column, data.name)
    if side_a == side_b:
        raise DatasetError(f"a and b are both {side_a!r}: pass two different groups of "
                           f"{column!r} ({', '.join(map(repr, present))})")
    values = [None if v is None else str(v) for v in data.column(column)]
    key_cells = _key_cells(data, keys)
    by_key: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
    without_key = other = 0
    for i, (value, cells) in enumerate(zip(values, key_cells, strict=True)):
        if value not in (side_a, side_b):
            other += 1
            continue
        if any(c is None for c in cells):
            without_key += 1
            continue
        sides = by_key.setdefault(cells, ([], []))
        sides[0 if value == side_a else 1].append(i)
    if match == "one":
        crowded = [(k, len(ra), len(rb)) for k, (ra, rb) in by_key.items()
                   if len(ra) > 1 or len(rb) > 1]
        if crowded:
            listed = "; ".join(f"{_key_text(keys, k)}: {na} {side_a!r} row(s), {nb} {side_b!r} "
                               "row(s)" for k, na, nb in crowded[:_LISTED])
            more = f" and {len(crowded) - _LISTED} more" if len(crowded) > _LISTED else ""
            raise DatasetError(
                f"{data.name}: {len(crowded)} key(s) of {keys!r} have more than one row of a "
                f"group, where one row per group is expected: {listed}{more}. Add the column "
                "that tells those rows apart to key= (e.g. the emotion word or pair id), or "
                "pass match='all' to pair every a-row with every b-row of a key")
    total = sum(len(ra) * len(rb) for ra, rb in by_key.values())
    if total > MAX_PAIRS:
        raise DatasetError(
            f"{data.name}: key(s) {keys!r} would make {total:,} pairs ({side_a!r} x {side_b!r} "
            f"rows of each key{', every a-row with every b-row' if match == 'all' else ''}), "
            f"more than {MAX_PAIRS:,}; add a column to key= so that fewer rows share a key, "
            "or select fewer rows first (Dataset.select)")
    texts = data.texts
    made: list[Perturbation] = []
    pair_keys: list[tuple[object, ...]] = []
    rows: list[tuple[int, int]] = []
    identical: list[str] = []
    one_sided: list[str] = []
    for k, (rows_a, rows_b) in by_key.items():
        if not rows_a or not rows_b:
            one_sided.append(_key_text(keys, k))
            continue
        for i in rows_a:
            for j in rows_b:
                if texts[i] == texts[j]:
                    identical.append(f"{_key_text(keys, k)} (rows {i}, {j})")
                    continue
                made.append(_pair(texts[i], texts[j], column, side_a, side_b))
                pair_keys.append(k)
                rows.append((i, j))
    report = PairReport(
        source=data.name, attribute=column, groups=(side_a, side_b), n_rows=len(data),
        n_pairs=len(made), identical=tuple(identical), one_sided=tuple(one_sided),
        n_without_key=without_key, n_other_groups=other,
    )
    if not made:
        raise DatasetError(f"no counterfactual pair could be made: {report}. Check key= (rows "
                           "of a pair must share it) and the groups a= and b=")
    return Pairs(made, report, pair_keys, rows)


def _key_text(keys: Sequence[str], cells: tuple[object, ...]) -> str:
    return ", ".join(f"{k}={c!r}" for k, c in zip(keys, cells, strict=True))


def _read_pairs_source(source: object, a: str, encoding: str) -> Dataset:
    """`source` read as a `Dataset` with `a` as its text column; a missing `a` column is
    reported as the ``a=`` it was asked for as (not ``text=``, which this function has no
    argument for)."""
    try:
        return Dataset(source, text=a, encoding=encoding)
    except DatasetError as exc:
        message = str(exc)
        if f"no column {a!r} (asked for as text=)" not in message:
            raise
        raise DatasetError(message.replace("(asked for as text=)", "(asked for as a=)")
                           .replace("Pass text=", "Pass a=")) from None


def pairs_from_columns(
    source: object,
    *,
    a: str = "sent_more",
    b: str = "sent_less",
    attribute: str = "unspecified",
    attribute_column: str | None = None,
    groups: tuple[str, str] = ("more", "less"),
    encoding: str = "utf-8",
) -> Pairs:
    """Counterfactual pairs given as two text columns of each row (CrowS-Pairs' layout,
    Nangia et al. 2020, section 2: ``sent_more`` is the more stereotyping sentence,
    ``sent_less`` the less): one `Perturbation` per row from column `a`'s text to column
    `b`'s (kind "data").

    `source` is a `Dataset` or anything `Dataset` reads (then read with ``text=a``).
    `attribute` names the attribute for every pair, or `attribute_column` a column holding
    each row's (e.g. ``"bias_type"``); `groups` are the two sides' names (`from_group`,
    `to_group`). Every cell of `b` must be a non-empty text (rows named otherwise); rows
    whose two texts are identical are skipped and counted in ``result.report``.
    """
    if not isinstance(a, str) or not a or not isinstance(b, str) or not b or a == b:
        raise DatasetError(f"a and b must name two different text columns, got a={a!r:.40}, "
                           f"b={b!r:.40}")
    if not isinstance(attribute, str) or not attribute:
        raise DatasetError(f"attribute must be a non-empty str, got {attribute!r:.60}")
    if (not isinstance(groups, (tuple, list)) or len(groups) != 2
            or not all(isinstance(g, str) and g for g in groups)):
        raise DatasetError(f"groups must be two names (str, str) for the sides a and b, got "
                           f"{groups!r:.60}")
    data = source if isinstance(source, Dataset) else _read_pairs_source(source, a, encoding)
    if attribute_column is not None and (not isinstance(attribute_column, str)
                                         or not attribute_column):
        raise DatasetError(f"attribute_column must name a column (a non-empty str) or be "
                           f"None, got {printable(repr(attribute_column))[:60]}")
    _known(data, a, "a")
    _known(data, b, "b")
    if attribute_column is not None:
        _known(data, attribute_column, "attribute_column")
    first = data.column(a)
    second = data.column(b)
    attributes = data.column(attribute_column) if attribute_column is not None else None
    bad = [f"row {i + 1}: {'empty' if t is None else type(t).__name__}"
           for i, t in enumerate(second) if not isinstance(t, str)]
    bad += [f"row {i + 1} (column {a!r}): {'empty' if t is None else type(t).__name__}"
            for i, t in enumerate(first) if not isinstance(t, str)]
    if bad:
        raise DatasetError(f"{data.name}: {len(bad)} row(s) have no text in column {b!r} or "
                           f"{a!r}: {_listed(bad)}. Fix or remove those rows")
    made: list[Perturbation] = []
    pair_keys: list[tuple[object, ...]] = []
    rows: list[tuple[int, int]] = []
    identical: list[str] = []
    for i, (text_a, text_b) in enumerate(zip(first, second, strict=True)):
        assert isinstance(text_a, str)
        assert isinstance(text_b, str)
        if text_a == text_b:
            identical.append(f"row {i + 1}")
            continue
        what = attribute
        if attributes is not None:
            cell = attributes[i]
            if cell is None:
                raise DatasetError(f"{data.name}, row {i + 1}: no value in the attribute column "
                                   f"{attribute_column!r}; fill it in or pass attribute= instead")
            what = str(cell)
        made.append(_pair(text_a, text_b, what, groups[0], groups[1]))
        pair_keys.append((i + 1,))
        rows.append((i, i))
    report = PairReport(
        source=data.name, attribute=attribute_column or attribute,
        groups=(groups[0], groups[1]), n_rows=len(data), n_pairs=len(made),
        identical=tuple(identical),
    )
    if not made:
        raise DatasetError(f"no counterfactual pair could be made: {report}")
    return Pairs(made, report, pair_keys, rows)
