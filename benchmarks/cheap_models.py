"""Overhead of `as_model` on cheap models (issue 16): scoring 40,000 distinct template
sentences through the adapter with its defaults (cache on, batch size chosen by the
adapter) against one raw call of the model on the same list, measured side by side in one
run; and PSA of 1,000 real sentences x 40 names on the scikit-learn model against spaCy's
parse of those sentences plus one raw call on every text PSA scored (goal <= 1.3).

Two real models:

- alt-profanity-check, a scikit-learn pipeline (``profanity_check.predict_prob``), passed
  to `as_model` as the fitted estimator (the "whole" batching policy: one call);
- VADER (``vaderSentiment``), a lexicon model wrapped in a plain callable (the
  "sized" policy: batches sized from the texts alone, `models.batching.size_for`).

Each arm runs `--repeats` times, alternating raw and adapter, with a fresh adapter each
time (no cache carried over); the figure is the ratio of medians. Goal: at most 1.10.

Run::

    python benchmarks/cheap_models.py            # 40,000 texts, 5 repeats
    python benchmarks/cheap_models.py --n 5000 --repeats 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

GOAL = 1.10
#: PSA on the scikit-learn model against spaCy's parse plus one raw model call.
PSA_GOAL = 1.3


def template_sentences(n: int) -> list[str]:
    """`n` distinct short sentences from templates x identity terms x adjectives."""
    templates = ["{} is a {} person.", "I met a {} {} yesterday.", "The {} neighbour was {}.",
                 "My {} friend is really {}.", "Everyone says {} people are {}."]
    terms = ["gay", "straight", "muslim", "christian", "jewish", "black", "white", "asian",
             "old", "young", "deaf", "blind", "american", "mexican", "female", "male"]
    adjectives = ["kind", "nice", "awful", "smart", "lazy", "friendly", "rude", "honest",
                  "stupid", "brave", "boring", "funny", "quiet", "loud", "careful"]
    out: list[str] = []
    k = 0
    while len(out) < n:
        for t in templates:
            for a in terms:
                for b in adjectives:
                    out.append(t.format(a, b) + ("" if k == 0 else f" ({k})"))
                    if len(out) == n:
                        return out
        k += 1
    return out


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(name: str, raw: Callable[[list[str]], Any], adapted: Callable[[], Any],
            texts: list[str], repeats: int) -> dict[str, Any]:
    raw(texts[:100])  # warm both paths (imports, first-call set-up)
    adapted().score(texts[:100])
    raws, ours = [], []
    for _ in range(repeats):
        raws.append(timed(lambda: raw(texts)))
        model = adapted()
        ours.append(timed(lambda m=model: m.score(texts)))
    ratio = statistics.median(ours) / statistics.median(raws)
    return {"model": name, "texts": len(texts), "raw_s": statistics.median(raws),
            "as_model_s": statistics.median(ours), "ratio": ratio, "goal": GOAL,
            "calls": model.stats.calls}


def psa_arm(pipeline: Any, n_sentences: int, n_names: int, repeats: int) -> dict[str, Any]:
    """PSA of `n_sentences` real pronoun-anchored sentences x `n_names` names on the
    scikit-learn pipeline, against what it cannot avoid: spaCy's parse of the same
    sentences (the pipeline PSA uses, full) plus one raw call of the model on every text
    PSA scored. Each side `repeats` times, alternating; medians."""
    from _sentences import real_sentences

    import pytest_fairness as pf
    from pytest_fairness.resources import nlp

    corpus = pf.Corpus(real_sentences(), name="oanc")
    texts = [a.text for a in corpus.anchored("pronoun", limit=n_sentences)]
    names = pf.names.popular("en", n=n_names)
    seen: list[str] = []

    class Recording:  # the pipeline, recording what PSA sends
        classes_ = pipeline.classes_

        def predict_proba(self, batch: list[str]) -> Any:
            seen.extend(batch)
            return pipeline.predict_proba(batch)

    pf.psa(pf.as_model(Recording()), texts, names)  # warm-up; records the texts scored
    scored = list(dict.fromkeys(seen))
    language = nlp.load()
    ours, floor = [], []
    for _ in range(repeats):
        ours.append(timed(lambda: pf.psa(pf.as_model(pipeline), list(texts), names)))
        parse = timed(lambda: list(language.pipe(texts, batch_size=256)))
        floor.append(parse + timed(lambda: pipeline.predict_proba(scored)))
    return {"sentences": len(texts), "names": len(names), "texts_scored": len(scored),
            "psa_s": statistics.median(ours), "parse_plus_raw_s": statistics.median(floor),
            "ratio": statistics.median(ours) / statistics.median(floor), "goal": PSA_GOAL}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="5,000 texts, 3 repeats")
    args = parser.parse_args()
    if args.quick:
        args.n, args.repeats = 5_000, 3

    import profanity_check
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    import pytest_fairness as pf

    texts = template_sentences(args.n)
    assert len(set(texts)) == len(texts)
    vader = SentimentIntensityAnalyzer()

    def vader_scores(batch: list[str]) -> list[float]:
        return [vader.polarity_scores(t)["compound"] for t in batch]

    estimator = profanity_check.profanity_check.model
    vectorizer = profanity_check.profanity_check.vectorizer
    from sklearn.pipeline import make_pipeline

    pipeline = make_pipeline(vectorizer, estimator)
    rows = [
        measure("alt-profanity-check (scikit-learn pipeline)", pipeline.predict_proba,
                lambda: pf.as_model(pipeline), texts, args.repeats),
        measure("VADER (lexicon, callable)", vader_scores,
                lambda: pf.as_model(vader_scores, score_range=(-1.0, 1.0)), texts,
                args.repeats),
    ]
    psa = psa_arm(pipeline, 200 if args.quick else 1000, 40, 3)
    load = os.getloadavg()[0]
    print(f"cheap models: {len(texts):,} distinct texts, {os.cpu_count()} cores, "
          f"load {load:.2f}")
    for r in rows:
        print(f"  {r['model']}: raw {r['raw_s']:.3f} s, as_model {r['as_model_s']:.3f} s "
              f"({r['calls']} calls) -> ratio {r['ratio']:.3f} (goal <= {GOAL})")
    print(f"  PSA {psa['sentences']:,} sentences x {psa['names']} names "
          f"({psa['texts_scored']:,} texts) on the scikit-learn pipeline: {psa['psa_s']:.2f} s "
          f"against parse + raw call {psa['parse_plus_raw_s']:.2f} s -> ratio "
          f"{psa['ratio']:.3f} (goal <= {PSA_GOAL})")
    if args.json:  # flat figures, as benchmarks/run.py tabulates them
        figures: dict[str, Any] = {"texts": len(texts), "load": round(load, 2)}
        for key, r in zip(("sklearn", "vader"), rows, strict=True):
            figures[f"{key}_raw_s"] = r["raw_s"]
            figures[f"{key}_as_model_s"] = r["as_model_s"]
            figures[f"{key}_ratio"] = r["ratio"]
        figures["goal"] = GOAL
        figures["psa_s"] = psa["psa_s"]
        figures["psa_parse_plus_raw_s"] = psa["parse_plus_raw_s"]
        figures["psa_ratio"] = psa["ratio"]
        figures["psa_goal"] = PSA_GOAL
        figures["goal_met"] = (all(r["ratio"] <= GOAL for r in rows)
                               and psa["ratio"] <= PSA_GOAL)
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
