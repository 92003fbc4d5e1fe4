"""pytest-fairness: fairness tests for NLP models, written and run like any other test.

The data flows one way, and the subpackages follow it:

    models + corpus  ->  perturb  ->  (predictions)  ->  metrics  ->  checks  ->  report
    (resources: spaCy, knowledge graph, vectors, names)                       plugin: pytest

This module is the public facade. Every public name is listed once, in `_EXPORTS` (or
`_SUBMODULES` for the namespaces), with the module that defines it; `__all__` is derived
from that map and a name is imported on first access (PEP 562), so `import
pytest_fairness` loads no torch, transformers, spaCy, scikit-learn or conceptnet-lite. The
imports under `TYPE_CHECKING` repeat the map for type checkers; a test checks that both
agree and that every name resolves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import metrics, perturb, strategies
    from .analysis.gradients import prediction_sensitivity
    from .analysis.mitigation import AveragedModel, SmoothedModel, average, mitigation_curve, smooth
    from .checks import (
        FairnessWarning,
        assert_bbq_bias_below,
        assert_bias_auc_above,
        assert_counterfactual_fair,
        assert_crows_pairs_below,
        assert_crows_pairs_gap_below,
        assert_eps_k_fair,
        assert_group_aucs_above,
        assert_group_gap_below,
        assert_group_ratio_above,
        assert_label_invariant,
        assert_labeldist_below,
        assert_lexical_shift_below,
        assert_paired_gap_below,
        assert_prediction_sensitivity_below,
        assert_result,
        assert_scoresens_below,
        assert_subgroup_aucs_above,
        assert_wasserstein_below,
        assert_winobias_gap_below,
        bbq_scores,
        crows_pairs_score,
        group_fairness,
        lexical_scan,
        record,
        winobias_gap,
    )
    from .checks.answers_file import CollectedAnswers, answers_from_file
    from .checks.entities import (
        assert_entity_invariant,
        assert_entity_recall_parity,
        entity_recall_of,
    )
    from .checks.flip_rate import assert_flip_rate_below
    from .checks.generation import generation_bias, rescore
    from .checks.groups import GroupAnalysis, GroupPowerWarning, to_metric_frame
    from .checks.llm import (
        assert_answer_gap_below,
        assert_answer_similarity_above,
        assert_refusal_parity,
        counterfactual_prompts,
        llm_counterfactuals,
        template_prompts,
    )
    from .checks.pipeline import Presented, Relation
    from .checks.psa import psa
    from .checks.qa import QACase, QACounterfactuals, assert_answer_invariant, qa_counterfactuals
    from .corpus import Corpus
    from .corpus import benchmarks as benchmarks
    from .corpus.dataset import Dataset, DatasetError
    from .corpus.pairs import Pairs, pairs_from_columns, pairs_from_dataset
    from .errors import (
        ConfigurationError,
        ExtensionError,
        FairnessError,
        FairnessViolation,
        LanguageConflictError,
        LockTimeoutError,
        MissingDependencyError,
        ModelCallError,
        ModelOutputError,
        NothingJudgedError,
        RayUnavailableError,
        ReportFileError,
        SmallGroupError,
        SpanError,
        TaggerOutputError,
    )
    from .models import (
        GeneratorFamily,
        ModelFamily,
        as_generator,
        as_model,
        register_generator_family,
        register_model_family,
    )
    from .models.classifiers.distributed import ray_model
    from .models.generators.base import hf_generator
    from .models.llm.answers import answer_similarity, judge_scorer, refusal_detector, rouge_l
    from .models.llm.chat_classifier import chat_classifier
    from .models.llm.generation_cache import cached_generator
    from .models.llm.local_server import LocalServer, ServerStartError, local_server
    from .models.llm.openai_api import (
        BudgetExhaustedError,
        IncompleteGenerationError,
        ResponseTooLargeError,
        RetryWaitError,
        openai_generator,
    )
    from .models.qa import (
        NoAnswer,
        QAAnswer,
        QAFamily,
        QAModel,
        as_qa_model,
        chat_qa,
        register_qa_family,
    )
    from .models.taggers import Tagger, TaggerFamily, as_tagger, register_tagger_family
    from .models.whitebox.likelihood import LikelihoodModel, causal_lm, masked_lm
    from .models.whitebox.protected import train_protected_status_model
    from .perturb import PerturbationKind, register_dictionary, register_kind
    from .perturb.languages import Language, get_language, register_language
    from .report import register_format
    from .resources import knowledge, names
    from .resources.qa import QAPassage, qa_passages
    from .resources.spans import EntitySpan
    from .results import (
        BarChart,
        Cluster,
        Clusters,
        Curve,
        FairnessResult,
        Measurement,
        Table,
        Violation,
    )
    from .settings import Settings
    from .types import Anchor, Case, ModelStats, Perturbation, Span, TextModel

from .version import __version__

#: Public name -> the module (relative to this package) that defines it.
_EXPORTS: dict[str, str] = {
    # what goes wrong
    "ConfigurationError": "errors",
    "ExtensionError": "errors",
    "FairnessError": "errors",
    "LanguageConflictError": "errors",
    "FairnessViolation": "errors",
    "LockTimeoutError": "errors",
    "MissingDependencyError": "errors",
    "ModelCallError": "errors",
    "ModelOutputError": "errors",
    "NothingJudgedError": "errors",
    "RayUnavailableError": "errors",
    "ReportFileError": "errors",
    "SmallGroupError": "errors",
    "SpanError": "errors",
    "TaggerOutputError": "errors",
    "DatasetError": "corpus.dataset",
    "FairnessWarning": "checks",
    # the records that flow between the stages
    "Settings": "settings",
    "TextModel": "types",
    "ModelStats": "types",
    "Span": "types",
    "Anchor": "types",
    "Perturbation": "types",
    "Case": "types",
    "EntitySpan": "resources.spans",
    # inputs: models and corpora
    "as_model": "models",
    "ray_model": "models.classifiers.distributed",
    "ModelFamily": "models",
    "register_model_family": "models",
    "as_generator": "models",
    "GeneratorFamily": "models",
    "register_generator_family": "models",
    "hf_generator": "models.generators.base",
    "as_tagger": "models.taggers",
    "Tagger": "models.taggers",
    "TaggerFamily": "models.taggers",
    "register_tagger_family": "models.taggers",
    "openai_generator": "models.llm.openai_api",
    "local_server": "models.llm.local_server",
    "LocalServer": "models.llm.local_server",
    "ServerStartError": "models.llm.local_server",
    "chat_classifier": "models.llm.chat_classifier",
    "refusal_detector": "models.llm.answers",
    "answer_similarity": "models.llm.answers",
    "rouge_l": "models.llm.answers",
    "judge_scorer": "models.llm.answers",
    "counterfactual_prompts": "checks.llm",
    "template_prompts": "checks.llm",
    "llm_counterfactuals": "checks.llm",
    "assert_answer_gap_below": "checks.llm",
    "assert_refusal_parity": "checks.llm",
    "assert_answer_similarity_above": "checks.llm",
    "answers_from_file": "checks.answers_file",
    "CollectedAnswers": "checks.answers_file",
    "cached_generator": "models.llm.generation_cache",
    "IncompleteGenerationError": "models.llm.openai_api",
    "BudgetExhaustedError": "models.llm.openai_api",
    "RetryWaitError": "models.llm.openai_api",
    "ResponseTooLargeError": "models.llm.openai_api",
    "causal_lm": "models.whitebox.likelihood",
    "masked_lm": "models.whitebox.likelihood",
    "LikelihoodModel": "models.whitebox.likelihood",
    "Corpus": "corpus",
    # labelled data: a table of texts with gold labels and group columns, pairs from its rows
    "Dataset": "corpus.dataset",
    "Pairs": "corpus.pairs",
    "pairs_from_dataset": "corpus.pairs",
    "pairs_from_columns": "corpus.pairs",
    # perturbations
    "PerturbationKind": "perturb",
    "register_kind": "perturb",
    "register_dictionary": "perturb",
    "Language": "perturb.languages",
    "get_language": "perturb.languages",
    "register_language": "perturb.languages",
    # relations
    "assert_label_invariant": "checks",
    "assert_scoresens_below": "checks",
    "assert_labeldist_below": "checks",
    "assert_eps_k_fair": "checks",
    "assert_counterfactual_fair": "checks",
    "assert_prediction_sensitivity_below": "checks",
    "assert_wasserstein_below": "checks",
    "assert_paired_gap_below": "checks",
    "assert_bias_auc_above": "checks",
    "assert_subgroup_aucs_above": "checks",
    "assert_lexical_shift_below": "checks",
    "lexical_scan": "checks",
    "psa": "checks.psa",
    "generation_bias": "checks.generation",
    "rescore": "checks.generation",
    "group_fairness": "checks",
    "GroupAnalysis": "checks.groups",
    "GroupPowerWarning": "checks.groups",
    "assert_group_gap_below": "checks",
    "assert_group_ratio_above": "checks",
    "assert_group_aucs_above": "checks",
    "to_metric_frame": "checks.groups",
    "crows_pairs_score": "checks",
    "assert_crows_pairs_below": "checks",
    "assert_crows_pairs_gap_below": "checks",
    "bbq_scores": "checks",
    "assert_bbq_bias_below": "checks",
    "winobias_gap": "checks",
    "assert_winobias_gap_below": "checks",
    "prediction_sensitivity": "analysis.gradients",
    "train_protected_status_model": "models.whitebox.protected",
    # a team's own relations: results, their report sections, recording and verdicts
    "FairnessResult": "results",
    "Measurement": "results",
    "Violation": "results",
    "Curve": "results",
    "BarChart": "results",
    "Table": "results",
    "Clusters": "results",
    "Cluster": "results",
    "record": "checks",
    "assert_result": "checks",
    "Relation": "checks.pipeline",
    "Presented": "checks.pipeline",
    "assert_flip_rate_below": "checks.flip_rate",
    # extractive question answering
    "as_qa_model": "models.qa",
    "chat_qa": "models.qa",
    "QAModel": "models.qa",
    "QAAnswer": "models.qa",
    "NoAnswer": "models.qa",
    "QAFamily": "models.qa",
    "register_qa_family": "models.qa",
    "qa_passages": "resources.qa",
    "QAPassage": "resources.qa",
    "qa_counterfactuals": "checks.qa",
    "QACase": "checks.qa",
    "QACounterfactuals": "checks.qa",
    "assert_answer_invariant": "checks.qa",
    # taggers (named-entity recognisers)
    "assert_entity_invariant": "checks.entities",
    "assert_entity_recall_parity": "checks.entities",
    "entity_recall_of": "checks.entities",
    # mitigation
    "smooth": "analysis.mitigation",
    "average": "analysis.mitigation",
    "mitigation_curve": "analysis.mitigation",
    "SmoothedModel": "analysis.mitigation",
    "AveragedModel": "analysis.mitigation",
    # reports
    "register_format": "report",
}
#: Namespaces reachable as attributes: name -> module.
_SUBMODULES: dict[str, str] = {
    "metrics": "metrics",
    "names": "resources.names",
    "knowledge": "resources.knowledge",
    "perturb": "perturb",
    "strategies": "strategies",
    "benchmarks": "corpus.benchmarks",
}

__all__ = sorted([*_EXPORTS, *_SUBMODULES])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{_SUBMODULES[name]}", __name__)
    else:
        raise AttributeError(f"module 'pytest_fairness' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
