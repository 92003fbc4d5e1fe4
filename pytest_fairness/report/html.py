"""`fairness.html`: one self-contained page (pure).

No network: styles are inline and figures are PNGs embedded as base64. Figures are drawn
with matplotlib, imported here on first use through its object API (a `Figure` with the Agg
canvas; pyplot and the global backend are never touched). Without matplotlib the page is
written without figures and says how to get them. Every piece of recorded text is escaped.

Report sections are drawn generically, one function per section type: a `Curve` as a line
plot, a `BarChart` as grouped diverging bars, `Clusters` as a figure of the cluster curves
plus a listing of every term, a `Table` as an HTML table. Figures are shown per test.
"""

from __future__ import annotations

import base64
import functools
import importlib
import io
import math
from collections.abc import Sequence
from html import escape
from typing import Any

from ..results import BarChart, Cell, Clusters, Curve, Section, Table
from .comparison import Comparison
from .summary import DiscriminatoryInput, MetricSummary, Summary
from .text import printable, segments
from .values import fmt, now

__all__ = ["HTML_MAX_INPUTS", "render_html"]

#: How many discriminatory inputs the HTML page lists (all of them are in the JSON).
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
h3 { font-size: 14px; margin: 18px 0 6px; font-weight: 600; }
main { padding: 4px 32px 40px; max-width: 1400px; }
.meta { color: var(--mute); margin: 0; }
.badges { margin-top: 8px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600;
         font-size: 12px; margin-right: 6px; border: 1px solid currentColor; }
.PASS { color: var(--pass); } .FAIL { color: var(--fail); }
.WARN, .XFAIL { color: var(--warn); }
.regressed { color: var(--fail); font-weight: 600; } .improved { color: var(--pass); }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
         vertical-align: top; }
th { background: var(--bg); font-weight: 600; font-size: 12px; color: var(--mute);
     text-transform: uppercase; letter-spacing: .02em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.node { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
          font-size: 12.5px; word-break: break-all; }
tr.first td { border-top: 1px solid #d0d5dd; }
mark { padding: 0 2px; border-radius: 3px; }
mark.orig { background: #dbeafe; } mark.pert { background: #fde68a; }
.arrow { color: var(--mute); }
.figures { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px;
         background: #fff; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--mute); font-size: 12px; margin-top: 4px; max-width: 640px;
             word-break: break-all; }
.note { background: #fffaeb; border: 1px solid #fedf89; padding: 8px 12px; border-radius: 6px; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 8px; border-radius: 6px;
      overflow-x: auto; font-size: 12.5px; }
.small { color: var(--mute); font-size: 12px; }
"""


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
    (psa, Figure 1); without groups, one colour in the order given."""
    groups = section.group_of
    blocks: dict[str, list[tuple[str, float]]] = {}
    for name, value in section.bars:
        blocks.setdefault(groups.get(name, ""), []).append((name, value))
    order = sorted(blocks, key=lambda k: (k == "", k))
    rows: list[tuple[str, float, str]] = []
    for key in order:
        ranked = blocks[key] if section.groups is None else sorted(
            blocks[key], key=lambda nv: (-nv[1], nv[0]))
        rows.extend((name, value, key or "other") for name, value in ranked)
    fig = figs.new(5.6, max(2.0, 0.6 + 0.2 * len(rows)))
    ax = fig.add_subplot()
    colors = {k or "other": _PALETTE[i % len(_PALETTE)] for i, k in enumerate(order)}
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [r[1] for r in rows], color=[colors[r[2]] for r in rows], height=0.75)
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


def _figure(png: str, alt: str, caption: str) -> str:
    return (f'<figure><img alt="{escape(alt)}" src="data:image/png;base64,{png}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def _figures_section(summary: Summary, figs: _Figures) -> list[str]:
    wanted = [(g, [s for s in g.sections if _has_figure(s)]) for g in summary.groups]
    wanted = [(g, sections) for g, sections in wanted if sections]
    if not wanted:
        return []
    out = ['<section id="figures"><h2>Figures</h2>']
    if not figs.available:
        titles = ", ".join(dict.fromkeys(s.title for _, ss in wanted for s in ss))
        out.append(f'<p class="note">Figures are not included: {escape(str(figs.error))}. '
                   "Install matplotlib (<code>pip install matplotlib</code>) and rerun to get "
                   f"the figures ({escape(titles)}); the data is in "
                   "<code>fairness.json</code>.</p></section>")
        return out
    for g, sections in wanted:
        out.append(f'<h3 class="node">{escape(g.short_id)}</h3><div class="figures">')
        for section in sections:
            try:
                png = _plot(section, figs)
            except Exception as exc:  # one user's section must not cost the whole page
                out.append(f'<p class="note">The figure "{escape(section.heading)}" could not '
                           f"be drawn: {escape(type(exc).__name__)}: {escape(str(exc))}; its "
                           "data is in <code>fairness.json</code>.</p>")
                continue
            if png is not None:
                out.append(_figure(png, section.heading, section.caption or section.heading))
        out.append("</div>")
    out.append("</section>")
    return out


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------


def _marked(text: str, spans: Sequence[tuple[int, int]], cls: str) -> str:
    return "".join(f'<mark class="{cls}">{escape(piece)}</mark>' if changed else escape(piece)
                   for piece, changed in segments(text, spans))


def _status(status: str) -> str:
    return f'<span class="badge {escape(status)}">{escape(status)}</span>'


def _metric_cells(m: MetricSummary | None) -> str:
    if m is None:
        return '<td></td><td class="num"></td><td class="num"></td><td class="num"></td>'
    bound = "" if m.bound is None else f"{m.op} {fmt(m.bound)}"
    value = fmt(m.final)
    if m.ci is not None and None not in m.ci:
        value += f' <span class="small">[{fmt(m.ci[0])}, {fmt(m.ci[1])}]</span>'
    worst = fmt(m.worst) if m.n > 1 else ""
    return (f"<td>{escape(m.name)}</td><td class=\"num\">{value}</td>"
            f'<td class="num">{escape(worst)}</td><td class="num">{escape(bound)}</td>')


def _summary_table(summary: Summary) -> list[str]:
    out = ['<section id="summary"><h2>Summary</h2><table><thead><tr>'
           "<th>test</th><th>relation</th><th>metric</th><th class=\"num\">value</th>"
           '<th class="num">worst</th><th class="num">bound</th><th>result</th>'
           '<th class="num">results</th><th class="num">discriminatory inputs</th>'
           "</tr></thead><tbody>"]
    for g in summary.groups:
        metrics: list[MetricSummary | None] = list(g.metrics) or [None]
        span = len(metrics)
        for i, m in enumerate(metrics):
            if m is None:
                verdict = g.status
            else:
                verdict = "PASS" if m.holds else (g.status if g.status != "PASS" else "FAIL")
            row = '<tr class="first">' if i == 0 else "<tr>"
            if i == 0:
                row += (f'<td class="node" rowspan="{span}">{escape(g.nodeid)}</td>'
                        f'<td rowspan="{span}">{escape(g.relation)}</td>')
            row += _metric_cells(m) + f"<td>{_status(verdict)}</td>"
            if i == 0:
                inputs = f"{g.n_violations}" + (f" / {g.n_inputs}" if g.n_inputs else "")
                row += (f'<td class="num" rowspan="{span}">{g.n_results - g.n_failed}/'
                        f'{g.n_results} passed</td>'
                        f'<td class="num" rowspan="{span}">{inputs}</td>')
            out.append(row + "</tr>")
    out.append("</tbody></table></section>")
    return out


def _comparison(c: Comparison) -> list[str]:
    rows = [x for x in c.changes if x.status != "unchanged"]
    verdict = "FAIL" if c.failed else ("WARN" if c.regressions else "PASS")
    out = ['<section id="comparison"><h2>Baseline comparison</h2>',
           f"<p>{_status(verdict)} against <code>{escape(c.baseline)}</code>, tolerance "
           f"{escape(c.tolerance.describe())}: {len(c.regressions)} worse, "
           f"{len(c.improvements)} better, "
           f"{sum(1 for x in c.changes if x.status == 'unchanged')} unchanged.</p>"]
    if rows:
        out.append("<table><thead><tr><th>test</th><th>relation</th><th>metric</th>"
                   '<th class="num">baseline</th><th class="num">now</th>'
                   '<th class="num">change</th><th>status</th></tr></thead><tbody>')
        for x in rows:
            delta = "" if x.delta is None else f"{x.delta:+.4g}"
            out.append(f'<tr><td class="node">{escape(x.nodeid)}</td><td>{escape(x.relation)}'
                       f"</td><td>{escape(x.metric)}</td>"
                       f'<td class="num">{fmt(x.baseline)}</td>'
                       f'<td class="num">{fmt(x.current)}</td><td class="num">{delta}</td>'
                       f'<td class="{x.status}">{x.status}</td></tr>')
        out.append("</tbody></table>")
    out.append("</section>")
    return out


def _score(score: float | None, label: str | None) -> str:
    parts = []
    if score is not None:
        parts.append(f"{score:.3f}")
    if label is not None:
        parts.append(escape(label))
    return " ".join(parts)


def _input_rows(inputs: Sequence[DiscriminatoryInput]) -> list[str]:
    out = []
    for i, d in enumerate(inputs, 1):
        what = ", ".join(escape(x) for x in (d.kind, d.attribute) if x)
        measure = "" if d.measure is None else f"{d.measure:+.4g}"
        detail = f'<div class="small">{escape(d.detail)}</div>' if d.detail else ""
        out.append(
            f'<tr><td class="num">{i}</td><td class="node">{escape(d.nodeid)}<div class="small">'
            f"{escape(d.relation)}{' · ' + what if what else ''}</div></td>"
            f'<td>{_marked(d.original, d.original_spans, "orig")}'
            f'<div class="small">{_score(d.original_score, d.original_label)}</div></td>'
            f'<td class="arrow">&rarr;</td>'
            f'<td>{_marked(d.perturbed, d.perturbed_spans, "pert")}'
            f'<div class="small">{_score(d.perturbed_score, d.perturbed_label)}</div>{detail}'
            f'</td><td class="num">{measure}</td></tr>'
        )
    return out


def _inputs_section(summary: Summary) -> list[str]:
    if not summary.inputs:
        return []
    shown = summary.inputs[:HTML_MAX_INPUTS]
    more = len(summary.inputs) - len(shown)
    out = ['<section id="inputs"><h2>Discriminatory inputs</h2>',
           f"<p>{len(summary.inputs)} distinct, worst first; changed words are highlighted"
           + (f". The {more} least severe are only in <code>fairness.json</code>" if more else "")
           + ".</p>",
           '<table><thead><tr><th class="num">#</th><th>test</th><th>original</th><th></th>'
           '<th>perturbed</th><th class="num">measure</th></tr></thead><tbody>']
    out.extend(_input_rows(shown))
    out.append("</tbody></table></section>")
    return out


def _cell(cell: Cell) -> str:
    if cell is None:
        return "<td></td>"
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return f'<td class="num">{escape(fmt(cell) if isinstance(cell, float) else str(cell))}</td>'
    return f"<td>{escape(str(cell))}</td>"


def _tables_section(summary: Summary) -> list[str]:
    """Every `Table` section as an HTML table, under its test and title."""
    found = [(g, s) for g in summary.groups for s in g.sections if isinstance(s, Table)]
    if not found:
        return []
    out = ['<section id="tables"><h2>Tables</h2>']
    for g, table in found:
        out.append(f'<h3 class="node">{escape(g.short_id)} · {escape(table.heading)}</h3>')
        numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool)
                       for r in table.rows) for i in range(len(table.columns))]
        out.append("<table><thead><tr>" + "".join(
            f'<th class="num">{escape(c)}</th>' if numeric[i] else f"<th>{escape(c)}</th>"
            for i, c in enumerate(table.columns)) + "</tr></thead><tbody>")
        out.extend("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in table.rows)
        out.append("</tbody></table>")
        if table.caption:
            out.append(f'<p class="small">{escape(table.caption)}</p>')
    out.append("</section>")
    return out


def _clusters_section(summary: Summary) -> list[str]:
    """Every cluster set as a table listing all of its terms (the figures show four per
    cluster, and none without matplotlib)."""
    found = [(g, s) for g in summary.groups for s in g.sections if isinstance(s, Clusters)]
    if not found:
        return []
    out = ['<section id="clusters"><h2>Term clusters</h2>',
           "<p>Terms grouped by how they move the score over the templates "
           "(cross-geographic, section 3.2); the mean shift is the cluster's curve minus the "
           "templates' own scores, averaged over templates.</p>"]
    for g, cset in found:
        out.append(f'<h3 class="node">{escape(g.short_id)}'
                   + (f" · {escape(cset.label)}" if cset.label else "") + "</h3>")
        out.append('<table><thead><tr><th>cluster</th><th class="num">terms</th>'
                   '<th class="num">mean shift</th><th class="num">curve</th>'
                   "<th>members</th></tr></thead><tbody>")
        for c in cset.clusters:
            shape = f"{fmt(c.curve[0])} → {fmt(c.curve[-1])}" if c.curve else ""
            shift = "" if c.mean_shift is None else f"{c.mean_shift:+.3f}"
            out.append(f"<tr><td>C{escape(str(c.id))}</td>"
                       f'<td class="num">{len(c.terms)}</td>'
                       f'<td class="num">{shift}</td>'
                       f'<td class="num">{escape(shape)}</td>'
                       f"<td>{escape(', '.join(c.terms))}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return out


def _hypothesis_section(summary: Summary) -> list[str]:
    groups = [g for g in summary.groups if g.hypothesis]
    if not groups:
        return []
    out = ['<section id="hypothesis"><h2>Hypothesis</h2>']
    for g in groups:
        out.append(f'<h3 class="node">{escape(g.short_id)} {_status(g.status)}</h3>'
                   f"<p>{g.n_results} examples checked, {g.n_failed} failed.</p><ul>")
        for m in g.metrics:
            bound = "" if m.bound is None else f" (bound {m.op} {fmt(m.bound)})"
            out.append(f"<li><b>{escape(m.name)}</b>: final (shrunk) example "
                       f"{fmt(m.final)}{escape(bound)}; worst seen {fmt(m.worst)} over "
                       f"{m.n} examples</li>")
        out.append("</ul>")
        if g.falsifying_example:
            out.append(f"<pre>{escape(g.falsifying_example)}</pre>")
        if g.final_violation is not None:
            out.append("<table><tbody>" + "".join(_input_rows([g.final_violation]))
                       + "</tbody></table>")
    out.append("</section>")
    return out


def render_html(summary: Summary, *, created: str | None = None, figures: bool = True) -> str:
    """`fairness.html`: one self-contained page (figures need matplotlib, else a note).

    `created` is shown in the header (default: now); `figures=False` leaves figures out.
    """
    created = created or now()
    t = summary.totals()
    badges = "".join(
        f'<span class="badge {status}">{t[key]} {key}</span>'
        for key, status in (("failed", "FAIL"), ("warned", "WARN"), ("xfailed", "XFAIL"),
                            ("passed", "PASS"))
        if t[key]
    )
    figs = _Figures(figures)
    from .. import __version__

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>pytest-fairness report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>Fairness report</h1>",
        f'<p class="meta">{t["groups"]} relations checked in {t["tests"]} tests · '
        f'{t["violations"]} discriminatory inputs ({t["distinct_violations"]} distinct) · '
        f"{escape(created)} · pytest-fairness {escape(__version__)}"
        + (" · warn-only" if summary.warn_only else "") + "</p>",
        f'<div class="badges">{badges}</div></header><main>',
    ]
    if summary.empty:
        parts.append("<p>No fairness assertion ran.</p>")
    else:
        parts.extend(_summary_table(summary))
        if summary.comparison is not None:
            parts.extend(_comparison(summary.comparison))
        parts.extend(_hypothesis_section(summary))
        parts.extend(_figures_section(summary, figs))
        parts.extend(_tables_section(summary))
        parts.extend(_clusters_section(summary))
        parts.extend(_inputs_section(summary))
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
