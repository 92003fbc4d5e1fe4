"""How corpus/ is put together: one reader of the run's context, imports in one direction."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_fairness.corpus

PACKAGE = Path(pytest_fairness.corpus.__file__).parent


def imports(path: Path) -> list[tuple[str, str]]:
    """(module imported, enclosing function or "<module>") of every import in `path`,
    with relative imports written from the package root ("..context" -> "context")."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((alias.name.removeprefix("pytest_fairness."), where)
                             for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level == 1:
                    base = f"corpus.{base}" if base else "corpus"
                base = base.removeprefix("pytest_fairness.")
                found.append((base, where))
                found.extend((f"{base}.{alias.name}".lstrip("."), where)
                             for alias in child.names)
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
            else:
                visit(child, where)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found


def test_only_the_seed_default_reads_the_run_context() -> None:
    readers = {
        (path.name, where)
        for path in PACKAGE.glob("*.py")
        for module, where in imports(path)
        if module.split(".")[0] in ("context", "plugin", "pytest", "_pytest")
    }
    assert readers == {("sources.py", "_seed")}


def test_imports_run_from_sources_to_selection_to_anchors() -> None:
    order = ["anchors", "selection", "sources"]
    for rank, name in enumerate(order):
        used = {module.split(".")[1] for module, _ in imports(PACKAGE / f"{name}.py")
                if module.startswith("corpus.") and module.split(".")[1] in order}
        assert used <= set(order[:rank]), name
