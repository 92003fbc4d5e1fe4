"""Checks shared by the perturbation tests: spans are exact and explain the whole change."""

from __future__ import annotations

from typing import Any

from pytest_fairness.types import Perturbation


def assert_exact_spans(p: Perturbation) -> None:
    """Each span matches its text, spans are ordered and disjoint, and replacing every
    original span by its perturbed span turns `original` into `perturbed`."""
    assert len(p.original_spans) == len(p.perturbed_spans)
    assert p.from_words == tuple(s.text for s in p.original_spans)
    assert p.to_words == tuple(s.text for s in p.perturbed_spans)
    rebuilt = []
    cursor = 0
    previous_end = 0
    for old, new in zip(p.original_spans, p.perturbed_spans, strict=True):
        assert p.original[old.start : old.end] == old.text
        assert p.perturbed[new.start : new.end] == new.text
        assert old.start >= previous_end
        previous_end = old.end
        rebuilt.append(p.original[cursor : old.start])
        # the text between changes is the same in both, at shifted offsets
        assert sum(len(x) for x in rebuilt) == new.start
        rebuilt.append(new.text)
        cursor = old.end
    rebuilt.append(p.original[cursor:])
    assert "".join(rebuilt) == p.perturbed


class RecordingPipeline:
    """A spaCy pipeline that notes the components each `pipe` call disables."""

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self.pipe_names = nlp.pipe_names
        self.disabled: list[list[str]] = []

    def pipe(self, items: list[str], **kwargs: Any) -> Any:
        self.disabled.append(list(kwargs.get("disable", [])))
        return self.nlp.pipe(items, **kwargs)
