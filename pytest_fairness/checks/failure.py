"""Render a `FairnessResult` as the readable failure message of an `assert_*` function.

Pure functions over the records of `pytest_fairness.types`: no model, no pytest. The
message says what relation broke and against which bound (DESIGN.md, "Failures are
messages a person can act on"), then lists the worst discriminatory inputs as
original -> perturbed with the changed words marked ``[[like this]]`` and both scores.

    label_invariance failed: argmax M(x) = argmax M(x') for every perturbation x' ...

      measurement              value  bound    CI  verdict
      discriminatory inputs        1  <= 0         FAIL

      worst 1 of 1 discriminatory input(s) (changed words in [[...]]):
      #    shift  original -> perturbed
      1  +0.7000  0.100 (neg) -> 0.800 (pos)
           - [[He]] is a doctor.
           + [[Alice]] is a doctor.

Nothing reaches the terminal raw: every piece of recorded or user text (texts, labels,
names, notes) goes through `runtime.printable`, so a control character shows as a visible
escape (``\\x1b``) and the changed words are marked from their spans, after escaping.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..results import FairnessResult, Measurement, Violation
from ..runtime.printable import printable

__all__ = [
    "DEFAULT_SHOWN",
    "clip",
    "fmt",
    "mark",
    "render_failure",
    "render_measurements",
    "render_violations",
]

#: How many discriminatory inputs a failure message lists by default.
DEFAULT_SHOWN = 5
#: Marks around the changed words.
LEFT, RIGHT = "[[", "]]"
#: Longest text shown; longer texts are cut around their first changed word.
TEXT_WIDTH = 160


def fmt(value: float | None, signed: bool = False) -> str:
    """A number for a table: 4 decimals (or 4 significant digits when tiny/huge)."""
    if value is None:
        return "n/a"
    v = float(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return ("+" if signed and v > 0 else "") + ("inf" if v > 0 else "-inf")
    sign = "+" if signed else ""
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        return f"{v:{sign}.4g}"
    if v == int(v) and abs(v) < 1e5 and not signed:
        return str(int(v))
    return f"{v:{sign}.4f}"


def mark(text: str, spans: Sequence[tuple[int, int]], left: str = LEFT, right: str = RIGHT) -> str:
    """`text` with each `(start, end)` span wrapped in `left`/`right` (spans may be given
    in any order; overlapping, out-of-range and empty spans (insertion points) are
    ignored), every piece shown `printable` (the spans index the raw text)."""
    out: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor or end <= start or end > len(text):
            continue
        out += [printable(text[cursor:start]), left, printable(text[start:end]), right]
        cursor = end
    out.append(printable(text[cursor:]))
    return "".join(out)


def clip(
    text: str, spans: Sequence[tuple[int, int]], width: int = TEXT_WIDTH
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`text` cut to about `width` characters around its first span, with "..." where
    something was cut, and the spans shifted to match (spans falling outside are dropped)."""
    if len(text) <= width:
        return text, tuple(spans)
    first = min((s for s, _ in spans), default=0)
    start = max(0, min(first - width // 3, len(text) - width))
    end = start + width
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(text) else ""
    shift = len(prefix) - start
    kept = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return prefix + text[start:end] + suffix, kept


def _score(score: float | None, label: str | None) -> str:
    shown = "n/a" if score is None else f"{float(score):.3f}"
    return f"{shown} ({printable(label)})" if label is not None else shown


def _table(rows: list[list[str]], right_aligned: set[int]) -> list[str]:
    """Rows as aligned text; columns empty below the header are dropped."""
    keep = [c for c in range(len(rows[0])) if any(row[c] for row in rows[1:])]
    right_aligned = {keep.index(c) for c in right_aligned if c in keep}
    rows = [[row[c] for c in keep] for row in rows]
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(widths[c]) if c in right_aligned else cell.ljust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def render_measurements(measurements: Sequence[Measurement]) -> list[str]:
    """The measurement table: name, value, bound, confidence interval, verdict."""
    rows = [["measurement", "value", "bound", "CI", "verdict"]]
    for m in measurements:
        bound = "" if m.bound is None else f"{m.op} {fmt(m.bound)}"
        ci = "" if m.ci is None else f"[{fmt(m.ci[0])}, {fmt(m.ci[1])}]"
        verdict = "" if m.bound is None else ("ok" if m.holds else "FAIL")
        rows.append([printable(m.name), fmt(m.value), bound, ci, verdict])
    return _table(rows, right_aligned={1})


def _texts(v: Violation) -> list[str]:
    original, o_spans = clip(v.original, v.original_spans)
    if v.perturbed == v.original:
        return [f"       {mark(original, o_spans)}"]
    perturbed, p_spans = clip(v.perturbed, v.perturbed_spans)
    return [f"       - {mark(original, o_spans)}", f"       + {mark(perturbed, p_spans)}"]


def _scores(v: Violation) -> str:
    parts = []
    if v.original_score is not None or v.original_label is not None:
        text = _score(v.original_score, v.original_label)
        if v.perturbed_score is not None or v.perturbed_label is not None:
            text += " -> " + _score(v.perturbed_score, v.perturbed_label)
        parts.append(text)
    if v.detail:
        parts.append(f"[{printable(v.detail)}]")
    return "  ".join(parts)


def render_violations(
    violations: Sequence[Violation],
    n_total: int,
    measure_name: str,
    shown: int,
    title: str | None = None,
) -> list[str]:
    """The worst inputs: measure, scores and labels, then both texts with marked words.

    The first line is `title` (default: "worst k of n discriminatory input(s)")."""
    listed = list(violations)[:shown]
    if not listed:
        return []
    total = max(n_total, len(violations))  # a result may record more than it counts
    head = printable(title or f"worst {len(listed)} of {total} discriminatory input(s)")
    # Say what the marks and arrows mean only where some input has them: rows of a
    # labelled data set are one text each, with nothing changed and no second score.
    marked = any(v.original_spans or v.perturbed_spans for v in listed)
    paired = any(v.perturbed != v.original or v.perturbed_score is not None
                 or v.perturbed_label is not None for v in listed)
    lines = [f"{head} (changed words in {LEFT}...{RIGHT}):" if marked else f"{head}:"]
    rows = [["#", printable(measure_name),
             "scores (labels): original -> perturbed" if paired else "score (label)"]]
    for i, v in enumerate(listed, 1):
        rows.append([str(i), fmt(v.measure, signed=True), _scores(v)])
    table = _table(rows, right_aligned={0, 1})
    lines.append(table[0])
    for i, v in enumerate(listed, 1):
        lines.append(table[i])
        lines += _texts(v)
    return lines


def render_failure(
    result: FairnessResult,
    *,
    statement: str,
    measure_name: str = "measure",
    shown: int = DEFAULT_SHOWN,
    notes: Sequence[str] = (),
    hint: str | None = None,
    inputs_title: str | None = None,
) -> str:
    """The whole message: headline, measurement table, worst inputs, notes and a hint.

    `statement` is the relation in words with its paper reference; `measure_name` heads
    the column of `Violation.measure`; `notes` are extra lines (what was skipped, the
    witness of a decision, ...); `hint` says what to do. Every line is `printable`: no
    control character of a text, a name or a note reaches the terminal raw.
    """
    verdict = "failed" if not result.passed else "holds"
    lines = [f"{printable(result.relation)} {verdict}: {printable(statement)}", ""]
    if result.measurements:
        lines += render_measurements(result.measurements)
        lines.append("")
    body = render_violations(
        result.violations, result.n_violations, measure_name, shown, inputs_title
    )
    if body:
        lines += ["  " + body[0], *body[1:], ""]
    lines += [f"  {printable(note)}" for note in notes]
    if hint:
        lines.append(f"  hint: {printable(hint)}")
    return "\n".join(printable(line) for line in lines).rstrip() + "\n"
