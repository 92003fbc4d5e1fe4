"""Report formats behind a registry: built-ins, a user's own format, bad formats."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _report_samples import own_sections_result, psa_result

from pytest_fairness import report as rp
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.report.formats import FORMATS


def _summary() -> rp.Summary:
    return rp.build_summary([rp.RecordedTest.create("t.py::psa", [psa_result()]),
                             rp.RecordedTest.create("t.py::own", [own_sections_result()])])


def write_markdown(summary: rp.Summary, directory: Path, *, created: str) -> Path:
    """A user's own format: one line per relation and a line per section."""
    path = directory / "fairness.md"
    lines = [f"# Fairness ({created})"]
    for g in summary.groups:
        lines.append(f"- {g.short_id}: {g.status}")
        lines.extend(f"  - {s.heading}" for s in g.sections)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def markdown() -> Iterator[None]:
    with FORMATS.temporarily("markdown", write_markdown):
        yield


def test_builtin_formats_are_json_then_html() -> None:
    assert FORMATS.names()[:2] == ("json", "html")
    assert FORMATS.origin("json") == "builtin"


def test_default_writes_every_registered_format(tmp_path: Path, markdown: None) -> None:
    paths = rp.write_reports(tmp_path / "out", _summary(), created="2024-01-01T00:00:00Z")
    assert [p.name for p in paths] == ["fairness.json", "fairness.html", "fairness.md"]
    assert all(p.parent == tmp_path / "out" for p in paths)
    text = paths[2].read_text()
    assert text.startswith("# Fairness (2024-01-01T00:00:00Z)\n")
    assert "  - AUC per subgroup\n" in text
    assert "  - ScoreSens per name\n" in text
    assert "2024-01-01T00:00:00Z" in paths[1].read_text()  # one `created` for every format


def test_a_user_format_alone(tmp_path: Path, markdown: None) -> None:
    assert rp.write_reports(tmp_path, _summary(), formats=["markdown"]) == [
        tmp_path / "fairness.md"]
    assert not (tmp_path / "fairness.json").exists()


def test_register_format_adds_to_the_registry_and_refuses_a_taken_name() -> None:
    try:
        assert rp.register_format("md-test", write_markdown) is write_markdown
        assert "md-test" in FORMATS.names()
        with pytest.raises(ConfigurationError, match="already registered"):
            rp.register_format("md-test", write_markdown)
        rp.register_format("md-test", write_markdown, replace=True)
    finally:
        FORMATS.unregister("md-test")
    assert "md-test" not in FORMATS


def test_an_unknown_format_fails_before_any_file_is_written(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no report format called 'pdf'.*'json', 'html'"):
        rp.write_reports(tmp_path / "out", _summary(), formats=["json", "pdf"])
    assert not (tmp_path / "out").exists()


def test_a_writer_must_be_callable_and_return_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="must be a writer function"):
        rp.register_format("broken", "not a function")  # type: ignore[arg-type]

    def returns_nothing(summary: rp.Summary, directory: Path, *, created: str) -> Path:
        return None  # type: ignore[return-value]

    with FORMATS.temporarily("nothing", returns_nothing), pytest.raises(
            ConfigurationError,
            match=r"format 'nothing' \(registered at .*test_formats.py:\d+\) returned None"):
        rp.write_reports(tmp_path, _summary(), formats=["nothing"])


def test_no_formats_writes_nothing(tmp_path: Path) -> None:
    assert rp.write_reports(tmp_path / "none", _summary(), formats=[]) == []
    assert not (tmp_path / "none").exists()
