"""Fuzz of the text paths (issue 14, part B): sentences mixed from pronouns, names,
dictionary words and arbitrary Unicode -- lone surrogates, combining marks, joiners,
format and control characters included -- go through anchoring, the name swap, the gender
swap, a dictionary kind and PSA. Each call either works, with every span exact (the text
outside the spans unchanged, no span cutting a grapheme cluster), or raises
`ConfigurationError`; a text spaCy cannot parse is skipped and counted, never a spaCy
traceback. Examples are bounded so the module runs in seconds (spaCy loads once)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

import pytest
from _bounded import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import Corpus, perturb
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb import DictionaryKind
from pytest_fairness.types import Perturbation, Span

#: Seconds one example may take before it counts as a hang (a first spaCy parse included).
LIMIT = 30.0

WORDS = ["she", "She", "he", "He", "her", "his", "him", "hers", "herself", "they",
         "Alice", "Bob", "doctor", "nurse", "king", "queen", "man", "woman", "said", "went",
         "home", "the", "a", "I", "saw"]
SEPARATORS = [" ", " ", " ", ".", ",", "'s", "!", "\n", "\t"]
ODD = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone surrogates
    st.characters(categories=["Mn", "Me", "Mc"]),  # combining marks
    st.sampled_from(["\u200d", "\u200c", "\u200b", "\ufe0f", "\u00ad", "\u202e", "\x1b",
                     "\x00", "\x02", "\x03", "\u2028", "\U0001f3fd", "\u0301"]),
    st.characters(),  # anything else
)
#: What follows a word: mostly nothing, sometimes an odd character (a mark that joins
#: the word's last letter, a joiner, a surrogate, ...).
DECOR = st.integers(0, 5).flatmap(lambda k: ODD if k == 0 else st.just(""))
#: A sentence: words, each perhaps decorated, with separators between them (so most
#: examples hold anchors, names and dictionary words to replace), or arbitrary text.
SENTENCES = st.one_of(
    st.lists(st.tuples(DECOR, st.sampled_from(WORDS), DECOR, st.sampled_from(SEPARATORS)),
             min_size=1, max_size=8).map(lambda parts: "".join("".join(p) for p in parts)),
    st.text(st.one_of(ODD, st.sampled_from(" .,!\n")), max_size=12),
)

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _model(texts: Sequence[str]) -> list[float]:
    """A cheap deterministic score in [0, 1]."""
    return [(sum(map(ord, t)) % 97) / 96 for t in texts]


def splits_cluster(text: str, index: int) -> bool:
    """The test's own oracle (not the package's): a cut before `index` splits a grapheme
    cluster when the character there joins the one before it -- a combining mark, a
    zero-width (non-)joiner, or the character after a zero-width joiner (UAX #29, GB9,
    GB11)."""
    if not 0 < index < len(text):
        return False
    here, before = text[index], text[index - 1]
    return (unicodedata.category(here) in ("Mn", "Mc", "Me") or here in "\u200c\u200d"
            or before == "\u200d")


def assert_span_exact(text: str, span: Span) -> None:
    assert 0 <= span.start <= span.end <= len(text)
    assert text[span.start:span.end] == span.text
    assert not splits_cluster(text, span.start), (text, span)
    assert not splits_cluster(text, span.end), (text, span)


def assert_exact(p: Perturbation) -> None:
    """Every span exact in its text, and the perturbed text is the original with each
    original span replaced by its perturbed span: nothing else changed."""
    assert len(p.original_spans) == len(p.perturbed_spans)
    rebuilt, at = [], 0
    for o, q in zip(p.original_spans, p.perturbed_spans, strict=True):
        assert_span_exact(p.original, o)
        assert_span_exact(p.perturbed, q)
        assert o.start >= at, "spans in order, not overlapping"
        rebuilt += [p.original[at:o.start], q.text]
        at = o.end
    rebuilt.append(p.original[at:])
    assert "".join(rebuilt) == p.perturbed


def works_or_refused(call: Any) -> Any:
    """`call()`'s value, or None when it raised `ConfigurationError` (with a message);
    any other exception fails the example; a hang fails it by the time limit."""
    with time_limit(LIMIT):
        try:
            return call()
        except ConfigurationError as exc:
            message = str(exc)
    assert message.strip(), "a named error says what is wrong"
    return None


def unparsable(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@FUZZ
@given(SENTENCES)
def test_anchors_and_name_swaps_are_exact_on_any_text(text: str) -> None:
    anchors = works_or_refused(lambda: Corpus([text]).anchored(balance_gender=False))
    if unparsable(text):
        assert not anchors, "a text spaCy cannot parse has no anchors"
        return
    for anchor in anchors or []:
        assert anchor.text == text
        assert_span_exact(text, anchor.span)
    if anchors:
        found = works_or_refused(lambda: perturb.names(anchors, ["Alice", "Zoë"]))
        for p in found or []:
            assert p.original == text
            assert_exact(p)


@FUZZ
@given(SENTENCES)
def test_the_gender_swap_is_exact_or_a_named_error_on_any_text(text: str) -> None:
    found = works_or_refused(lambda: perturb.gender_swap(text))
    if unparsable(text):
        assert found is None
        with pytest.raises(ConfigurationError, match="surrogate"):
            perturb.gender_swap(text)
        return
    if found is not None:
        assert found.original == text
        assert_exact(found)


KIND = DictionaryKind("fuzz-professions", [("doctor", "nurse"), ("king", "queen"),
                                           ("man", "woman")])


@FUZZ
@given(SENTENCES)
def test_a_dictionary_kind_is_exact_on_any_text(text: str) -> None:
    found = works_or_refused(lambda: KIND.perturb(text))
    for p in found or []:
        assert p.original == text
        assert_exact(p)


@settings(FUZZ, max_examples=25)
@given(st.lists(SENTENCES, min_size=1, max_size=3))
def test_psa_counts_what_it_skips_on_any_text(extra: list[str]) -> None:
    from pytest_fairness.checks.psa import psa_run

    corpus = ["She went home.", "He went home.", *extra]
    model = pf.as_model(_model)
    run = works_or_refused(lambda: psa_run(model, corpus, ["Alice", "Bob"],
                                           balance_gender=False))
    if run is None:
        return
    assert run.n_unparsable == sum(unparsable(t) for t in corpus)
    result = run.result
    assert result.n_sentences >= 1
    for shift in result.score_sens.values():  # a mean signed shift of scores in [0, 1]
        assert -1.0 <= shift <= 1.0
