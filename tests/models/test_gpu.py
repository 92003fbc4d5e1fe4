"""The device path: adapters run batches on the model's device and hand back CPU numpy.

The CUDA tests run only where `torch.cuda.is_available()`; the CPU tests prove the same
plumbing with a model whose parameters live on the `meta` device and whose forward records
where its inputs were (and answers on the CPU, since a meta tensor holds no values).
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from _tiny_models import WordTokenizer, build_bag_of_words, build_tiny_bert

import pytest_fairness as pf
from pytest_fairness.analysis.gradients import prediction_sensitivity

HAVE_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch and transformers not installed")


@pytest.fixture
def cuda() -> None:
    """Skips the test unless a CUDA device is present; torch is imported here, when a test
    that needs it runs, not when the module is collected."""
    if not HAVE_TORCH:
        pytest.skip("torch and transformers not installed")
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device is present (torch.cuda.is_available() is False)")


needs_cuda = pytest.mark.usefixtures("cuda")

TEXTS = ["he is very good", "she was sad today", "the nurse is great", "a doctor stayed home"]


class DeviceRecorder:
    """A forward that records the device of every tensor it gets and answers zeros
    (`classes` logits per text) on the CPU."""

    def __init__(self, classes: int, wrap: bool = False) -> None:
        self.classes = classes
        self.wrap = wrap
        self.devices: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import torch

        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        self.devices += [t.device.type for t in tensors]
        n = tensors[0].shape[0]
        logits = torch.zeros((n, self.classes))
        return SimpleNamespace(logits=logits) if self.wrap else logits


# --------------------------------------------------------------------------- CPU: plumbing


@needs_torch
@pytest.mark.parametrize("as_dict", [False, True])
def test_torch_adapter_sends_inputs_to_the_model_device(as_dict: bool) -> None:
    tokenizer = WordTokenizer(as_dict=as_dict)
    module = build_bag_of_words(tokenizer.vocab_size, dict_input=as_dict).to("meta")
    recorder = DeviceRecorder(2)
    module.forward = recorder  # type: ignore[method-assign]
    model = pf.as_model(module, tokenizer=tokenizer)

    proba = model.predict_proba(TEXTS)
    assert isinstance(proba, np.ndarray)
    assert proba.dtype == np.float64
    np.testing.assert_allclose(proba, 0.5)
    assert recorder.devices
    assert set(recorder.devices) == {"meta"}

    _assert_gradient_path_stays_on_meta(model, recorder)


def _assert_gradient_path_stays_on_meta(model: Any, recorder: Any) -> None:
    """`embed` returns tensors on the model's device and `forward_from_embeddings` runs
    there."""
    embeds, mask, ids = model.embed(TEXTS)
    assert (embeds.device.type, mask.device.type, ids.device.type) == ("meta",) * 3
    recorder.devices.clear()
    model.forward_from_embeddings(embeds, mask)
    assert set(recorder.devices) == {"meta"}


@needs_torch
def test_transformers_adapter_sends_inputs_to_the_model_device(tmp_path: Path) -> None:
    tiny = build_tiny_bert(tmp_path)
    bert = tiny.model.to("meta")
    recorder = DeviceRecorder(3, wrap=True)
    bert.forward = recorder
    model = pf.as_model((bert, tiny.tokenizer))

    proba = model.predict_proba(TEXTS)
    assert isinstance(proba, np.ndarray)
    np.testing.assert_allclose(proba, 1 / 3)
    assert recorder.devices
    assert set(recorder.devices) == {"meta"}

    _assert_gradient_path_stays_on_meta(model, recorder)


def test_the_device_batch_size_follows_free_memory_and_text_length() -> None:
    from pytest_fairness.models.batching import (
        DEFAULT_BATCH_SIZE,
        DEVICE_MAX_BATCH,
        device_batch_size,
    )

    base = {"hidden": 768, "heads": 12, "intermediate": 3072}
    gib = 1 << 30
    # BERT-base, 40 GiB free, texts of 64 tokens: per token 4 x (3840 + 6144 + 1536) bytes
    assert device_batch_size(40 * gib, 64, **base) == (10 * gib) // (4 * 11_520 * 64)
    sizes = [device_batch_size(f * gib, 128, **base) for f in (1, 2, 8, 32)]
    assert sizes == sorted(sizes)  # more free memory, larger batches
    longer = [device_batch_size(8 * gib, t, **base) for t in (16, 64, 256, 512)]
    assert longer == sorted(longer, reverse=True)  # longer texts, smaller batches
    assert device_batch_size(0, 512, **base) == DEFAULT_BATCH_SIZE  # never below the default
    assert device_batch_size(10**15, 1, **base) == DEVICE_MAX_BATCH
    assert device_batch_size(8 * gib, 128, **base, value_bytes=2) >= sizes[2]  # half precision


@needs_torch
def test_a_transformer_sizes_its_batches_from_free_memory_only_on_cuda(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the CPU the default stays 64 texts a call; with the model's device reading as
    CUDA (patched: no GPU here) the size comes from the free memory and the longest text."""
    from pytest_fairness.models.batching import device_batch_size
    from pytest_fairness.models.classifiers import hf

    tiny = build_tiny_bert(tmp_path)
    model = pf.as_model((tiny.model, tiny.tokenizer), cache_size=0)
    texts = [" ".join(["good"] * (1 + i % 9)) + f" {i}" for i in range(130)]
    model.predict_proba(texts)
    assert model.stats.calls == 3  # 64 + 64 + 2, as before
    assert model._fixed_size(texts) == 64
    monkeypatch.setattr(hf, "device_of", lambda module: SimpleNamespace(type="cuda"))
    monkeypatch.setattr(hf, "free_memory", lambda device: 1 << 22)
    longest = max(len(tiny.tokenizer(t)["input_ids"]) for t in texts)
    config = tiny.model.config
    assert model._fixed_size(texts) == device_batch_size(
        1 << 22, longest, hidden=config.hidden_size, heads=config.num_attention_heads,
        intermediate=config.intermediate_size, value_bytes=4) > 64


# --------------------------------------------------------------------------- CUDA


@needs_cuda
def test_transformers_model_on_cuda_matches_cpu(tmp_path: Path) -> None:
    tiny = build_tiny_bert(tmp_path)
    on_cpu = pf.as_model((tiny.model, tiny.tokenizer))
    gpu_model = copy.deepcopy(tiny.model).to("cuda")
    on_gpu = pf.as_model((gpu_model, tiny.tokenizer))

    got = on_gpu.predict_proba(TEXTS)
    assert isinstance(got, np.ndarray)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, on_cpu.predict_proba(TEXTS), atol=1e-4)
    assert next(gpu_model.parameters()).device.type == "cuda"

    embeds, _mask, _ = on_gpu.embed(TEXTS)  # type: ignore[attr-defined]
    assert embeds.device.type == "cuda"
    gpu_p = prediction_sensitivity(on_gpu, TEXTS, "P1")
    cpu_p = prediction_sensitivity(on_cpu, TEXTS, "P1")
    assert np.all(np.isfinite(gpu_p.values))
    np.testing.assert_allclose(gpu_p.values, cpu_p.values, rtol=1e-3, atol=1e-6)


@needs_cuda
def test_torch_module_on_cuda_matches_cpu() -> None:
    tokenizer = WordTokenizer(as_dict=True)
    module = build_bag_of_words(tokenizer.vocab_size, dict_input=True)
    on_cpu = pf.as_model(module, tokenizer=tokenizer)
    on_gpu = pf.as_model(copy.deepcopy(module).to("cuda"), tokenizer=tokenizer)
    np.testing.assert_allclose(on_gpu.predict_proba(TEXTS), on_cpu.predict_proba(TEXTS), atol=1e-5)
    gpu_p = prediction_sensitivity(on_gpu, TEXTS, "P1")
    cpu_p = prediction_sensitivity(on_cpu, TEXTS, "P1")
    np.testing.assert_allclose(gpu_p.values, cpu_p.values, rtol=1e-3, atol=1e-6)


@needs_cuda
def test_fluency_scorer_on_cuda_matches_cpu() -> None:
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from pytest_fairness.resources.fluency import FluencyScorer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        TEXTS,
        vocab_size=280,
        min_frequency=1,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=64, n_embd=16, n_layer=1, n_head=2)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = GPT2LMHeadModel(config).eval()
    cpu = FluencyScorer(model, tokenizer).mean_nll(TEXTS)
    gpu = FluencyScorer(copy.deepcopy(model).to("cuda"), tokenizer).mean_nll(TEXTS)
    assert gpu.dtype == np.float64
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4)
