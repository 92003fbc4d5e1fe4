"""The terminal `fairness summary`: table, worst inputs, report sections as text (pure).

Everything returns lines without a trailing newline. ANSI styles are added only when
`color` is true (the plugin passes pytest's `hasmarkup`), so captured CI logs stay plain.
Verbosity follows pytest: < 0 (-q) one line per relation that did not hold and the counts;
0 the table (one row per relation: its headline statistic), the five worst distinct inputs
and the sections; 1 (-v) a row per statistic and 20 inputs; 2 (-vv) every input and every
name.

Each row shows the value that was judged against the bound, labelled when it is an
interval end, with the point estimate and interval beside it (`summary.StatisticRow`).
Nothing is cut mid-word: cells, node ids and titles wrap at word boundaries
(`wrap_words`). The summary ends with the run's counts, one line each
(`totals_segments`, defined in `report.summary`).

Report sections are drawn generically, one function per section type (`section_lines`):
a `Curve` as an ASCII line chart (or a list of points), a `BarChart` as diverging bars
(each bar's interval, when it has one, after its value), a `Table` aligned, `Clusters` as
one line per cluster. They come grouped by title, in the order the titles first appear
across the groups, then by group.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import textwrap
from collections.abc import Mapping, Sequence

from ..errors import ConfigurationError
from ..results import BarChart, Cell, Cluster, Clusters, Curve, Section, Table
from .comparison import Comparison, MetricChange
from .summary import (
    DiscriminatoryInput,
    DistinctInput,
    Group,
    StatisticRow,
    Summary,
    section_key,
)
from .values import fmt, printable, terminal_line

_RESET = "\x1b[0m"
_CODES = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1"}
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
    colour), wrapped to `width`, every character shown `printable`.

    The changed characters travel as data beside the text, never as in-band markers, so
    a text holding any character at all is marked where it changed and nowhere else: each
    character is escaped, flagged changed or not (a changed piece's edge whitespace is
    not), the escaped text wrapped, and each line drawn from its slice of the flags."""
    flat = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")  # same offsets
    chars: list[str] = []
    flags: list[bool] = []
    for piece, changed in segments(flat, spans):
        lead = len(piece) - len(piece.lstrip())
        body = len(piece.rstrip())
        for k, ch in enumerate(piece):
            shown = printable(ch)
            chars.append(shown)
            flags.extend([changed and lead <= k < body] * len(shown))
    shown_text = "".join(chars)
    room = width - (4 if any(flags) else 0)  # the marks "[[" "]]" of a run on the line
    wrapped = textwrap.wrap(shown_text, width=max(10, room), break_on_hyphens=False,
                            drop_whitespace=True) or [""]
    lines = []
    pos = 0
    for line in wrapped:
        start = shown_text.find(line, pos)  # each line is the next slice, whitespace dropped
        end = start + len(line)
        pos = end
        lines.append(_draw_marked(shown_text, flags, start, end, style))
    return lines


def _draw_marked(text: str, flags: Sequence[bool], start: int, end: int,
                 style: _Style) -> str:
    """`text[start:end]` with "[[" where a changed run begins and "]]" where it ends (in
    colour: bold yellow inside, reopened on a line a run continues onto)."""
    hot = "\x1b[1;33m" if style.color else ""
    reset = _RESET if style.color else ""
    out = []
    if start < end and flags[start] and start > 0 and flags[start - 1]:
        out.append(hot)  # a run continued from the line above
    for i in range(start, end):
        if flags[i] and (i == 0 or not flags[i - 1]):
            out.append("[[" + hot)
        out.append(text[i])
        if flags[i] and (i + 1 == len(text) or not flags[i + 1]):
            out.append(reset + "]]")
    if start < end and flags[end - 1] and end < len(text) and flags[end]:
        out.append(reset)  # the run goes on on the next line
    return "".join(out)


# ---------------------------------------------------------------------------------------
# Helpers: wrapping and shortening at word boundaries (never mid-word)
# ---------------------------------------------------------------------------------------

_NBSP = "\u00a0"  # joins words that must stay on one line ("[0.1, 0.2]"); shown as a space
#: Where a word too long for its line may break: after '/', '_', '-', ',', '.' and ')',
#: before '::', '[' and '(' (the parts of a node id or a metric name).
_WORD_BREAKS = re.compile(r"(?<=[/_\-,.)])(?=.)|(?<=.)(?=::|\[|\()")


def _break_word(word: str, width: int) -> list[str]:
    """`word` in pieces of at most `width`, broken at its inner boundaries; a piece that is
    still too long is cut at the width (a last resort: one unbroken token wider than the
    line)."""
    lines: list[str] = []
    line = ""
    for piece in _WORD_BREAKS.split(word):
        if len(line) + len(piece) <= width:
            line += piece
            continue
        if line:
            lines.append(line)
        while len(piece) > width:
            lines.append(piece[:width])
            piece = piece[width:]
        line = piece
    if line:
        lines.append(line)
    return lines


def wrap_words(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` characters, broken at spaces; a word longer than
    the width breaks at its inner boundaries (a node id after '/' or '_', before '::' or
    '['), so no word is cut in the middle while it fits on a line of its own."""
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if not word:
            continue
        if line and len(line) + 1 + len(word) <= width:
            line += " " + word
            continue
        if line:
            lines.append(line)
        if len(word) <= width:
            line = word
            continue
        *full, line = _break_word(word, width)
        lines.extend(full)
    if line or not lines:
        lines.append(line)
    return [x.replace(_NBSP, " ") for x in lines]


def shorten_words(text: str, width: int) -> str:
    """`text` on one line of at most `width`: whole words, then " ..." when some are left
    out (cut inside a word only when its first word alone is wider than the line)."""
    if len(text) <= width:
        return text
    if width <= 4:
        return text[:width]
    return wrap_words(text, width - 4)[0] + " ..."


def _id_lines(text: str, width: int, indent: int = 2, more: int = 2) -> list[str]:
    """A node id (or 'node id [relation]') indented by `indent`, wrapped at its word
    boundaries with continuation lines indented `more` further."""
    first, *rest = wrap_words(text, max(10, width - indent - more))
    if not rest:
        first = wrap_words(text, max(10, width - indent))[0]
        if first == text:
            return [" " * indent + text]
        first, *rest = wrap_words(text, max(10, width - indent - more))
    return [" " * indent + first] + [" " * (indent + more) + x for x in rest]


def label_text(label: str | None) -> str | None:
    """A score's label for people: a model's label name as it is, a bare class index
    ("1") as "label 1" (the model was given no label names)."""
    if label is None:
        return None
    return f"label {label}" if label.isdigit() else label


def _score(score: float | None, label: str | None) -> str:
    parts = []
    if score is not None:
        parts.append(f"{score:.3f}")
    label = None if label is None else label_text(printable(label))
    if label is not None:
        parts.append(f"({label})" if parts else label)
    return " ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------
# Statistics: the judged value, labelled, with the estimate and interval beside it
# ---------------------------------------------------------------------------------------


def bound_text(s: StatisticRow) -> str:
    """'<= 0.05', or '' without a bound."""
    return "" if s.bound is None else f"{s.op} {fmt(s.bound)}"


def judged_text(s: StatisticRow) -> str:
    """The judged value with what it is when that is not the value itself:
    '0.08467 (lower CI end)', '0.8'; '' for a statistic recorded without a bound."""
    if s.judged is None:
        return ""
    if s.on_interval:
        return f"{fmt(s.value)} ({s.judged.replace(' ', _NBSP)})"
    return fmt(s.value)


def interval_text(s: StatisticRow) -> str:
    """'[low, high]' of the interval, or ''."""
    if s.ci is None or None in s.ci:
        return ""
    return f"[{fmt(s.ci[0])},{_NBSP}{fmt(s.ci[1])}]"


def estimate_text(s: StatisticRow) -> str:
    """The point estimate and interval shown beside the judged value: '0.0886 [0.0847,
    0.0931]' for a statistic judged on an interval end, the interval alone for one judged
    on its value (the value is the estimate), the value for a recorded statistic."""
    if s.on_interval:
        estimate = "" if s.estimate is None else fmt(s.estimate)
    elif s.judged is None:
        estimate = "" if s.value is None else fmt(s.value)
    else:
        estimate = ""
    return " ".join(x for x in (estimate, interval_text(s)) if x)


def statistic_phrase(s: StatisticRow) -> str:
    """The statistic in one phrase: 'max_shift = 0.8 (<= 0.1)', 'W1(a, b): lower CI end
    0.5 (<= 0.4; estimate 0.625 [0.5, 0.75])', 'ScoreDev = 0.027 (recorded, no bound)'."""
    name = printable(s.name)
    if s.judged is None:
        extra = interval_text(s).replace(_NBSP, " ")
        return f"{name} = {fmt(s.value)} (recorded, no bound" + (
            f"; interval {extra})" if extra else ")")
    if s.on_interval:
        beside = estimate_text(s).replace(_NBSP, " ")
        return (f"{name}: {s.judged} {fmt(s.value)} ({bound_text(s)}"
                + (f"; estimate {beside})" if beside else ")"))
    ci = interval_text(s).replace(_NBSP, " ")
    return f"{name} = {fmt(s.value)} ({bound_text(s)}" + (f"; interval {ci})" if ci else ")")


def _inputs(g: Group) -> str:
    """Discriminatory inputs found / inputs checked; '-' for a relation that counts no
    inputs (judged on a statistic alone)."""
    if g.n_inputs:
        return f"{g.n_violations}/{g.n_inputs}"
    return str(g.n_violations) if g.n_violations else "-"


def _inputs_phrase(g: Group) -> str:
    if g.n_inputs:
        return f"{g.n_violations}/{g.n_inputs} inputs discriminatory"
    if g.n_violations:
        return _plural(g.n_violations, "discriminatory input")
    return "judged on the statistic (no inputs counted)"


def _ordered_rows(g: Group, verbosity: int) -> list[StatisticRow | None]:
    """The statistics a group shows: its headline (-v: then the others, in order)."""
    head = g.headline
    if head is None:
        return [None]
    if verbosity < 1:
        return [head]
    return [head, *(s for s in g.statistics if s is not head)]


def _row_result(g: Group, s: StatisticRow | None, first: bool) -> str:
    """The result cell: the relation's verdict on its first row ("recorded" for a relation
    that judges nothing), then each statistic's: ok, FAIL (WARN, XFAIL), recorded."""
    if s is None:
        return g.status
    if first:
        return "recorded" if s.verdict == "recorded" and g.status == "PASS" else g.status
    if s.verdict == "recorded":
        return "recorded"
    return "ok" if s.holds else (g.status if g.status != "PASS" else "FAIL")


# ---------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------

Styled = tuple[str, str | None]  # (text, status used for colour or None)
_STATUSES = ("PASS", "FAIL", "WARN", "XFAIL")


def _table(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    """One row per relation (its headline statistic; -v: one per statistic): the judged
    value, labelled, its bound and verdict, the point estimate and interval beside it."""
    multi = any(g.n_results > 1 for g in summary.groups)
    names = ["test", "relation", "statistic", "judged", "worst", "bound", "result",
             f"estimate{_NBSP}[CI]", "inputs"]
    rows: list[list[Styled]] = []
    for g in summary.groups:
        for i, s in enumerate(_ordered_rows(g, verbosity)):
            first = i == 0
            result = _row_result(g, s, first)
            rows.append([
                (printable(g.nodeid) if first else "", None),
                (printable(g.relation) if first else "", None),
                ("" if s is None else printable(s.name), None),
                ("" if s is None else judged_text(s), None),
                (fmt(s.worst) if s is not None and s.n > 1 and s.judged is not None
                 else "", None),
                ("" if s is None else bound_text(s), None),
                (result, result if result in _STATUSES else None),
                ("" if s is None else estimate_text(s), None),
                (_inputs(g) if first else "", None),
            ])
    keep = [i for i in range(len(names))
            if i < 2 or (i == 4 and multi) or (i != 4 and any(r[i][0] for r in rows))
            or names[i] in ("statistic", "result", "inputs")]
    headers = [names[i] for i in keep]
    rows = [[r[i] for i in keep] for r in rows]
    right = {headers.index(h) for h in ("judged", "worst", "bound") if h in headers}
    wrappable = {headers.index(h) for h in ("statistic", f"estimate{_NBSP}[CI]", "judged")
                 if h in headers}
    return _layout(headers, rows, right, wrappable, width, style)


def _min_width(texts: Sequence[str], floor: int) -> int:
    """The narrowest a wrapped column may get: its longest word (and `floor`)."""
    words = [w for t in texts for w in t.split(" ")]
    return max([floor, *(len(w) for w in words)])


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
                gap: int, style: _Style, is_header: bool = False) -> list[str]:
    """A row as lines: each cell wrapped to its column at word boundaries."""
    wrapped = [wrap_words(text, widths[i]) if text else [""]
               for i, (text, _) in enumerate(cells)]
    lines = []
    for k in range(max(len(w) for w in wrapped)):
        out = []
        for i, (_, status) in enumerate(cells):
            text = wrapped[i][k] if k < len(wrapped[i]) else ""
            padded = text.rjust(widths[i]) if i in right else text.ljust(widths[i])
            if is_header:
                padded = style(padded, "bold")
            elif status and text:
                padded = style.status(padded, status)
            out.append(padded)
        lines.append((" " * indent + (" " * gap).join(out)).rstrip())
    return lines


def _layout(headers: list[str], rows: list[list[Styled]], right: set[int],
            wrappable: set[int], width: int, style: _Style) -> list[str]:
    """One line per row when the full node ids fit (long statistics and estimates wrap
    in their columns); else each relation's 'node id [relation]' on its own line(s) above
    its rows; on a very narrow terminal, the cells one after another."""
    n = len(headers)
    natural = [max([len(headers[i])] + [len(r[i][0]) for r in rows]) for i in range(n)]
    order = sorted(wrappable, key=lambda i: ({f"estimate{_NBSP}[CI]": 0, "judged": 1}.get(
        headers[i], 2), i))  # shrunk first: the estimate, the judged value, then the name
    minimum = {i: _min_width([r[i][0] for r in rows] + [headers[i]], 8) for i in order}
    indent, gap = 2, 2
    # on one line per row, a statistic's name keeps 20 characters (else: grouped layout)
    one_line = {i: max(m, min(natural[i], 20)) if headers[i] == "statistic" else m
                for i, m in minimum.items()}
    fitted = _fit(natural, one_line, width, indent, gap)
    if fitted is not None:
        lines = _render_row([(h, None) for h in headers], fitted, right, indent, gap, style,
                            True)
        for r in rows:
            lines.extend(_render_row(r, fitted, right, indent, gap, style))
        return lines
    # grouped: a "node id [relation]" line per relation, its statistic rows under it
    sub_right = {i - 2 for i in right}
    sub_min = {i - 2: m for i, m in minimum.items()}
    sub = _fit(natural[2:], sub_min, width, 4, gap)
    if sub is None:
        return _stacked(headers, rows, width, style)
    lines = [style("  test [relation]", "bold"),
             *_render_row([(h, None) for h in headers[2:]], sub, sub_right, 4, gap, style,
                          True)]
    for r in rows:
        if r[0][0]:
            lines.extend(_id_lines(f"{r[0][0]} [{r[1][0]}]", width))
        lines.extend(_render_row(r[2:], sub, sub_right, 4, gap, style))
    return lines


def _stacked(headers: list[str], rows: list[list[Styled]], width: int,
             style: _Style) -> list[str]:
    """A very narrow terminal: 'node id [relation]' on its own line(s), then each
    statistic's cells one after another, each whole (a cell wider than the line wraps)."""
    lines = []
    for r in rows:
        if r[0][0]:
            lines.extend(_id_lines(f"{r[0][0]} [{r[1][0]}]", width, indent=0))
        indent, length = "    ", 4
        pieces: list[str] = []
        for k, (text, status) in enumerate(r[2:], start=2):
            if not text:
                continue
            if headers[k] == f"estimate{_NBSP}[CI]":
                text = "estimate " + text
            elif headers[k] == "worst":
                text = "worst " + text
            elif headers[k] == "inputs":
                text = "inputs " + text
            for part in wrap_words(text, width - 6):
                if pieces and length + 1 + len(part) > width:
                    lines.append(indent + " ".join(pieces))
                    indent, pieces, length = "      ", [], 6
                pieces.append(style.status(part, status) if status else part)
                length += len(part) + (1 if len(pieces) > 1 else 0)
        if pieces:
            lines.append(indent + " ".join(pieces))
    return lines


# ---------------------------------------------------------------------------------------
# Inputs, Hypothesis, comparison
# ---------------------------------------------------------------------------------------


def _input_lines(d: DiscriminatoryInput, width: int, style: _Style,
                 verbosity: int) -> list[str]:
    """The original and the perturbed text, changed words marked, each with its score
    (one line when the input is a single text, as for prediction sensitivity)."""
    lines = []
    texts = [("     ", d.original, d.original_spans, _score(d.original_score, d.original_label)),
             ("  -> ", d.perturbed, d.perturbed_spans,
              _score(d.perturbed_score, d.perturbed_label))]
    if d.original == d.perturbed:
        scores = dict.fromkeys(x for x in (texts[0][3], texts[1][3]) if x)
        texts = [(texts[0][0], d.original, d.original_spans, " -> ".join(scores))]
    for prefix, text, spans, score in texts:
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
        lines.append("         " + shorten_words(printable(d.detail), width - 9))
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


def _distinct_lines(found: Sequence[DistinctInput], title: str, limit: int, width: int,
                    verbosity: int, style: _Style,
                    measures: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Distinct inputs, worst first: the first test that recorded it with the measure
    (named as its relation names it: "shift", "misranked", ...), the other tests below
    ('also: ...'), then the texts with the changed words marked."""
    shown = found[:limit]
    more = ("" if len(shown) == len(found)
            else f" ({len(shown)} of {len(found)}; -v shows more)")
    lines = [style(line, "bold") for line in wrap_words(f"{title}{more}", width)]
    for i, item in enumerate(shown, 1):
        d = item.worst
        what = printable(", ".join(dict.fromkeys(x for x in (d.kind, d.attribute) if x)))
        label = printable(measures[d.relation][0]) if d.relation in measures else "measure"
        measure = "" if d.measure is None else f"{label} {d.measure:+.4g}"
        tail = "  ".join(x for x in (measure, f"({what})" if what else "") if x)
        head = _id_lines(printable(f"{d.nodeid} [{d.relation}]"), width, indent=6, more=2)
        head[0] = f"  {i:>2}. " + head[0][6:]
        if tail and len(head[-1]) + 2 + len(tail) <= width:
            head[-1] += f"  {tail}"
        elif tail:
            head.append("         " + tail)
        lines.extend(head)
        others = item.found_by[1:]
        listed = others if verbosity >= 1 else others[:3]
        for other in listed:
            lines.extend(_id_lines(printable(f"also: {other.nodeid} [{other.relation}]"), width,
                                   indent=9))
        if len(listed) < len(others):
            lines.append(f"         ... and {len(others) - len(listed)} more tests")
        lines.extend(_input_lines(d, width, style, verbosity))
    return lines


def _inputs_section(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    """The distinct discriminatory inputs, worst first (5; -v 20; -vv all), then the
    reference inputs: those of relations that did not hold (all of them at -v)."""
    limit = {0: 5, 1: 20}.get(verbosity, 10**9) if verbosity >= 0 else 5
    lines: list[str] = []
    found = summary.distinct_inputs()
    if found:
        lines = _distinct_lines(found, "worst discriminatory inputs", limit, width,
                                verbosity, style, summary.measures())
    reference = summary.distinct_inputs(reference=True)
    if verbosity < 1:  # only the evidence of relations that failed on a statistic alone
        only = {(g.nodeid, g.relation) for g in summary.statistic_only}
        reference = tuple(r for r in reference
                          if any((d.nodeid, d.relation) in only for d in r.found_by))
    if reference:
        if lines:
            lines.append("")
        lines.extend(_distinct_lines(
            reference, "other recorded inputs, not counted as discriminatory", limit, width,
            verbosity, style, summary.measures()))
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
        for s in g.statistics:
            if s.judged is None:
                phrase = statistic_phrase(s)
                worst = s.worst
            else:
                phrase = (f"{printable(s.name)}: final (shrunk) example "
                          + (f"{s.judged} " if s.on_interval else "") + fmt(s.value)
                          + (f" ({bound_text(s)})" if s.bound is not None else ""))
                worst = s.worst
            lines.extend(_id_lines(phrase, width, indent=4, more=4))
            lines.append(f"      worst seen {fmt(worst)} over {s.n} examples")
        if g.falsifying_example:
            for line in g.falsifying_example.splitlines()[: 12 if verbosity < 1 else 60]:
                body = printable(line)
                pad = len(body) - len(body.lstrip(" "))
                for k, part in enumerate(wrap_words(body, max(10, width - 4 - pad - 2))):
                    lines.append(" " * (4 + pad + (2 if k else 0)) + part)
        if g.final_violation is not None:
            lines.extend(_input_lines(g.final_violation, width, style, verbosity))
    return lines


def _change_lines(c: MetricChange, width: int) -> list[str]:
    delta = "" if c.delta is None else f" ({c.delta:+.4g})"
    subject = f" ({printable(c.subject_text)})" if c.subject_text else ""
    text = (f"{printable(c.nodeid)} [{printable(c.relation)}] {printable(c.metric)}"
            f"{subject}: {fmt(c.baseline)} -> {fmt(c.current)}{delta}")
    return _id_lines(text, width, indent=4)


def _comparison_section(c: Comparison, width: int, verbosity: int, style: _Style) -> list[str]:
    verdict = "FAIL" if c.failed else ("WARN" if c.regressions or not c.compared
                                       else "PASS")  # nothing compared passes nothing
    lines = [style(f"baseline comparison against {printable(c.baseline)} "
                   f"(tolerance: {c.tolerance.describe()})", "bold")]
    if c.regressions:
        lines.append("  " + style.status("worse:", verdict))
        lines.extend(x for r in c.regressions for x in _change_lines(r, width))
    if c.improvements:
        lines.append("  " + style("better:", "green"))
        lines.extend(x for r in c.improvements for x in _change_lines(r, width))
    counts = {s: sum(1 for x in c.changes if x.status == s)
              for s in ("regressed", "improved", "unchanged", "new", "missing")}
    if verbosity >= 1:
        for s in ("new", "missing"):
            if counts[s]:
                lines.append(f"  {s}:")
                lines.extend(x for r in c.changes if r.status == s
                             for x in _change_lines(r, width))
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
              width: int, limit: int | None = None,
              intervals: Sequence[tuple[float, float] | None] | None = None) -> list[str]:
    """Diverging horizontal bars per name, grouped (female, male, ...) and sorted by value.

    The layout of psa Figure 1: one block per group (names without a group last, as
    "other"), names within a block from the most positive value to the most negative;
    `limit` keeps the top and bottom names of a block. With `groups=None` the bars are one
    block in the order given, without a group column. `intervals` (one (low, high) or None
    per value, aligned with `values`) are printed after each value as "[low, high]".
    """
    if not values:
        return []
    spans = list(intervals) if intervals is not None else [None] * len(values)
    if len(spans) != len(values):
        raise ConfigurationError(f"bar_chart: {len(spans)} intervals for {len(values)} "
                                 "values; pass one (low, high) or None per value")
    by_group: dict[str, list[tuple[str, float, tuple[float, float] | None]]] = {}
    for (name, value), span in zip(values, spans, strict=True):
        by_group.setdefault((groups or {}).get(name, ""), []).append((name, value, span))
    order = sorted(by_group, key=lambda g: (g == "", g))
    scale = max(abs(v) for _, v in values) or 1.0
    group_w = 0 if groups is None else max(len(g or "other") for g in order)
    group_col = 0 if groups is None else group_w + 2
    name_w = min(max(18, width // 4), max(len(n) for n, _ in values))
    value_w = max(len(f"{v:+.3f}") for _, v in values)
    span_w = max((len(_interval_text(s)) + 1 for s in spans if s is not None), default=0)
    bar_w = max(11, min(width - 2 - group_col - name_w - 1 - value_w - 3 - span_w, 61))
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
            rows = [*rows[:keep], ("...", math.nan, None), *rows[-keep:]]
        for i, (name, value, span) in enumerate(rows):
            label = (group or "other") if i == 0 else ""
            block = "" if groups is None else f"{label:<{group_w}}  "
            if math.isnan(value):
                lines.append(f"  {' ' * len(block)}... {skipped} more names")
                continue
            n = round(abs(value) / scale * half)
            left = (" " * (half - n) + "#" * n) if value < 0 else " " * half
            right = ("#" * n).ljust(half) if value > 0 else " " * half
            shown = f"{value:+.3f}"
            if span is not None:
                shown = f"{shown:>{value_w}} {_interval_text(span)}"
            lines.append(f"  {block}{shorten_words(name, name_w):<{name_w}} "
                         f"{left}|{right} {shown}")
    return lines


def _interval_text(span: tuple[float, float]) -> str:
    """An interval as "[low, high]", each end as the bar values are shown."""
    return f"[{span[0]:+.3f}, {span[1]:+.3f}]"


def _title(label: str, g: Group, width: int, style: _Style, *, bold: bool = True) -> list[str]:
    """'label: node id [relation]' on one line, or the label on its own line and the node
    id under it, wrapped at its word boundaries when it alone is wider than the line."""
    ident = printable(g.short_id)
    if not label:
        return _id_lines(ident, width)
    one = f"{label}: {ident}"
    if len(one) <= width:
        return [style(one, "bold") if bold else one]
    head = [style(x, "bold") if bold else x for x in wrap_words(label + ":", width)]
    return [*head, *_id_lines(ident, width)]


# ---------------------------------------------------------------------------------------
# Report sections, one function per type
# ---------------------------------------------------------------------------------------


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
    """Diverging bars (`bar_chart`), each bar's interval after its value; ten per block
    by default, all at -v."""
    bars = [(printable(name), value) for name, value in section.bars]
    groups = None if section.groups is None else {
        printable(name): printable(group) for name, group in section.groups}
    return [*_title(printable(section.heading), g, width, style),
            *bar_chart(bars, groups, width=width, limit=None if verbosity >= 1 else 10,
                       intervals=section.intervals)]


_TABLE_ROWS = 20


def _cell_text(cell: Cell) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float):
        return fmt(cell)
    return printable(str(cell))


#: Rows of a detail table (`Table.detail`) the terminal shows, by default and at -v.
DETAIL_ROWS = (3, 10)


def _detail_lines(section: Table, g: Group, width: int, verbosity: int,
                  style: _Style) -> list[str]:
    """A detail table (`Table.detail`, e.g. a chat model's answers side by side) for a
    relation that did not hold: its first rows as records, one "column: value" line per
    non-empty cell, wrapped at word boundaries to the width (3 rows by default, 10 at -v);
    nothing for a relation that held. The JSON and HTML reports carry every row."""
    if g.status == "PASS":
        return []
    limit = DETAIL_ROWS[1] if verbosity >= 1 else DETAIL_ROWS[0]
    kept = section.rows[:limit]
    lines = _title(printable(section.heading), g, width, style)
    columns = [printable(c) for c in section.columns]
    for k, row in enumerate(kept, 1):
        lines.append(f"  row {k} of {len(section.rows)}")
        for name, cell in zip(columns, row, strict=True):
            text = " ".join(_cell_text(cell).split())
            if not text:
                continue
            wrapped = wrap_words(f"{name}: {text}", max(10, width - 4))
            lines.append("    " + wrapped[0])
            lines.extend("      " + w for w in wrap_words(" ".join(wrapped[1:]),
                                                          max(10, width - 6))
                         if len(wrapped) > 1)
    more = len(section.rows) - len(kept)
    if more:
        lines.append(f"  ... {more} more rows in the JSON and HTML reports"
                     + ("" if verbosity >= 1 else " (-v shows 10)"))
    return lines


@section_lines.register
def _table_lines(section: Table, g: Group, width: int, verbosity: int,
                 style: _Style) -> list[str]:
    """An aligned table (numbers right-aligned), its widest columns wrapped at word
    boundaries to fit the width; the first 20 rows by default, all at -v. A detail table
    is drawn by `_detail_lines`."""
    if section.detail:
        return _detail_lines(section, g, width, verbosity, style)
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
            *_render_row(header, fitted, right, 2, 2, style, True),
            *(line for r in rows for line in _render_row(r, fitted, right, 2, 2, style)),
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
    return [shorten_words(head + ", ".join(shown) + (f", +{left} more" if left else ""),
                          width)]


#: The section types drawn as charts: one that several relations recorded identically
#: (tests sharing one PSA run) is printed once, as the HTML page draws its figure once.
_CHARTS = (Curve, BarChart, Clusters)


def _sections_block(summary: Summary, width: int, verbosity: int, style: _Style) -> list[str]:
    """Every group's sections, grouped by title (in order of first appearance), then by
    group. A chart recorded identically by several relations (`summary.section_key`, as
    the HTML page finds them) is printed once, under the first of them, with a line naming
    the others."""
    lines: list[str] = []
    for title in summary.section_titles():
        shown: list[tuple[Section, Group, list[Group]]] = []
        first: dict[str, list[Group]] = {}
        for g in summary.groups:
            for section in g.sections:
                if section.title != title:
                    continue
                key = section_key(section) if isinstance(section, _CHARTS) else None
                if key is not None and key in first:
                    first[key].append(g)
                    continue
                others: list[Group] = []
                if key is not None:
                    first[key] = others
                shown.append((section, g, others))
        for section, g, others in shown:
            lines.extend(section_lines(section, g, width, verbosity, style))
            if others:
                names = ", ".join(printable(o.short_id) for o in others)
                lines.extend("  " + w for w in wrap_words(
                    f"(the same for {names}: they recorded identical data, e.g. one shared "
                    "run)", width - 2))
    return lines


# ---------------------------------------------------------------------------------------
# The whole summary
# ---------------------------------------------------------------------------------------


_OUTCOME_STYLE = {"failed": "FAIL", "passed": "PASS", "skipped": "WARN", "xfailed": "XFAIL",
                  "xpassed": "WARN"}


def totals_segments(summary: Summary) -> list[list[tuple[str, str | None]]]:
    """The run's counts as three lines of (text, status for colour) pieces, each defined
    once (`report.summary`; README, "Reading the report"):

    1. fairness tests by pytest's outcome (pytest's own counts, for these tests);
    2. relations by verdict (PASS, FAIL, WARN, XFAIL);
    3. discriminatory inputs found, how many distinct, and how many relations that did not
       hold were judged on a statistic with no input-level finding;

    and a fourth when inputs were skipped without being judged: how many, by reason
    (`Summary.skipped_inputs`).
    """
    t = summary.totals()
    tests: list[tuple[str, str | None]] = [
        (f"fairness: {_plural(t['tests'], 'test')} recorded fairness results; "
         f"{'its pytest outcome' if t['tests'] == 1 else 'their pytest outcomes'}: ", None)]
    outcomes = [(f"{n} {o}", _OUTCOME_STYLE.get(o)) for o, n in summary.outcomes().items() if n]
    for i, piece in enumerate(outcomes):
        tests.extend([(", ", None)] if i else [])
        tests.append(piece)
    relations: list[tuple[str, str | None]] = [
        (f"fairness: {_plural(t['groups'], 'relation')} checked; "
         f"{'its verdict' if t['groups'] == 1 else 'their verdicts'}: ", None)]
    verdicts = [(f"{t[key]} {status}", status) for key, status in (
        ("failed", "FAIL"), ("warned", "WARN"), ("xfailed", "XFAIL"), ("passed", "PASS"))
        if t[key]]
    for i, piece in enumerate(verdicts):
        relations.extend([(", ", None)] if i else [])
        relations.append(piece)
    if summary.warn_only:
        relations.append((" [warn-only]", None))
    found, kept, distinct = t["violations"], t["recorded_violations"], t["distinct_violations"]
    if found:
        text = f"fairness: {_plural(found, 'discriminatory input')} found"
        text += (" (none recorded)" if not kept else f" ({distinct} distinct)" if kept == found
                 else f" ({distinct} distinct among the {kept} recorded)")
    else:
        text = "fairness: no discriminatory inputs found"
    only, failing = t["statistic_only"], len(summary.groups) - t["passed"]
    if only == 1 and failing == 1:
        text += ("; the relation that did not hold was judged on a statistic "
                 "(no input-level finding)")
    elif only and only == failing:
        text += (f"; the {only} relations that did not hold were judged on a statistic "
                 "(no input-level finding)")
    elif only:
        text += (f"; {only} of the {failing} relations that did not hold "
                 f"{'was' if only == 1 else 'were'} judged on a statistic alone "
                 "(no input-level finding)")
    lines: list[list[tuple[str, str | None]]] = [tests, relations, [(text, None)]]
    skipped = summary.skipped_inputs()
    if skipped:
        total = sum(skipped.values())
        lines.append([(f"fairness: {_plural(total, 'input')} skipped, not judged: "
                       + ", ".join(f"{n} {printable(why)}" for why, n in skipped.items()),
                       None)])
    return lines


def _totals_lines(summary: Summary, style: _Style) -> list[str]:
    return ["".join(style.status(text, status) if status else text for text, status in line)
            for line in totals_segments(summary)]


def _quiet(summary: Summary, style: _Style) -> list[str]:
    """One line per relation that did not hold: its headline statistic (the judged value,
    labelled, with its bound and estimate) and its inputs (never cut: the node id is for
    copying)."""
    lines = []
    for g in summary.groups:
        if g.status == "PASS":
            continue
        head = g.headline
        metric = "" if head is None else f" {statistic_phrase(head)},"
        lines.append(f"{style.status(g.status, g.status)} {printable(g.nodeid)} "
                     f"{printable(g.relation)}:"
                     f"{metric} {_inputs_phrase(g)}")
    if summary.comparison is not None:
        for c in summary.comparison.regressions:
            subject = f" ({printable(c.subject_text)})" if c.subject_text else ""
            lines.append(f"{style.status('WORSE', 'FAIL')} {printable(c.nodeid)} "
                         f"{printable(c.relation)}: {printable(c.metric)}{subject} "
                         f"{fmt(c.baseline)} -> {fmt(c.current)} (baseline)")
    return lines


def render_text(
    summary: Summary, *, width: int = 80, verbosity: int = 0, color: bool = False
) -> list[str]:
    """The terminal `fairness summary` as lines (ANSI colours only when `color`).

    Every piece of recorded text (node ids, relation and statistic names, texts, labels,
    notes, paths) is shown `printable`: control characters appear as visible escapes
    (``\\x1b``), and the only escape sequences in the lines are the colours."""
    width = max(40, width)
    style = _Style(color)
    if summary.empty:
        return []
    if verbosity < 0:
        quiet = [*_quiet(summary, style), *_totals_lines(summary, style), *summary.notes]
        return [terminal_line(line, color=color) for line in quiet]
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
    lines.extend(_totals_lines(summary, style))
    lines.extend(summary.notes)
    # the guarantee: whatever a renderer above let through, no line holds a control
    # character but the summary's own colours (the data is escaped where it is laid out)
    return [terminal_line(line, color=color) for line in lines]


__all__ = [
    "bar_chart",
    "bound_text",
    "estimate_text",
    "interval_text",
    "judged_text",
    "label_text",
    "line_chart",
    "printable",
    "render_text",
    "section_lines",
    "segments",
    "shorten_words",
    "statistic_phrase",
    "totals_segments",
    "wrap_words",
]
