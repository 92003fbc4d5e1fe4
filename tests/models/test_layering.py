"""Where model code lives: metrics/ stays pure (the generators, the generation run and the
gradients moved to models/ and checks/), models/ reads the run's context in one module, and
no models/ module imports a heavy library when it is imported."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest_fairness

PACKAGE = pathlib.Path(pytest_fairness.__file__).parent
HEAVY = ("torch", "transformers", "sklearn", "spacy")


def _imports(path: pathlib.Path) -> list[tuple[int, str]]:
    """(relative level, module) of every import in `path`, function bodies included."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
            if node.module is None:  # from .. import context
                found += [(node.level, alias.name) for alias in node.names]
    return found


def test_metrics_never_imports_models_context_runtime_or_torch() -> None:
    for path in sorted((PACKAGE / "metrics").glob("*.py")):
        for level, module in _imports(path):
            top = module.split(".")[0]
            if level == 0:
                assert top not in HEAVY, f"{path.name} imports {module}"
            elif level >= 2:  # from ..x import ...
                assert top not in ("models", "context", "runtime", "checks", "plugin"), (
                    f"{path.name} imports ..{module}"
                )


def _depth(path: pathlib.Path) -> int:
    """How many dots a relative import from `path` needs to reach the package root."""
    return len(path.relative_to(PACKAGE).parts)


def test_models_read_the_context_only_through_defaults() -> None:
    readers = set()
    for path in sorted((PACKAGE / "models").rglob("*.py")):
        for level, module in _imports(path):
            if (level, module.split(".")[0]) == (_depth(path), "context") or module.endswith(
                "pytest_fairness.context"
            ):
                readers.add(path.relative_to(PACKAGE / "models").as_posix())
    assert readers == {"defaults.py"}


def test_importing_every_models_module_loads_no_heavy_library() -> None:
    modules = sorted(
        ".".join(("pytest_fairness", *p.relative_to(PACKAGE).with_suffix("").parts))
        for folder in ("models", "analysis")
        for p in (PACKAGE / folder).rglob("*.py")
        if p.stem != "__init__"
    )
    assert "pytest_fairness.models.llm.openai_api" in modules
    code = (
        "import importlib, json, sys\n"
        f"for name in {[*modules, 'pytest_fairness.checks.generation']!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_the_documented_module_paths_still_import() -> None:
    """The paths the README and the examples name keep working after models/ was split:
    the serving recipe (``python -m pytest_fairness.models.serving``), the batch-size
    policies and `hf_generator` from `models.generators`."""
    from pytest_fairness.models import batching, serving
    from pytest_fairness.models.generators import hf_generator
    from pytest_fairness.models.generators.base import hf_generator as moved
    from pytest_fairness.models.llm import serving as recipe

    assert serving.smollm2_server is recipe.smollm2_server
    assert serving.main is recipe.main
    assert hf_generator is moved
    assert batching.DEFAULT_BATCH_SIZE > 0
    out = subprocess.run([sys.executable, "-m", "pytest_fairness.models.serving", "--help"],
                         capture_output=True, text=True, check=True)
    assert "--model-dir" in out.stdout


def _targets(path: pathlib.Path) -> set[str]:
    """The package modules `path` imports (dotted, resolved), function bodies included."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = (".".join(package[: len(package) - node.level + 1]) if node.level
                    else "")
            source = ".".join(p for p in (base, node.module or "") if p)
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_import_circle_in_models_even_inside_functions() -> None:
    """models/ and analysis/ import each other one way only, imports inside functions
    counted (the client and the server launcher used to import each other there)."""
    files = {
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(
            ".__init__"): p
        for folder in ("models", "analysis") for p in (PACKAGE / folder).rglob("*.py")}
    graph = {m: _targets(p) & set(files) - {m} for m, p in files.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph[node])
        return False

    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a]
                     if reaches(b, a) and not b.startswith(a + ".") and not a.startswith(b))
    assert not circles, "\n".join(circles)
    assert "pytest_fairness.models.llm.endpoint" in graph["pytest_fairness.models.llm.local_server"]


def test_models_import_no_layer_after_them_and_analysis_sits_before_checks() -> None:
    """The README's order: resources, corpus, models, perturb, metrics, (analysis), checks,
    report, plugin. models/ reads the layers before it only (resources: the fluency LM;
    corpus: nothing today); the analyses over a model that need perturbations and the
    metrics' formulas (gradients, mitigation) live in analysis/, after them."""
    after = {"models": ("perturb", "metrics", "analysis", "checks", "report", "plugin"),
             "analysis": ("checks", "report", "plugin")}
    bad = []
    for layer, later in after.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for target in _targets(path):
                parts = target.split(".")
                if parts[0] == "pytest_fairness" and len(parts) > 1 and parts[1] in later:
                    bad.append(f"{path.relative_to(PACKAGE)}: {target}")
    assert not bad, "\n".join(sorted(set(bad)))
