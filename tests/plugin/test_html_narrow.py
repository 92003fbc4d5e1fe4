"""The HTML report of a real run, read as a newcomer would (issue 30): no empty interval
columns, each relation's per-input measure explained and sorted within the relation, the
answer-similarity table showing one similarity per sample pair, the header saying the run
failed on regressions, and, at 390 px in headless Chromium, every table's columns visible
without horizontal clipping and the figures' text legible."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SUITE = '''
import os
import pytest
import pytest_fairness as pf
from pytest_fairness import context
from pytest_fairness.checks.bias_auc import assert_subgroup_aucs_above
from pytest_fairness.checks.groups import assert_group_gap_below
from pytest_fairness.checks.llm import assert_answer_similarity_above
from pytest_fairness.checks.psa import assert_scoresens_below
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.results import Cluster, Clusters, FairnessResult, Measurement

WORSE = os.environ.get("WORSE") == "1"

CORPUS = ["She said the meeting was a waste of time.", "He never answers his phone.",
          "I think she deserves the promotion.", "Nobody asked him for his opinion."]
NAMES = ["Maria", "Emma", "Aisha", "John", "Wei", "Carlos"]

def toxicity(texts):
    return [0.95 if "Aisha" in t else 0.08 for t in texts]

def test_names():
    assert_scoresens_below(toxicity, CORPUS, names=NAMES, max_abs=0.05)

GOLD = (["offensive"] * 5 + ["ok"] * 5) * 2
GENDER = ["f"] * 10 + ["m"] * 10
LOW = ["offensive"] * (1 if WORSE else 3) + ["ok"] * (9 if WORSE else 7)
HIGH = ["offensive"] * 4 + ["ok"] * 6

def test_group_gap():
    assert_group_gap_below(predictions=LOW + HIGH, y_true=GOLD, groups={"gender": GENDER},
                           metric="tpr", positive="offensive", max_gap=1.0)

AUC_TEXTS = ["a muslim wrote this", "a muslim friend", "a muslim said hi",
             "you are an idiot", "what a stupid idea", "a muslim idiot", "hello there",
             "nice to meet you", "good morning all", "an idiot again"]
AUC_LABELS = [0, 0, 0, 1, 1, 1, 0, 0, 0, 1]
AUC_SCORES = [0.9, 0.85, 0.8, 0.7, 0.75, 0.95, 0.1, 0.2, 0.15, 0.6]

def test_subgroup_aucs():
    mask = ["muslim" in t for t in AUC_TEXTS]
    assert_subgroup_aucs_above(AUC_SCORES, AUC_LABELS, {"muslim": mask}, 0.8,
                               texts=AUC_TEXTS)

SWAP = DictionaryKind("pronoun_swap", [("he", "she"), ("him", "her")], attribute="gender")

def generator(prompt, n, seed):
    if " she " in f" {prompt.lower()} " and "loan" in prompt:
        return [f"She is a truly outstanding candidate for this loan. #{i}" for i in range(n)]
    if " she " in f" {prompt.lower()} ":
        return [f"She seems adequate for the role, we think. #{i}" for i in range(n)]
    return [f"He is a truly outstanding and great candidate for this role. #{i}"
            for i in range(n)]

def test_answers():
    assert_answer_similarity_above(generator, ["Write a reference letter; he starts Monday.",
                                               "He asked for a loan from the bank."],
                                   0.9, kind=SWAP, n=2, seed=1, control=None)

def test_clusters():
    members = [f"placename{c}{i}" for i in range(40) for c in range(1)]
    clusters = [Cluster(c, [f"{w}{c}" for w in members], [0.1 * c + 0.05 * j for j in range(6)],
                        0.1 * c) for c in range(3)]
    context.record(FairnessResult(
        relation="term_clusters", passed=True,
        measurements=(Measurement("inertia", 0.5),), n_inputs=120,
        sections=(Clusters("Term clusters", clusters, label="India",
                           template_scores=[0.05 * j for j in range(6)]),)).to_dict())
'''


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


#: Measures the page as laid out at the window's width, and writes what it found into
#: the page as JSON (read back with --dump-dom).
PROBE = """
<script>
window.addEventListener("load", () => {
  const width = document.documentElement.clientWidth;
  const out = {width: width, tables: [], cells: [], figures: []};
  document.querySelectorAll("table").forEach((t, i) => {
    const box = t.parentElement;
    out.tables.push({i: i, scroll: box.scrollWidth, client: box.clientWidth,
                     right: t.getBoundingClientRect().right,
                     heading: (t.closest("section") || {}).id || ""});
  });
  document.querySelectorAll("td, th").forEach((c) => {
    const r = c.getBoundingClientRect();
    if (r.width === 0 || getComputedStyle(c).display === "none") return;
    out.cells.push({label: c.dataset.label || c.tagName, right: r.right, left: r.left,
                    width: r.width, words: (c.textContent.match(/\\S+/g) || []).length,
                    lines: Math.round(r.height / parseFloat(getComputedStyle(c).lineHeight))});
  });
  document.querySelectorAll("figure img").forEach((img) => {
    out.figures.push({alt: img.alt, shown: img.clientWidth, natural: img.naturalWidth,
                      font: parseFloat(img.dataset.minFontPx || "0"),
                      right: img.getBoundingClientRect().right});
  });
  window.parent.postMessage(JSON.stringify(out), "*");
});
</script>
"""

#: Headless Chromium's window is at least 500 px wide: the page is laid out in a frame
#: of the width asked for (its own viewport: the page's media queries see that width),
#: and the frame's findings are written into this page.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="{src}" style="width:{width}px;height:1900px;border:0"></iframe>
<script>
window.addEventListener("message", (event) => {{
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = event.data;
  document.body.appendChild(pre);
}});
</script></body></html>
"""


def _layout(chromium: str, page: Path, tmp_path: Path, width: int) -> dict[str, Any]:
    probed = tmp_path / f"probed-{width}.html"
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    frame = tmp_path / f"frame-{width}.html"
    frame.write_text(FRAME.format(src=probed.name, width=width))
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp_path / 'chromium-profile'}",
         "--hide-scrollbars", "--window-size=800,2000", "--virtual-time-budget=10000",
         "--allow-file-access-from-files", "--dump-dom", frame.as_uri()],
        check=True, capture_output=True, timeout=120, text=True,
    ).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    data: dict[str, Any] = json.loads(found.group(1).replace("&quot;", '"')
                                      .replace("&lt;", "<").replace("&gt;", ">")
                                      .replace("&amp;", "&"))
    return data


def _run(pytester: pytest.Pytester, *args: str, worse: bool = False) -> pytest.RunResult:
    if worse:
        os.environ["WORSE"] = "1"
    try:
        return pytester.runpytest("-p", "no:randomly", *args)
    finally:
        os.environ.pop("WORSE", None)


@pytest.fixture
def report(pytester: pytest.Pytester) -> Path:
    """The report of a run that fails on its relations and on a regression against the
    baseline of an earlier run."""
    pytest.importorskip("spacy")
    pytest.importorskip("matplotlib")
    pytester.makepyfile(test_suite=SUITE)
    _run(pytester, "--fairness-save-baseline=base.json")
    result = _run(pytester, "--fairness-compare=base.json", "--fairness-report=out",
                  worse=True)
    result.assert_outcomes(passed=2, failed=3)
    return pytester.path / "out" / "fairness.html"


@pytest.mark.slow
def test_the_report_reads_right(report: Path) -> None:
    page = report.read_text()
    # no empty interval columns: no interval was asked for
    assert not re.search(r"<th[^>]*>[^<]* CI</th>", page)
    # each relation's measure explained, and the inputs sorted within each relation
    inputs = page.split('<section id="inputs">')[1].split("</section>")[0]
    assert '<h3 class="relation">subgroup_aucs' in inputs
    assert '<h3 class="relation">score_sens' in inputs
    assert ("<b>misranked</b>: the share of the texts of the other label that this text is "
            "ranked on the wrong side of (1: all of them); a share of pairs, not a change of "
            "score") in inputs
    assert "<b>shift</b>: the perturbed input&#x27;s score minus the original&#x27;s" in inputs
    assert "<b>ROUGE-L F1</b>; lower is worse" in inputs
    for block in inputs.split('<h3 class="relation">')[1:]:
        measures = [float(m) for m in re.findall(
            r'<td class="num" data-label="[^"]*">([+-][0-9.e+-]+)</td></tr>', block)]
        assert measures
        if "lower is worse" in block:
            assert measures == sorted(measures), block[:200]
        else:
            magnitudes = [abs(m) for m in measures]
            assert magnitudes == sorted(magnitudes, reverse=True), block[:200]
    # the answer similarity: one similarity per sample pair, not two equal "scores"
    answers = page.split("answers side by side (ROUGE-L F1 of each sample pair)")[1]
    answers = answers.split("</table>")[0]
    assert "original score" not in answers
    assert "counterfactual score" not in answers
    assert '<th class="num">ROUGE-L F1</th>' in answers
    # the header says the run failed on a regression
    header = page.split("</header>")[0]
    assert ('<span class="badge FAIL">the run failed</span> 2 metrics regressed against the '
            "baseline <code>base.json</code>") in header


@pytest.mark.slow
def test_at_390_px_no_table_is_clipped_and_figure_text_is_legible(
    report: Path, tmp_path: Path
) -> None:
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    layout = _layout(chromium, report, tmp_path, 390)
    width = layout["width"]
    assert 370 <= width <= 390
    clipped = [t for t in layout["tables"] if t["scroll"] > t["client"] + 1
               or t["right"] > width + 1]
    assert not clipped, clipped
    outside = [c for c in layout["cells"] if c["right"] > width + 1 or c["left"] < -1]
    assert not outside, outside[:5]
    members = [c for c in layout["cells"] if c["label"] == "members"]
    assert members
    assert all(c["width"] >= 0.6 * width for c in members), members
    assert all(c["lines"] <= c["words"] / 2 + 1 for c in members), members  # not a word a line
    answers = [c for c in layout["cells"] if c["label"] == "counterfactual answer"]
    assert answers
    assert all(c["width"] >= 0.6 * width for c in answers), answers
    assert layout["figures"]
    for fig in layout["figures"]:
        assert fig["right"] <= width + 1, fig
        shown_px = fig["font"] * fig["shown"] / fig["natural"]
        assert shown_px >= 9.0, fig  # the smallest chart text, as shown, in CSS pixels
