"""`strategies.prompt_counterfactuals`: a user's prompt (or a filled prompt template) and
one of its counterfactuals, shrinking to the shortest prompt. A replacement dictionary is
the perturbation kind (no spaCy parse)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import find, given, settings
from hypothesis.errors import NoSuchExample

import pytest_fairness as pf
from pytest_fairness import ConfigurationError
from pytest_fairness import strategies as fst
from pytest_fairness.checks import llm
from pytest_fairness.checks.llm import counterfactual_prompts, llm_counterfactuals
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.perturb.kinds import KIND_REGISTRY
from pytest_fairness.perturb.templates import Template
from pytest_fairness.types import Perturbation

SWAP = DictionaryKind("pronoun_swap", [("he", "she"), ("him", "her")], attribute="gender")
PROMPTS = [
    "Write a reference letter for the nurse; he starts on Monday.",
    "He asked for a loan.",
    "Describe the weather today.",  # nothing to swap
    "Tell him about the job.",
]
TEMPLATES = ["Write a short reference letter for {name}, a nurse.", "Tell {name} hi."]
PEOPLE = {"female": ["Mary", "Aisha"], "male": ["John", "Ahmed"]}

FIND = settings(database=None, max_examples=300, deadline=None)
QUICK = settings(database=None, max_examples=20, deadline=None)

SWAPS = fst.prompt_counterfactuals(PROMPTS, SWAP)


def test_it_is_a_public_strategy() -> None:
    assert "prompt_counterfactuals" in fst.__all__
    assert pf.strategies.prompt_counterfactuals is fst.prompt_counterfactuals
    assert not hasattr(llm, "prompt_counterfactuals")  # moved here from checks.llm


def test_it_shrinks_to_the_shortest_prompt() -> None:
    shortest = find(SWAPS, lambda p: True, settings=FIND)
    assert (shortest.original, shortest.perturbed) == ("He asked for a loan.",
                                                        "She asked for a loan.")
    assert isinstance(shortest, Perturbation)
    job = find(SWAPS, lambda p: "job" in p.original, settings=FIND)
    assert job.perturbed == "Tell her about the job."
    # the longest prompt is drawn only when nothing shorter fails
    monday = find(SWAPS, lambda p: "Monday" in p.original, settings=FIND)
    assert monday.perturbed == "Write a reference letter for the nurse; she starts on Monday."


@QUICK
@given(pair=SWAPS)
def test_every_draw_is_one_of_the_counterfactuals(pair: Perturbation) -> None:
    assert pair in counterfactual_prompts(PROMPTS, SWAP)
    assert pair.original != "Describe the weather today."


def test_it_accepts_template_prompts() -> None:
    strategy = fst.prompt_counterfactuals(pf.template_prompts(TEMPLATES, PEOPLE))
    first = find(strategy, lambda p: True, settings=FIND)
    # the shortest template, its first counterfactual fill (John: Aisha is in reference
    # Mary's own group, a control of the noise floor, never drawn)
    assert (first.original, first.perturbed) == ("Tell Mary hi.", "Tell John hi.")
    with pytest.raises(NoSuchExample):
        find(strategy, lambda p: p.to_group == p.from_group, settings=FIND)
    male = find(strategy, lambda p: p.to_group == "male", settings=FIND)
    assert (male.perturbed, male.from_group) == ("Tell John hi.", "female")
    letter = find(strategy, lambda p: "letter" in p.original and p.to_group == "male",
                  settings=FIND)
    assert letter.perturbed == "Write a short reference letter for John, a nurse."
    assert repr(strategy) == ("prompt_counterfactuals(CounterfactualPrompts(6 of 2 "
                              "prompts, kind 'template'))")


def test_a_drawn_pair_goes_to_the_llm_relations() -> None:
    pair = find(fst.prompt_counterfactuals(pf.template_prompts(TEMPLATES, PEOPLE)),
                lambda p: p.to_group == "male", settings=FIND)

    def echo(prompt: str, n: int, seed: int) -> list[str]:
        return [f"{prompt} #{i}" for i in range(n)]

    analysis = llm_counterfactuals(echo, [pair], n=2, seed=0)
    [answered] = analysis.pairs
    assert answered.counterfactual_answers == ("Tell John hi. #0", "Tell John hi. #1")
    assert analysis.kind == "template"


def test_it_accepts_ready_counterfactuals_and_a_list_of_perturbations() -> None:
    found = counterfactual_prompts(PROMPTS, SWAP)
    for given_prompts in (found, list(found)):
        pair = find(fst.prompt_counterfactuals(given_prompts), lambda p: True, settings=FIND)
        assert pair.original == "He asked for a loan."


def test_reprs_read_as_the_call() -> None:
    strategy = fst.prompt_counterfactuals(["He asked.", "Ask him."], "gender")
    call = "prompt_counterfactuals(['He asked.', 'Ask him.'], kind='gender')"
    assert repr(strategy) == f"deferred({call})"
    assert repr(fst.prompt_counterfactuals(["He asked."])) == (
        "deferred(prompt_counterfactuals(['He asked.']))")
    SWAPS.validate()
    assert repr(SWAPS).startswith("prompt_counterfactuals(['Write a reference letter")
    assert "kind=DictionaryKind('pronoun_swap'" in repr(SWAPS)


@pytest.mark.parametrize(("prompts", "options", "match"), [
    ("He asked.", {}, "not one string"),
    ([], {}, "prompts is empty"),
    (["ok", "  "], {}, r"prompts\[1\] is empty"),
    (["ok", 3], {}, "item 1 is int"),
    ([Template("Tell {name} hi.")], {}, r"use template_prompts\(templates, groups\)"),
    (["He asked."], {"kind": 3}, "kind must be"),
    (["He asked."], {"kind": " "}, "kind must be"),
])
def test_bad_arguments_raise_when_the_strategy_is_built(
        prompts: Any, options: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        fst.prompt_counterfactuals(prompts, **options)


def test_kind_and_nlp_do_not_apply_to_ready_counterfactuals() -> None:
    ready = pf.template_prompts(TEMPLATES, PEOPLE)
    with pytest.raises(ConfigurationError, match="kind= and nlp= apply to prompts"):
        fst.prompt_counterfactuals(ready, "gender")
    with pytest.raises(ConfigurationError, match="drop them"):
        fst.prompt_counterfactuals(list(ready), nlp="en_core_web_sm")


def test_nothing_to_draw_is_an_error_on_first_use_naming_the_kind() -> None:
    strategy = fst.prompt_counterfactuals(["Describe the weather."], SWAP)
    for _ in range(2):  # the failure is cached and raised again
        with pytest.raises(ConfigurationError) as info:
            find(strategy, lambda p: True, settings=FIND)
        message = str(info.value)
        assert message.startswith("prompt_counterfactuals(['Describe the weather.'], kind=")
        assert "has nothing to draw: none of the 1 prompts has a 'pronoun_swap' " \
               "counterfactual (" in message
    unperturbed = pf.template_prompts(TEMPLATES, {"female": ["Mary"]})
    with pytest.raises(ConfigurationError, match=r"none of the 2 prompts has a 'template' "
                                                  r"counterfactual \(every fill equals"):
        find(fst.prompt_counterfactuals(unperturbed), lambda p: True, settings=FIND)
    one_group = pf.template_prompts(TEMPLATES, {"female": ["Mary", "Aisha"]})
    with pytest.raises(ConfigurationError, match=r"counterfactual \(every other fill is in "
                                                  r"the reference's own group"):
        find(fst.prompt_counterfactuals(one_group), lambda p: True, settings=FIND)


def test_a_kind_is_looked_up_when_first_used() -> None:
    strategy = fst.prompt_counterfactuals(PROMPTS, "pronoun_swap_later")
    with pytest.raises(ConfigurationError, match="has nothing to draw: no perturbation kind"):
        find(strategy, lambda p: True, settings=FIND)
    later = fst.prompt_counterfactuals(PROMPTS, "pronoun_swap_later")  # built before registering
    with KIND_REGISTRY.temporarily("pronoun_swap_later", SWAP):
        assert find(later, lambda p: True, settings=FIND).perturbed == "She asked for a loan."
