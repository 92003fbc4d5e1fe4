#!/usr/bin/env bash
# Build the sdist and the wheel, check them with twine, install the wheel into a fresh
# virtual environment with its core dependencies only (no torch, no spaCy), and run a
# smoke test against it from outside the checkout: the package data is there, pytest
# loads the plugin and shows its options, and a small fairness suite on a lexicon model
# passes and writes its reports.
#
#   bash scripts/check_wheel.sh            # with .venv/bin/python (build and twine installed)
#   PYTHON=python3 bash scripts/check_wheel.sh
#
# Exits non-zero, saying which step failed, on any problem.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
# setuptools writes pytest_fairness.egg-info into the checkout while building the sdist:
# removed afterwards unless it was there before.
egg_info_was_there=$([ -e pytest_fairness.egg-info ] && echo yes || echo no)
cleanup() {
    rm -rf "$work"
    [ "$egg_info_was_there" = yes ] || rm -rf "$root/pytest_fairness.egg-info"
}
trap cleanup EXIT
step() { echo "check_wheel: $*" >&2; }

step "building the sdist and the wheel"
"$python" -m build --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; step "FAILED: python -m build"; exit 1; }
wheels=("$work"/dist/*.whl)
sdists=("$work"/dist/*.tar.gz)
[ -f "${wheels[0]}" ] && [ -f "${sdists[0]}" ] || { step "FAILED: no wheel or sdist built"; exit 1; }

step "twine check"
"$python" -m twine check --strict "$work"/dist/*

step "installing ${wheels[0]##*/} into a fresh environment (core dependencies only)"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "${wheels[0]}"

mkdir "$work/smoke"
cd "$work/smoke"
unset PYTHONPATH
export PYTHONNOUSERSITE=1

step "package data, version and the light import"
"$work/venv/bin/python" - <<'EOF'
import importlib.metadata
import importlib.resources
import importlib.util
import json
import sys

import pytest_fairness as pf

assert "site-packages" in pf.__file__, f"not the installed wheel: {pf.__file__}"
assert importlib.util.find_spec("torch") is None, "torch is installed: not a core-only env"
assert importlib.metadata.version("pytest-fairness") == pf.__version__, (
    importlib.metadata.version("pytest-fairness"), pf.__version__)
data = importlib.resources.files("pytest_fairness") / "data"
names = sorted(p.name for p in data.iterdir())
for needed in ("fairness_report.schema.json", "fairness_baseline.schema.json",
               "gender_words.json", "pronouns.json", "graph_edges.tsv.gz",
               "templates_counterfactual_sentiment.json", "templates_cross_geographic.json"):
    assert needed in names, f"{needed} missing from the wheel's data: {names}"
for name in names:
    if name.endswith(".json"):
        json.loads((data / name).read_text(encoding="utf-8"))
assert (importlib.resources.files("pytest_fairness") / "py.typed").is_file()
heavy = {"torch", "transformers", "spacy", "sklearn", "ray"} & set(sys.modules)
assert not heavy, f"importing pytest_fairness imported {heavy}"
print(f"pytest-fairness {pf.__version__}: {len(names)} data files, {len(pf.__all__)} names")
EOF

# Through its pytest11 entry point, and by name with autoloading off (`-p` of the module
# while the entry point also loads it would register it twice, which pytest refuses).
step "pytest loads the plugin and shows its options"
"$work/venv/bin/pytest" --help >"$work/help.txt"
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$work/venv/bin/pytest" -p pytest_fairness.plugin --help \
    >"$work/help-p.txt"
for help in "$work/help.txt" "$work/help-p.txt"; do
    for option in --fairness-model --fairness-corpus --fairness-report --fairness-gate; do
        grep -q -- "$option" "$help" || { step "FAILED: no $option in ${help##*/}"; exit 1; }
    done
done

step "a fairness suite on a lexicon model"
cat >test_smoke.py <<'EOF'
import pytest

import pytest_fairness as pf

WORDS = {"stupid": 0.8, "idiot": 0.9, "awful": 0.6}


def toxicity(texts):
    return [max([WORDS.get(w.strip(".,!?").lower(), 0.05) for w in t.split()]) for t in texts]


@pytest.fixture(scope="session")
def fairness_model():
    return pf.as_model(toxicity, labels=("fine", "toxic"))


def test_gender_swaps_keep_the_label(fairness_model):
    pf.assert_label_invariant(fairness_model, "He is an idiot.", "She is an idiot.")
    pf.assert_label_invariant(fairness_model, "My brother is kind.", "My sister is kind.")


def test_paired_scores(fairness_model):
    a = fairness_model.score(["He said it was awful.", "His idea was stupid."])
    b = fairness_model.score(["She said it was awful.", "Her idea was stupid."])
    pf.assert_paired_gap_below(a, b, max_gap=0.01)


def test_groups_get_the_same_rates():
    pf.assert_group_gap_below(predictions=[1, 0, 1, 0] * 5, y_true=[1, 0, 1, 0] * 5,
                              groups={"gender": ["f", "f", "m", "m"] * 5},
                              group="gender", metric="tpr", max_gap=0.1,
                              positive=1, min_group_size=5)
EOF
"$work/venv/bin/pytest" -q -p no:cacheprovider test_smoke.py --fairness-report=report \
    >"$work/smoke.log" 2>&1 || { cat "$work/smoke.log" >&2; step "FAILED: the smoke suite"; exit 1; }
grep -q "3 passed" "$work/smoke.log" || { cat "$work/smoke.log" >&2; step "FAILED: not 3 passed"; exit 1; }
grep -q "fairness summary" "$work/smoke.log" || { cat "$work/smoke.log" >&2; step "FAILED: no summary"; exit 1; }
[ -s report/fairness.json ] && [ -s report/fairness.html ] \
    || { step "FAILED: the reports were not written"; exit 1; }
"$work/venv/bin/python" -m pytest_fairness.report report >/dev/null
step "OK: ${wheels[0]##*/} and ${sdists[0]##*/} build, check and work from a fresh environment"
