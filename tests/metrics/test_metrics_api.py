"""The metrics package: public names, no pytest or heavy imports, JSON-ready results."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest_fairness.metrics as metrics

PACKAGE = pathlib.Path(metrics.__file__).parent


def test_public_names_resolve() -> None:
    assert len(set(metrics.__all__)) == len(metrics.__all__)
    for name in metrics.__all__:
        assert getattr(metrics, name) is not None, name
    for required in ("bias_aucs", "wasserstein", "PSAAccumulator", "PSAResult",
                     "psa_from_scores", "label_invariance", "eps_k_fair", "certificate",
                     "counterfactual_fairness", "kmeans", "bootstrap_ci"):
        assert required in metrics.__all__


def test_importing_metrics_loads_no_pytest_or_scipy() -> None:
    code = (
        "import json, sys\n"
        "import pytest_fairness.metrics\n"
        "print(json.dumps([m for m in ('pytest', 'scipy', 'torch', 'hypothesis', 'sklearn')"
        " if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == []


def test_no_global_random_state() -> None:
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"seed", "rand", "randn",
                                                                 "shuffle", "choice"}:
                base = node.value
                if isinstance(base, ast.Attribute) and base.attr == "random":
                    raise AssertionError(f"{path.name}: np.random.{node.attr} (global state)")


def test_results_serialise_to_json() -> None:
    results = [
        metrics.psa_from_scores([0.2, 0.6], [[0.3, 0.1], [0.6, 0.9]], ["A", "B"]),
        metrics.label_invariance([0.7, 0.3], [[0.4, 0.6]]),
        metrics.eps_k_fair([0.5, 0.5], [[0.6, 0.4]], 0.1, 1),
        metrics.min_eps_at_k([0.5, 0.5], [[0.6, 0.4]], 2),
        metrics.certificate([0.5, 0.5], [[0.6, 0.4]], 0.1),
        metrics.mitigation_curve([([0.7, 0.3], [[0.4, 0.6]])]),
        metrics.counterfactual_fairness([0.5], [0.4]),
        metrics.average_individual_fairness([{"a": [0.1], "b": [0.2]}]),
        metrics.total_group_fairness({"a": [0.1], "b": [0.2]}),
        metrics.bootstrap_ci(lambda x: float(x.mean()), [0.1, 0.2], n_resamples=10),
        metrics.bootstrap_psa([0.2, 0.6], [[0.3, 0.1], [0.6, 0.9]], ["A", "B"], n_resamples=5),
        metrics.log_odds_dirichlet([1, 2], [2, 1]),
        metrics.kmeans([[0.0], [1.0]], 2),
        metrics.term_sensitivity_clusters(["a", "b"], [[0.1], [0.9]], n_clusters=2),
    ]
    for r in results:
        text = json.dumps(r.to_dict(), allow_nan=False)
        assert json.loads(text)
