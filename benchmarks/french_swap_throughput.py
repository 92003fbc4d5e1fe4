"""French gender swap throughput against the English swap on comparable sentences
(issue 28: the French swap within 2x the English one per sentence).

The sentences are parallel templates, the same meaning in both languages ("The singer said
that he was happy with his new car." / "Le chanteur a dit qu'il était content de sa
nouvelle voiture."), filled with the same person nouns and adjectives, so both swaps see
sentences of about the same length (English has no gendered word in "It is raining, but
the singer is happy.", French has: one template in six). Each language is timed end to
end (its own spaCy pipeline's parse without the entity recogniser, then the swap:
`perturb.gender_swaps` for English, `perturb.languages.swap_genders(lang="fr")` for
French), and the swap alone on sentences parsed beforehand, the rules' own cost
(``*_rules_ms``): the best of five rounds in which the four timings take turns (a
change of the machine's load touches all of them), after a warm-up.

Run::

    python benchmarks/french_swap_throughput.py            # 4,000 sentences per language
    python benchmarks/french_swap_throughput.py --quick    # 800
    python benchmarks/french_swap_throughput.py --json out.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

# (English, French) templates; {n} a person noun, {a} an adjective, each given in both.
TEMPLATES = [
    ("The {n} said that he was {a} with his new car.",
     "Le {n} a dit qu'il était {a} de sa nouvelle voiture."),
    ("She is a {a} {n} and she works in Paris.",
     "Elle est une {n} {a} et elle travaille à Paris."),
    ("My brother met the {n} yesterday and found him {a}.",
     "Mon frère a rencontré le {n} hier et il était {a}."),
    ("The {n} went to the market with her sister.",
     "La {n} est allée au marché avec sa sœur."),
    ("He thinks the old {n} is very {a}.",
     "Il pense que le vieux {n} est très {a}."),
    ("It is raining, but the {n} is {a}.",
     "Il pleut, mais le {n} est {a}."),
]
NOUNS = [("dancer", "danseur", "danseuse"), ("singer", "chanteur", "chanteuse"),
         ("waiter", "serveur", "serveuse"), ("director", "directeur", "directrice"),
         ("baker", "boulanger", "boulangère"), ("musician", "musicien", "musicienne")]
ADJECTIVES = [("happy", "content", "contente"), ("tired", "fatigué", "fatiguée"),
              ("proud", "fier", "fière"), ("serious", "sérieux", "sérieuse")]


def sentences(n: int) -> tuple[list[str], list[str]]:
    english: list[str] = []
    french: list[str] = []
    for (en, fr), (noun, n_m, n_f), (adj, a_m, a_f) in itertools.cycle(
            itertools.product(TEMPLATES, NOUNS, ADJECTIVES)):
        feminine = fr.startswith(("La ", "Elle"))
        english.append(en.format(n=noun, a=adj))
        french.append(fr.format(n=n_f if feminine else n_m, a=a_f if feminine else a_m))
        if len(english) >= n:
            return english, french
    raise AssertionError("unreachable")


def interleaved(runs: int, works: list[Callable[[], object]]) -> list[float]:
    """The best time of each of `works` over `runs` rounds, the works taking turns in
    each round, so that a change in the machine's load touches them all alike."""
    best = [float("inf")] * len(works)
    for _ in range(runs):
        for k, work in enumerate(works):
            start = time.perf_counter()
            work()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="800 sentences per language")
    parser.add_argument("--n", type=int, default=None, help="sentences per language")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    n = args.n or (800 if args.quick else 4000)

    from pytest_fairness.perturb import gender_swaps, swap_doc
    from pytest_fairness.perturb.languages import get_language, swap_genders
    from pytest_fairness.perturb.languages.french import french_swap
    from pytest_fairness.resources.nlp import disabled, load

    english, french = sentences(n)
    en_nlp = load(None)
    fr_nlp = get_language("fr").nlp()
    warm_en, warm_fr = sentences(200)
    gender_swaps(warm_en, nlp=en_nlp)
    swap_genders(warm_fr, "fr", fr_nlp)

    en_swapped = gender_swaps(english, nlp=en_nlp)
    fr_swapped = swap_genders(french, "fr", fr_nlp)
    en_docs = list(en_nlp.pipe(english, batch_size=256, disable=disabled(en_nlp)))
    fr_docs = list(fr_nlp.pipe(french, batch_size=256, disable=disabled(fr_nlp)))
    en_s, fr_s, en_rules, fr_rules = interleaved(5, [
        lambda: gender_swaps(english, nlp=en_nlp),
        lambda: swap_genders(french, "fr", fr_nlp),
        lambda: [swap_doc(doc) for doc in en_docs],
        lambda: [french_swap(doc) for doc in fr_docs],
    ])
    ratio = fr_s / en_s
    figures: dict[str, object] = {
        "sentences_per_language": n,
        "english_swapped_share": round(sum(s is not None for s in en_swapped) / n, 3),
        "french_swapped_share": round(sum(s is not None for s in fr_swapped) / n, 3),
        "english_ms_per_sentence": round(1000 * en_s / n, 4),
        "french_ms_per_sentence": round(1000 * fr_s / n, 4),
        "english_rules_ms": round(1000 * en_rules / n, 4),
        "french_rules_ms": round(1000 * fr_rules / n, 4),
        "french_vs_english": round(ratio, 3),
        "goal": "french_vs_english <= 2.0",
        "goal_met": ratio <= 2.0,
    }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
