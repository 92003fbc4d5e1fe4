"""The terminal `fairness summary`: table, worst inputs, report sections as text (pure).

Everything returns lines without a trailing newline. ANSI styles are added only when
`color` is true (the plugin passes pytest's `hasmarkup`), so captured CI logs stay plain.
Verbosity follows pytest: < 0 (-q) one line per failing relation and the totals; 0 the
table, the five worst inputs and the sections; 1 (-v) a row per metric and 20 inputs; 2
(-vv) every input and every name.

Report sections are drawn generically, one function per section type (`section_lines`):
a `Curve` as an ASCII line chart (or a list of points), a `BarChart` as diverging bars, a
`Table` aligned, `Clusters` as one line per cluster. They come grouped by title, in the
order the titles first appear across the groups, then by group.
"""

from __future__ import annotations

import functools
import itertools
import math
import textwrap
import unicodedata
from collections.abc import Mapping, Sequence

from ..results import BarChart, Cell, Cluster, Clusters, Curve, Section, Table
from .comparison import Comparison, MetricChange
from .summary import DiscriminatoryInput, Group, MetricSummary, Summary
from .values import fmt

_RESET = "\x1b[0m"
_CODES = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1"}
_OPEN, _CLOSE = "\x02", "\x03"  # span markers while wrapping; never in rendered output
_MARKERS = "*o+x"


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles or not text:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}{_RESET}"

    def status(self, text: str, status: str) -> str:
        style = {"PASS": "green", "FAIL": "red", "WARN": "yellow", "XFAIL": "yellow"}.get(status)
        return self(text, style, "bold") if style else text


# ---------------------------------------------------------------------------------------
# Marked text (shared with the HTML page)
# ---------------------------------------------------------------------------------------


def segments(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, changed) pieces by the character spans of changed words.

    Spans are clamped to the text, sorted and merged; empty spans mark nothing.
    """
    clean: list[list[int]] = []
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in spans):
        if end <= start:
            continue
        if clean and start <= clean[-1][1]:
            clean[-1][1] = max(clean[-1][1], end)
        else:
            clean.append([start, end])
    out: list[tuple[str, bool]] = []
    pos = 0
    for start, end in clean:
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text) or not out:
        out.append((text[pos:], False))
    return out


def _marked_lines(text: str, spans: Sequence[tuple[int, int]], width: int,
                  style: _Style) -> list[str]:
    """The text with [[changed words]] marked as in failure messages (and bold yellow in
    colour), wrapped to `width`."""
    flat = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")  # same offsets
    raw = "".join(f"{_OPEN}{piece}{_CLOSE}" if changed else piece
                  for piece, changed in segments(flat, spans))
    wrapped = textwrap.wrap(raw, width=max(10, width), break_on_hyphens=False,
                            drop_whitespace=True) or [""]
    lines = []
    inside = False
    for line in wrapped:
        out = []
        if inside and style.color:
            out.append("\x1b[1;33m")
        for ch in line:
            if ch == _OPEN:
                inside = True
                out.append("[[" + ("\x1b[1;33m" if style.color else ""))
            elif ch == _CLOSE:
                inside = False
                out.append((_RESET if style.color else "") + "]]")
            else:
                out.append(ch)
        if inside and style.color:
            out.append(_RESET)
        lines.append("".join(out))
    return lines


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def _cut(text: str, width: int, *, left: bool = False) -> str:
    """`text` shortened to `width` with '...' (at the start when `left`)."""
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    if width <= 3:
        return text[:width]
    return "..." + text[-(width - 3):] if left else text[: width - 3] + "..."


def _bound(m: MetricSummary) -> str:
    return "" if m.bound is None else f"{m.op} {fmt(m.bound)}"


def _inputs(g: Group) -> str:
    return f"{g.n_violations}/{g.n_inputs}" if g.n_inputs else str(g.n_violations)


def _score(score: float | None, label: str | None) -> str:
    parts = []
    if score is not None:
        parts.append(f"{score:.3f}")
    if label is not None:
        parts.append(f"({label})" if parts else label)
    return " ".join(parts)


# ---------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------

Styled = tuple[str, str | None]  # (text, status used for colour or None)


def _table(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    multi = any(g.n_results > 1 for g in summary.groups)
    headers = ["test", "relation", "metric", "value"] + (["worst"] if multi else []) + [
        "bound", "result", "violations"]
    right = {3, 4, 5} if multi else {3, 4}
    rows: list[list[Styled]] = []
    for g in summary.groups:
        shown: list[MetricSummary | None] = (
            list(g.metrics) if verbosity >= 1 else [g.primary]) or [None]
        for i, m in enumerate(shown):
            first = i == 0
            cells: list[Styled] = []
            bound = ""
            if m is None:
                cells = [("", None)] * (3 if multi else 2)
            else:
                value = fmt(m.final)
                if verbosity >= 1 and m.ci is not None and None not in m.ci:
                    value += f" [{fmt(m.ci[0])}, {fmt(m.ci[1])}]"
                cells = [(m.name, None), (value, None)]
                if multi:
                    cells.append((fmt(m.worst) if m.n > 1 else "", None))
                bound = _bound(m)
            result: str = g.status
            if not first and m is not None:
                result = "ok" if m.holds else (g.status if g.status != "PASS" else "FAIL")
            status = result if result in ("PASS", "FAIL", "WARN", "XFAIL") else None
            rows.append([
                (g.nodeid if first else "", None),
                (g.relation if first else "", None),
                *cells,
                (bound, None),
                (result, status),
                (_inputs(g) if first else "", None),
            ])
    return _layout(headers, rows, right, width, style)


def _fit(widths: list[int], shrinkable: dict[int, int], width: int, indent: int,
         gap: int) -> list[int] | None:
    """Column widths shrunk (down to their minimum) to fit `width`, or None if impossible."""
    out = list(widths)
    for col, minimum in shrinkable.items():
        excess = indent + sum(out) + gap * (len(out) - 1) - width
        if excess <= 0:
            break
        out[col] = max(min(minimum, out[col]), out[col] - excess)
    return out if indent + sum(out) + gap * (len(out) - 1) <= width else None


def _render_row(cells: Sequence[Styled], widths: list[int], right: set[int], indent: int,
                gap: int, style: _Style, is_header: bool = False) -> str:
    out = []
    for i, (text, status) in enumerate(cells):
        text = _cut(text, widths[i])
        padded = text.rjust(widths[i]) if i in right else text.ljust(widths[i])
        if is_header:
            padded = style(padded, "bold")
        elif status:
            padded = style.status(padded, status)
        out.append(padded)
    return (" " * indent + (" " * gap).join(out)).rstrip()


def _layout(headers: list[str], rows: list[list[Styled]], right: set[int], width: int,
            style: _Style) -> list[str]:
    """One line per row when the full node ids fit; else each test on its own line above
    its rows; on a very narrow terminal, cells joined by spaces."""
    n = len(headers)
    widths = [max([len(headers[i])] + [len(r[i][0]) for r in rows]) for i in range(n)]
    indent, gap = 2, 2
    fitted = _fit(widths, {2: 14, 1: 14}, width, indent, gap)
    if fitted is not None:
        return [_render_row([(h, None) for h in headers], fitted, right, indent, gap, style,
                            True)] + [_render_row(r, fitted, right, indent, gap, style)
                                      for r in rows]
    # grouped: a "test [relation]" line per group, its metric rows indented under it
    sub_right = {i - 2 for i in right}
    sub = _fit(widths[2:], {0: 12}, width, 4, gap)
    if sub is None:
        return _stacked(rows, width, style)
    lines = [style("  test [relation]", "bold"),
             _render_row([(h, None) for h in headers[2:]], sub, sub_right, 4, gap, style, True)]
    for r in rows:
        if r[0][0]:
            lines.append("  " + _cut(f"{r[0][0]} [{r[1][0]}]", width - 2, left=True))
        lines.append(_render_row(r[2:], sub, sub_right, 4, gap, style))
    return lines


def _stacked(rows: list[list[Styled]], width: int, style: _Style) -> list[str]:
    """A very narrow terminal: the test on its own line, the other cells packed below it."""
    lines = []
    for r in rows:
        if r[0][0]:
            lines.append(_cut(r[0][0], width, left=True))
        indent, length = "    ", 4
        pieces: list[str] = []
        for text, status in r[1:]:
            if not text:
                continue
            text = _cut(text, width - 6)
            if pieces and length + 1 + len(text) > width:
                lines.append(indent + " ".join(pieces))
                indent, pieces, length = "      ", [], 6
            pieces.append(style.status(text, status) if status else text)
            length += len(text) + (1 if len(pieces) > 1 else 0)
        if pieces:
            lines.append(indent + " ".join(pieces))
    return lines


# ---------------------------------------------------------------------------------------
# Inputs, Hypothesis, comparison
# ---------------------------------------------------------------------------------------


def _input_lines(d: DiscriminatoryInput, width: int, style: _Style,
                 verbosity: int) -> list[str]:
    lines = []
    for prefix, text, spans, score in (
        ("     ", d.original, d.original_spans, _score(d.original_score, d.original_label)),
        ("  -> ", d.perturbed, d.perturbed_spans, _score(d.perturbed_score, d.perturbed_label)),
    ):
        body = _marked_lines(text, spans, width - len(prefix) - 8, style)
        out = [("    " + prefix if i == 0 else "    " + " " * len(prefix)) + line
               for i, line in enumerate(body)]
        if score:
            plain_len = len(_strip(out[-1]))
            if plain_len + 2 + len(score) <= width:
                out[-1] += "  " + style(score, "cyan")
            else:
                out.append("    " + " " * len(prefix) + style(score, "cyan"))
        lines.extend(out)
    if verbosity >= 1 and d.detail:
        lines.append("         " + _cut(d.detail, width - 9))
    return lines


def _strip(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\x1b":
            j = text.find("m", i)
            i = len(text) if j < 0 else j + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _inputs_section(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    if not summary.inputs:
        return []
    limit = len(summary.inputs) if verbosity >= 2 else (20 if verbosity == 1 else 5)
    shown = summary.inputs[:limit]
    more = ("" if len(shown) == len(summary.inputs)
            else f" ({len(shown)} of {len(summary.inputs)}; -v shows more)")
    lines = [style(f"worst discriminatory inputs{more}", "bold")]
    for i, d in enumerate(shown, 1):
        what = ", ".join(dict.fromkeys(x for x in (d.kind, d.attribute) if x))
        measure = "" if d.measure is None else f"measure {d.measure:+.4g}"
        tail = "  ".join(x for x in (measure, f"({what})" if what else "") if x)
        head = f"  {i:>2}. " + _cut(f"{d.nodeid} [{d.relation}]", width - 6, left=True)
        if tail and len(head) + 2 + len(tail) <= width:
            lines.append(f"{head}  {tail}")
        else:
            lines.append(head)
            if tail:
                lines.append("         " + tail)
        lines.extend(_input_lines(d, width, style, verbosity))
    return lines


def _hypothesis_section(summary: Summary, width: int, verbosity: int,
                        style: _Style) -> list[str]:
    groups = [g for g in summary.groups if g.hypothesis and (g.status != "PASS" or verbosity >= 1)]
    if not groups:
        return []
    lines = [style("hypothesis: shrunk failing examples", "bold")]
    for g in groups:
        lines.extend(_title("", g, width, style, bold=False))
        lines.append(f"    {g.n_results} examples checked, {g.n_failed} failed")
        for m in g.metrics:
            bound = _bound(m)
            lines.append(f"    {m.name}: final (shrunk) example {fmt(m.final)}"
                         + (f" ({bound})" if bound else ""))
            lines.append(f"      worst seen {fmt(m.worst)} over {m.n} examples")
        if g.falsifying_example:
            for line in g.falsifying_example.splitlines()[: 12 if verbosity < 1 else 60]:
                lines.append(_cut("    " + line, width))
        if g.final_violation is not None:
            lines.extend(_input_lines(g.final_violation, width, style, verbosity))
    return lines


def _change_line(c: MetricChange, width: int) -> str:
    delta = "" if c.delta is None else f" ({c.delta:+.4g})"
    return _cut(f"    {c.nodeid} [{c.relation}] {c.metric}: {fmt(c.baseline)} -> "
                f"{fmt(c.current)}{delta}", width)


def _comparison_section(c: Comparison, width: int, verbosity: int, style: _Style) -> list[str]:
    verdict = "FAIL" if c.failed else ("WARN" if c.regressions else "PASS")
    lines = [style(f"baseline comparison against {c.baseline} "
                   f"(tolerance: {c.tolerance.describe()})", "bold")]
    if c.regressions:
        lines.append("  " + style.status("worse:", verdict))
        lines.extend(_change_line(x, width) for x in c.regressions)
    if c.improvements:
        lines.append("  " + style("better:", "green"))
        lines.extend(_change_line(x, width) for x in c.improvements)
    counts = {s: sum(1 for x in c.changes if x.status == s)
              for s in ("regressed", "improved", "unchanged", "new", "missing")}
    if verbosity >= 1:
        for s in ("new", "missing"):
            if counts[s]:
                lines.append(f"  {s}:")
                lines.extend(_change_line(x, width) for x in c.changes if x.status == s)
    lines.append("  " + style.status(verdict, verdict) + ": " + ", ".join(
        f"{n} {s}" for s, n in counts.items()))
    return lines


# ---------------------------------------------------------------------------------------
# Text charts
# ---------------------------------------------------------------------------------------


def _nice_ceiling(value: float) -> float:
    if value <= 0:
        return 0.1
    exp = math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        top = step * 10.0**exp
        if top >= value - 1e-12:
            return top
    return 10.0 ** (exp + 1)


def _interp(points: Sequence[tuple[float, float]], x: float) -> float | None:
    if not points or x < points[0][0] - 1e-12 or x > points[-1][0] + 1e-12:
        return None
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 - 1e-12 <= x <= x1 + 1e-12:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1] if len(points) == 1 else None


def line_chart(series: Sequence[Sequence[tuple[float, float]]], *, width: int,
               height: int = 8, x_label: str = "x", y_label: str = "y") -> list[str]:
    """An ASCII line chart of one or more curves (markers * o + x), y axis from 0."""
    curves = [sorted(s) for s in series if s]
    if not curves:
        return []
    xs = [p[0] for c in curves for p in c]
    ys = [p[1] for c in curves for p in c]
    x_lo, x_hi = min(xs), max(xs)
    y_lo = min(0.0, min(ys))
    y_hi = _nice_ceiling(max(ys)) if max(ys) > 0 else 0.1
    labels = [fmt(y_hi), fmt((y_hi + y_lo) / 2), fmt(y_lo)]
    label_w = max(len(s) for s in labels)
    plot_w = max(10, min(width - label_w - 8 - len(x_label), 90))
    grid = [[" "] * plot_w for _ in range(height)]
    for k, curve in enumerate(curves):
        mark = _MARKERS[k % len(_MARKERS)]
        for col in range(plot_w):
            x = x_lo if plot_w == 1 else x_lo + (x_hi - x_lo) * col / (plot_w - 1)
            y = _interp(curve, x) if x_hi > x_lo else curve[0][1]
            if y is None:
                continue
            frac = 0.0 if y_hi == y_lo else (y - y_lo) / (y_hi - y_lo)
            row = height - 1 - round(frac * (height - 1))
            grid[min(height - 1, max(0, row))][col] = mark
    lines = []
    for r in range(height):
        if r == 0:
            label = labels[0]
        elif r == height - 1:
            label = labels[2]
        elif r == (height - 1) // 2:
            label = labels[1]
        else:
            label = ""
        lines.append(f"  {label:>{label_w}} |" + "".join(grid[r]).rstrip())
    lines.append(f"  {'':>{label_w}} +" + "-" * plot_w)
    left, mid, right = fmt(x_lo), fmt((x_lo + x_hi) / 2), fmt(x_hi)
    axis = [" "] * plot_w
    for text, pos in ((left, 0), (mid, plot_w // 2 - len(mid) // 2), (right, plot_w - len(right))):
        for i, ch in enumerate(text):
            if 0 <= pos + i < plot_w:
                axis[pos + i] = ch
    lines.append(f"  {'':>{label_w}}  " + "".join(axis) + f"  {x_label}")
    lines.insert(0, f"  {y_label}")
    return lines


def bar_chart(values: Sequence[tuple[str, float]], groups: Mapping[str, str] | None, *,
              width: int, limit: int | None = None) -> list[str]:
    """Diverging horizontal bars per name, grouped (female, male, ...) and sorted by value.

    The layout of psa Figure 1: one block per group (names without a group last, as
    "other"), names within a block from the most positive value to the most negative;
    `limit` keeps the top and bottom names of a block. With `groups=None` the bars are one
    block in the order given, without a group column.
    """
    if not values:
        return []
    by_group: dict[str, list[tuple[str, float]]] = {}
    for name, value in values:
        by_group.setdefault((groups or {}).get(name, ""), []).append((name, value))
    order = sorted(by_group, key=lambda g: (g == "", g))
    scale = max(abs(v) for _, v in values) or 1.0
    group_w = 0 if groups is None else max(len(g or "other") for g in order)
    group_col = 0 if groups is None else group_w + 2
    name_w = min(18, max(len(n) for n, _ in values))
    value_w = max(len(f"{v:+.3f}") for _, v in values)
    bar_w = max(11, min(width - 2 - group_col - name_w - 1 - value_w - 3, 61))
    half = (bar_w - 1) // 2
    lines = []
    scale_txt = fmt(scale)
    axis = (f"-{scale_txt}".ljust(half) + "0" + f"+{scale_txt}".rjust(half))
    lines.append(" " * (2 + group_col + name_w + 1) + axis)
    for group in order:
        rows = by_group[group] if groups is None else sorted(
            by_group[group], key=lambda nv: (-nv[1], nv[0]))
        skipped = 0
        if limit is not None and len(rows) > limit:
            keep = max(1, limit // 2)
            skipped = len(rows) - 2 * keep
            rows = [*rows[:keep], ("...", math.nan), *rows[-keep:]]
        for i, (name, value) in enumerate(rows):
            label = (group or "other") if i == 0 else ""
            block = "" if groups is None else f"{label:<{group_w}}  "
            if math.isnan(value):
                lines.append(f"  {' ' * len(block)}... {skipped} more names")
                continue
            n = round(abs(value) / scale * half)
            left = (" " * (half - n) + "#" * n) if value < 0 else " " * half
            right = ("#" * n).ljust(half) if value > 0 else " " * half
            lines.append(f"  {block}{_cut(name, name_w):<{name_w}} "
                         f"{left}|{right} {value:+.3f}")
    return lines


def _title(label: str, g: Group, width: int, style: _Style, *, bold: bool = True) -> list[str]:
    """'label: node id [relation]' on one line, or on two when that does not fit; the node
    id is never cut unless it alone is wider than the terminal."""
    ident = g.short_id
    if not label:
        return [_cut("  " + ident, width, left=True)]
    one = f"{label}: {ident}"
    if len(one) <= width:
        return [style(one, "bold") if bold else one]
    return [style(label + ":", "bold") if bold else label + ":",
            "  " + _cut(ident, width - 2, left=True)]


# ---------------------------------------------------------------------------------------
# Report sections, one function per type
# ---------------------------------------------------------------------------------------


def printable(text: str) -> str:
    """Recorded text with its control characters (and line or paragraph separators) shown
    as escapes: nothing from user data reaches the terminal raw."""
    if text.isprintable():
        return text
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in text)


@functools.singledispatch
def section_lines(section: Section, g: Group, width: int, verbosity: int,
                  style: _Style) -> list[str]:
    """The lines of one report section of group `g` (none for a type this version does
    not draw)."""
    return []


@section_lines.register
def _curve_lines(section: Curve, g: Group, width: int, verbosity: int,
                 style: _Style) -> list[str]:
    """A line chart of up to four curves (all at -v) with a legend when there are
    several; in the "points" style, each curve's points as a list (eight at most)."""
    lines = _title(printable(section.heading), g, width, style)
    names = [printable(n) for n in section.labels] or [
        f"curve {i + 1}" for i in range(len(section.series))]
    x_label, y_label = printable(section.x_label), printable(section.y_label)
    if section.style == "points":
        for i, points in enumerate(section.series):
            step = max(1, math.ceil(len(points) / 8))
            shown = list(points[::step])
            if shown[-1] != points[-1]:
                shown.append(points[-1])
            text = ", ".join(
                f"{x_label} {fmt(x)}: "
                + (f"{y * 100:.0f}%" if section.percent else fmt(y))
                for x, y in shown)
            if len(section.series) > 1:
                text = f"{names[i]}: {text}"
            lines.extend(textwrap.wrap(text, width=width, initial_indent="  ",
                                       subsequent_indent="  "))
        return lines
    series = [[(x, y * 100) for x, y in c] if section.percent else list(c)
              for c in section.series]
    shown_series = series[:4] if verbosity < 1 else series
    lines.extend(line_chart(shown_series, width=width, height=8 if verbosity < 1 else 12,
                            x_label=x_label,
                            y_label=y_label + (" (%)" if section.percent else "")))
    if len(shown_series) > 1:
        lines.append("  " + "  ".join(f"{_MARKERS[i % 4]} {names[i]}"
                                      for i in range(len(shown_series))))
    return lines


@section_lines.register
def _bar_chart_lines(section: BarChart, g: Group, width: int, verbosity: int,
                     style: _Style) -> list[str]:
    """Diverging bars (`bar_chart`); ten per block by default, all at -v."""
    bars = [(printable(name), value) for name, value in section.bars]
    groups = None if section.groups is None else {
        printable(name): printable(group) for name, group in section.groups}
    return [*_title(printable(section.heading), g, width, style),
            *bar_chart(bars, groups, width=width, limit=None if verbosity >= 1 else 10)]


_TABLE_ROWS = 20


def _cell_text(cell: Cell) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float):
        return fmt(cell)
    return printable(str(cell))


@section_lines.register
def _table_lines(section: Table, g: Group, width: int, verbosity: int,
                 style: _Style) -> list[str]:
    """An aligned table (numbers right-aligned), its widest columns cut to the width;
    the first 20 rows by default, all at -v."""
    kept = section.rows if verbosity >= 1 else section.rows[:_TABLE_ROWS]
    rows = [[(_cell_text(c), None) for c in row] for row in kept]
    right = {i for i in range(len(section.columns))
             if any(row[i] is not None for row in section.rows)
             and all(row[i] is None or (isinstance(row[i], int | float)
                                        and not isinstance(row[i], bool))
                     for row in section.rows)}
    columns = [printable(c) for c in section.columns]
    n = len(columns)
    widths = [max([len(columns[i])] + [len(r[i][0]) for r in rows]) for i in range(n)]
    by_width = sorted(range(n), key=lambda i: -widths[i])
    fitted = _fit(widths, {i: 6 for i in by_width}, width, 2, 2) or [
        min(w, 6) for w in widths]
    header: list[Styled] = [(c, None) for c in columns]
    more = len(section.rows) - len(kept)
    return [*_title(printable(section.heading), g, width, style),
            _render_row(header, fitted, right, 2, 2, style, True),
            *(_render_row(r, fitted, right, 2, 2, style) for r in rows),
            *([f"  ... {more} more rows (-v shows them)"] if more else [])]


@section_lines.register
def _clusters_lines(section: Clusters, g: Group, width: int, verbosity: int,
                    style: _Style) -> list[str]:
    """One line per cluster (`_cluster_lines`)."""
    lines = _title(printable(section.heading), g, width, style)
    for c in section.clusters:
        lines.extend(_cluster_lines(c, section.relative, width, verbosity))
    return lines


def _cluster_lines(c: Cluster, relative: bool, width: int, verbosity: int) -> list[str]:
    """One cluster of terms: its size and mean shift (and curve ends at -v), then its terms
    (as many as fit on the line by default; all of them, wrapped, at -v)."""
    terms, curve = [printable(t) for t in c.terms], c.curve
    facts = [f"{len(terms)} term{'s' if len(terms) != 1 else ''}"]
    if c.mean_shift is not None:
        facts.append(f"mean shift {c.mean_shift:+.3f}")
    if curve and (verbosity >= 1 or len(facts) == 1):
        facts.append(f"{'shift' if relative else 'curve'} {fmt(curve[0])} -> {fmt(curve[-1])}")
    head = f"  C{printable(str(c.id))} ({', '.join(facts)}): "
    if verbosity >= 1:
        return textwrap.wrap(head + ", ".join(terms), width=width,
                             subsequent_indent=" " * 6) or [head.rstrip()]
    shown: list[str] = []
    for i, term in enumerate(terms):
        rest = len(terms) - i - 1
        more = f", +{rest} more" if rest else ""
        if shown and len(head + ", ".join([*shown, term]) + more) > width:
            break
        shown.append(term)
    left = len(terms) - len(shown)
    return [_cut(head + ", ".join(shown) + (f", +{left} more" if left else ""), width)]


def _sections_block(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    """Every group's sections, grouped by title (in order of first appearance), then by
    group."""
    lines: list[str] = []
    for title in summary.section_titles():
        for g in summary.groups:
            for section in g.sections:
                if section.title == title:
                    lines.extend(section_lines(section, g, width, verbosity, style))
    return lines


# ---------------------------------------------------------------------------------------
# The whole summary
# ---------------------------------------------------------------------------------------


def _totals_line(summary: Summary, style: _Style) -> str:
    t = summary.totals()
    parts = []
    for key, status in (("failed", "FAIL"), ("warned", "WARN"), ("xfailed", "XFAIL"),
                        ("passed", "PASS")):
        if t[key]:
            parts.append(style.status(f"{t[key]} {key}", status))
    checks = f"{t['groups']} relation{'s' if t['groups'] != 1 else ''}"
    line = (f"fairness: {checks} in {t['tests']} test{'s' if t['tests'] != 1 else ''}: "
            + ", ".join(parts)
            + f"; {t['violations']} violation{'s' if t['violations'] != 1 else ''}"
            + (f" ({t['distinct_violations']} distinct discriminatory inputs)"
               if t["distinct_violations"] != t["violations"] else ""))
    if summary.warn_only:
        line += " [warn-only]"
    return line


def _quiet(summary: Summary, style: _Style) -> list[str]:
    """One line per failing or warned relation (never cut: the node id is for copying)."""
    lines = []
    for g in summary.groups:
        if g.status == "PASS":
            continue
        m = g.primary
        metric = "" if m is None else f" {m.name}={fmt(m.final)}" + (
            f" ({_bound(m)})" if m.bound is not None else "")
        lines.append(f"{style.status(g.status, g.status)} {g.nodeid} {g.relation}:{metric}, "
                     f"{g.n_violations} violation{'s' if g.n_violations != 1 else ''}")
    if summary.comparison is not None:
        for c in summary.comparison.regressions:
            lines.append(f"{style.status('WORSE', 'FAIL')} {c.nodeid} {c.relation}: {c.metric} "
                         f"{fmt(c.baseline)} -> {fmt(c.current)} (baseline)")
    return lines


def render_text(
    summary: Summary, *, width: int = 80, verbosity: int = 0, color: bool = False
) -> list[str]:
    """The terminal `fairness summary` as lines (ANSI colours only when `color`)."""
    width = max(40, width)
    style = _Style(color)
    if summary.empty:
        return []
    if verbosity < 0:
        return [*_quiet(summary, style), _totals_line(summary, style),
                *summary.notes]
    blocks: list[list[str]] = [_table(summary, width, verbosity, style)]
    for block in (
        _hypothesis_section(summary, width, verbosity, style),
        _inputs_section(summary, width, verbosity, style),
        _sections_block(summary, width, verbosity, style),
        [] if summary.comparison is None else _comparison_section(
            summary.comparison, width, verbosity, style),
    ):
        if block:
            blocks.append(block)
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        lines.extend(block)
    lines.append("")
    lines.append(_totals_line(summary, style))
    lines.extend(summary.notes)
    return lines


__all__ = ["bar_chart", "line_chart", "printable", "render_text", "section_lines", "segments"]
