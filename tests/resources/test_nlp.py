"""pytest_fairness.resources.nlp: the components a perturbation step leaves out of the parse."""

from __future__ import annotations

from typing import Any

import pytest

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
