"""The README and the docs site: links that resolve, a reference that covers every public
name, a front page of at most 300 lines, and a site that builds with `mkdocs build --strict`
(which also fails on a broken link or anchor between pages)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from _snippets import ROOT, pages

import pytest_fairness

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*```.*?^\s*```", re.M | re.S)


def _relative_links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:|#", t)]


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page: Path) -> None:
    broken = [t for t in _relative_links(page)
              if not (page.parent / t.split("#")[0]).resolve().exists()]
    assert not broken, f"{page.relative_to(ROOT)} links to missing files: {broken}"


def test_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("[ok](p.md) [gone](missing.md#x) `[code](x.md)` [web](https://a.b)\n",
                    encoding="utf-8")
    assert _relative_links(page) == ["p.md", "missing.md#x"]


def test_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    # .ci/run reads the test command from between these markers.
    command = re.search(r"<!-- test-command -->\n```bash\n(.+?)\n```\n<!-- /test-command -->",
                        readme)
    assert command, "the test command's markers and block are missing from README.md"
    assert '-e ".[test]"' in command.group(1)
    assert "pytest -n 2" in command.group(1)


def test_the_api_page_lists_every_public_name() -> None:
    """A name added to the facade without a reference entry fails here."""
    api = (ROOT / "docs/reference/api.md").read_text(encoding="utf-8")
    namespaces = (ROOT / "docs/reference/namespaces.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^::: pytest_fairness\.(\w+)$", api + namespaces, re.M))
    public = set(pytest_fairness.__all__)
    assert sorted(public - listed) == [], "public names missing from the reference"
    assert sorted(listed - public) == [], "reference entries that are not public names"


def test_the_test_extra_installs_the_docs_and_release_tools() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    test = " ".join(extras["test"])
    assert "docs" in test
    assert "release" in test
    assert any(r.startswith("mkdocs-material") for r in extras["docs"])
    assert "version" in project["dynamic"]


@pytest.mark.slow
def test_the_site_builds_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (site / "reference/api/index.html").is_file()
    html = (site / "reference/api/index.html").read_text(encoding="utf-8")
    assert "pytest_fairness.as_model" in html or 'id="pytest_fairness.as_model"' in html
    shutil.rmtree(site)
