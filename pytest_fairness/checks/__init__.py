"""The relations: one module per relation, each owning its run, verdict and report data.

`pipeline.Relation` is the shape of a relation (public as `pytest_fairness.Relation`): its
inputs resolved once, a pure measurement (`metrics`), a presentation (`Presented`), and one
driver for argument checks, the nothing-judged case, session reuse and `verdict.conclude`.
The PSA, group-comparison, LLM, label-invariance, Wasserstein and flip-rate relations are
written on it.

- `flip_rate`: the share of perturbations that flip the predicted label, with a binomial
  interval and a bar chart per perturbation kind (mt-nlp, section 2, as a proportion);
- `psa`: ScoreSens, ScoreDev, ScoreRange and LabelDist of names put in place of pronouns
  (psa-perturbation-sensitivity-analysis, sections 2 and 3.2);
- `invariance`: argmax M(x) = argmax M(x') for every perturbation x'
  (mt-nlp-metamorphic-testing-certified-mitigation, section 2, Algorithm 1);
- `epsk`: (eps, k)-fairness decided exactly, and the smoothed model's certificate (mt-nlp,
  Definition 3.1, Theorem 1);
- `counterfactual`: CF = L1(f(x) - f(x^)) over gender counterfactuals
  (accumulated-prediction-sensitivity, section 6.5);
- `sensitivity`: accumulated prediction sensitivity P1-P5 (accumulated-prediction-sensitivity,
  sections 3 and 6.3-6.5);
- `wasserstein`: W1 between score distributions, and the paired signed gap of paired
  scores (counterfactual-sentiment-bias, section 3);
- `bias_auc`: subgroup, BPSN and BNSP AUCs, for one subgroup or as a table of many
  (cross-geographic-toxicity-bias, section 5.2);
- `lexical`: identity terms in template sentences, their mean score shift and clusters
  (cross-geographic-toxicity-bias, section 3.2);
- `generation`: counterfactual sentiment bias of text generators, the run behind the
  Wasserstein relation (counterfactual-sentiment-bias, sections 3 and 5.2);
- `groups`: rates per group on labelled data and the gaps and ratios between groups
  (demographic parity, equalized odds, equal opportunity, predictive parity), and Borkan
  et al.'s AUCs for every group of a column;
- `benchmarks`: the public bias benchmarks' own metrics on a model (CrowS-Pairs, BBQ,
  WinoBias);
- `llm`: counterfactual tests of chat models on the user's prompts or prompt templates:
  answer-score gap, refusal-rate parity and answer similarity, paired by prompt
  (counterfactual-sentiment-bias, section 3).

Each `assert_*` scores through `pytest_fairness.models` (batched, cached), builds a
`FairnessResult` with its measurements, discriminatory inputs and report sections, and
hands it to `verdict.conclude`: recorded for the report, then passed, warned (warn-only)
or raised as `FairnessViolation`. `verdict.record` and `verdict.assert_result` do the same
for a team's own relation. Only this package and the plugin read the run's context.
"""

from __future__ import annotations

from .benchmarks import (
    assert_bbq_bias_below,
    assert_crows_pairs_below,
    assert_crows_pairs_gap_below,
    assert_winobias_gap_below,
    bbq_scores,
    crows_pairs_score,
    winobias_gap,
)
from .bias_auc import assert_bias_auc_above, assert_subgroup_aucs_above
from .counterfactual import assert_counterfactual_fair, counterfactual
from .epsk import assert_eps_k_fair
from .groups import (
    assert_group_aucs_above,
    assert_group_gap_below,
    assert_group_ratio_above,
    group_fairness,
)
from .invariance import assert_label_invariant, invariance
from .lexical import assert_lexical_shift_below, lexical_scan
from .llm import (
    assert_answer_gap_below,
    assert_answer_similarity_above,
    assert_refusal_parity,
    counterfactual_prompts,
    llm_counterfactuals,
    template_prompts,
)
from .psa import assert_labeldist_below, assert_scoresens_below
from .sensitivity import assert_prediction_sensitivity_below
from .verdict import FairnessWarning, assert_result, record
from .wasserstein import assert_paired_gap_below, assert_wasserstein_below

__all__ = [
    "FairnessWarning",
    "assert_answer_gap_below",
    "assert_answer_similarity_above",
    "assert_bbq_bias_below",
    "assert_bias_auc_above",
    "assert_counterfactual_fair",
    "assert_crows_pairs_below",
    "assert_crows_pairs_gap_below",
    "assert_eps_k_fair",
    "assert_group_aucs_above",
    "assert_group_gap_below",
    "assert_group_ratio_above",
    "assert_label_invariant",
    "assert_labeldist_below",
    "assert_lexical_shift_below",
    "assert_paired_gap_below",
    "assert_prediction_sensitivity_below",
    "assert_refusal_parity",
    "assert_result",
    "assert_scoresens_below",
    "assert_subgroup_aucs_above",
    "assert_wasserstein_below",
    "assert_winobias_gap_below",
    "bbq_scores",
    "counterfactual",
    "counterfactual_prompts",
    "crows_pairs_score",
    "group_fairness",
    "invariance",
    "lexical_scan",
    "llm_counterfactuals",
    "record",
    "template_prompts",
    "winobias_gap",
]
