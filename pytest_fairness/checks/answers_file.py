"""Answers collected elsewhere (issue 24): a CSV, TSV, JSONL, JSON or Parquet file (or a
pandas/polars frame, or a list of dicts) of (prompt, counterfactual, answer, counterfactual
answer) rows, judged by every LLM relation of `checks.llm` without a generator.

    answers = pf.answers_from_file("answers.csv")
    pf.assert_answer_gap_below(answers, answers.prompts, scorer, max_gap=0.1)

Each row is one sample: the answer to the prompt and the answer to its counterfactual,
compared sample by sample (the relations' pairing). Rows with the same (prompt,
counterfactual) are that pair's samples, in file order; a prompt's own answers are those
of its first counterfactual's rows. The files are read with the data-set readers of
`corpus.dataset` (the same formats, encodings and error messages).

Controls of the noise floor (`metrics.noise`): with `from_group` and `to_group` columns,
rows whose two groups are equal are same-group pairs (``control="same-group"``);
``control="resample"`` splits each prompt's own answers into two halves (samples 0, 2,
4, ... against 1, 3, 5, ...), which needs at least two answers per prompt, since answers
collected elsewhere cannot be sampled again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..corpus.dataset import DatasetError, is_missing, read_records
from ..types import Perturbation
from ..validation import check_text
from .llm import (
    CounterfactualPrompts,
    LLMCounterfactuals,
    check_control,
    ready_counterfactuals,
    same_group,
    scored_analysis,
)

__all__ = ["CollectedAnswers", "answers_from_file"]

#: The default column of each role.
COLUMNS = {"prompt": "prompt", "counterfactual": "counterfactual", "answer": "answer",
           "counterfactual_answer": "counterfactual_answer"}
_SHOWN = 5


@dataclass(frozen=True)
class CollectedAnswers:
    """Answers collected elsewhere (see `answers_from_file`): pass it where a relation
    takes a generator, with `prompts` as the prompts (or None)."""

    prompts: CounterfactualPrompts
    """The (prompt, counterfactual) pairs of the file, in order, as ready counterfactuals;
    rows whose counterfactual equals the prompt are listed in `.unperturbed`."""
    answers: Mapping[Perturbation, tuple[tuple[str, ...], tuple[str, ...]]]
    """Each pair's (answers to the prompt, answers to the counterfactual), row by row."""
    name: str
    """Where the rows came from (the file's path), for messages."""
    n_rows: int

    def __repr__(self) -> str:
        return (f"CollectedAnswers({self.name!r}: {self.n_rows} rows, {len(self.prompts)} "
                f"pairs of {self.prompts.n_prompts} prompts)")

    def analysis(self, prompts: object, *, scorer: object, control: str | None,
                 seed: int) -> LLMCounterfactuals:
        """The `LLMCounterfactuals` of these answers (what `llm_counterfactuals` returns
        for them): `prompts` must be None, `.prompts`, or a selection of its pairs."""
        wanted = check_control(control)
        found = self._selected(prompts)
        if wanted == "same-group" and not any(same_group(p) for p in found):
            raise DatasetError(
                f"control='same-group' needs rows whose from_group equals their to_group "
                f"(a counterfactual in the prompt's own group), and {self.name} has none: "
                "pass from_group= and to_group= columns to answers_from_file, or "
                "control=None")
        own: dict[str, tuple[str, ...]] = {}
        for p in found:
            own.setdefault(p.original, self.answers[p][0])
        resample = None
        if wanted == "resample":
            short = [text for text, mine in own.items() if len(mine) < 2]
            if short:
                raise DatasetError(
                    f"control='resample' splits each prompt's answers in two halves, and "
                    f"{len(short)} prompt(s) of {self.name} have one answer only (e.g. "
                    f"{short[0]!r:.60}): collect two or more answers per prompt (rows "
                    "with the same prompt and counterfactual), or pass control=None "
                    "(no noise floor) or control='same-group' with group columns")
            resample = {}
            for text, mine in own.items():
                half = len(mine) // 2
                resample[text] = (1, tuple(mine[0::2][:half]), tuple(mine[1::2][:half]))
        n = max((len(self.answers[p][0]) for p in found), default=1)
        return scored_analysis(found, self.answers.__getitem__, dict.fromkeys(own, 0), n=n,
                               seed=seed, scorer=scorer, control=wanted, resample=resample)

    def _selected(self, prompts: object) -> CounterfactualPrompts:
        if prompts is None or prompts is self.prompts:
            return self.prompts
        ready = ready_counterfactuals(prompts)
        unknown = [p for p in (ready or ()) if p not in self.answers]
        if ready is None or unknown:
            raise DatasetError(
                f"with answers collected elsewhere ({self.name}) pass prompts=None or "
                f"the file's own .prompts (or some of its pairs); got "
                + (f"{type(prompts).__name__} {prompts!r:.60}" if ready is None
                   else f"{len(unknown)} pair(s) not in the file, e.g. "
                   f"{unknown[0].original!r:.60} -> {unknown[0].perturbed!r:.60}"))
        return ready


def _column(value: object, role: str) -> str:
    if not isinstance(value, str) or not value:
        raise DatasetError(f"{role}= must be a column name (a non-empty string), got "
                           f"{value!r:.60}")
    return value


def answers_from_file(
    source: str | os.PathLike[str] | Any,
    *,
    prompt: str = "prompt",
    counterfactual: str = "counterfactual",
    answer: str = "answer",
    counterfactual_answer: str = "counterfactual_answer",
    from_group: str | None = None,
    to_group: str | None = None,
    kind: str = "collected",
    encoding: str = "utf-8-sig",
) -> CollectedAnswers:
    """Answers collected elsewhere, for every LLM relation without a generator.

    `source` is a .csv, .tsv, .jsonl, .json or .parquet file, a pandas or polars frame,
    or a list of dicts (read as `pytest_fairness.Dataset` reads them). Each row holds a
    prompt, its counterfactual, the answer to the prompt and the answer to the
    counterfactual (the column names `prompt`, `counterfactual`, `answer`,
    `counterfactual_answer` name them), and optionally the groups of the two
    (`from_group`, `to_group` columns: per-group figures, and same-group rows as the
    ``control="same-group"`` noise floor). Rows of the same (prompt, counterfactual) are
    its samples, compared sample by sample with the answers to the counterfactual; `kind`
    names the counterfactuals in reports.

    Errors are `DatasetError` (a `ConfigurationError`) naming the fix: a column that is
    not in the file (with the file's columns), a missing prompt or counterfactual, a cell
    that is not text (with the rows), an empty file. Answers may be empty strings (a
    model can answer nothing); a missing answer (null) is an error. A row whose
    counterfactual equals its prompt has no counterfactual: it is kept in
    `.prompts.unperturbed` and reported as skipped.
    """
    roles = {"prompt": _column(prompt, "prompt"),
             "counterfactual": _column(counterfactual, "counterfactual"),
             "answer": _column(answer, "answer"),
             "counterfactual_answer": _column(counterfactual_answer, "counterfactual_answer")}
    groups = {role: _column(col, role) for role, col in
              (("from_group", from_group), ("to_group", to_group)) if col is not None}
    if len(groups) == 1:
        raise DatasetError("pass both from_group= and to_group= (the groups of the prompt "
                           "and of its counterfactual), or neither")
    check_text(kind, "kind")
    name, columns, records = read_records(source, encoding=encoding)
    wanted = {**roles, **groups}
    absent = {role: col for role, col in wanted.items() if col not in columns}
    if absent and columns:
        listed = ", ".join(f"{role}={col!r}" for role, col in absent.items())
        raise DatasetError(
            f"{name} has no column for {listed}; its columns are "
            f"{', '.join(map(repr, columns))}: name yours, e.g. "
            f"answers_from_file(path, {next(iter(absent))}={columns[0]!r})")
    bad: dict[str, list[str]] = {}
    pairs: dict[Perturbation, tuple[list[str], list[str]]] = {}
    unperturbed: dict[str, None] = {}
    n_rows = 0
    for where, record in records:
        n_rows += 1
        if not columns:
            absent = {role: col for role, col in wanted.items() if col not in record}
            if absent:
                bad.setdefault("a column is missing (" + ", ".join(
                    f"{r}={c!r}" for r, c in absent.items()) + ")", []).append(where)
                continue
        cells: dict[str, str] = {}
        for role, col in wanted.items():
            value = record.get(col)
            answer_role = role in ("answer", "counterfactual_answer")
            if isinstance(value, str) and (answer_role or value.strip()):
                cells[role] = value
            elif value is None or (is_missing(value) and not answer_role):
                bad.setdefault(f"{role} ({col!r}) is missing", []).append(where)
            else:
                bad.setdefault(f"{role} ({col!r}) is not text", []).append(where)
        if len(cells) < len(wanted):
            continue
        if cells["prompt"] == cells["counterfactual"]:
            unperturbed[cells["prompt"]] = None
            continue
        p = Perturbation(cells["prompt"], cells["counterfactual"], (), (), kind, "collected",
                         cells.get("from_group"), cells.get("to_group"))
        mine, theirs = pairs.setdefault(p, ([], []))
        mine.append(cells["answer"])
        theirs.append(cells["counterfactual_answer"])
    if bad:
        problems = "; ".join(
            f"{what} in {len(rows)} row(s): {', '.join(rows[:_SHOWN])}"
            + (f" and {len(rows) - _SHOWN} more" if len(rows) > _SHOWN else "")
            for what, rows in bad.items())
        raise DatasetError(
            f"{name}: {problems}; every row needs the prompt, its counterfactual and "
            "both answers as text (an empty answer is an empty string)")
    if not n_rows:
        raise DatasetError(f"{name} has no rows: collect (prompt, counterfactual, "
                           "answer, counterfactual answer) rows first")
    judged = {p.original for p in pairs}
    skipped = [t for t in unperturbed if t not in judged]
    found = CounterfactualPrompts(pairs, unperturbed=skipped, kind=kind,
                                  n_prompts=len(judged) + len(skipped))
    return CollectedAnswers(
        prompts=found, answers={p: (tuple(a), tuple(b)) for p, (a, b) in pairs.items()},
        name=name, n_rows=n_rows)
