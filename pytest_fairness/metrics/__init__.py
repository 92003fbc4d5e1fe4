"""Fairness metrics: pure numpy functions over model outputs, each following its paper.

| module | paper (shared/papers/) |
|---|---|
| psa | psa-perturbation-sensitivity-analysis, sections 2 and 3.2 |
| invariance | mt-nlp-metamorphic-testing-certified-mitigation, section 2, Algorithm 1 |
| epsk | mt-nlp, Definition 3.1 |
| smoothing | mt-nlp, section 3.2, Theorem 1, Appendix B; psa, section 5 (averaging) |
| counterfactual | accumulated-prediction-sensitivity, section 6.5 (Garg et al. CF) |
| wasserstein | counterfactual-sentiment-bias-language-models, section 3 |
| bias_auc | cross-geographic-toxicity-bias, section 5.2 (Borkan et al.) |
| lexical | cross-geographic-toxicity-bias, section 3 |
| sensitivity | accumulated-prediction-sensitivity, sections 3 and 6.3-6.5 (P1-P5, results) |
| generation | counterfactual-sentiment-bias-language-models, section 3 (eqs. 3, 4) |
| paired | signed mean gap between paired scores (counterfactual-sentiment-bias, section 3) |
| bootstrap | confidence intervals for the above: percentile, BCa, studentized, directional |
| permutation | permutation tests of "one distribution" by W1 |
| groups | rates per group, their gaps and ratios (Hardt et al. 2016; Chouldechova 2017) |
| benchmarks | CrowS-Pairs (Nangia 2020, 3), BBQ (Parrish 2022, 3.4), WinoBias (Zhao 2018) |

Nothing here imports pytest or a model library; invalid arguments raise
`pytest_fairness.ConfigurationError` (a `ValueError`). What calls models lives elsewhere:
the gradients of prediction sensitivity in `analysis.gradients` and `models.whitebox.protected`, the
text generators in `models.generators.base`, the generation run in `checks.generation`.
"""

from __future__ import annotations

from .benchmarks import (
    BBQResult,
    BinomialShare,
    CrowsPairsResult,
    WinoBiasResult,
    bbq_metric,
    binomial_interval,
    crows_pairs_metric,
    winobias_metric,
)
from .bias_auc import bias_aucs, mann_whitney_auc
from .bootstrap import (
    BootstrapCI,
    PSABootstrap,
    bootstrap_ci,
    bootstrap_counterfactual,
    bootstrap_group_wasserstein,
    bootstrap_mean,
    bootstrap_paired_gap,
    bootstrap_psa,
    bootstrap_wasserstein,
)
from .counterfactual import CounterfactualResult, counterfactual_fairness, counterfactual_gap
from .epsk import (
    EpsKDecision,
    EpsKResult,
    eps_k_fair,
    max_k_at_eps,
    max_log_ratio,
    min_eps_at_k,
    pairwise_log_ratio,
)
from .generation import GenerationBiasResult, GroupSummary, PromptSamples, TemplateBias
from .groups import (
    GroupIntervals,
    GroupMetrics,
    bootstrap_group_metric,
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    equalized_odds_difference,
    equalized_odds_ratio,
    group_bias_aucs,
    group_metrics,
    predictive_parity_difference,
)
from .invariance import DiscriminatoryPair, InvarianceResult, label_invariance, predicted_labels
from .lexical import (
    KMeansResult,
    LogOddsResult,
    TermCandidate,
    TermClusters,
    beta_binomial_cdf,
    biased_term_candidates,
    group_overrepresentation,
    kmeans,
    log_odds_dirichlet,
    term_sensitivity_clusters,
)
from .paired import PairedGapResult, paired_gap, sign_test
from .permutation import (
    PermutationTest,
    permutation_test_group_wasserstein,
    permutation_test_wasserstein,
)
from .psa import (
    PSAAccumulator,
    PSAResult,
    WorstPair,
    WorstSentence,
    default_thresholds,
    psa_from_scores,
)
from .sensitivity import VARIANTS, SensitivityResult, TextSensitivity
from .smoothing import (
    DEFAULT_EPS_GRID,
    Certificate,
    MitigationCurve,
    MitigationPoint,
    average_over_perturbations,
    certificate,
    mitigation_curve,
    smoothed_group,
    smoothed_output,
    smoothing_weights,
)
from .wasserstein import (
    GroupFairnessResult,
    IndividualFairnessResult,
    average_individual_fairness,
    demographic_disparity,
    strong_demographic_disparity,
    total_group_fairness,
    wasserstein,
)

__all__ = [
    "DEFAULT_EPS_GRID",
    "VARIANTS",
    "BBQResult",
    "BinomialShare",
    "BootstrapCI",
    "Certificate",
    "CounterfactualResult",
    "CrowsPairsResult",
    "DiscriminatoryPair",
    "EpsKDecision",
    "EpsKResult",
    "GenerationBiasResult",
    "GroupFairnessResult",
    "GroupIntervals",
    "GroupMetrics",
    "GroupSummary",
    "IndividualFairnessResult",
    "InvarianceResult",
    "KMeansResult",
    "LogOddsResult",
    "MitigationCurve",
    "MitigationPoint",
    "PSAAccumulator",
    "PSABootstrap",
    "PSAResult",
    "PairedGapResult",
    "PermutationTest",
    "PromptSamples",
    "SensitivityResult",
    "TemplateBias",
    "TermCandidate",
    "TermClusters",
    "TextSensitivity",
    "WinoBiasResult",
    "WorstPair",
    "WorstSentence",
    "average_individual_fairness",
    "average_over_perturbations",
    "bbq_metric",
    "beta_binomial_cdf",
    "bias_aucs",
    "biased_term_candidates",
    "binomial_interval",
    "bootstrap_ci",
    "bootstrap_counterfactual",
    "bootstrap_group_metric",
    "bootstrap_group_wasserstein",
    "bootstrap_mean",
    "bootstrap_paired_gap",
    "bootstrap_psa",
    "bootstrap_wasserstein",
    "certificate",
    "counterfactual_fairness",
    "counterfactual_gap",
    "crows_pairs_metric",
    "default_thresholds",
    "demographic_disparity",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "eps_k_fair",
    "equal_opportunity_difference",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "group_bias_aucs",
    "group_metrics",
    "group_overrepresentation",
    "kmeans",
    "label_invariance",
    "log_odds_dirichlet",
    "mann_whitney_auc",
    "max_k_at_eps",
    "max_log_ratio",
    "min_eps_at_k",
    "mitigation_curve",
    "paired_gap",
    "pairwise_log_ratio",
    "permutation_test_group_wasserstein",
    "permutation_test_wasserstein",
    "predicted_labels",
    "predictive_parity_difference",
    "psa_from_scores",
    "sign_test",
    "smoothed_group",
    "smoothed_output",
    "smoothing_weights",
    "strong_demographic_disparity",
    "term_sensitivity_clusters",
    "total_group_fairness",
    "wasserstein",
    "winobias_metric",
]
