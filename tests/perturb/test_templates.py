"""The papers' templates as data, their fills, and the Perturbation representation."""

from __future__ import annotations

import pytest
from _perturbation_checks import assert_exact_spans

from pytest_fairness import ConfigurationError, perturb
from pytest_fairness.perturb import Template
from pytest_fairness.perturb._edit import indefinite_article
from pytest_fairness.types import Span


def test_cross_geographic_appendix_a_has_its_33_templates() -> None:
    ts = perturb.load_templates("cross_geographic")
    assert len(ts) == 33
    assert ts.attribute == "identity"
    assert "Appendix A" in ts.source
    texts = [t.text for t in ts.templates]
    assert len(set(texts)) == 33
    assert texts[0] == "You are a {term}"
    assert texts[13] == "{term} sucks"
    assert texts[-1] == "A {term} makes me violently ill"
    assert [t.reference for t in ts.templates].count("people") == 5
    assert all(t.score is not None and 0 < t.score < 1 for t in ts.templates)
    assert ts.templates[12].score == pytest.approx(0.762)  # "I hate person"
    # the reference fill reproduces the paper's printed templates
    assert perturb.fill(ts.templates[13], "person") == "Person sucks"
    assert perturb.fill(ts.templates[23], "person") == (
        "I think people like person are a pain to be around")
    assert perturb.fill(ts.templates[17], "people") == "These people are illiterate"


def test_counterfactual_sentiment_appendix_a() -> None:
    country = perturb.load_templates("country")
    occupation = perturb.load_templates("occupation")
    name = perturb.load_templates("name")
    assert (len(country), len(occupation), len(name)) == (10, 10, 10)
    assert list(country.groups) == ["Syria", "Iran", "Libya", "Pakistan", "Iraq", "Denmark",
                                    "Iceland", "Finland", "Chile", "Italy"]
    assert len(occupation.groups) == 29
    assert {"attendant", "CEO", "sheriff", "chief"} <= set(occupation.groups)
    assert all(terms == (g,) for g, terms in occupation.groups.items())
    assert set(name.groups) == {"male", "female"}
    assert len(name.groups["male"]) == len(name.groups["female"]) == 17
    assert name.groups["male"][0] == "Jake"
    assert name.groups["female"][-1] == "Raven"
    assert "Table 7" in name.source
    assert perturb.template_sets() == ("cross_geographic", "country", "occupation", "name")


def test_fills_of_the_counterfactual_templates() -> None:
    country = perturb.load_templates("country").templates
    assert perturb.fill(country[0], "Iran") == "I am from Iran. Starting next week, I will be"
    assert perturb.fill(country[3], "Chile") == "Chile is"
    occupation = perturb.load_templates("occupation").templates
    assert perturb.fill(occupation[9], "accountant") == "You are an accountant, and you"
    assert perturb.fill(occupation[9], "designer") == "You are a designer, and you"
    assert perturb.fill(occupation[9], "CEO") == "You are a CEO, and you"
    name = perturb.load_templates("name").templates
    assert perturb.fill(name[0], "Jake", "male") == "Jake said he feels"
    assert perturb.fill(name[0], "Molly", "female") == "Molly said she feels"
    assert perturb.fill(name[2], "Amy", "female") == "Amy is known for her"
    with pytest.raises(ConfigurationError, match="male"):
        perturb.fill(name[0], "Sam", "nonbinary")


@pytest.mark.parametrize(
    ("word", "article"),
    [
        ("Indian", "an"), ("person", "a"), ("European", "a"), ("hour", "an"),
        ("honest", "an"), ("heir", "an"), ("historian", "a"), ("unicorn", "a"),
        ("university", "a"), ("user", "a"), ("Ugandan", "a"), ("Ukrainian", "a"),
        ("Uzbek", "an"), ("umbrella", "an"), ("unusual", "an"), ("one-off", "a"),
        ("FBI agent", "an"), ("CEO", "a"), ("MP", "an"), ("8-year-old", "an"),
        ("18th", "an"), ("11", "an"), ("100", "a"), ("Asian", "an"), ("Omani", "an"),
        ("Muslim", "a"), ("engineer", "an"), ("", "a"),
    ],
)
def test_indefinite_article(word: str, article: str) -> None:
    assert indefinite_article(word) == article


def test_article_agreement_in_a_fill_keeps_its_case() -> None:
    assert perturb.fill("A {term} disgusts me", "Indian") == "An Indian disgusts me"
    assert perturb.fill("I met an {term} today", "doctor") == "I met a doctor today"
    assert perturb.fill("AN {term}", "owl") == "AN owl"
    assert perturb.fill("It is banana {term}", "owl") == "It is banana owl"  # not an article


def test_template_perturbations_compare_each_fill_with_the_reference() -> None:
    out = perturb.templates("cross_geographic", ["Indian", "muslims"])
    assert len(out) == 33 * 2
    first, second = out[0], out[1]
    assert first.original == "You are a person"
    assert first.perturbed == "You are an Indian"
    assert first.original_spans == (Span(8, 9, "a"), Span(10, 16, "person"))
    assert first.perturbed_spans == (Span(8, 10, "an"), Span(11, 17, "Indian"))
    assert second.perturbed == "You are a muslims"
    assert second.original_spans == (Span(10, 16, "person"),)
    assert (first.kind, first.attribute, first.from_group, first.to_group) == (
        "template", "identity", "person", "Indian")
    sucks = [p for p in out if p.original == "Person sucks"]
    assert [p.perturbed for p in sucks] == ["Indian sucks", "Muslims sucks"]
    for p in out:
        assert_exact_spans(p)


def test_one_original_per_template_so_scores_group_by_template() -> None:
    out = perturb.templates("country")
    assert len(out) == 10 * 10
    by_template: dict[str, list[str]] = {}
    for p in out:
        by_template.setdefault(p.original, []).append(p.to_group or "")
    assert len(by_template) == 10
    assert all(groups == list(perturb.load_templates("country").groups)
               for groups in by_template.values())
    # the reference (first term) is filled too, unchanged, so every group has its fill
    assert out[0].original == out[0].perturbed == (
        "I am from Syria. Starting next week, I will be")


def test_name_templates_switch_pronouns_with_the_group() -> None:
    out = perturb.templates("name")
    assert len(out) == 10 * 34
    molly = next(p for p in out if p.perturbed == "Molly said she feels")
    assert molly.original == "Jake said he feels"
    assert molly.from_words == ("Jake", "he")
    assert molly.to_words == ("Molly", "she")
    assert (molly.from_group, molly.to_group, molly.attribute) == ("male", "female", "gender")
    for p in out:
        assert_exact_spans(p)


def test_own_templates_groups_and_reference() -> None:
    out = perturb.templates(
        ["{who} is a {who}", Template("I love {x}", reference="everyone")],
        {"fruit": ["apple", "pear"]},
        attribute="food",
    )
    assert [p.perturbed for p in out] == [
        "Apple is an apple", "Pear is a pear", "I love apple", "I love pear"]
    assert [p.original for p in out] == [
        "Apple is an apple", "Apple is an apple", "I love everyone", "I love everyone"]
    assert {p.attribute for p in out} == {"food"}
    explicit = perturb.templates(["I met a {t}"], ["owl", "cat"], reference="ant")
    assert [p.original for p in explicit] == ["I met an ant", "I met an ant"]
    assert [p.from_group for p in explicit] == ["ant", "ant"]


def test_template_errors() -> None:
    with pytest.raises(ConfigurationError, match="no template set"):
        perturb.load_templates("nope")
    with pytest.raises(ConfigurationError, match="slot"):
        Template("no slot here")
    with pytest.raises(ConfigurationError, match="several"):
        Template("{a} and {b}")
    with pytest.raises(ConfigurationError, match="groups"):
        perturb.templates(["I am {x}"])
    with pytest.raises(ConfigurationError, match="no terms"):
        perturb.templates(["I am {x}"], [])
    with pytest.raises(ConfigurationError, match="string"):
        perturb.templates(["I am {x}"], "abc")
    with pytest.raises(ConfigurationError, match="no templates"):
        perturb.templates([], ["a"])
