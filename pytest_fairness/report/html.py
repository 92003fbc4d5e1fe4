"""`fairness.html`: one self-contained page (pure).

No network: styles are inline and figures are PNGs embedded as base64. Figures are drawn
with matplotlib, imported here on first use through its object API (a `Figure` with the Agg
canvas; pyplot and the global backend are never touched). Without matplotlib the page is
written without figures and says how to get them. Every piece of recorded text is escaped.

The page, top to bottom: the run's counts (tests by pytest outcome, relations by verdict,
discriminatory inputs: `text.totals_segments`, the same words as the terminal), a table of
contents, the summary table (one row per relation, those that did not hold first, each
showing its judged statistic), the baseline comparison, one section per test (failing
first) with every statistic, its figures, tables and clusters, then the discriminatory
inputs grouped by input (each listing the tests that found it) and the other recorded
inputs.

Report sections are drawn generically, one function per section type: a `Curve` as a line
plot, a `BarChart` as grouped diverging bars with each bar's interval as an error bar (a
table of the bars when there are no figures), `Clusters` as a figure of the cluster curves
plus a listing of every term, a `Table` as an HTML table. A figure that several tests
recorded identically (tests sharing one PSA run) is drawn once, in the first of their
sections, and the others link to it. Node ids and statistic names wrap only at their word
boundaries (`<wbr>` after '/', '_' and '-', before '::' and '[').
"""

from __future__ import annotations

import base64
import functools
import importlib
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..results import BarChart, Cell, Clusters, Curve, Section, Table
from .comparison import Comparison
from .summary import DistinctInput, Group, StatisticRow, Summary
from .text import (
    bound_text,
    estimate_text,
    label_text,
    printable,
    segments,
    totals_segments,
)
from .values import file_escaped, fmt, now

__all__ = ["HTML_MAX_INPUTS", "render_html"]

#: How many distinct discriminatory inputs the HTML page lists (all of them are in the
#: JSON).
HTML_MAX_INPUTS = 500

_CSS = """
:root { --fail: #b42318; --pass: #067647; --warn: #b54708; --ink: #1d2939; --mute: #667085;
        --line: #eaecf0; --bg: #f9fafb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial,
       sans-serif; color: var(--ink); margin: 0; background: #fff; }
header { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 0 0 6px; font-weight: 600; }
h4 { font-size: 14px; margin: 14px 0 6px; font-weight: 600; }
main { padding: 4px 32px 40px; max-width: 1400px; }
a { color: #1d4ed8; text-decoration: none; } a:hover { text-decoration: underline; }
.meta { color: var(--mute); margin: 0 0 6px; }
.counts { margin: 2px 0; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-weight: 600;
         font-size: 12px; border: 1px solid currentColor; white-space: nowrap; }
.PASS { color: var(--pass); } .FAIL { color: var(--fail); }
.WARN, .XFAIL { color: var(--warn); } .recorded { color: var(--mute); font-weight: 500; }
.regressed { color: var(--fail); font-weight: 600; } .improved { color: var(--pass); }
nav { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; margin: 16px 0;
      background: var(--bg); }
nav ul { margin: 4px 0; padding-left: 18px; } nav li { margin: 2px 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
         vertical-align: top; }
th { background: var(--bg); font-weight: 600; font-size: 12px; color: var(--mute);
     text-transform: uppercase; letter-spacing: .02em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
.judged-as { display: block; color: var(--mute); font-size: 11.5px; white-space: nowrap; }
.node, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
              font-size: 12.5px; overflow-wrap: break-word; word-break: normal; }
mark { padding: 0 2px; border-radius: 3px; }
mark.orig { background: #dbeafe; } mark.pert { background: #fde68a; }
.arrow { color: var(--mute); }
section.test { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px;
               margin: 14px 0; }
section.test.bad { border-left: 4px solid var(--fail); }
section.test.warned { border-left: 4px solid var(--warn); }
.figures { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px;
         background: #fff; max-width: 100%; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--mute); font-size: 12px; margin-top: 4px; max-width: 640px; }
.figref { border: 1px dashed #d0d5dd; border-radius: 6px; padding: 8px 12px; color: var(--mute);
          max-width: 420px; }
.note { background: #fffaeb; border: 1px solid #fedf89; padding: 8px 12px; border-radius: 6px; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 8px; border-radius: 6px;
      overflow-x: auto; font-size: 12.5px; }
.small { color: var(--mute); font-size: 12px; }
details > summary { cursor: pointer; }
@media (max-width: 700px) {
  header { padding: 14px 14px 10px; } main { padding: 4px 12px 32px; }
  section.test { padding: 10px 10px; }
  th, td { padding: 4px 5px; }
  table.stack thead { display: none; }
  table.stack tr { display: block; border-bottom: 1px solid #d0d5dd; padding: 4px 0; }
  table.stack td { display: block; border: 0; padding: 1px 4px; text-align: left; }
  table.stack td.num { text-align: left; white-space: normal; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: var(--mute);
                                        font-size: 11.5px; }
  table.stack td:empty, table.stack td.arrow { display: none; }
}
"""

_BREAK = re.compile(r"(?<=[/_\-])(?=.)|(?<=.)(?=::|\[)")


def _ident(text: str) -> str:
    """A node id (or a statistic's name), escaped, with `<wbr>` at its word boundaries so
    a browser wraps it there and never mid-word; copying it gives the id unchanged."""
    return "<wbr>".join(escape(part) for part in _BREAK.split(text))


# ---------------------------------------------------------------------------------------
# Figures (matplotlib, lazily)
# ---------------------------------------------------------------------------------------


class _Figures:
    """Draws the report's figures as base64 PNGs; `available` is False without matplotlib."""

    def __init__(self, enabled: bool) -> None:
        self.error: str | None = None
        self._figure: Any = None
        self._canvas: Any = None
        if not enabled:
            self.error = "figures disabled"
            return
        try:
            self._figure = importlib.import_module("matplotlib.figure").Figure
            self._canvas = importlib.import_module("matplotlib.backends.backend_agg"
                                                   ).FigureCanvasAgg
        except ImportError:
            self.error = "matplotlib is not installed"

    @property
    def available(self) -> bool:
        return self.error is None

    def new(self, width: float, height: float) -> Any:
        """A matplotlib `Figure` (size in inches) on the Agg canvas."""
        fig = self._figure(figsize=(width, height), dpi=110)
        self._canvas(fig)
        return fig

    @staticmethod
    def png(fig: Any) -> str:
        """`fig` as a base64 PNG (no timestamp in its metadata)."""
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
        return base64.b64encode(buf.getvalue()).decode("ascii")


_PALETTE = ["#c2410c", "#1d4ed8", "#047857", "#7c3aed", "#be185d", "#4b5563"]


def _plain(text: str) -> str:
    """Recorded text for a matplotlib label: '$' escaped, so it is never parsed as math,
    and control characters shown as escapes."""
    return printable(text).replace("$", r"\$")


@functools.singledispatch
def _plot(section: Section, figs: _Figures) -> str | None:
    """The figure of a section as a base64 PNG; None for a type that has no figure."""
    return None


def _has_figure(section: Section) -> bool:
    return _plot.dispatch(type(section)) is not _plot.dispatch(object)


@_plot.register
def _plot_curve(section: Curve, figs: _Figures) -> str:
    """The curves as lines with markers; a log x axis when x > 0 spans 20x or more."""
    fig = figs.new(5.2, 3.2)
    ax = fig.add_subplot()
    scale = 100.0 if section.percent else 1.0
    several = len(section.series) > 1
    all_x, all_y = [], []
    for i, curve in enumerate(section.series):
        xs = [x for x, _ in curve]
        ys = [y * scale for _, y in curve]
        all_x.extend(xs)
        all_y.extend(ys)
        label = (section.labels[i] if section.labels
                 else f"curve {i + 1}" if several else None)
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.6,
                label=None if label is None else _plain(label))
    if min(all_x) > 0 and max(all_x) / min(all_x) >= 20:
        ax.set_xscale("log")
    if section.percent and min(all_y) >= 0 and max(all_y) <= 100:
        ax.set_ylim(0, 105)
    elif min(all_y) >= 0:
        ax.set_ylim(0, max(0.05, max(all_y) * 1.15))
    ax.set_xlabel(_plain(section.x_label))
    ax.set_ylabel(_plain(section.y_label + (" (%)" if section.percent else "")))
    ax.grid(alpha=0.3)
    if several or section.labels:
        ax.legend(fontsize=8)
    ax.set_title(_plain(section.title), fontsize=10)
    return figs.png(fig)


@_plot.register
def _plot_bars(section: BarChart, figs: _Figures) -> str:
    """Horizontal bars from 0: one colour per group, each group's block sorted by value
    (psa, Figure 1); without groups, one colour in the order given. A bar's interval is
    an error bar from its low to its high end."""
    groups = section.group_of
    blocks: dict[str, list[tuple[str, float, tuple[float, float] | None]]] = {}
    for name, value, span in section.entries:
        blocks.setdefault(groups.get(name, ""), []).append((name, value, span))
    order = sorted(blocks, key=lambda k: (k == "", k))
    rows: list[tuple[str, float, str, tuple[float, float] | None]] = []
    for key in order:
        ranked = blocks[key] if section.groups is None else sorted(
            blocks[key], key=lambda nv: (-nv[1], nv[0]))
        rows.extend((name, value, key or "other", span) for name, value, span in ranked)
    fig = figs.new(5.6, max(2.0, 0.6 + 0.2 * len(rows)))
    ax = fig.add_subplot()
    colors = {k or "other": _PALETTE[i % len(_PALETTE)] for i, k in enumerate(order)}
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [r[1] for r in rows], color=[colors[r[2]] for r in rows], height=0.75)
    spans = [(y, r[3]) for y, r in zip(ys, rows, strict=True) if r[3] is not None]
    if spans:  # drawn about the interval's middle: the value need not lie inside it
        ax.errorbar([(lo + hi) / 2 for _, (lo, hi) in spans], [y for y, _ in spans],
                    xerr=[(hi - lo) / 2 for _, (lo, hi) in spans], fmt="none",
                    ecolor="#101828", elinewidth=1.0, capsize=2.5)
    ax.set_yticks(ys)
    ax.set_yticklabels([_plain(r[0]) for r in rows], fontsize=7 if len(rows) > 30 else 8)
    ax.axvline(0, color="#344054", linewidth=0.8)
    ax.set_xlabel(_plain(section.value_label))
    ax.grid(axis="x", alpha=0.3)
    if section.groups is not None and (len(order) > 1 or order[0]):
        patch = importlib.import_module("matplotlib.patches").Patch
        handles = [patch(color=colors[k or "other"], label=_plain(k or "other")) for k in order]
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)
    ax.set_title(_plain(section.title), fontsize=10)
    return figs.png(fig)


@_plot.register
def _plot_clusters(section: Clusters, figs: _Figures) -> str:
    """One panel per cluster with a curve: its curve against the templates' own scores
    (the diagonal is 'no shift'; cross-geographic, Figure 3), or by template position."""
    clusters = [c for c in section.clusters if c.curve]
    n = max(1, len(clusters))
    cols = 2 if n > 1 else 1
    rows = math.ceil(n / cols)
    fig = figs.new(4.2 * cols, 2.8 * rows)
    base = list(section.template_scores or ())
    for i, c in enumerate(clusters):
        ax = fig.add_subplot(rows, cols, i + 1)
        curve = list(c.curve)
        if section.relative and len(base) == len(curve):  # shifts -> scores
            curve = [b + v for b, v in zip(base, curve, strict=True)]
        if len(base) == len(curve):
            ax.plot(base, curve, marker="o", markersize=3, linewidth=1.4)
            lo, hi = min(base + curve), max(base + curve)
            ax.plot([lo, hi], [lo, hi], linestyle="--", color="#98a2b3", linewidth=0.9)
            ax.set_xlabel("template score")
        else:
            ax.plot(range(len(curve)), curve, marker="o", markersize=3, linewidth=1.4)
            ax.set_xlabel("template (ordered)")
        ax.set_ylabel("score with term")
        shown = ", ".join(c.terms[:4]) + (", ..." if len(c.terms) > 4 else "")
        ax.set_title(_plain(f"C{c.id} ({len(c.terms)} terms): {shown}"), fontsize=8.5)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return figs.png(fig)



# ---------------------------------------------------------------------------------------
# The page's shared state: anchors of tests, figures drawn once
# ---------------------------------------------------------------------------------------

_RANK = {"FAIL": 0, "WARN": 2, "XFAIL": 3, "PASS": 4}


@dataclass
class _Page:
    """What the parts of one page share: the figure drawer, each test's anchor, and the
    figures already drawn (by content), so an identical figure is drawn once."""

    figs: _Figures
    anchors: dict[str, str]
    drawn: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Figure content -> (its anchor, the node id of the test it is drawn under)."""

    def link(self, nodeid: str, text: str | None = None) -> str:
        """A link to the section of test `nodeid` (its id, wrapping at word boundaries)."""
        label = _ident(nodeid) if text is None else escape(text)
        anchor = self.anchors.get(nodeid)
        if anchor is None:
            return f'<span class="node">{label}</span>'
        return f'<a class="node" href="#{anchor}">{label}</a>'


def _tests_failing_first(summary: Summary) -> list[tuple[str, list[Group]]]:
    """Each test with its relations: those with a relation that did not hold first (FAIL,
    then a test pytest failed, WARN, XFAIL), passing ones last; by node id within a rank."""
    by_test: dict[str, list[Group]] = {}
    for g in summary.groups:
        by_test.setdefault(g.nodeid, []).append(g)

    def rank(groups: list[Group]) -> int:
        worst = min(_RANK.get(g.status, 4) for g in groups)
        return 1 if worst == 4 and groups[0].outcome == "failed" else worst

    return sorted(by_test.items(), key=lambda item: (rank(item[1]), item[0]))


def _badge(status: str, text: str | None = None) -> str:
    return (f'<span class="badge {escape(status)}">{escape(status if text is None else text)}'
            "</span>")


def _relation_badge(g: Group) -> str:
    """The relation's verdict; "recorded" for one that judges nothing (every statistic
    recorded without a bound)."""
    head = g.headline
    if g.status == "PASS" and head is not None and head.verdict == "recorded":
        return _badge("recorded")
    return _badge(g.status)


def _verdict(g: Group, s: StatisticRow) -> str:
    """The badge of one statistic: PASS / FAIL (WARN, XFAIL as its relation), or
    "recorded" for a statistic without a bound (it was not judged)."""
    if s.verdict == "recorded":
        return _badge("recorded")
    if s.holds:
        return _badge("PASS")
    return _badge(g.status if g.status != "PASS" else "FAIL")


def _judged_cell(s: StatisticRow | None) -> str:
    if s is None or s.judged is None:
        return '<td class="num" data-label="judged"></td>'
    label = (f'<span class="judged-as">{escape(s.judged)}</span>' if s.on_interval else "")
    return f'<td class="num" data-label="judged">{escape(fmt(s.value))}{label}</td>'


def _estimate_cell(s: StatisticRow | None) -> str:
    text = "" if s is None else estimate_text(s).replace("\u00a0", " ")
    return f'<td class="num" data-label="estimate [CI]">{escape(text)}</td>'


def _inputs_text(g: Group) -> str:
    if g.n_inputs:
        return f"{g.n_violations} / {g.n_inputs}"
    return str(g.n_violations) if g.n_violations else "-"


def _inputs_phrase(g: Group) -> str:
    if g.n_inputs:
        return (f"{g.n_violations} of {g.n_inputs} inputs discriminatory"
                if g.n_violations else f"no discriminatory input among {g.n_inputs}")
    if g.n_violations:
        return f"{g.n_violations} discriminatory inputs"
    return "judged on the statistic (no inputs counted)"


# ---------------------------------------------------------------------------------------
# Header, contents, summary table, comparison
# ---------------------------------------------------------------------------------------


def _counts(summary: Summary) -> list[str]:
    """The three count lines of the terminal summary, statuses as badges."""
    out = []
    for line in totals_segments(summary):
        pieces = []
        for i, (text, status) in enumerate(line):
            if i == 0:
                text = text.removeprefix("fairness: ")
            pieces.append(_badge(status, text) if status else escape(text))
        out.append(f'<p class="counts">{"".join(pieces)}</p>')
    return out


def _contents(summary: Summary, tests: list[tuple[str, list[Group]]], page: _Page) -> list[str]:
    bad = [(nodeid, gs) for nodeid, gs in tests
           if any(g.status != "PASS" for g in gs) or gs[0].outcome == "failed"]
    good = [(nodeid, gs) for nodeid, gs in tests if (nodeid, gs) not in bad]

    def item(nodeid: str, groups: list[Group]) -> str:
        badges = " ".join(_relation_badge(g) for g in groups)
        return f"<li>{badges} {page.link(nodeid)}</li>"

    out = ['<nav id="contents"><b>Contents</b><ul>',
           f'<li><a href="#summary">Summary</a>: {len(summary.groups)} relations in '
           f"{len(summary.tests)} tests</li>"]
    if summary.comparison is not None:
        out.append('<li><a href="#comparison">Baseline comparison</a></li>')
    out.append('<li><a href="#tests">Tests</a>, those that did not hold first')
    if bad:
        out.append(f"<ul>{''.join(item(n, gs) for n, gs in bad)}</ul>")
    if good:
        out.append(f"<details><summary>{len(good)} passing tests</summary>"
                   f"<ul>{''.join(item(n, gs) for n, gs in good)}</ul></details>")
    out.append("</li>")
    found = summary.distinct_inputs()
    if found:
        out.append(f'<li><a href="#inputs">Discriminatory inputs</a>: {len(found)} distinct'
                   "</li>")
    if summary.reference:
        out.append('<li><a href="#reference">Other recorded inputs</a> (not counted as '
                   "discriminatory)</li>")
    out.append("</ul></nav>")
    return out


def _summary_table(summary: Summary, tests: list[tuple[str, list[Group]]],
                   page: _Page) -> list[str]:
    """One row per relation, those that did not hold first: the judged statistic (the
    first that did not hold, else the first judged), labelled, its bound and verdict, the
    point estimate and interval beside it, and the inputs."""
    out = ['<section id="summary"><h2>Summary</h2>',
           '<p class="small">One row per relation. <b>judged</b>: the value compared with the '
           "bound (the point estimate, or the interval end named under it); "
           "<b>estimate [CI]</b>: the point estimate and its confidence interval; "
           "<b>inputs</b>: discriminatory inputs found / inputs checked. Every statistic is in "
           "the test's section.</p>",
           '<div class="scroll"><table class="stack"><thead><tr><th>test</th><th>relation</th>'
           '<th>statistic</th><th class="num">judged</th><th class="num">bound</th>'
           '<th>verdict</th><th class="num">estimate [CI]</th><th class="num">inputs</th>'
           "</tr></thead><tbody>"]
    for nodeid, groups in tests:
        for g in groups:
            s = g.headline
            out.append(
                f"<tr><td>{page.link(nodeid)}</td>"
                f'<td data-label="relation">{escape(g.relation)}</td>'
                f'<td data-label="statistic">{"" if s is None else _ident(s.name)}</td>'
                + _judged_cell(s)
                + f'<td class="num" data-label="bound">'
                f'{"" if s is None else escape(bound_text(s))}</td>'
                f'<td data-label="verdict">{_relation_badge(g)}</td>'
                + _estimate_cell(s)
                + f'<td class="num" data-label="inputs">{escape(_inputs_text(g))}</td></tr>')
    out.append("</tbody></table></div></section>")
    return out


def _comparison(c: Comparison, page: _Page) -> list[str]:
    rows = [x for x in c.changes if x.status != "unchanged"]
    verdict = "FAIL" if c.failed else ("WARN" if c.regressions else "PASS")
    out = ['<section id="comparison"><h2>Baseline comparison</h2>',
           f"<p>{_badge(verdict)} against <code>{escape(c.baseline)}</code>, tolerance "
           f"{escape(c.tolerance.describe())}: {len(c.regressions)} worse, "
           f"{len(c.improvements)} better, "
           f"{sum(1 for x in c.changes if x.status == 'unchanged')} unchanged.</p>"]
    if rows:
        out.append('<div class="scroll"><table class="stack"><thead><tr><th>test</th>'
                   "<th>relation</th><th>metric</th>"
                   '<th class="num">baseline</th><th class="num">now</th>'
                   '<th class="num">change</th><th>status</th></tr></thead><tbody>')
        for x in rows:
            delta = "" if x.delta is None else f"{x.delta:+.4g}"
            out.append(f"<tr><td>{page.link(x.nodeid)}</td>"
                       f'<td data-label="relation">{escape(x.relation)}</td>'
                       f'<td data-label="metric">{_ident(x.metric)}</td>'
                       f'<td class="num" data-label="baseline">{fmt(x.baseline)}</td>'
                       f'<td class="num" data-label="now">{fmt(x.current)}</td>'
                       f'<td class="num" data-label="change">{delta}</td>'
                       f'<td class="{x.status}">{x.status}</td></tr>')
        out.append("</tbody></table></div>")
    out.append("</section>")
    return out


# ---------------------------------------------------------------------------------------
# One section per test
# ---------------------------------------------------------------------------------------


def _statistics_table(g: Group) -> list[str]:
    """Every statistic of a relation: the judged value (labelled), its bound and verdict,
    the point estimate and interval; the worst value when it was checked several times."""
    multi = any(s.n > 1 for s in g.statistics)
    out = ['<div class="scroll"><table class="stack"><thead><tr><th>statistic</th>'
           '<th class="num">judged</th>' + ('<th class="num">worst</th>' if multi else "")
           + '<th class="num">bound</th><th>verdict</th><th class="num">estimate [CI]</th>'
           "</tr></thead><tbody>"]
    for s in g.statistics:
        worst = fmt(s.worst) if s.n > 1 else ""
        out.append(f"<tr><td>{_ident(s.name)}</td>{_judged_cell(s)}"
                   + (f'<td class="num" data-label="worst of {s.n}">{worst}</td>'
                      if multi else "")
                   + f'<td class="num" data-label="bound">{escape(bound_text(s))}</td>'
                   f'<td data-label="verdict">{_verdict(g, s)}</td>{_estimate_cell(s)}</tr>')
    out.append("</tbody></table></div>")
    return out


def _figure(png: str, alt: str, caption: str, anchor: str) -> str:
    return (f'<figure id="{anchor}"><img alt="{escape(alt)}" src="data:image/png;base64,{png}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def _figures(g: Group, page: _Page) -> list[str]:
    """The group's figures: drawn here, or a link to the identical figure drawn under an
    earlier test."""
    wanted = [s for s in g.sections if _has_figure(s)]
    if not wanted:
        return []
    if not page.figs.available:
        titles = ", ".join(dict.fromkeys(s.title for s in wanted))
        return [f'<p class="note">Figures are not included: {escape(str(page.figs.error))}. '
                "Install matplotlib (<code>pip install matplotlib</code>) and rerun to get "
                f"the figures ({escape(titles)}); the data is in "
                "<code>fairness.json</code>.</p>"]
    out = ['<div class="figures">']
    for section in wanted:
        key = json.dumps(section.to_dict(), sort_keys=True)
        if key in page.drawn:
            anchor, owner = page.drawn[key]
            out.append(f'<p class="figref"><b>{escape(section.heading)}</b>: the same figure '
                       f'as under {page.link(owner)} (<a href="#{anchor}">show it</a>); the '
                       "tests recorded identical data, e.g. one shared run.</p>")
            continue
        try:
            png = _plot(section, page.figs)
        except Exception as exc:  # one user's section must not cost the whole page
            out.append(f'<p class="note">The figure "{escape(section.heading)}" could not '
                       f"be drawn: {escape(type(exc).__name__)}: {escape(str(exc))}; its "
                       "data is in <code>fairness.json</code>.</p>")
            continue
        if png is not None:
            anchor = f"fig{len(page.drawn) + 1}"
            page.drawn[key] = (anchor, g.nodeid)
            out.append(_figure(png, section.heading, section.caption or section.heading,
                               anchor))
    out.append("</div>")
    return out


def _cell(cell: Cell) -> str:
    if cell is None:
        return "<td></td>"
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return f'<td class="num">{escape(fmt(cell) if isinstance(cell, float) else str(cell))}</td>'
    return f"<td>{escape(str(cell))}</td>"


def _bar_table(chart: BarChart) -> list[str]:
    """A bar chart as a table (label, group, value, interval), for a page without figures."""
    columns = ["label", *(["group"] if chart.groups is not None else []), chart.value_label,
               *(["interval"] if chart.intervals is not None else [])]
    group_of = chart.group_of
    rows = [[label, *([group_of.get(label, "other")] if chart.groups is not None else []),
             value,
             *([None if span is None else f"[{fmt(span[0])}, {fmt(span[1])}]"]
               if chart.intervals is not None else [])]
            for label, value, span in chart.entries]
    return _table(Table(chart.title, columns, rows, caption=chart.caption))


def _table(table: Table) -> list[str]:
    numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool)
                   for r in table.rows) for i in range(len(table.columns))]
    out = [f"<h4>{escape(table.heading)}</h4>",
           '<div class="scroll"><table><thead><tr>' + "".join(
               f'<th class="num">{escape(c)}</th>' if numeric[i] else f"<th>{escape(c)}</th>"
               for i, c in enumerate(table.columns)) + "</tr></thead><tbody>"]
    out.extend("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in table.rows)
    out.append("</tbody></table></div>")
    if table.caption:
        out.append(f'<p class="small">{escape(table.caption)}</p>')
    return out


def _clusters(cset: Clusters) -> list[str]:
    """A cluster set as a table listing all of its terms (the figure shows four per
    cluster, and none without matplotlib)."""
    out = [f"<h4>{escape(cset.heading)}</h4>",
           '<p class="small">Terms grouped by how they move the score over the templates '
           "(cross-geographic, section 3.2); the mean shift is the cluster's curve minus the "
           "templates' own scores, averaged over templates.</p>",
           '<div class="scroll"><table><thead><tr><th>cluster</th><th class="num">terms</th>'
           '<th class="num">mean shift</th><th class="num">curve</th>'
           "<th>members</th></tr></thead><tbody>"]
    for c in cset.clusters:
        shape = f"{fmt(c.curve[0])} → {fmt(c.curve[-1])}" if c.curve else ""
        shift = "" if c.mean_shift is None else f"{c.mean_shift:+.3f}"
        out.append(f"<tr><td>C{escape(str(c.id))}</td>"
                   f'<td class="num">{len(c.terms)}</td>'
                   f'<td class="num">{shift}</td>'
                   f'<td class="num">{escape(shape)}</td>'
                   f"<td>{escape(', '.join(c.terms))}</td></tr>")
    out.append("</tbody></table></div>")
    return out


def _hypothesis(g: Group) -> list[str]:
    out = [f"<p>Hypothesis: {g.n_results} examples checked, {g.n_failed} failed; the "
           "judged value is the final (shrunk) example's, the worst the worst seen.</p>"]
    if g.falsifying_example:
        out.append(f"<pre>{escape(g.falsifying_example)}</pre>")
    return out


def _group_inputs(g: Group, summary: Summary, page: _Page) -> list[str]:
    """The worst three discriminatory inputs of a relation (all are under 'Discriminatory
    inputs'), and for one that did not hold, its worst reference inputs."""
    own = [d for d in summary.inputs if (d.nodeid, d.relation) == (g.nodeid, g.relation)]
    title = "worst discriminatory inputs"
    if not own and g.status != "PASS":
        own = [d for d in summary.reference
               if (d.nodeid, d.relation) == (g.nodeid, g.relation)]
        title = "largest recorded measures (no input over a per-input bound)"
    if not own:
        return []
    anchor = "inputs" if title.startswith("worst") else "reference"
    return [f'<p class="small">{escape(title)} ({min(3, len(own))} of {len(own)}; '
            f'<a href="#{anchor}">all inputs</a>):</p>',
            '<div class="scroll"><table class="stack"><tbody>',
            *(_input_row(i, DistinctInput(found_by=(d,)), page, found_by=False)
              for i, d in enumerate(own[:3], 1)),
            "</tbody></table></div>"]


def _test_section(nodeid: str, groups: list[Group], summary: Summary, page: _Page) -> list[str]:
    statuses = {g.status for g in groups}
    kind = ("bad" if "FAIL" in statuses or groups[0].outcome == "failed"
            else "warned" if statuses - {"PASS"} else "")
    outcome = groups[0].outcome
    out = [f'<section class="test {kind}" id="{page.anchors[nodeid]}">',
           f'<h3 class="node" title="{escape(nodeid)}">{_ident(nodeid)}</h3>',
           f'<p class="small">pytest outcome: {escape(outcome)}'
           + (" · warn-only" if any(t.warn_only for t in summary.tests if t.nodeid == nodeid)
              else "") + ' · <a href="#contents">contents</a></p>']
    for g in groups:
        out.append(f"<h4>{escape(g.relation)} {_relation_badge(g)} "
                   f'<span class="small">{escape(_inputs_phrase(g))}'
                   + (f" · {g.n_results} results" if g.n_results > 1 else "")
                   + "</span></h4>")
        out.extend(_statistics_table(g))
        if g.hypothesis:
            out.extend(_hypothesis(g))
        out.extend(_group_inputs(g, summary, page))
        out.extend(_figures(g, page))
        for section in g.sections:
            if isinstance(section, Table):
                out.extend(_table(section))
            elif isinstance(section, BarChart) and not page.figs.available:
                out.extend(_bar_table(section))  # the figure's data, as a table
            elif isinstance(section, Clusters):
                out.extend(_clusters(section))
    out.append("</section>")
    return out


# ---------------------------------------------------------------------------------------
# Inputs, grouped by input
# ---------------------------------------------------------------------------------------


def _marked(text: str, spans: Sequence[tuple[int, int]], cls: str) -> str:
    return "".join(f'<mark class="{cls}">{escape(piece)}</mark>' if changed else escape(piece)
                   for piece, changed in segments(text, spans))


def _score(score: float | None, label: str | None) -> str:
    parts = []
    if score is not None:
        parts.append(f"{score:.3f}")
    label = label_text(label)
    if label is not None:
        parts.append(escape(label))
    return " ".join(parts)


def _input_row(i: int, item: DistinctInput, page: _Page, *, found_by: bool = True) -> str:
    """One input: the original and the perturbed text (changed words highlighted) with
    their scores, the tests that recorded it (with each one's measure), the worst measure."""
    d = item.worst
    what = ", ".join(escape(x) for x in dict.fromkeys(x for x in (d.kind, d.attribute) if x))
    measure = "" if d.measure is None else f"{d.measure:+.4g}"
    detail = f'<div class="small">{escape(d.detail)}</div>' if d.detail else ""
    if d.original == d.perturbed:  # a single text (prediction sensitivity, AUC examples)
        scores = " &rarr; ".join(dict.fromkeys(x for x in (
            _score(d.original_score, d.original_label),
            _score(d.perturbed_score, d.perturbed_label)) if x))
        cells = [f'<td class="num">{i}</td>',
                 f'<td colspan="3" data-label="input">'
                 f'{_marked(d.original, d.original_spans, "pert")}'
                 f'<div class="small">{scores}</div>{detail}</td>']
    else:
        cells = [f'<td class="num">{i}</td>',
                 f'<td data-label="original">{_marked(d.original, d.original_spans, "orig")}'
                 f'<div class="small">{_score(d.original_score, d.original_label)}</div></td>',
                 '<td class="arrow">&rarr;</td>',
                 f'<td data-label="perturbed">{_marked(d.perturbed, d.perturbed_spans, "pert")}'
                 f'<div class="small">{_score(d.perturbed_score, d.perturbed_label)}</div>'
                 f"{detail}</td>"]
    if found_by:
        shown = item.found_by[:12]
        links = "".join(
            f"<li>{page.link(x.nodeid)} <span class=\"small\">{escape(x.relation)}"
            + ("" if x.measure is None else f" · {x.measure:+.4g}") + "</span></li>"
            for x in shown)
        more = len(item.found_by) - len(shown)
        cells.append(f'<td data-label="found by"><ul style="margin:0;padding-left:16px">'
                     f"{links}</ul>"
                     + (f'<span class="small">and {more} more tests</span>' if more else "")
                     + (f'<div class="small">{what}</div>' if what else "") + "</td>")
    cells.append(f'<td class="num" data-label="measure">{measure}</td>')
    return "<tr>" + "".join(cells) + "</tr>"


def _inputs_section(found: Sequence[DistinctInput], page: _Page, *, anchor: str, title: str,
                    intro: str) -> list[str]:
    if not found:
        return []
    shown = found[:HTML_MAX_INPUTS]
    more = len(found) - len(shown)
    return [f'<section id="{anchor}"><h2>{escape(title)}</h2>',
            f"<p>{intro} {len(found)} distinct, worst first, each listing every test that "
            "recorded it; changed words are highlighted"
            + (f". The {more} least severe are only in <code>fairness.json</code>" if more
               else "") + ".</p>",
            '<div class="scroll"><table class="stack"><thead><tr><th class="num">#</th>'
            '<th>original</th><th></th><th>perturbed</th><th>found by</th>'
            '<th class="num">measure</th></tr></thead><tbody>',
            *(_input_row(i, item, page) for i, item in enumerate(shown, 1)),
            "</tbody></table></div></section>"]


def render_html(summary: Summary, *, created: str | None = None, figures: bool = True) -> str:
    """`fairness.html`: one self-contained page (figures need matplotlib, else a note).

    `created` is shown in the header (default: now); `figures=False` leaves figures out.
    """
    created = created or now()
    from ..version import __version__

    tests = _tests_failing_first(summary)
    page = _Page(figs=_Figures(figures),
                 anchors={nodeid: f"t{i}" for i, (nodeid, _) in enumerate(tests, 1)})
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>pytest-fairness report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>Fairness report</h1>",
        f'<p class="meta">{escape(created)} · pytest-fairness {escape(__version__)}'
        + (" · warn-only" if summary.warn_only else "") + "</p>",
        *([] if summary.empty else _counts(summary)),
        "</header><main>",
    ]
    if summary.empty:
        parts.append("<p>No fairness assertion ran.</p>")
    else:
        parts.extend(_contents(summary, tests, page))
        parts.extend(_summary_table(summary, tests, page))
        if summary.comparison is not None:
            parts.extend(_comparison(summary.comparison, page))
        parts.append('<section id="tests"><h2>Tests, those that did not hold first</h2>')
        for nodeid, groups in tests:
            parts.extend(_test_section(nodeid, groups, summary, page))
        parts.append("</section>")
        parts.extend(_inputs_section(
            summary.distinct_inputs(), page, anchor="inputs", title="Discriminatory inputs",
            intro="Inputs that break a relation's per-input condition:"))
        parts.extend(_inputs_section(
            summary.distinct_inputs(reference=True), page, anchor="reference",
            title="Other recorded inputs",
            intro="Inputs the relations recorded beyond their count of discriminatory inputs "
                  "(the largest measures of a relation judged on a mean, say):"))
    parts.append("</main></body></html>")
    # a lone surrogate (UTF-8 cannot write it) is shown as its escape
    return file_escaped("\n".join(parts)) + "\n"
