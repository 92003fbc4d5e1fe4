"""The shape of the package, checked from its source: the rules that keep the layers apart.

Data flows one way (model + corpus -> perturbations -> predictions -> metrics -> verdict
-> report) and the folders follow it: `LAYERS` below is the README's order (facade/plugin
-> report -> strategies -> checks -> models -> perturb -> corpus -> resources/metrics ->
context -> registry/results -> shared vocabulary -> errors). These tests read every
module's imports (with `ast`, module level and inside functions alike) and fail naming the
file and line that breaks a rule, so the layout cannot drift unnoticed.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import pytest_fairness

PACKAGE = Path(pytest_fairness.__file__).parent
NAME = "pytest_fairness"

#: Libraries nothing may import at module level (they load on first use).
HEAVY = ("torch", "transformers", "spacy", "sklearn", "conceptnet_lite", "ray", "matplotlib",
         "scipy", "httpx", "openai")
#: The pure layers: they take settings as arguments and never read the run's context.
PURE = ("metrics", "perturb", "resources", "report", "runtime", "registry", "results",
        "types", "errors", "settings")
#: The layers that may read the run's context (`pytest_fairness.context`): the plugin that
#: sets it, the checks that judge within it, and the input layers' documented run defaults
#: (models: batch size, threshold, caches; corpus: the seed).
CONTEXT_READERS = ("plugin", "checks", "models", "corpus", "strategies")


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, dotted."""
    path: Path
    line: int
    target: str
    """The imported module (dotted), or for `from m import name` where name is not a
    module, `m`."""
    names: tuple[str, ...]
    top_level: bool
    """At module level (not in a function, and not under `if TYPE_CHECKING:`)."""

    def where(self) -> str:
        return f"{self.path.relative_to(PACKAGE.parent)}:{self.line}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, top: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        nested = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if nested or (isinstance(child, ast.If) and _is_type_checking(child)):
            yield from _walk(child, False)
        else:
            yield child, top
            yield from _walk(child, top)


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node, top in _walk(ast.parse(path.read_text(encoding="utf-8")), True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, path, node.lineno, alias.name, (), top))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names = tuple(a.name for a in node.names)
            submodules = [n for n in names if f"{source}.{n}" in MODULES]
            for name in submodules:
                found.append(Import(module, path, node.lineno, f"{source}.{name}", (), top))
            rest = tuple(n for n in names if n not in submodules)
            if rest or not submodules:
                found.append(Import(module, path, node.lineno, source, rest, top))
    return found


@functools.cache
def all_imports() -> tuple[Import, ...]:
    """Every import of the package (read once, when a test first asks: not at collection)."""
    return tuple(imp for module in MODULES for imp in imports_of(module))


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _external(target: str) -> str:
    return target.split(".")[0]


def test_every_module_is_seen() -> None:
    assert len(MODULES) > 40
    assert {"pytest_fairness.metrics", "pytest_fairness.checks", "pytest_fairness.plugin"} <= set(
        MODULES)


def test_metrics_import_only_numpy_and_pure_helpers() -> None:
    allowed_internal = (f"{NAME}.metrics", f"{NAME}.errors")
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if _layer(imp.module) == "metrics"
        and not (imp.target.startswith(allowed_internal) or _external(imp.target) in stdlib
                 or _external(imp.target) == "numpy")
    ]
    assert not bad, "metrics/ must be pure numpy:\n" + "\n".join(bad)


def test_only_the_plugin_imports_pytest() -> None:
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if _external(imp.target) in ("pytest", "_pytest", "pluggy")
        and _layer(imp.module) != "plugin"
    ]
    assert not bad, "only pytest_fairness/plugin may import pytest:\n" + "\n".join(bad)


def test_heavy_libraries_load_only_inside_the_functions_that_need_them() -> None:
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if imp.top_level and _external(imp.target) in HEAVY
    ]
    assert not bad, "module-level import of a heavy library:\n" + "\n".join(bad)


def test_only_the_plugin_the_checks_and_the_input_defaults_read_the_run_context() -> None:
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if imp.target == f"{NAME}.context" and _layer(imp.module) not in CONTEXT_READERS
        and imp.module != f"{NAME}.context"
    ]
    assert not bad, "the run's context read outside plugin/checks/models/corpus:\n" + "\n".join(
        bad)
    pure = [imp for imp in all_imports() if imp.target == f"{NAME}.context"
            and _layer(imp.module) in PURE]
    assert not pure


def test_no_private_name_crosses_a_subpackage() -> None:
    bad = []
    for imp in all_imports():
        if not imp.target.startswith(NAME) or _layer(imp.target) == _layer(imp.module):
            continue
        private_module = any(part.startswith("_") and not part.startswith("__")
                             for part in imp.target.split("."))
        private_names = [n for n in imp.names if n.startswith("_") and not n.startswith("__")]
        if private_module or private_names:
            bad.append(f"{imp.where()}: from {imp.target} import {', '.join(imp.names)}")
    assert not bad, "private names imported from another subpackage:\n" + "\n".join(bad)


def test_no_import_cycles_at_module_level() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in all_imports():
        if imp.top_level and imp.target in MODULES and imp.target != imp.module:
            graph[imp.module].add(imp.target)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


#: The layers, top to bottom (README "Architecture", DESIGN.md): a module imports only its
#: own layer and the layers below it, at module level, inside functions and under
#: TYPE_CHECKING alike. Layers on one row are peers and import nothing of each other.
#: The facade is `pytest_fairness/__init__.py` (layer "").
LAYERS: tuple[tuple[str, ...], ...] = (
    ("", "plugin"),            # the public facade; the pytest glue
    ("report",),               # summary, text, HTML, JSON, JUnit, baselines
    ("strategies",),           # Hypothesis strategies for a test's inputs
    ("checks",),               # the relations: resolve -> measure -> present -> conclude
    ("analysis",),             # gradients' sensitivity, certified smoothing: model + metrics
    ("models",),               # the inputs: a model ...
    ("perturb",),              # ... the perturbations of ...
    ("corpus",),               # ... a corpus ...
    ("resources", "metrics"),  # ... read with packaged resources; the pure formulas
    ("context",),              # the run's settings (read by plugin, checks, inputs' defaults)
    ("registry", "results"),   # the extension registries; the result and section types
    ("validation", "runtime", "settings", "types", "version"),  # shared vocabulary
    ("errors",),               # the named errors
)
RANK = {layer: rank for rank, row in enumerate(LAYERS) for layer in row}


def test_every_layer_has_a_place_in_the_order() -> None:
    layers = {_layer(m) for m in MODULES}
    assert layers == set(RANK), (
        f"layers without a place in LAYERS: {sorted(layers - set(RANK))}; "
        f"places without a layer: {sorted(set(RANK) - layers)}")


@pytest.mark.parametrize("layer", [layer for row in LAYERS for layer in row])
def test_lower_layers_do_not_import_the_layers_after_them(layer: str) -> None:
    """Data flows one way: a layer imports only itself and the layers below it in
    `LAYERS` (inside functions too: a deferred import is still a dependency)."""
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if _layer(imp.module) == layer and imp.target.startswith(NAME)
        and _layer(imp.target) != layer and RANK[_layer(imp.target)] <= RANK[layer]
    ]
    assert not bad, f"{layer or 'the facade'} imports a layer above it or a peer:\n" + (
        "\n".join(bad))


def test_no_import_circle_crosses_a_layer_even_inside_functions() -> None:
    """Between layers, counting the imports inside functions: no circle at all."""
    graph: dict[str, set[str]] = {layer: set() for layer in RANK}
    for imp in all_imports():
        if imp.target.startswith(NAME) and _layer(imp.target) != _layer(imp.module):
            graph[_layer(imp.module)].add(_layer(imp.target))
    assert not _cycles(graph)


def test_the_checks_do_not_reach_the_report_and_the_report_not_the_facade() -> None:
    """The two edges the layering used to break: `checks` builds its sections from
    `results` and its message in `checks.failure`; `report` takes the version from
    `pytest_fairness.version`."""
    bad = [
        f"{imp.where()}: {imp.target}"
        for imp in all_imports()
        if (_layer(imp.module) == "checks" and _layer(imp.target) in ("report", "plugin"))
        or (_layer(imp.module) == "report" and imp.target == NAME)
    ]
    assert not bad, "\n".join(bad)
