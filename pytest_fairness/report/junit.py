"""What the plugin attaches to each test: JUnit properties and Hypothesis's example.

Pure: no pytest (the plugin calls these with what pytest hands it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .summary import RecordedTest, build_summary
from .values import fmt_exact

__all__ = ["falsifying_example", "junit_properties"]


def junit_properties(
    results: Sequence[Mapping[str, Any]], *, warn_only: bool = False
) -> list[tuple[str, str]]:
    """(name, value) pairs for a test's `user_properties`, shown by CI JUnit viewers.

    Per relation: `fairness.<relation>.<metric>` (the final value),
    `fairness.<relation>.<metric>.worst` when the relation was checked more than once,
    `fairness.<relation>.bound.<metric>`, `fairness.<relation>.status`,
    `fairness.<relation>.discriminatory_inputs`.
    """
    test = RecordedTest.create("-", results, warn_only=warn_only)
    out: list[tuple[str, str]] = []
    for g in build_summary([test]).groups:
        prefix = f"fairness.{g.relation}"
        out.append((f"{prefix}.status", g.status))
        for m in g.metrics:
            out.append((f"{prefix}.{m.name}", fmt_exact(m.final)))
            if m.n > 1:
                out.append((f"{prefix}.{m.name}.worst", fmt_exact(m.worst)))
            if m.bound is not None:
                out.append((f"{prefix}.bound.{m.name}", f"{m.op} {fmt_exact(m.bound)}"))
        out.append((f"{prefix}.discriminatory_inputs", str(g.n_violations)))
        if g.n_results > 1:
            out.append((f"{prefix}.results", str(g.n_results)))
    return out


_FALSIFYING = re.compile(
    r"^(?:E\s+)?((?:Falsifying (?:explicit )?example|Failing test case):.*)$")


def falsifying_example(text: str | None) -> str | None:
    """Hypothesis's 'Falsifying example: test(...)' block from a failure's text, if any.

    Newer Hypothesis versions write 'Failing test case: test(...)'; both are found.
    """
    if not text:
        return None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _FALSIFYING.match(line.strip())
        if not match:
            continue
        block = [match.group(1).rstrip()]
        prefix = line[: line.index(match.group(1))]  # pytest's "E   " and indentation
        if block[0].endswith("("):
            for follow in lines[i + 1 :]:
                follow = follow.rstrip()
                if follow.startswith(prefix):
                    follow = follow[len(prefix):]
                block.append(follow)
                if follow.strip() == ")" or len(block) > 60:
                    break
        return "\n".join(block)
    return None
