"""The API key never appears in any output of a run that uses it: the terminal, the JSON,
HTML and JUnit reports, or the generation cache (issue 18). A pytest run in a subprocess
gates a generator on the loopback stub with a sentinel key (its recorded inputs carry the
prompts into every report), and a 401 whose body echoes the key goes through the error
path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SENTINEL = "sk-SENTINEL-4f9c2e71d0"
HERE = Path(__file__).resolve().parent

TEST_FILE = '''
import sys
sys.path.insert(0, {stub_dir!r})
import pytest
import pytest_fairness as pf
from _openai_stub import OpenAIStub, Reply


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub() as server:
        yield server


def test_gap(stub):
    gen = pf.cached_generator(pf.openai_generator(stub.url, "stub", max_tokens=8), {cache!r})
    pairs = pf.counterfactual_prompts(["She wrote the report.", "He fixed the car."],
                                      kind="gender_swap")
    pf.assert_answer_gap_below(gen, pairs, lambda texts: [len(t) / 100 for t in texts],
                               max_gap=0.0, n=2, seed=0)


def test_unauthorized(stub):
    import os  # the key comes from the environment: it is not in this file's source
    echo = os.environ["OPENAI_API_KEY"]
    stub.script.append(Reply(status=401, body='{{"error": {{"message": "bad key ' + echo + '"}}}}'))
    gen = pf.openai_generator(stub.url, "stub", retries=0)
    gen("hello", 1, 0)
'''


def test_the_key_is_in_no_output(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    test = tmp_path / "test_gate.py"
    test.write_text(TEST_FILE.format(stub_dir=str(HERE.parent / "models"), cache=str(cache)))
    report = tmp_path / "report"
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "OPENAI_API_KEY": SENTINEL}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(test), "-p", "no:cacheprovider", "-p",
         "no:randomly", "-v", f"--fairness-report={report}", f"--junitxml={junit}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    assert "FAILED test_gate.py::test_unauthorized" in output, output[-3000:]
    assert "discriminatory inputs found" in output, output[-3000:]  # answers were recorded
    files = [junit, *report.iterdir(), *cache.iterdir()]
    assert {p.suffix for p in files} >= {".xml", ".json", ".html", ".sqlite"}
    assert SENTINEL not in output
    for path in files:
        assert SENTINEL.encode() not in path.read_bytes(), path
