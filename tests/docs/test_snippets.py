"""Every code block of the README and the docs site runs, as pasted (see `_snippets.py`).

Each page is one test: its blocks run in order, in the page's stated working directory,
each in its own process (a snippet that changes Hypothesis profiles or registers an
extension cannot leak into this session). Python test files run under pytest; other
Python blocks run as scripts; shell blocks run under bash with this interpreter's
scripts first on PATH; ini, TOML and YAML blocks are parsed. A block marked
``skip=REASON`` is a skipped test of its own, so the reason shows in the run.
"""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from _snippets import INERT, PARSE, ROOT, RUN, Block, all_blocks, blocks, page_options, pages

_TIMEOUT = 600
_RUNNABLE = [
    p for p in pages() if any(b.lang in RUN | PARSE and not b.opt("skip") for b in blocks(p))
]
_SKIPPED = [b for b in all_blocks() if b.opt("skip")]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["HF_HUB_OFFLINE"] = "1"
    env["TRANSFORMERS_OFFLINE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    # The docs' snippets run against the package this suite imports (a worktree on
    # PYTHONPATH, or the installed one).
    package_root = str(Path(__import__("pytest_fairness").__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, env.get("PYTHONPATH", "")) if p
    )
    return env


def _file_name(block: Block, index: int) -> str:
    name = block.opt("file")
    if name:
        return name
    stem = re.sub(r"[^a-z0-9]+", "_", block.page.lower().removesuffix(".md")).strip("_")
    if block.lang == "python" and re.search(r"^def test_", block.code, re.M):
        return f"test_{stem}_{index}.py"
    return f"snippet_{stem}_{index}.py"


def _run(block: Block, index: int, folder: Path, cwd: Path) -> None:
    if block.lang in PARSE:
        if block.lang == "ini":
            configparser.ConfigParser().read_string(block.code)
        elif block.lang == "toml":
            tomllib.loads(block.code)
        else:
            yaml = pytest.importorskip("yaml")
            yaml.safe_load(block.code)
        return
    if block.lang == "python":
        path = folder / _file_name(block, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        if block.opt("mode") == "append":
            with path.open("a", encoding="utf-8") as handle:
                handle.write("\n\n" + block.code)
        else:
            path.write_text(block.code, encoding="utf-8")
        if block.opt("file"):
            return  # written only: a file the page's next blocks run or import
        if re.search(r"^def test_", block.code, re.M):
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       "-p", "no:xdist", str(path)]
        else:
            command = [sys.executable, str(path)]
    else:
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=_TIMEOUT, check=False)
    output = done.stdout + done.stderr
    expected = int(block.opt("exit", "0") or 0)
    assert done.returncode == expected, (
        f"{block.id}: the {block.lang} block exited with {done.returncode}, expected "
        f"{expected}; its output:\n{output[-6000:]}"
    )
    for text in block.options.get("expect", []):
        assert text in output, f"{block.id}: {text!r} not in its output:\n{output[-6000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("page", _RUNNABLE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_snippets_run(page: Path, tmp_path: Path) -> None:
    where = (page_options(page).get("cwd") or ["tmp"])[-1]
    assert where in ("tmp", "repo"), f"{page}: cwd= must be tmp or repo, got {where!r}"
    cwd = ROOT if where == "repo" else tmp_path
    for index, block in enumerate(blocks(page)):
        if block.lang in RUN | PARSE and not block.opt("skip"):
            _run(block, index, tmp_path, cwd)


@pytest.mark.parametrize("block", _SKIPPED, ids=lambda b: b.id)
def test_skipped_snippet(block: Block) -> None:
    assert block.opt("skip"), block.id
    pytest.skip(f"not run: {block.opt('skip')}")


def test_every_block_says_its_language() -> None:
    """A bare fence would hide code from the runner: each block names a language."""
    known = RUN | PARSE | INERT
    bad = [f"{b.id} ({b.lang or 'no language'})" for b in all_blocks() if b.lang not in known]
    assert not bad, "blocks with an unknown or missing language: " + ", ".join(bad)


def test_the_runner_sees_blocks_and_markers(tmp_path: Path) -> None:
    """The extraction itself: markers attach to the next fence, indented fences count."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- snippets: cwd=repo -->\n# t\n\n<!-- snippet: exit=1 expect=\"a b\" -->\n\n"
        "```python\nx = 1\n```\n\n- item\n\n    ```bash\n    echo hi\n    ```\n",
        encoding="utf-8",
    )
    found = blocks(page) if page.is_relative_to(ROOT) else _blocks_outside(page)
    assert [(b.lang, b.code) for b in found] == [("python", "x = 1\n"), ("bash", "echo hi\n")]
    assert found[0].opt("exit") == "1"
    assert found[0].options["expect"] == ["a b"]
    assert found[1].options == {}
    assert page_options(page) == {"cwd": ["repo"]}


def _blocks_outside(page: Path) -> list[Block]:
    import _snippets

    saved = _snippets.ROOT
    _snippets.ROOT = page.parent
    try:
        return _snippets.blocks(page)
    finally:
        _snippets.ROOT = saved


def test_a_broken_snippet_fails(tmp_path: Path) -> None:
    """The runner is not a rubber stamp: a failing block and a missing text fail."""
    broken = Block("x.md", 1, "python", "raise SystemExit(3)\n")
    with pytest.raises(AssertionError, match="exited with 3, expected 0"):
        _run(broken, 0, tmp_path, tmp_path)
    quiet = Block("x.md", 2, "bash", "echo hello\n", {"expect": ["goodbye"]})
    with pytest.raises(AssertionError, match="'goodbye' not in its output"):
        _run(quiet, 1, tmp_path, tmp_path)
    bad_toml = Block("x.md", 3, "toml", "[a\n")
    with pytest.raises(tomllib.TOMLDecodeError):
        _run(bad_toml, 2, tmp_path, tmp_path)
