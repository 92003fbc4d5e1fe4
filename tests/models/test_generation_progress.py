"""Generation reports its progress: `HFGenerator` each decoding step of each batch, counted
once into `sample_continuations`' line (a tiny GPT-2 built in memory, no files)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from _tiny_models import hf_word_tokenizer

from pytest_fairness.models.generators import base as generators
from pytest_fairness.runtime import progress as prog

WORDS = ["<pad>", "<unk>", "<eos>", "people", "from", "italy", "syria", "are", "good", "bad",
         "."]


@pytest.fixture(scope="module")
def tiny() -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = hf_word_tokenizer(WORDS)
    config = GPT2Config(vocab_size=len(WORDS), n_positions=32, n_embd=8, n_layer=1, n_head=2,
                        bos_token_id=2, eos_token_id=None, pad_token_id=0)  # no early stop
    torch.manual_seed(0)
    return GPT2LMHeadModel(config), tokenizer


class LiveSink:
    live = True

    def __init__(self) -> None:
        self.shown: list[str] = []

    def update(self, text: str) -> None:
        self.shown.append(text)

    def clear(self) -> None:
        pass

    def final(self, text: str) -> None:
        raise AssertionError("live")


@contextmanager
def every_step(monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveSink]:
    """Progress shown at every advance (no delay, no interval) into a `LiveSink`."""
    real = prog.progress

    def eager(total: int | None, desc: str, **kwargs: Any) -> Any:
        return real(total, desc, **{**kwargs, "delay": 0, "interval": 0})

    monkeypatch.setattr(generators, "progress", eager)
    sink = LiveSink()
    token = prog.set_sink(sink)
    try:
        yield sink
    finally:
        prog.reset_sink(token)


def test_hf_generation_moves_the_line_every_decoding_step(
    tiny: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = generators.hf_generator(tiny, max_new_tokens=4, batch_size=4,
                                        trim_unfinished=False)
    prompts = [("people from italy are", 0), ("people from syria are", 0)]
    with every_step(monkeypatch) as sink:
        samples = generators.sample_continuations(generator, prompts, 6)
    assert [len(s) for s in samples] == [6, 6]
    done = [int(m.group(1)) for m in map(
        re.compile(r"generating continuations: (\d+)/12 samples").match, sink.shown) if m]
    assert done == sorted(done)  # one line, moving forward ...
    assert len(set(done)) >= 6  # ... at each step of each batch of 4, not per call
    assert done[-1] == 12  # and each sample counted once
