"""Group dictionaries (issue 15): replacement dictionaries for any attribute, group to
group, through every consumer of a perturbation kind. The dictionary is ours: religions
with their noun, adjective and plural forms. Parsing tests share spaCy's one pipeline."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness import perturb
from pytest_fairness import strategies as fst
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb import DictionaryKind
from pytest_fairness.perturb.kinds import KIND_REGISTRY
from pytest_fairness.settings import Settings
from pytest_fairness.types import Case

RELIGION: dict[str, dict[str, str | list[str]]] = {
    "Christian": {"noun": "Christian", "adjective": "Christian", "plural": "Christians"},
    "Muslim": {"noun": "Muslim", "adjective": "Muslim", "plural": "Muslims"},
    "Jewish": {"noun": "Jew", "adjective": "Jewish", "plural": "Jews"},
    "Hindu": {"noun": "Hindu", "adjective": "Hindu", "plural": "Hindus"},
    "Buddhist": {"noun": "Buddhist", "adjective": "Buddhist", "plural": "Buddhists"},
    "atheist": {"noun": "atheist", "adjective": "atheist", "plural": "atheists"},
    "Jehovah's Witness": {"noun": "Jehovah's Witness", "adjective": "Jehovah's Witness",
                          "plural": "Jehovah's Witnesses"},
}
GROUPS = list(RELIGION)


@pytest.fixture(scope="module")
def religion() -> DictionaryKind:
    return DictionaryKind("religion", groups=RELIGION)


@contextmanager
def registered(kind: DictionaryKind) -> Iterator[DictionaryKind]:
    with KIND_REGISTRY.temporarily(kind.name, kind):
        yield kind


@contextmanager
def own_test() -> Iterator[recording.TestState]:
    """Record into a test state of our own, so these relations stay out of the report."""
    with recording.test_scope(recording.TestState("t", Settings())) as state:
        yield state


def to(kind: DictionaryKind, text: str, group: str) -> str:
    found = [p for p in kind(text) if p.to_group == group]
    assert len(found) == 1, [p.perturbed for p in kind(text)]
    return found[0].perturbed


# --- the kind itself -----------------------------------------------------------------------

def test_every_group_goes_to_every_other_group(religion: DictionaryKind) -> None:
    found = religion("My neighbour is a Christian.")
    assert [(p.from_group, p.to_group) for p in found] == [
        ("Christian", g) for g in GROUPS if g != "Christian"]
    assert all((p.kind, p.attribute) == ("religion", "religion") for p in found)
    for p in found:
        start, end = p.original_spans[-1].start, p.original_spans[-1].end
        assert p.original[start:end] in ("Christian", "a")
        assert p.perturbed[p.perturbed_spans[0].start:p.perturbed_spans[0].end] == (
            p.to_words[0])


@pytest.mark.parametrize(
    ("text", "group", "expected"),
    [
        ("She is a Christian.", "atheist", "She is an atheist."),
        ("He became an atheist.", "Christian", "He became a Christian."),
        ("An atheist spoke.", "Buddhist", "A Buddhist spoke."),
        ("AN ATHEIST SPOKE.", "Muslim", "A MUSLIM SPOKE."),
        ("She is a Christian.", "Jewish", "She is a Jew."),
        ("A Christian church stood there.", "Jewish", "A Jewish church stood there."),
        ("They are Christian.", "Jewish", "They are Jewish."),
        ("CHRISTIANS were here.", "Jewish", "JEWS were here."),
        ("The Christians' land.", "Hindu", "The Hindus' land."),
        ("christians met.", "Muslim", "muslims met."),
        ("My neighbour is a Jehovah's Witness.", "atheist", "My neighbour is an atheist."),
        ("My neighbour is a Jehovah's Witness.", "Jewish", "My neighbour is a Jew."),
        ("Jehovah's Witnesses knock.", "atheist", "Atheists knock."),
        ("The atheists knocked.", "Jehovah's Witness", "The Jehovah's Witnesses knocked."),
        ("an church-goer met a Christian", "Hindu", "an church-goer met a Hindu"),
    ],
)
def test_forms_case_plurals_phrases_and_articles(religion: DictionaryKind, text: str,
                                                  group: str, expected: str) -> None:
    assert to(religion, text, group) == expected


def test_a_text_with_two_groups_swaps_each_on_its_own(religion: DictionaryKind) -> None:
    found = religion("A Jew and a Christian talked.")
    assert {p.from_group for p in found} == {"Christian", "Jewish"}
    assert len(found) == 2 * (len(GROUPS) - 1)
    perturbed = {(p.from_group, p.to_group): p.perturbed for p in found}
    assert perturbed["Christian", "Muslim"] == "A Jew and a Muslim talked."
    assert perturbed["Jewish", "atheist"] == "An atheist and a Christian talked."


def test_without_ambiguous_forms_no_parse_is_needed() -> None:
    plain = DictionaryKind("age", groups={
        "young": {"adjective": "young", "noun": "youngster", "plural": "youngsters"},
        "old": {"adjective": "old", "noun": "pensioner", "plural": "pensioners"},
    })
    assert not plain.needs_parse
    assert [p.perturbed for p in plain("An old man met a youngster.")] == [
        "An old man met a pensioner.", "A young man met a youngster."]
    assert DictionaryKind("religion", groups=RELIGION).needs_parse


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ({}, "at least two groups"),
        ({"a": {"noun": "x"}}, "at least two groups"),
        ({"a": {"noun": "Christian"}, "b": {"noun": "christian"}}, "is in two groups"),
        ({"a": {"noun": "x"}, "b": {"noun": 3}}, "give a word or a non-empty list"),
        ({"a": {"noun": "x"}, "b": {"noun": ["y", 3]}}, "must be strings"),
        ({"a": {"noun": "x"}, "b": {"noun": ""}}, "empty word"),
        ({"a": {"noun": "x"}, "b": {"noun": []}}, "non-empty list"),
        ({"a": {"noun": "x"}, "b": {}}, "non-empty mapping"),
        ({"a": {"noun": "x"}, "b": {"plural": "ys"}}, "every group gives the same forms"),
        ({"a": {"noun": "x", "plural": "x"}, "b": {"noun": "y", "plural": "ys"}},
         "ambiguous"),
        ({"": {"noun": "x"}, "b": {"noun": "y"}}, "group's name"),
        (["a", "b"], "mapping group"),
    ],
)
def test_bad_group_dictionaries_are_configuration_errors(groups: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        DictionaryKind("bad", groups=groups)


def test_entries_and_groups_are_one_or_the_other() -> None:
    with pytest.raises(ConfigurationError, match="not both"):
        DictionaryKind("bad", {"a": "b"}, groups=RELIGION)
    with pytest.raises(ConfigurationError, match="neither"):
        DictionaryKind("bad")


def test_register_dictionary_takes_groups() -> None:
    kind = perturb.register_dictionary("religion_test_groups", groups=RELIGION,
                                       attribute="religion")
    try:
        assert perturb.get_kind("religion_test_groups") is kind
        assert kind("A Hindu prayed.")[0].attribute == "religion"
    finally:
        KIND_REGISTRY.unregister("religion_test_groups")


# --- every consumer, through the public API -----------------------------------------------

TEXTS = ["My neighbour is a Christian.", "The Muslims prayed together.",
         "An atheist wrote the book.", "The weather was fine."]


def flagged(texts: Sequence[str]) -> list[float]:
    """A model biased against one group: it flags texts naming Muslims."""
    return [0.9 if "muslim" in t.lower() else 0.1 for t in texts]


def fair(texts: Sequence[str]) -> list[float]:
    return [0.1 for _ in texts]


def test_perturb_mutations_uses_a_registered_dictionary(religion: DictionaryKind) -> None:
    with registered(religion):
        found = perturb.mutations("She is a Christian.", "religion")
        assert [p.to_group for p in found] == [g for g in GROUPS if g != "Christian"]
        many = perturb.mutations_many(TEXTS, "religion")
        assert [len(ps) for ps in many] == [6, 6, 6, 0]
        with pytest.raises(ConfigurationError, match="candidates configure mt-nlp"):
            perturb.mutations("She is a Christian.", "religion", candidates=3)


def test_the_strategy_draws_dictionary_perturbations(religion: DictionaryKind) -> None:
    with registered(religion):
        strategy = fst.mutations(TEXTS, "religion")
        seen: list[Case] = []

        @settings(max_examples=15, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(case=strategy)
        def check(case: Case) -> None:
            seen.append(case)
            assert case.original in TEXTS[:3]
            assert all(p.kind == "religion" and p.from_group and p.to_group
                       for p in case.perturbations)

        check()
        assert seen


def test_smooth_takes_the_kind_by_name_or_as_an_object(religion: DictionaryKind) -> None:
    with registered(religion):
        for smoothed in (pf.smooth(flagged, "religion", eps=0.0),
                         pf.smooth(flagged, attribute="religion", eps=0.0),
                         pf.smooth(flagged, religion, eps=0.0)):
            scores = smoothed.score(["My neighbour is a Christian.",
                                     "My neighbour is a Muslim."])
            assert scores[0] == pytest.approx(scores[1])
        with pytest.raises(ConfigurationError, match="give one"):
            pf.smooth(flagged, "religion", attribute="gender", eps=0.0)


def test_eps_k_fairness_with_the_dictionary(religion: DictionaryKind) -> None:
    with registered(religion), own_test():
        pf.assert_eps_k_fair(fair, "My neighbour is a Christian.", eps=0.1, k=6,
                             attribute="religion")
        with pytest.raises(AssertionError):
            pf.assert_eps_k_fair(flagged, "My neighbour is a Christian.", eps=0.1, k=6,
                                 attribute="religion")


def test_label_invariance_with_the_dictionary(religion: DictionaryKind) -> None:
    text = "My neighbour is a Christian."
    model = pf.as_model(flagged, output="score")
    with own_test():
        pf.assert_label_invariant(pf.as_model(fair, output="score"), text, religion(text))
        with pytest.raises(AssertionError, match="Muslim"):
            pf.assert_label_invariant(model, text, religion(text))


def test_counterfactual_fairness_with_the_dictionary(religion: DictionaryKind) -> None:
    with own_test():
        pf.assert_counterfactual_fair(fair, TEXTS[:3], max_gap=0.1, swap=religion)
        with pytest.raises(AssertionError):
            pf.assert_counterfactual_fair(flagged, TEXTS[:3], max_gap=0.1, swap=religion)
