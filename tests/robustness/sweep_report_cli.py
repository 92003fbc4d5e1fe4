"""A sweep of bad inputs through `python -m pytest_fairness.report` (issue 26), each run as
its own process with a 20 s limit and classified: `error` (a message on stderr and a
non-zero status, no traceback), `ok0` (status 0: read as a valid report), `crash` (a
traceback) or `hang`. Not a test (no assertion): it prints one line per case and the
counts. Run from the repository root::

    python tests/robustness/sweep_report_cli.py .
"""

import copy
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
out = Path(tempfile.mkdtemp(prefix="sweep-"))
sys.path.insert(0, ROOT)
sys.path.insert(0, str(Path(__file__).parent))
from test_report_cli_inputs import GOOD, GOOD_TEXT  # noqa: E402

good = copy.deepcopy(GOOD)
Path(out / "good.json").write_text(GOOD_TEXT, encoding="utf-8")
cases = []  # (name, argv-builder)


def doc_case(name, mutate):
    d = copy.deepcopy(good)
    r = mutate(d)
    d = d if r is None else r
    p = out / f"{len(cases)}.json"
    p.write_text(json.dumps(d, allow_nan=True), encoding="utf-8")
    cases.append((name, [str(p)]))


def raw_case(name, data: bytes):
    p = out / f"{len(cases)}.json"
    p.write_bytes(data)
    cases.append((name, [str(p)]))


def setp(path, value):
    def m(d):
        if not path:
            return value
        cur = d
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value

    return m


def delp(path):
    def m(d):
        cur = d
        for k in path[:-1]:
            cur = cur[k]
        del cur[path[-1]]

    return m


T = ["tests", 0]
R = ["tests", 0, "results", 0]
M = [*R, "measurements", 0]
V = [*R, "violations", 0]
bad_values = {
    "list": [],
    "null": None,
    "str": "x",
    "int": 5,
    "bool": True,
    "dict": {},
    "float": 1.5,
    "nested": [[1]],
}
for key, v in bad_values.items():
    raw_case(f"top={key}", json.dumps(v).encode())
for path, label in [
    (["kind"], "kind"),
    (["schema_version"], "schema_version"),
    (["warn_only"], "warn_only"),
    (["tests"], "tests"),
    (["comparison"], "comparison"),
    (T, "tests[0]"),
    ([*T, "nodeid"], "nodeid"),
    ([*T, "outcome"], "outcome"),
    ([*T, "warn_only"], "test.warn_only"),
    ([*T, "hypothesis"], "hypothesis"),
    ([*T, "falsifying_example"], "falsifying_example"),
    ([*T, "results"], "results"),
    (R, "result"),
    ([*R, "relation"], "relation"),
    ([*R, "passed"], "passed"),
    ([*R, "measurements"], "measurements"),
    (M, "measurement"),
    ([*M, "name"], "m.name"),
    ([*M, "value"], "m.value"),
    ([*M, "bound"], "m.bound"),
    ([*M, "op"], "m.op"),
    ([*M, "ci"], "m.ci"),
    ([*M, "holds"], "m.holds"),
    ([*R, "violations"], "violations"),
    (V, "violation"),
    ([*V, "original"], "v.original"),
    ([*V, "measure"], "v.measure"),
    ([*V, "original_spans"], "v.spans"),
    ([*R, "n_inputs"], "n_inputs"),
    ([*R, "n_violations"], "n_violations"),
    ([*R, "extra"], "extra"),
    ([*R, "sections"], "sections"),
]:
    for key in ("list", "null", "str", "dict", "bool", "float"):
        doc_case(f"{label}={key}", setp(path, bad_values[key]))
for path, label in [
    (["kind"], "kind"),
    (["tests"], "tests"),
    ([*T, "nodeid"], "nodeid"),
    ([*R, "measurements"], "measurements"),
    ([*M, "value"], "m.value"),
    ([*T, "results"], "results"),
]:
    doc_case(f"missing {label}", delp(path))
for v in [-1, 99, "1", 1.5, None]:
    doc_case(f"schema_version={v!r}", setp(["schema_version"], v))
for v in [float("nan"), float("inf"), -1e308 * 10, 1e400]:
    doc_case(f"m.value={v!r}", setp([*M, "value"], v))
doc_case("m.op='=='", setp([*M, "op"], "=="))
doc_case("m.ci=[1]", setp([*M, "ci"], [1]))
doc_case("m.ci=['a','b']", setp([*M, "ci"], ["a", "b"]))
doc_case("n_inputs=-1", setp([*R, "n_inputs"], -1))
doc_case("n_inputs=1e300", setp([*R, "n_inputs"], 1e300))
doc_case("n_inputs=10**400", setp([*R, "n_inputs"], 10**400))
doc_case("spans=[[5,1]]", setp([*V, "original_spans"], [[5, 1]]))
doc_case("spans=[[1,'a']]", setp([*V, "original_spans"], [[1, "a"]]))
doc_case("spans=[[0,10**30]]", setp([*V, "original_spans"], [[0, 10**30]]))
doc_case("sections=[{type:5}]", setp([*R, "sections"], [{"type": 5}]))
doc_case("sections=[{type:curve}]", setp([*R, "sections"], [{"type": "curve"}]))
doc_case(
    "sections=[{type:table,rows:5}]",
    setp(
        [*R, "sections"],
        [{"type": "table", "title": "t", "caption": None, "columns": ["a"], "rows": 5}],
    ),
)
doc_case(
    "sections=[{type:bar_chart bad}]",
    setp([*R, "sections"], [{"type": "bar_chart", "title": "t", "caption": None, "bars": "x"}]),
)
doc_case("extra.label_dist_curve bad", setp([*R, "extra"], {"label_dist_curve": [[1]]}))
doc_case("extra.score_sens bad", setp([*R, "extra"], {"score_sens": {"Alex": "x"}}))
doc_case("extra.score_sens list", setp([*R, "extra"], {"score_sens": [1, 2]}))
doc_case("extra.mitigation_curve bad", setp([*R, "extra"], {"mitigation_curve": "x"}))
comp_good = {
    "baseline": "b.json",
    "tolerance": {"absolute": 0.0, "relative": 0.0},
    "warn_only": False,
    "failed": False,
    "changes": [
        {
            "nodeid": "tests/test_x.py::test_a",
            "relation": "scoresens",
            "metric": "ScoreSens",
            "op": "<=",
            "baseline": 0.05,
            "current": 0.07,
            "status": "regressed",
        }
    ],
}
doc_case("comparison good", setp(["comparison"], comp_good))
for label, c in [
    ("changes=str", {**comp_good, "changes": "x"}),
    ("changes=[1]", {**comp_good, "changes": [1]}),
    ("changes=[null]", {**comp_good, "changes": [None]}),
    (
        "change missing nodeid",
        {**comp_good, "changes": [{"status": "regressed", "relation": "r", "metric": "m"}]},
    ),
    (
        "change baseline str",
        {**comp_good, "changes": [{**comp_good["changes"][0], "baseline": "x"}]},
    ),
    ("tolerance=str", {**comp_good, "tolerance": "x"}),
    ("tolerance.absolute=str", {**comp_good, "tolerance": {"absolute": "x"}}),
    ("comparison.baseline=list", {**comp_good, "baseline": [1]}),
    ("comparison=[]", []),
    ("comparison=str", "x"),
    ("comparison=5", 5),
    (
        "comparison.status unknown",
        {**comp_good, "changes": [{**comp_good["changes"][0], "status": "weird"}]},
    ),
]:
    doc_case(f"comparison {label}", setp(["comparison"], c))
deep = 100_000
raw_case("deep list top", b"[" * deep + b"]" * deep)
raw_case(
    "deep dict in unused key",
    json.dumps({k: v for k, v in good.items()})[:-1].encode()
    + b', "zz": '
    + b'{"a":' * deep
    + b"1"
    + b"}" * deep
    + b"}",
)
g = json.dumps(good)
raw_case(
    "deep in extra",
    g.replace('"extra": {}', '"extra": {"x": ' + "[" * deep + "]" * deep + "}", 1).encode(),
)
raw_case(
    "deep 1000 in extra",
    g.replace('"extra": {}', '"extra": {"x": ' + "[" * 1000 + "]" * 1000 + "}", 1).encode(),
)
raw_case("json string top", b'"hello"')
raw_case("json string top long", json.dumps("ab" * 50).encode())
raw_case("empty file", b"")
raw_case("whitespace", b"  \n\t ")
raw_case("invalid utf8", b'{"kind": "\xff\xfe"}')
raw_case(
    "invalid utf8 inside good", g.replace("Alex", "Al\udcffex").encode("utf-8", "surrogateescape")
)
raw_case("utf16", g.encode("utf-16"))
raw_case("utf8 bom", b"\xef\xbb\xbf" + g.encode())
raw_case("NaN constant", g.replace('"value": 0.07', '"value": NaN').encode())
raw_case("Infinity constant", g.replace('"value": 0.07', '"value": -Infinity').encode())
raw_case("trailing garbage", g.encode() + b"xx")
raw_case("truncated", g.encode()[: len(g) // 2])
raw_case(
    "control chars in nodeid",
    g.replace("tests/test_x.py::test_a", "tests/\\u001b[31mx\\u0007\\u202e").encode(),
)
raw_case("lone surrogate escape", g.replace("Alex is here", "Alex \\ud800 here").encode())
raw_case(
    "duplicate keys",
    g.replace(
        '"kind": "pytest-fairness-report"', '"kind": "pytest-fairness-report", "kind": "x"'
    ).encode(),
)
raw_case("big int literal", g.replace('"n_inputs": 10', '"n_inputs": ' + "9" * 5000).encode())
raw_case("big float literal", g.replace('"value": 0.07', '"value": 1' + "0" * 400 + ".0").encode())
rng = random.Random(26)
for i in range(20):
    raw_case(f"random bytes {i}", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
# special paths
fifo = out / "fifo.json"
os.mkfifo(fifo)
cases.append(("FIFO", [str(fifo)]))
zero = out / "zero.json"
zero.symlink_to("/dev/zero")
cases.append(("symlink /dev/zero", [str(zero)]))
cases.append(("/dev/null", ["/dev/null"]))
cases.append(("missing path", [str(out / "nope.json")]))
d = out / "dir_without"
d.mkdir()
cases.append(("dir without fairness.json", [str(d)]))
d2 = out / "dir_fifo"
d2.mkdir()
os.mkfifo(d2 / "fairness.json")
cases.append(("dir with FIFO fairness.json", [str(d2)]))
d3 = out / "dir_dir"
d3.mkdir()
(d3 / "fairness.json").mkdir()
cases.append(("dir with dir fairness.json", [str(d3)]))
dang = out / "dangling.json"
dang.symlink_to(out / "nothing")
cases.append(("dangling symlink", [str(dang)]))
loop = out / "loop.json"
loop.symlink_to(loop)
cases.append(("symlink loop", [str(loop)]))
huge = out / "huge.json"
with open(huge, "wb") as f:
    f.truncate(600 * 2**20)
cases.append(("huge sparse file 600MB", [str(huge)]))
goodp = str(out / "good.json")
cases.append(("--html to dir", [goodp, "--html", str(out)]))
cases.append(("--html missing folder", [goodp, "--html", str(out / "no" / "such" / "x.html")]))
cases.append(("--html under a file", [goodp, "--html", goodp + "/x.html"]))
cases.append(("--html to FIFO", [goodp, "--html", str(fifo)]))
cases.append(("--html to /dev/full", [goodp, "--html", "/dev/full"]))
cases.append(("--width 5", [goodp, "--width", "5"]))
cases.append(("--width x", [goodp, "--width", "x"]))
cases.append(("--width huge", [goodp, "--width", "10000000000"]))
cases.append(("no args", []))
sur = out / "sur.json"
sur.write_text(g.replace("Alex is here", "Alex \\ud800 here"))
cases.append(("lone surrogate + html", [str(sur), "--html", str(out / "s.html")]))
cases.append(("control chars + html", [str(out / "ctl.json"), "--html", str(out / "c.html")]))
(out / "ctl.json").write_text(
    g.replace("tests/test_x.py::test_a", "tests/\\u001b[31mx\\u0007\\u202e")
)
cases.append(("--max-mb 0", [goodp, "--max-mb", "0"]))
cases.append(("--max-mb nan", [goodp, "--max-mb", "nan"]))
cases.append(("--max-mb tiny", [goodp, "--max-mb", "0.0001"]))
cases.append(("path with ESC", [str(out / "a\x1b[31mb.json")]))


def run(argv):
    try:
        p = subprocess.run(
            [sys.executable, "-m", "pytest_fairness.report", *argv],
            capture_output=True,
            timeout=20,
            env={**os.environ, "PYTHONPATH": ROOT},
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return "hang", None, b"", b""
    err = p.stderr
    if b"Traceback" in err:
        return "crash", p.returncode, p.stdout, err
    if p.returncode == 0:
        return "ok0", 0, p.stdout, err
    return "error", p.returncode, p.stdout, err


results = {}
for name, argv in cases:
    kind, rc, so, se = run(argv)
    results.setdefault(kind, []).append(name)
    last = se.decode(errors="replace").strip().splitlines()[-1:] if se else []
    print(f"{kind:6} rc={rc} {name!r:45.45} {(last[0] if last else '')[:150]}")
print({k: len(v) for k, v in results.items()}, "total", len(cases))
