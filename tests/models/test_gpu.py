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
