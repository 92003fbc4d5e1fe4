"""pytest_fairness.resources.nlp: the components a perturbation step leaves out of the parse,
and the default pipeline a run configures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.resources import nlp as nlp_module


class _Pipeline:
    def __init__(self, names: list[str]) -> None:
        self.pipe_names = names


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["tok2vec", "tagger", "parser", "ner"], ["ner"]),
        (["tok2vec", "tagger", "parser"], []),  # a custom pipeline without NER
        ([], []),
    ],
)
def test_disabled_lists_only_components_the_pipeline_has(
    names: list[str], expected: list[str]
) -> None:
    assert nlp_module.disabled(_Pipeline(names)) == expected


def test_disabled_takes_other_components() -> None:
    pipeline = _Pipeline(["tagger", "lemmatizer", "ner"])
    assert nlp_module.disabled(pipeline, ("lemmatizer", "textcat")) == ["lemmatizer"]


def test_an_object_without_pipe_names_has_nothing_to_disable() -> None:
    assert nlp_module.disabled(object()) == []


def test_parse_without_ner_keeps_tags_parse_and_lemmas() -> None:
    pipeline: Any = nlp_module.load()
    text = "The actress told her brother that the soldiers in Paris were tired."
    full = pipeline(text)
    lean = pipeline(text, disable=nlp_module.disabled(pipeline))
    assert not lean.ents
    for a, b in zip(full, lean, strict=True):
        assert (a.tag_, a.pos_, a.dep_, a.head.i, a.lemma_, a.morph) == (
            b.tag_, b.pos_, b.dep_, b.head.i, b.lemma_, b.morph
        )


# ------------------------------------------------------------ the configured default pipeline


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names `load` passes on to spaCy (nothing is really loaded)."""
    names: list[str] = []

    def fake_load(name: str) -> str:
        names.append(name)
        return f"<pipeline {name}>"

    monkeypatch.setattr(nlp_module, "_load", fake_load)
    monkeypatch.setattr(nlp_module, "_first_installed", lambda names: "first_installed")
    return names


def test_load_without_a_name_uses_the_configured_default(loaded: list[str]) -> None:
    previous = nlp_module.configure_default("my_pipeline")
    try:
        assert nlp_module.load() == "<pipeline my_pipeline>"
        assert nlp_module.load("other") == "<pipeline other>"  # a name still wins
    finally:
        assert nlp_module.configure_default(previous) == "my_pipeline"
    assert loaded == ["my_pipeline", "other"]


def test_configure_default_returns_the_previous_one_for_an_exact_restore(
    loaded: list[str],
) -> None:
    start = nlp_module.configure_default(None)  # whatever was configured before this test
    try:
        assert nlp_module.load() == "<pipeline first_installed>"
        assert nlp_module.configure_default("outer") is None
        assert nlp_module.configure_default("inner") == "outer"  # a nested run
        assert nlp_module.load() == "<pipeline inner>"
        assert nlp_module.configure_default("outer") == "inner"  # the nested run ends
        assert nlp_module.load() == "<pipeline outer>"
        assert nlp_module.configure_default(None) == "outer"
        assert nlp_module.load() == "<pipeline first_installed>"
    finally:
        nlp_module.configure_default(start)


def test_default_pipeline_restores_the_previous_default_also_on_error(
    loaded: list[str],
) -> None:
    start = nlp_module.configure_default("outer")
    try:
        with nlp_module.default_pipeline("inner"):
            assert nlp_module.load() == "<pipeline inner>"
            with nlp_module.default_pipeline(None):
                assert nlp_module.load() == "<pipeline first_installed>"
            assert nlp_module.load() == "<pipeline inner>"
        with pytest.raises(RuntimeError), nlp_module.default_pipeline("failing"):
            raise RuntimeError
        assert nlp_module.load() == "<pipeline outer>"
    finally:
        nlp_module.configure_default(start)


@pytest.mark.parametrize("bad", ["", "  ", 3, ["en_core_web_sm"]])
def test_a_bad_default_is_a_configuration_error_that_changes_nothing(
    loaded: list[str], bad: Any
) -> None:
    start = nlp_module.configure_default("kept")
    try:
        with pytest.raises(ConfigurationError, match="package name such as 'en_core_web_sm'"):
            nlp_module.configure_default(bad)
        assert nlp_module.load() == "<pipeline kept>"
    finally:
        nlp_module.configure_default(start)


def test_the_module_reads_no_run_state() -> None:
    source = Path(nlp_module.__file__).read_text()
    assert "context" not in {n.split(".")[-1] for n in _imported_modules(source)}


def _imported_modules(source: str) -> set[str]:
    import ast

    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            modules.add(node.module or "")
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules
