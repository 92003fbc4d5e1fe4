"""Hand-built recorded results (the layout of `FairnessResult.to_dict()`) for report tests."""

from __future__ import annotations

from typing import Any

FEMALE = ("Maria", "Emma", "Olivia", "Aisha")
MALE = ("John", "Wei", "Carlos", "Liam")


def violation(original: str, perturbed: str, o_span: tuple[int, int], p_span: tuple[int, int],
              before: float, after: float, **extra: Any) -> dict[str, Any]:
    return {
        "original": original,
        "perturbed": perturbed,
        "original_spans": [list(o_span)],
        "perturbed_spans": [list(p_span)],
        "original_score": before,
        "perturbed_score": after,
        "original_label": "toxic" if before >= 0.5 else "ok",
        "perturbed_label": "toxic" if after >= 0.5 else "ok",
        "measure": after - before,
        "kind": "name",
        "attribute": "gender",
        "detail": None,
        **extra,
    }


def result(relation: str, value: float | None, bound: float | None, *, op: str = "<=",
           name: str = "max_shift", n_inputs: int = 10, violations: list[dict[str, Any]] | None
           = None, n_violations: int | None = None, extra: dict[str, Any] | None = None,
           more: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One recorded result with a single bounded measurement (plus `more` measurements)."""
    ops = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}
    holds = True if bound is None else (value is not None and ops[op](value, bound))
    measurements = [{"name": name, "value": value, "bound": bound, "op": op, "ci": None,
                     "holds": holds}, *(more or [])]
    vs = violations or []
    return {
        "relation": relation,
        "passed": all(m["holds"] for m in measurements),
        "measurements": measurements,
        "violations": vs,
        "n_inputs": n_inputs,
        "n_violations": len(vs) if n_violations is None else n_violations,
        "extra": extra or {},
    }


def psa_result(max_abs: float = 0.04, bound: float = 0.05) -> dict[str, Any]:
    sens = {n: round(0.01 * (i + 1), 3) for i, n in enumerate(FEMALE)}
    sens.update({n: round(-0.01 * (i + 1), 3) for i, n in enumerate(MALE)})
    sens["Maria"] = max_abs
    groups = {n: "female" for n in FEMALE} | {n: "male" for n in MALE}
    curve = [[t / 10, round(0.3 - abs(t / 10 - 0.5) / 2, 4)] for t in range(1, 10)]
    v = violation("She said <b>no</b> & left.", "Maria said <b>no</b> & left.", (0, 3), (0, 5),
                  0.2, 0.2 + max_abs)
    return result("score_sens", max_abs, bound, name="max |ScoreSens|", n_inputs=32,
                  violations=[v] if max_abs > bound else [],
                  extra={"score_sens": sens, "name_groups": groups, "label_dist_curve": curve})


def mitigation_result() -> dict[str, Any]:
    curve = [[0.1, 0.0], [0.3, 0.02], [1.0, 0.2], [3.0, 0.6], [10.0, 0.9]]
    return result("eps_k_fairness", 0.0, 0.0, name="violation fraction", n_inputs=20,
                  extra={"mitigation_curve": curve})


def cluster_result() -> dict[str, Any]:
    clusters = {
        "metric": "term_clusters",
        "group": "India",
        "clusters": [{"cluster": c, "terms": [f"term{c}{i}" for i in range(3)],
                      "curve": [0.1 * c + 0.05 * j for j in range(6)]} for c in range(4)],
        "template_order": list(range(6)),
        "template_scores": [0.05 * j for j in range(6)],
        "inertia": 0.5,
    }
    return result("term_clusters", None, None, name="inertia", n_inputs=0,
                  extra={"clusters": clusters})


def own_sections_result(step: int = 0) -> dict[str, Any]:
    """A user's own check with one section of each type, recorded as
    `FairnessResult.to_dict()` (no report code knows its titles)."""
    from pytest_fairness.results import (
        BarChart,
        Cluster,
        Clusters,
        Curve,
        FairnessResult,
        Measurement,
        Table,
    )

    sections = (
        Curve("Accuracy gap by <length>", ([(10.0, 0.01 * step), (20.0, 0.03), (40.0, 0.02)],),
              x_label="tokens", y_label="gap", caption="Gap & length (own check)"),
        BarChart("AUC per subgroup", [("women", 0.81), ("men", 0.86), ("<nb>", 0.74)],
                 value_label="AUC"),
        Table("Confusion by group", ["group", "TPR", "FPR", "n"],
              [["women", 0.8, 0.1, 120], ["men", 0.9, 0.05, 80], ["<other>", None, None, 0]],
              caption="Rates at threshold 0.5"),
        Clusters("Word groups", [Cluster(0, ["alpha", "beta"], [0.1, 0.2], 0.05),
                                 Cluster(1, ["gamma"], [0.5, 0.9], 0.4)],
                 label="Kenya", template_scores=[0.1, 0.3]),
    )
    result = FairnessResult(
        relation="own_check",
        passed=True,
        measurements=(Measurement("gap", 0.03, 0.05),),
        n_inputs=200,
        sections=sections,
    )
    return result.to_dict()
