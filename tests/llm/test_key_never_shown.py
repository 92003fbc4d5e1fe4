"""The API key never appears in any output of a run that uses it (issue 24, "Secrets as a
type"; issue 18 before it).

A real pytest run in a subprocess drives every public path that sends the key -- `gen(x,
1, 0)`, `gen.generate_many`, a relation of `checks/llm.py` (`assert_answer_gap_below`)
over `openai_generator`, a `chat_classifier` in `assert_label_invariant`, a
`cached_generator`, and a generator over a `LocalServer` process -- into each failure the
issue lists: 401, 403, 429, 500, a timeout, a malformed body and an exhausted budget. The
servers echo the key as careless servers do: whole, upper-cased, percent-encoded, as the
whole Authorization header, and across the 300-character cut of a quoted message. The run
also gates a relation that fails (so answers reach every report), starts a server that
dumps its environment (the key must not be there), and one that was handed the key and
prints it before it dies (the start error must not show it), and gives a server a bad
option next to the whole environment (`env={**os.environ, "BAD": 1}`).

The run is repeated with pytest's default traceback, with ``-l --tb=long`` (the arguments
and locals of every frame), with ``--tb=native`` and with ``-l --full-trace -vv`` (the
package's own frames too, nothing truncated), each with a JUnit file, the JSON and
HTML fairness reports, a DEBUG log file and the generation cache; none may hold any piece
of 8 or more characters of the key, in any case, raw or percent-encoded. The same search
finds the key when the protection is switched off in the subprocess (the `Secret` type
showing its value and the scrubbing disabled by a conftest): the test can fail.

Before the fix: through `generate_many` the key was printed by pytest 10 times at default
options, 20 with ``--tb=long`` and 68-94 with ``-l``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

#: The sentinel key: no 8-character piece of it occurs in pytest's own output.
KEY = "sk-Zq4Wv8Ny2Kp6Rt0Lm3Xb7Hc5Jd9Gf1"
HERE = Path(__file__).resolve().parent
STUB = HERE.parent / "models" / "_openai_stub.py"

PATHS = ("call", "many", "relation", "classifier", "cached", "local")
ERRORS = ("401", "403", "429", "500", "timeout", "malformed", "budget")

TEST_FILE = '''
import json
import sys

sys.path.insert(0, {stub_dir!r})
import httpx
import pytest
import pytest_fairness as pf
from _openai_stub import OpenAIStub, Reply

ARTIFACTS = {artifacts!r}
ECHO = "invalid key <<KEY>> / <<KEY_UPPER>> / <<KEY_URL>> / <<AUTH>>"
JSON_ECHO = json.dumps({{"error": {{"message": ECHO}}}})
ACROSS_THE_CUT = json.dumps({{"error": {{"message": "x" * 290 + "<<KEY>> <<KEY_UPPER>>"}}}})
SCRIPTS = {{
    "401": [dict(status=401, body=JSON_ECHO)],
    "403": [dict(status=403, body=ACROSS_THE_CUT)],
    "429": [dict(status=429, headers={{"Retry-After": "0"}}, body=JSON_ECHO)] * 2,
    "500": [dict(status=500, body="boom " + ECHO)] * 2,
    "timeout": [dict(delay=0.3)] * 2,
    "malformed": [dict(body="not json " + ECHO)],
    "budget": [],
}}
# template pairs: no spaCy to load, so the run stays fast
PAIRS = pf.template_prompts(["Write a note to {{name}}.", "Tell {{name}} hi."],
                            {{"female": ["Mary"], "male": ["John"]}})


def scorer(texts):
    return [len(t) / 100 for t in texts]


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def local():
    # the stub as a process of its own, which names the key it expects
    server = pf.local_server([sys.executable, {stub_file!r}, "{{port}}"], name="stub process",
                             model="stub", log_path=ARTIFACTS + "/local-server.log",
                             api_key_env="OPENAI_API_KEY", start_timeout=30)
    with server:
        server.start()
        yield server


def generator(path, error, request):
    options = dict(retries=1, backoff=0.0, timeout=0.1, concurrency=1)
    if error == "budget":
        options["max_requests"] = 1
    script = [dict(r) for r in SCRIPTS[error]]
    if path == "local":
        server = request.getfixturevalue("local")
        httpx.post(server.root + "/_script", json=[], timeout=5)
        gen = pf.openai_generator(server, **options)
    else:
        stub = request.getfixturevalue("stub")
        stub.script.clear()
        gen = pf.openai_generator(stub.url, "stub", **options)
    if error == "budget":
        gen("warm-up", 1, 0)  # spends the budget of one request
    if path == "local":
        httpx.post(server.root + "/_script", json=script, timeout=5)
    else:
        stub.script.extend(Reply(**r) for r in script)
    return gen


@pytest.mark.parametrize("error", {errors!r})
@pytest.mark.parametrize("path", {paths!r})
def test_path(path, error, request):
    gen = generator(path, error, request)
    if path == "call":
        gen("x", 1, 0)
    elif path == "many":
        gen.generate_many(["x", "y"], 1, 0)
    elif path in ("relation", "local"):
        pf.assert_answer_gap_below(gen, PAIRS, scorer, max_gap=0.5, n=1, seed=0)
    elif path == "classifier":
        pf.assert_label_invariant(pf.chat_classifier(gen, ("no", "yes")), "She is kind.",
                                  "He is kind.")
    elif path == "cached":
        cached = pf.cached_generator(gen, ARTIFACTS + "/cache")
        pf.assert_answer_gap_below(cached, PAIRS, scorer, max_gap=0.5, n=1, seed=0)
    pytest.fail("no error was raised on this path")


def test_gap(stub):
    stub.script.clear()
    gen = pf.cached_generator(pf.openai_generator(stub.url, "stub", max_tokens=8),
                              ARTIFACTS + "/cache")
    pf.assert_answer_gap_below(gen, PAIRS, scorer, max_gap=0.0, n=2, seed=0)


DUMP = (
    "import json, os, sys\\n"
    "open(sys.argv[1], 'w').write(json.dumps(dict(os.environ)))\\n"
    "key = os.environ.get('OPENAI_API_KEY', 'no key here')\\n"
    "print('env:', dict(os.environ))\\n"
    "print('key:', key, key.upper(), ''.join('%%%02X' % b for b in key.encode()))\\n"
    "sys.exit(3)\\n")


def test_a_server_gets_no_key_it_does_not_name():
    server = pf.local_server([sys.executable, "-c", DUMP, ARTIFACTS + "/child-env.json"],
                             name="env dump", log_path=ARTIFACTS + "/env-dump.log",
                             start_timeout=20)
    server.start()


def test_a_bad_server_option_next_to_a_whole_environment():
    import os
    pf.local_server(["server"], name="x", log_path=ARTIFACTS + "/never.log",
                    env={{**os.environ, "BAD": 1}})


def test_a_server_that_prints_the_key_it_was_given_fails_to_start():
    server = pf.local_server([sys.executable, "-c", DUMP, {named_env!r}], name="key printer",
                             log_path={echo_log!r}, api_key_env="OPENAI_API_KEY",
                             start_timeout=20)
    server.start()
'''

#: Switches the protection off in the subprocess: the secret type shows its value and
#: nothing is scrubbed. The key must then be found (the test can fail).
UNPROTECTED = '''
from pytest_fairness.models.llm import local_server
from pytest_fairness.runtime import secrets

secrets.Secret.__repr__ = lambda self: repr(self._value)
secrets.Secret.__str__ = secrets.Secret.__repr__
secrets.Secret.__format__ = lambda self, spec: format(self._value, spec)
secrets.scrub = lambda text, values, **options: text
local_server.scrub = secrets.scrub
'''


def _pieces(text: str) -> list[str]:
    """Every echo of the key in `text`: pieces of 8+ characters in any case, raw or
    percent-encoded (searched independently of the product's `scrub`)."""
    low = text.lower()
    decoded = re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text).lower()
    key = KEY.lower()
    return sorted({key[i:i + 8] for i in range(len(key) - 7)
                   if key[i:i + 8] in low or key[i:i + 8] in decoded})


def _run(tmp_path: Path, options: list[str], *, protected: bool = True,
         select: str | None = None) -> tuple[str, list[Path]]:
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    echo_log = tmp_path / "key-printer.log"  # the server was handed the key and printed it
    (project / "test_gate.py").write_text(TEST_FILE.format(
        stub_dir=str(STUB.parent), stub_file=str(STUB), artifacts=str(artifacts),
        errors=ERRORS, paths=PATHS, echo_log=str(echo_log),
        named_env=str(tmp_path / "named-env.json")))
    if not protected:
        (project / "conftest.py").write_text(UNPROTECTED)
    report = artifacts / "report"
    junit = artifacts / "junit.xml"
    command = [sys.executable, "-m", "pytest", "test_gate.py", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-rA", f"--fairness-report={report}",
               f"--junitxml={junit}", "--log-level=DEBUG",
               f"--log-file={artifacts / 'run.log'}", "--log-file-level=DEBUG", *options]
    if select:
        command += ["-k", select]
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                          timeout=240, check=False)
    files = [p for p in artifacts.rglob("*") if p.is_file()]
    return done.stdout + done.stderr, files


RUNS = {"default": [], "long-locals": ["-l", "--tb=long"], "native": ["--tb=native"],
        # every frame (the package's own too), every local, nothing truncated
        "full-trace": ["-l", "--full-trace", "-vv"]}


@pytest.mark.parametrize("run", RUNS)
def test_the_key_is_in_no_output(tmp_path: Path, run: str) -> None:
    output, files = _run(tmp_path, RUNS[run])
    count = len(PATHS) * len(ERRORS)
    # every path failed with the error scripted for it (none swallowed it), the gap test
    # recorded answers (judged on an interval, it passes), the two server starts and the
    # server given a bad option next to the whole environment failed
    assert f"{count + 3} failed, 1 passed" in output, output[-3000:]
    assert "no error was raised on this path" not in output
    assert "discriminatory inputs found" in output, output[-3000:]
    for error in ("HTTP 401", "HTTP 403", "HTTP 429", "HTTP 500", "ReadTimeout",
                  "is not JSON", "request budget exhausted", "key printer server exited"):
        assert error in output, error
    assert "invalid key ***" in output  # the echo was there, masked
    assert {p.suffix for p in files} >= {".xml", ".json", ".html", ".sqlite", ".log"}
    assert (tmp_path / "artifacts" / "child-env.json").exists()
    assert not _pieces(output), (_pieces(output), output[-2000:])
    for path in files:
        assert not _pieces(path.read_bytes().decode("utf-8", "replace")), path
    # the server that names the key got it (and printed it into its own log: the one
    # file here that may hold it, written by the server)
    assert KEY in (tmp_path / "named-env.json").read_text()
    assert KEY in (tmp_path / "key-printer.log").read_text()


def test_the_search_finds_the_key_with_the_protection_off(tmp_path: Path) -> None:
    output, files = _run(tmp_path, ["-l", "--tb=long"], protected=False,
                         select="(many and 401) or (local and budget) or prints_the_key")
    assert "3 failed" in output, output[-3000:]
    assert KEY in output  # shown by the tracebacks' locals and the unscrubbed messages
    assert KEY.upper() in output  # the upper-cased echo
    assert _pieces(output)
    assert any(_pieces(p.read_bytes().decode("utf-8", "replace")) for p in files
               if p.suffix == ".xml")


@pytest.fixture(autouse=True)
def _no_key_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
