"""`as_model`: one adapter layer between the models people ship and the metrics.

Every metric sees a `TextModel` (`labels`, `stats`, `predict_proba`, `score`, `predict`),
whatever the model is. `as_model` validates its options, finds the model's family in the
registry (`models.families`: user-registered families first, then the built-in ones) and
lets the family build the adapter.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, cast

from ...errors import ConfigurationError
from ...types import TextModel
from ..checks import check_cache_dir, check_labels
from ..family_registry import cannot_use
from .base import ModelAdapter, Output
from .families import MODEL_FAMILIES, check_accepted
from .family import ModelOptions, describe
from .remote import LengthPolicy

__all__ = ["as_model"]


def as_model(
    obj: object,
    *,
    output: Output = "auto",
    labels: Sequence[str] | None = None,
    target: str | int | None = None,
    score_range: tuple[float, float] = (0.0, 1.0),
    threshold: float | None = None,
    batch_size: int | None = None,
    cache_size: int | None = None,
    fingerprint: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    tokenizer: Callable[[list[str]], Any] | None = None,
    embedding: Any = None,
    remote: bool = False,
    concurrency: int | None = None,
    retries: int | None = None,
    backoff: float | None = None,
    retry_time: float | None = None,
    max_length: int | None = None,
    length_policy: LengthPolicy | None = None,
    length: Callable[[str], int] | None = None,
    seed: int | None = None,
    sleep: Callable[[float], None] | None = None,
) -> TextModel:
    """Adapt `obj` to the `TextModel` every metric uses.

    Accepted (anything else raises `ConfigurationError` listing these):

    - a `TextModel` already: returned unchanged (an option given with it is a
      `ConfigurationError`: it would be ignored);
    - a plain callable `list[str] -> output`, read according to `output`:
      `"auto"` (2-D floats are probabilities, 1-D floats one score per text, 1-D
      int/bool/str labels), `"proba"`, `"score"`, `"labels"`, or `"logits"` (a softmax is
      applied; one logit per text goes through a sigmoid);
    - a transformers text-classification pipeline, or a `(model, tokenizer)` pair of an
      `AutoModelForSequenceClassification` and its tokenizer (labels from
      `model.config.id2label`);
    - a fitted scikit-learn classifier or pipeline with `predict_proba` (labels from
      `classes_`) or `decision_function` (sigmoid/softmax of the margins: uncalibrated);
    - a torch `nn.Module` with `tokenizer=` (see `TorchModel`); `embedding=` names its token
      embedding layer for the gradient metrics when it cannot be found;
    - a remote scorer: a callable with `remote=True` (see `RemoteModel`), tuned by
      `concurrency` (default 4), `retries` (3), `backoff` (0.5 s before the first retry,
      doubling, each wait capped at `MAX_BACKOFF` = 30 s), `retry_time` (the longest one
      batch keeps retrying, waits and calls included: default `DEFAULT_RETRY_TIME` = 60 s,
      then `ModelCallError`), `max_length` with `length_policy` `"skip"` (default) or
      `"truncate"` and `length` (default `len`), `seed` of the retry jitter (default the
      run's seed) and `sleep` (default `time.sleep`, replaceable in tests). Skipped texts
      get NaN rows (the only NaN an adapter returns; everything from the model is
      validated), `SKIPPED_LABEL` from `predict`, and are listed in `model.skipped`;
    - a model of a family registered with `register_model_family` or through the
      ``pytest_fairness.models`` entry-point group (tried before the built-in ones; see
      `ModelFamily`).

    Every option is validated before anything else happens (`models.checks`, through
    `pytest_fairness.validation`): counts (`batch_size`, `cache_size`, `concurrency`,
    `retries`, `max_length`, `seed`) must be integers (not 2.5, "64" or True), numbers
    (`threshold`, `backoff`, `retry_time`, both ends of `score_range`) finite real
    numbers, `score_range` a pair `(lo, hi)` with lo < hi, `labels` a sequence of
    strings (not one string); anything else raises `ConfigurationError` naming the
    option.

    The options only some families take (`output`, `score_range`, `tokenizer`,
    `embedding`, `remote` and the remote scorers' `concurrency` ... `seed`, `sleep`) raise
    `ConfigurationError` when the model's family does not take them, rather than being
    ignored.

    Single-score models: `score()` returns the score as is, `predict_proba` gives
    `[1 - p, p]` with `p = (s - lo) / (hi - lo)` for `score_range=(lo, hi)` (e.g.
    `(-1.0, 1.0)` for sentiment polarity), and `predict` gives `labels[1]` when
    `p >= threshold` (default: the run's `--fairness-threshold`). Label outputs become
    one-hot probabilities over `labels` (required for string labels; integer/bool labels
    default to `("0", "1")`). For K-class probabilities `score()` is the probability of
    `target` (a label or column index; default column 1 of a binary model, required when
    K > 2).

    Texts are deduplicated, answered from the session's prediction cache when possible
    (LRU, `cache_size` texts, default the run's `--fairness-cache-size`; 0 turns caching
    off, as does `--fairness-no-cache`) and sent in batches of `batch_size` (default: the
    run's `--fairness-batch-size`). With `fingerprint=` (a string you change whenever the
    model changes, e.g. `"toxicity-v3"` or a hash of the weights file) and a cache
    directory (`cache_dir=`, default the run's `--fairness-cache-dir`) predictions also
    persist between runs in a SQLite file per fingerprint (see `pytest_fairness.models.cache`),
    keyed by the adapter options that affect outputs (a tokenizer by its source and
    vocabulary size, a `length=` function by its code; change the fingerprint when anything
    else the model depends on changes). A model without a fingerprint is never persisted:
    nothing tells us when it changed.

    Every output is validated: a wrong shape, NaN/inf, probabilities outside [0, 1] or not
    summing to 1, or scores outside `score_range` raise `ModelOutputError`; a model that
    raises gives `ModelCallError` (the cause chained), and predictions of the batches
    before it stay cached.
    """
    if isinstance(obj, TextModel):
        given = [name for name, value, default in (
            ("output", output, "auto"), ("labels", labels, None), ("target", target, None),
            ("score_range", score_range, (0.0, 1.0)), ("threshold", threshold, None),
            ("batch_size", batch_size, None), ("cache_size", cache_size, None),
            ("fingerprint", fingerprint, None), ("cache_dir", cache_dir, None),
            ("tokenizer", tokenizer, None), ("embedding", embedding, None),
            ("remote", remote, False), ("concurrency", concurrency, None),
            ("retries", retries, None), ("backoff", backoff, None),
            ("retry_time", retry_time, None), ("max_length", max_length, None),
            ("length_policy", length_policy, None), ("length", length, None),
            ("seed", seed, None), ("sleep", sleep, None),
        ) if value is not default and not (isinstance(default, tuple) and value == default)]
        if given:
            raise ConfigurationError(
                f"as_model() got {describe(obj)}, which is already a TextModel, with "
                f"{', '.join(n + '=' for n in given)}: a model's options are set where it is "
                "made and would be ignored here; pass them to the as_model() call that made "
                "it, or pass the underlying model"
            )
        return obj
    options = ModelOptions(
        name=describe(obj),
        output=output,
        labels=check_labels(labels),
        target=target,
        score_range=score_range,
        threshold=threshold,
        batch_size=batch_size,
        cache_size=cache_size,
        fingerprint=fingerprint,
        cache_dir=check_cache_dir(cache_dir),
        tokenizer=tokenizer,
        embedding=embedding,
        remote=remote,
        concurrency=concurrency,
        retries=retries,
        backoff=backoff,
        retry_time=retry_time,
        max_length=max_length,
        length_policy=length_policy,
        length=length,
        seed=seed,
        sleep=sleep,
    )
    # only another family's product is checked (the protocol check reads every member)
    return cast(TextModel, MODEL_FAMILIES.make(
        obj, options, refused=lambda: cannot_use(options.name, "a model"),
        accept=lambda found: check_accepted(found, options),
        built=(ModelAdapter, TextModel),
        wanted="a pytest_fairness.TextModel", named=lambda: f"for {options.name}"))
