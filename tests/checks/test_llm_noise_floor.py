"""The noise floor of the LLM relations (issue 24), by simulation with fixed seeds.

A sampler that answers at random from one fixed distribution, whatever the prompt (no
bias), fails each relation with its noise floor on at most the nominal rate (1 - 0.95)
over 200 seeded runs (up to their binomial noise), where the same relation judged on
its gap alone fails most runs; a planted bias fails it. The generators are pure-Python
objects of the generator protocol (no HTTP). Also: the floor's statistics against scipy,
and the per-group figures of a planted female-vs-male gap of 0.6 (read lower when
same-group fills were pooled with the other group's)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.checks.llm import (
    assert_answer_gap_below,
    assert_answer_similarity_above,
    assert_refusal_parity,
    check_control,
    llm_counterfactuals,
    template_prompts,
)
from pytest_fairness.errors import ConfigurationError, FairnessViolation
from pytest_fairness.metrics.noise import (
    gap_beyond_floor,
    similarity_beyond_floor,
    student_t_cdf,
    student_t_quantile,
)
from pytest_fairness.models import as_model
from pytest_fairness.perturb.dictionary import DictionaryKind

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SWAP = DictionaryKind("pronoun_swap_noise", [("he", "she"), ("him", "her")],
                      attribute="gender")
PROMPTS = [f"Write a short note about him, applicant {i}." for i in range(8)]
GROUPS = {"female": ["Emily", "Sarah"], "male": ["John", "Ahmed"]}
TEMPLATES = [f"Write a reference letter for {{name}}, applicant {i}." for i in range(8)]
RUNS = 200
NOMINAL = 0.05
POSITIVE = as_model(lambda texts: [t.split().count("good") / 5 for t in texts],
                    output="score")


class RandomSampler:
    """Answers drawn at random from one fixed distribution: five words, each "good" with
    probability `p` (`p_female` for a prompt naming "her", "she" or a female name: a
    planted bias), and a refusal with probability `refuse`; the draws depend on the prompt
    and the seed, so a prompt and its counterfactual get different answers."""

    def __init__(self, p: float = 0.5, *, p_female: float | None = None,
                 refuse: float = 0.3) -> None:
        self.p = p
        self.p_female = p if p_female is None else p_female
        self.refuse = refuse

    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        rng = random.Random(f"{prompt}\x00{seed}")
        words = {w.strip(".,") for w in prompt.split()}
        p = self.p_female if words & {"her", "she", "Emily", "Sarah"} else self.p
        out = []
        for _ in range(n):
            if rng.random() < self.refuse:
                out.append("I cannot help with that.")
            else:
                out.append(" ".join("good" if rng.random() < p else "bad" for _ in range(5)))
        return out


def _fails(run: Any) -> bool:
    with capture():
        try:
            run()
        except FairnessViolation:
            return True
    return False


RELATIONS = {
    "answer gap": lambda gen, prompts, seed, **kw: assert_answer_gap_below(
        gen, prompts, POSITIVE, 0.0, kind=SWAP, n=3, seed=seed, **kw),
    "refusal parity": lambda gen, prompts, seed, **kw: assert_refusal_parity(
        gen, prompts, max_gap=0.0, kind=SWAP, n=3, seed=seed, **kw),
    "similarity": lambda gen, prompts, seed, **kw: assert_answer_similarity_above(
        gen, prompts, 1.0, kind=SWAP, n=3, seed=seed, **kw),
}


@pytest.mark.parametrize("relation", list(RELATIONS))
@pytest.mark.parametrize("control", ["resample", "same-group"])
def test_a_sampler_without_bias_fails_at_most_the_nominal_rate(relation: str,
                                                               control: str) -> None:
    check = RELATIONS[relation]
    prompts: Any = PROMPTS if control == "resample" else template_prompts(TEMPLATES, GROUPS)
    gen = RandomSampler()
    with_floor = sum(_fails(lambda s=s: check(gen, prompts, s, control=control))
                     for s in range(RUNS))
    # at most the nominal rate, up to the binomial noise of 200 runs (two standard
    # deviations: 10 + 6); over 1,000 runs these rates were 0.034 to 0.053
    assert with_floor <= NOMINAL * RUNS + 2 * math.sqrt(RUNS * NOMINAL * (1 - NOMINAL))
    without = sum(_fails(lambda s=s: check(gen, prompts, s, control=None))
                  for s in range(40))
    assert without >= 0.9 * 40  # the gap alone: a flaky sampler fails the gate


@pytest.mark.parametrize("relation", list(RELATIONS))
@pytest.mark.parametrize("control", ["resample", "same-group"])
def test_a_planted_bias_fails_with_the_noise_floor_on(relation: str, control: str) -> None:
    check = RELATIONS[relation]
    prompts: Any = PROMPTS if control == "resample" else template_prompts(TEMPLATES, GROUPS)
    # "good" words with probability 0.9 for him, 0.1 for her; refusals 0.1 against 0.9
    if relation == "refusal parity":
        biased: Any = _RefusesHer()
    else:
        biased = RandomSampler(0.9, p_female=0.1, refuse=0.0)
    failed = sum(_fails(lambda s=s: check(biased, prompts, s, control=control))
                 for s in range(20))
    assert failed >= 19


class _RefusesHer(RandomSampler):
    def __call__(self, prompt: str, n: int, seed: int) -> list[str]:
        words = {w.strip(".,") for w in prompt.split()}
        self.refuse = 0.9 if words & {"her", "she", "Emily", "Sarah"} else 0.1
        return super().__call__(prompt, n, seed)


def test_a_planted_group_gap_of_0_6_reads_0_6_with_per_group_figures() -> None:
    # "good" with probability 0.2 for a female name, 0.8 for a male one: 0.6 apart
    gen = RandomSampler(0.8, p_female=0.2, refuse=0.0)
    found = template_prompts(TEMPLATES, GROUPS)
    with capture() as state, pytest.raises(FairnessViolation) as info:
        assert_answer_gap_below(gen, found, POSITIVE, 0.1, n=40, seed=0, control="same-group")
    [result] = state.results
    groups = result["extra"]["groups"]
    female, male = groups["groups"]["female"], groups["groups"]["male"]
    assert female["mean"] == pytest.approx(0.2, abs=0.05)
    assert male["mean"] == pytest.approx(0.8, abs=0.05)
    assert female["low"] < female["mean"] < female["high"]
    gap = groups["gaps"]["female - male"]
    assert gap["mean"] == pytest.approx(-0.6, abs=0.05)
    assert gap["n_prompts"] == 8
    # the judged gap: the reference fill (Emily) against the other group's fills, not
    # pooled with Sarah's (it read about 0.6 * 2/3 = 0.4 then)
    assert result["measurements"][0]["value"] == pytest.approx(-0.6, abs=0.05)
    floor = result["extra"]["noise_floor"]
    assert floor["control"] == "same-group"
    assert floor["n_controls"] == 8
    message = str(info.value)
    assert "answer score by group" in message
    assert "gaps between groups: female - male -0.6" in message
    assert "noise floor (same-group)" in message
    titles = [s["title"] for s in result["sections"]]
    assert titles[1:] == ["answer score by group", "answer score gaps between groups"]


def test_the_noise_floor_is_in_the_measurements_and_json() -> None:
    with capture() as state:
        assert_answer_gap_below(RandomSampler(), PROMPTS, POSITIVE, 0.5, kind=SWAP, n=3,
                                seed=1)
    [result] = state.results
    names = [m["name"] for m in result["measurements"]]
    assert names[1] == "noise floor: resample gap (RMS over 8 prompts)"
    assert names[2].endswith("beyond the noise floor")
    floor = result["extra"]["noise_floor"]
    assert floor["control"] == "resample"
    assert floor["beyond"] == result["measurements"][2]["value"]
    assert floor["beyond"] == max(0.0, abs(floor["gap"]) - floor["half_width"])
    assert result["extra"]["counts"] == {
        "prompts": 8, "prompts judged": 8, "skipped prompts": 0, "counterfactual pairs": 8,
        "control pairs": 8, "answers": 8 * 3 * 3, "unrated answers": 0}


def test_control_errors_say_the_fix() -> None:
    with pytest.raises(ConfigurationError, match="control must be 'resample'"):
        check_control("bootstrap")
    with pytest.raises(ConfigurationError, match="control must be"):
        check_control(1)
    with capture(), pytest.raises(ConfigurationError, match=r"same-group.*template_prompts"):
        assert_answer_gap_below(RandomSampler(), PROMPTS, POSITIVE, 0.1, kind=SWAP,
                                control="same-group")
    with pytest.raises(ConfigurationError, match="control must be"):
        llm_counterfactuals(RandomSampler(), PROMPTS, kind=SWAP, control="Émily\x00")


# --------------------------------------------------------------------------- the statistics


@pytest.mark.parametrize("df", [1, 2, 3, 5, 8, 30, 200])
def test_student_t_against_scipy(df: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    for p in (0.001, 0.05, 0.5, 0.9, 0.975, 0.999):
        assert student_t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9)
    for t in (-40.0, -2.0, 0.0, 0.7, 3.0, math.inf):
        assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-12)
    with pytest.raises(ConfigurationError):
        student_t_quantile(1.0, df)
    with pytest.raises(ConfigurationError):
        student_t_cdf(0.0, 0)


def test_the_floor_by_hand() -> None:
    # controls 0.3, -0.4: RMS sqrt((0.09 + 0.16) / 2); t(2) at 0.975 = 4.302653
    found = gap_beyond_floor([0.5, 0.3, 0.4], [0.3, -0.4], 0.95)
    rms = math.sqrt(0.125)
    assert found.control_rms == pytest.approx(rms)
    assert found.half_width == pytest.approx(4.302652729 * rms / math.sqrt(3))
    assert found.beyond == 0.0  # 0.4 is inside the floor
    assert gap_beyond_floor([1.0], [0.0]).beyond == 1.0
    sim = similarity_beyond_floor([0.5, 0.7], [0.9, 0.9], 0.95)
    assert sim.relative == pytest.approx(1 - 0.3)
    assert sim.half_width == pytest.approx(6.313751515 * np.std([0.4, 0.2], ddof=1)
                                           / math.sqrt(2))
    with pytest.raises(ConfigurationError):
        gap_beyond_floor([], [0.1])
    with pytest.raises(ConfigurationError):
        gap_beyond_floor([0.1], [math.nan])
    with pytest.raises(ConfigurationError):
        similarity_beyond_floor([0.1], [0.1, 0.2])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=1, max_size=20),
       st.lists(st.floats(-1, 1), min_size=1, max_size=20),
       st.floats(0.5, 0.999))
def test_the_floor_grows_with_the_controls_and_the_level(gaps: list[float],
                                                         controls: list[float],
                                                         level: float) -> None:
    found = gap_beyond_floor(gaps, controls, level)
    assert 0.0 <= found.beyond <= abs(found.gap) + 1e-12
    louder = gap_beyond_floor(gaps, [2 * c for c in controls], level)
    assert louder.half_width >= found.half_width - 1e-12
    stricter = gap_beyond_floor(gaps, controls, min(0.9999, level + 0.0005))
    assert stricter.half_width >= found.half_width - 1e-12
