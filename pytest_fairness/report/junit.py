"""What the plugin attaches to each test: JUnit properties and Hypothesis's example.

Pure: no pytest (the plugin calls these with what pytest hands it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .summary import RecordedTest, build_summary
from .values import fmt_exact, printable

__all__ = ["falsifying_example", "junit_properties"]


def junit_properties(
    results: Sequence[Mapping[str, Any]], *, warn_only: bool = False
) -> list[tuple[str, str]]:
    """(name, value) pairs for a test's `user_properties`, shown by CI JUnit viewers.

    Per relation: `fairness.<relation>.status`; per statistic (`summary.StatisticRow`:
    a point estimate and the interval end judged against the bound are one statistic)
    `fairness.<relation>.<statistic>`, the judged value, with
    `fairness.<relation>.bound.<statistic>` ("<= 0.05") when it has a bound;
    `fairness.<relation>.<statistic>.judged` ("lower CI end", ...),
    `.estimate` and `.ci` ("[low, high]") when it was judged on an interval end (or has
    an interval); `.worst` when the relation was checked more than once; then
    `fairness.<relation>.discriminatory_inputs` and `fairness.<relation>.results` (more
    than one).
    """
    test = RecordedTest.create("-", results, warn_only=warn_only)
    out: list[tuple[str, str]] = []
    for g in build_summary([test]).groups:
        prefix = f"fairness.{g.relation}"
        out.append((f"{prefix}.status", g.status))
        for s in g.statistics:
            out.append((f"{prefix}.{s.name}", fmt_exact(s.value)))
            if s.on_interval:
                out.append((f"{prefix}.{s.name}.judged", str(s.judged)))
                if s.estimate is not None:
                    out.append((f"{prefix}.{s.name}.estimate", fmt_exact(s.estimate)))
            if s.ci is not None and None not in s.ci:
                out.append((f"{prefix}.{s.name}.ci",
                            f"[{fmt_exact(s.ci[0])}, {fmt_exact(s.ci[1])}]"))
            if s.n > 1:
                out.append((f"{prefix}.{s.name}.worst", fmt_exact(s.worst)))
            if s.bound is not None:
                out.append((f"{prefix}.bound.{s.name}", f"{s.op} {fmt_exact(s.bound)}"))
        out.append((f"{prefix}.discriminatory_inputs", str(g.n_violations)))
        if g.n_results > 1:
            out.append((f"{prefix}.results", str(g.n_results)))
    # names come from the user's relations: XML (and xdist's wire) take no control
    # character or lone surrogate, so they are written as visible escapes
    return [(printable(name), printable(value)) for name, value in out]


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
