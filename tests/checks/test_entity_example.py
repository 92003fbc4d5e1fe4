"""The NER example's recalls (examples/test_entity_recognition.py), recounted independently:
the same frames and names put into sentences here, spaCy's ``doc.ents`` counted directly,
and both compared with the relation's counts and with the figures the example's docstring
states (issue 29)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pytest_fairness as pf
from pytest_fairness.resources.entity_templates import entity_frames

EXAMPLE = Path(__file__).parents[2] / "examples" / "test_entity_recognition.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    pytest.importorskip("spacy")
    spec = importlib.util.spec_from_file_location("entity_recognition_example", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def nlp(example: ModuleType) -> Any:
    return example.load_english()


def _direct_count(nlp: Any, groups: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """Names found as PERSON (an entity exactly over the name), counted from doc.ents."""
    frames = entity_frames("en")
    texts, where = [], []
    for group, names in groups.items():
        for name in names:
            for frame in frames:
                start = frame.index("{name}")
                texts.append(frame.replace("{name}", name))
                where.append((group, start, start + len(name)))
    out = {g: [0, 0] for g in groups}
    for doc, (group, start, end) in zip(nlp.pipe(texts), where, strict=True):
        out[group][0] += any((e.start_char, e.end_char, e.label_) == (start, end, "PERSON")
                             for e in doc.ents)
        out[group][1] += 1
    return {g: (c[0], c[1]) for g, c in out.items()}


def _stated(example: ModuleType) -> dict[str, tuple[int, int]]:
    """The "found/n" figures of the example's docstring, by the group's first word."""
    doc = example.__doc__ or ""
    return {m.group(1).lower(): (int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r"(female|male|White|Black|Hispanic|Asian/Pacific Islander) "
                        r"(\d+)/(\d+)", doc)}


@pytest.mark.parametrize("groups", ["gender_groups", "race_groups"])
def test_example_recalls_match_a_direct_count(example: ModuleType, nlp: Any,
                                              groups: str) -> None:
    names = getattr(example, groups)()
    measured = pf.entity_recall_of(nlp, names=names, label="PERSON")
    counted = _direct_count(nlp, names)
    assert {g: (r.found, r.n) for g, r in measured.recall.groups.items()} == counted
    stated = _stated(example)
    for group, figures in counted.items():
        key = group.split(" (")[0].lower()
        assert stated[key] == figures, group
    assert all(n == example.FRAMES * len(names[g]) for g, (_, n) in counted.items())
