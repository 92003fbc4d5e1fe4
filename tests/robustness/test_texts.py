"""Bad input to the text layers (issue 14, part B): corpora, anchors, perturbations, PSA.

Every family of the issue in this area, through the public API (and real pytest runs):

- texts spaCy cannot parse (a lone surrogate, more characters than its max_length): a
  named error on the perturbation paths, skipped and counted on the corpus paths
  (`Corpus.anchored`, PSA, the strategies' pools), never a spaCy traceback;
- word boundaries on grapheme clusters: anchors, the gender swap and dictionary kinds
  never cut a combining mark, a joiner or a variation selector from its letter;
- numeric and flag options given as strings, floats, NaN, infinities, bools, bytes, ...;
- None, bytes and other non-texts where texts are expected;
- corpus files that are not valid in their encoding: the file, the line and the fix.

Each refused case asserts the exception type and that the message names the option or
input, under a time limit (`tests/robustness/conftest.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _bounded import refused, time_limit
from hypothesis import find

import pytest_fairness as pf
from pytest_fairness import perturb
from pytest_fairness import strategies as fst
from pytest_fairness.checks.psa import psa, psa_run
from pytest_fairness.corpus import Corpus
from pytest_fairness.errors import ConfigurationError, FairnessViolation
from pytest_fairness.perturb import DictionaryKind, GenderSwapKind, Mutator, Template
from pytest_fairness.resources.embeddings import from_mapping
from pytest_fairness.resources.knowledge import InMemoryGraph
from pytest_fairness.types import Anchor, Span

pytestmark = pytest.mark.slow  # loads the spaCy pipeline





NAN, INF = float("nan"), float("inf")

#: Texts spaCy cannot parse: lone surrogates anywhere, and more than 1,000,000
#: characters in a few words (E088), with the pronoun that needs a parse ("her") or not.
SURROGATES = ["I saw her \ud800 book.", "\udfff He left.", "He left \udc80", "his \ud83d car"]
HUGE_HER = "her " + "x" * 1_000_001
HUGE_HE = "he " + "y" * 1_000_001
UNPARSABLE = [*SURROGATES, HUGE_HER]

#: Values no count may be; values no number may be; values no flag may be.
NOT_AN_INT: list[Any] = ["50", "x", "", 2.5, 2.0, NAN, INF, -INF, True, b"5", 1j, [5], None,
                         object()]
NOT_A_NUMBER: list[Any] = ["0.5", "x", "", NAN, INF, -INF, True, b"1", 1j, [0.5], object()]
NOT_A_FLAG: list[Any] = ["yes", "false", 1, 0, None, b"1", [True]]
#: What is not a text.
NOT_A_TEXT: list[Any] = [None, b"He sat.", bytearray(b"He sat."), 5, 2.5, ["He sat."], object()]

TOY_GRAPH = InMemoryGraph([("male", "gender", 1.0), ("female", "gender", 1.0),
                           ("king", "person", 2.0), ("queen", "person", 2.0),
                           ("doctor", "person", 2.0)])
TOY_VECTORS = from_mapping({"male": [1.0, 0.0, 0.0], "female": [0.0, 1.0, 0.0],
                            "king": [1.0, 0.0, 1.0], "queen": [0.0, 1.0, 1.0],
                            "doctor": [0.5, 0.5, 1.0]})
BALANCED = ["She went home.", "He went home.", "I like her car.", "I like his car."]


def _id(value: Any) -> str:
    """A stable test id (an object's repr has its address: xdist workers would disagree)."""
    if type(value) is object:
        return "object"
    return ascii(value)[:24]


def model() -> Any:
    """A new cheap model each time (a session keeps predictions per model object)."""
    return pf.as_model(lambda texts: [min(len(t), 20) / 20 for t in texts])


def anchor_of(text: str) -> Anchor:
    return Corpus([text]).anchored(balance_gender=False)[0]


@pytest.fixture(scope="module")
def nlp() -> Any:
    from pytest_fairness.resources.nlp import load

    return load()


# ------------------------------------------------------------------ unparsable texts


def _unparsable_calls(text: str) -> list[tuple[str, Callable[[], object], tuple[str, ...]]]:
    """(label, call, names its error must name) for each perturbation path given `text`."""
    why = "cannot be parsed by spaCy"
    return [
        ("gender_swap", lambda: perturb.gender_swap(text), ("text", why)),
        ("gender_swap neutral", lambda: perturb.gender_swap(text, "neutral"), ("text", why)),
        ("gender_swap names", lambda: perturb.gender_swap(text, swap_names=True),
         ("text", why)),
        ("gender_swaps", lambda: perturb.gender_swaps(["He left.", text]), ("texts[1]", why)),
        ("GenderSwapKind", lambda: GenderSwapKind()(text), ("texts[0]", why)),
        ("kind perturb_many", lambda: perturb.get_kind("gender_swap").perturb_many(
            ["He left.", "She left.", text], batch_size=2), ("texts[2]", why)),
        ("mutations", lambda: perturb.mutations(text, "gender", graph=TOY_GRAPH,
                                                vectors=TOY_VECTORS), ("text", why)),
        ("Mutator.mutate_many", lambda: list(Mutator("gender", graph=TOY_GRAPH,
                                                     vectors=TOY_VECTORS).mutate_many(
            ["The king left.", text], batch_size=1)), ("texts[1]", why)),
        ("mutations_many", lambda: perturb.mutations_many(
            [text], "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS), ("texts[0]", why)),
        ("analogy", lambda: perturb.analogy(text, "gender", graph=TOY_GRAPH,
                                            vectors=TOY_VECTORS), ("text", why)),
        ("active", lambda: perturb.active(text, "gender", graph=TOY_GRAPH), ("text", why)),
        ("assert_counterfactual_fair", lambda: pf.assert_counterfactual_fair(
            model(), ["He left.", text], max_gap=0.5), ("texts[1]", why)),
        ("assert_eps_k_fair", lambda: pf.assert_eps_k_fair(
            model(), text, eps=0.1, k=1, attribute="gender_swap"), (why,)),
    ]


@pytest.mark.parametrize(
    ("text", "label", "call", "names"),
    [
        pytest.param(text, label, call, names, id=f"{label}-{_id(text)}")
        for text in UNPARSABLE
        for label, call, names in _unparsable_calls(text)
    ],
)
def test_a_text_spacy_cannot_parse_is_a_named_error_on_every_perturbation_path(
    text: str, label: str, call: Callable[[], object], names: tuple[str, ...]
) -> None:
    message = refused(call, ConfigurationError, *names)
    if text in SURROGATES:
        assert "lone surrogate" in message
        assert "encode('utf-8', 'replace')" in message
    else:
        assert "max_length" in message
        assert f"{len(text):,} characters" in message


@pytest.mark.parametrize("kind", ["pronoun", "person"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("balance", [True, False])
@pytest.mark.parametrize("one_shot", [False, True])
def test_anchoring_skips_and_counts_the_texts_spacy_cannot_parse(
    kind: str, stream: bool, balance: bool, one_shot: bool
) -> None:
    texts = [*BALANCED, *SURROGATES, HUGE_HE, HUGE_HER, "Mary met the doctor."]
    corpus = Corpus(iter(texts) if one_shot else texts)
    with time_limit():
        if stream:
            found = corpus.iter_anchored(kind, balance_gender=balance)
            anchors = list(found)
            report = found.report
        else:
            anchors = corpus.anchored(kind, balance_gender=balance)
            report = anchors.report
    assert report is not None
    assert report.unparsable == 6
    assert dict(report.unparsable_reasons) == {
        "a lone surrogate": 4, "more characters than spaCy's max_length": 2}
    assert report.seen == len(texts)
    assert report.seen == report.too_long + report.unparsable + report.no_anchor + report.anchored
    assert "6 skipped because spaCy cannot parse them (4 with a lone surrogate" in (
        report.summary())
    assert anchors
    for anchor in anchors:
        assert anchor.text in BALANCED or anchor.text == "Mary met the doctor."
        assert anchor.text[anchor.span.start : anchor.span.end] == anchor.span.text


def test_a_corpus_of_only_unparsable_texts_says_so_in_its_error() -> None:
    message = refused(lambda: Corpus(UNPARSABLE).anchored(), ConfigurationError,
                      "no pronoun anchor", "5 skipped because spaCy cannot parse them")
    assert "4 with a lone surrogate" in message


def test_psa_counts_the_texts_it_skips_and_says_so_in_a_failure() -> None:
    texts = [*BALANCED, *SURROGATES, HUGE_HER]
    with time_limit():
        run = psa_run(model(), texts, ["Alice", "Bob"])
    assert run.n_unparsable == 5
    assert dict(run.unparsable_reasons)["a lone surrogate"] == 4
    unfair = pf.as_model(lambda ts: [0.9 if "Alice" in t else 0.1 for t in ts])
    with time_limit(), pytest.raises(FairnessViolation) as info:
        pf.assert_scoresens_below(unfair, texts, ["Alice", "Bob"], 0.01)
    assert "5 corpus text(s) spaCy cannot parse (4 with a lone surrogate, 1 with more " \
           "characters than spaCy's max_length) skipped" in str(info.value)


def test_psa_of_unparsable_texts_only_is_a_named_error() -> None:
    refused(lambda: psa(model(), UNPARSABLE, ["Alice", "Bob"], balance_gender=False),
            ConfigurationError, "no pronoun anchor", "spaCy cannot parse")


@pytest.mark.parametrize("build", [
    pytest.param(lambda c: fst.gender_counterfactuals(c), id="gender_counterfactuals"),
    pytest.param(lambda c: fst.mutations(c, "gender_swap"), id="mutations"),
    pytest.param(lambda c: fst.anchored_sentences(c), id="anchored_sentences"),
    pytest.param(lambda c: fst.name_perturbations(c, ["Alice"]), id="name_perturbations"),
])
def test_strategy_pools_skip_texts_spacy_cannot_parse(build: Callable[[Any], Any]) -> None:
    with time_limit():
        strategy = build([*SURROGATES, "She went home.", "He went home.", HUGE_HER])
        strategy.validate()
        example = find(strategy, lambda _: True)
    original = example.original if hasattr(example, "original") else example.text
    assert original in ("She went home.", "He went home.")
    message = refused(lambda: build(SURROGATES).validate(), ConfigurationError,
                      "nothing to draw")
    assert "spaCy cannot parse" in message


# ------------------------------------------------------------------- grapheme clusters


@pytest.mark.parametrize(
    ("text", "word", "start"),
    [
        ("she\u0301 said", None, None),  # a combining acute: the word is "shé"
        ("s\u200dhe said", None, None),  # a zero-width joiner inside "s?he"
        ("s\u200che said", None, None),  # a zero-width non-joiner
        ("he\u200d said", None, None),
        ("he\u200c said", None, None),
        ("he\ufe0f said", None, None),  # a variation selector
        ("he\U000e0100 said", None, None),  # a supplementary variation selector
        ("he\U0001f3fb said", None, None),  # an emoji skin-tone modifier
        ("x\u0301he said", None, None),  # "x\u0301" and "he" are one word
        ("he\u00adllo there", None, None),  # a soft hyphen inside "hello"
        ("HE\u0308 left", None, None),
        ("she\u0301 and he said", "he", 9),
        ("s\u200dhe and she said", "she", 9),
        ("I saw hers\u0301 and her book", "her", 16),
        ("he\u200b said", "he", 0),  # a zero-width space separates words
        ("\u200dhe said", "he", 1),  # a joiner with no letter before it joins nothing
        ("He said \u0301", "He", 0),
        ("(she) left", "she", 1),
    ],
)
def test_anchors_are_whole_words_on_grapheme_boundaries(
    text: str, word: str | None, start: int | None
) -> None:
    corpus = Corpus([text])
    if word is None:
        refused(lambda: corpus.anchored(balance_gender=False), ConfigurationError,
                "no pronoun anchor")
        return
    with time_limit():
        (anchor,) = corpus.anchored(balance_gender=False)
    assert (anchor.span.text, anchor.span.start) == (word, start)


def test_a_name_replaces_the_whole_anchor_and_leaves_the_accented_word() -> None:
    (p,) = perturb.names([anchor_of("she\u0301 and he said")], ["Alex"])
    assert p.perturbed == "she\u0301 and Alex said"


@pytest.mark.parametrize(
    ("words", "spaces", "expected"),
    [
        (["s\u200d", "he", "said"], [False, True, False], None),
        (["she", "\u0301", "said"], [False, True, False], None),
        (["the", "wife", "\u200d", "left"], [True, False, True, False], None),
        (["x", "\u0301", "man", "left"], [False, False, True, False], None),
        (["she", "said"], [True, False], "he said"),
        (["the", "wife", "\u200b", "left"], [True, False, True, False],
         "the husband\u200b left"),
    ],
)
def test_the_gender_swap_never_swaps_a_token_cut_from_its_grapheme_cluster(
    nlp: Any, words: list[str], spaces: list[bool], expected: str | None
) -> None:
    from spacy.tokens import Doc

    doc = Doc(nlp.vocab, words=words, spaces=spaces)
    swapped = perturb.swap_doc(doc)
    assert (None if swapped is None else swapped.perturbed) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x\u200dchurch", None),
        ("church\u200d bells", None),
        ("church\u200cgoer", None),
        ("church\u00adgoer", None),
        ("the church\u0301", None),
        ("the church\ufe0f", None),
        ("a\u00adchurch", None),
        ("\u00adchurch", "\u00admosque"),
        ("the church\u200b bells", "the mosque\u200b bells"),
        ("the church's bells", "the mosque's bells"),
    ],
)
@pytest.mark.parametrize("pairs", [False, True])
def test_dictionary_kinds_match_whole_words_on_grapheme_boundaries(
    text: str, expected: str | None, pairs: bool
) -> None:
    entries: Any = [("church", "mosque")] if pairs else {"church": ["mosque"]}
    found = DictionaryKind("faith", entries).perturb(text)
    assert [p.perturbed for p in found] == ([] if expected is None else [expected])


# ------------------------------------------------------------------------- options


def _option_cases() -> list[Any]:
    """(label, call with the bad value, the option's name) for each numeric or flag
    option of the text layers, with each wrong kind of value."""
    corpus = Corpus(BALANCED)
    cases: list[Any] = []

    def add(label: str, values: list[Any], make: Callable[[Any], object], name: str) -> None:
        for value in values:
            cases.append(pytest.param(make, value, name, id=f"{label}={_id(value)}"))

    counts = [*NOT_AN_INT, 0, -1]
    add("anchored.max_words", counts, lambda v: corpus.anchored(max_words=v), "max_words")
    add("anchored.limit", [x for x in counts if x is not None],
        lambda v: corpus.anchored(limit=v), "limit")
    add("anchored.batch_size", counts, lambda v: corpus.anchored(batch_size=v), "batch_size")
    add("anchored.seed", [x for x in NOT_AN_INT if x is not None],
        lambda v: corpus.anchored(seed=v), "seed")
    add("anchored.balance_gender", NOT_A_FLAG, lambda v: corpus.anchored(balance_gender=v),
        "balance_gender")
    add("anchored.kind", [None, 5, ["pronoun"], "noun", b"pronoun"],
        lambda v: corpus.anchored(v), "kind")
    add("anchored.nlp", [5, b"en", "", ["en_core_web_sm"]], lambda v: corpus.anchored(nlp=v),
        "nlp")
    add("iter_anchored.max_words", counts, lambda v: corpus.iter_anchored(max_words=v),
        "max_words")
    add("iter_anchored.limit", [x for x in counts if x is not None],
        lambda v: corpus.iter_anchored(limit=v), "limit")
    add("iter_anchored.balance_gender", NOT_A_FLAG,
        lambda v: corpus.iter_anchored(balance_gender=v), "balance_gender")
    add("sample.n", [x for x in NOT_AN_INT if x is not None] + [-1, -(10**20)],
        lambda v: corpus.sample(v), "n")
    add("sample.seed", ["1", 1.5, NAN, True, b"1"], lambda v: corpus.sample(2, seed=v), "seed")

    names = ["Alice", "Bob"]
    add("psa.thresholds", [[-1], [2], [], "abc", b"ab", [NAN], [INF], ["0.5"], [True], 5,
                           [0.5, -0.01], [None]],
        lambda v: psa(model(), BALANCED, names, thresholds=v), "thresholds")
    add("psa.score_range", [(1, 0), (0, 0), ("a", "b"), (0, 1, 2), "01", (NAN, 1), (0, INF),
                            5, (None, 1)],
        lambda v: psa(model(), BALANCED, names, score_range=v), "score_range")
    add("psa.max_words", counts, lambda v: psa(model(), BALANCED, names, max_words=v),
        "max_words")
    add("psa.chunk_size", counts, lambda v: psa(model(), BALANCED, names, chunk_size=v),
        "chunk_size")
    add("psa.seed", ["1", 1.5, NAN, True], lambda v: psa(model(), BALANCED, names, seed=v),
        "seed")
    add("psa.kind", [None, "noun", 5, ["pronoun"]],
        lambda v: psa(model(), BALANCED, names, kind=v), "kind")
    add("psa.balance_gender", NOT_A_FLAG,
        lambda v: psa(model(), BALANCED, names, balance_gender=v), "balance_gender")
    add("psa.keep_scores", NOT_A_FLAG,
        lambda v: psa(model(), BALANCED, names, keep_scores=v), "keep_scores")
    add("psa_run.threshold", [*NOT_A_NUMBER, -0.5, 1.5],
        lambda v: psa_run(model(), BALANCED, names, threshold=v), "threshold")
    add("psa_run.top_n", counts, lambda v: psa_run(model(), BALANCED, names, top_n=v),
        "top_n")
    add("psa_run.max_abs", [*NOT_A_NUMBER, -0.1],
        lambda v: psa_run(model(), BALANCED, names, max_abs=v), "max_abs")
    add("psa_run.keep_anchors", NOT_A_FLAG,
        lambda v: psa_run(model(), BALANCED, names, keep_anchors=v), "keep_anchors")
    add("assert_scoresens_below.max_labeldist", [2, 1.5, -0.1, NAN, INF, "0.5", True],
        lambda v: pf.assert_scoresens_below(model(), BALANCED, names, 0.5, max_labeldist=v),
        "max_labeldist")
    add("assert_scoresens_below.threshold", ["x", NAN, INF, True, b"1"],
        lambda v: pf.assert_scoresens_below(model(), BALANCED, names, 0.5, threshold=v),
        "threshold")
    add("assert_labeldist_below.max_labeldist", [2, -1, NAN, "0.1"],
        lambda v: pf.assert_labeldist_below(model(), BALANCED, names, v), "max_labeldist")

    add("gender_swaps.batch_size", counts,
        lambda v: perturb.gender_swaps(["He left."], batch_size=v), "batch_size")
    add("gender_swap.target", [None, 5, "female", b"neutral", ["opposite"]],
        lambda v: perturb.gender_swap("He left.", v), "target")
    add("gender_swap.swap_names", ["yes", 1, ["James"]],
        lambda v: perturb.gender_swap("He left.", swap_names=v), "swap_names")
    add("perturb_many.batch_size", counts,
        lambda v: GenderSwapKind().perturb_many(["He left."], batch_size=v), "batch_size")
    add("Mutator.candidates", counts,
        lambda v: Mutator("gender", graph=TOY_GRAPH, vectors=TOY_VECTORS, candidates=v),
        "candidates")
    add("Mutator.min_ratio", [*NOT_A_NUMBER, -0.5],
        lambda v: Mutator("gender", graph=TOY_GRAPH, vectors=TOY_VECTORS, min_ratio=v),
        "min_ratio")
    add("Mutator.attribute", [None, "", 5, b"gender"],
        lambda v: Mutator(v, graph=TOY_GRAPH, vectors=TOY_VECTORS), "attribute")
    add("mutations_many.batch_size", counts,
        lambda v: perturb.mutations_many(["The king left."], "gender", graph=TOY_GRAPH,
                                         vectors=TOY_VECTORS, batch_size=v), "batch_size")
    add("MutationsKind.candidates", counts,
        lambda v: perturb.MutationsKind("gender", candidates=v), "candidates")

    add("fst.anchored_sentences.max_words", counts,
        lambda v: fst.anchored_sentences(BALANCED, max_words=v), "max_words")
    add("fst.anchored_sentences.limit", [x for x in counts if x is not None],
        lambda v: fst.anchored_sentences(BALANCED, limit=v), "limit")
    add("fst.anchored_sentences.balance_gender", NOT_A_FLAG,
        lambda v: fst.anchored_sentences(BALANCED, balance_gender=v), "balance_gender")
    add("fst.anchored_sentences.seed", ["1", 1.5, NAN, True],
        lambda v: fst.anchored_sentences(BALANCED, seed=v), "seed")
    add("fst.anchored_sentences.nlp", [5, "", b"en"],
        lambda v: fst.anchored_sentences(BALANCED, nlp=v), "nlp")
    add("fst.anchored_sentences.kind", [None, 5, ["pronoun"]],
        lambda v: fst.anchored_sentences(BALANCED, kind=v), "kind")
    add("fst.names.n", [x for x in counts if x is not None], lambda v: fst.names(n=v), "n")
    add("fst.names.clean", NOT_A_FLAG, lambda v: fst.names(clean=v), "clean")
    add("fst.name_perturbations.max_names", [x for x in counts if x is not None],
        lambda v: fst.name_perturbations(BALANCED, names, max_names=v), "max_names")
    add("fst.name_perturbations.subset", NOT_A_FLAG,
        lambda v: fst.name_perturbations(BALANCED, names, subset=v), "subset")
    add("fst.gender_counterfactuals.max_words", counts,
        lambda v: fst.gender_counterfactuals(BALANCED, max_words=v), "max_words")
    add("fst.gender_counterfactuals.target", [None, 5, ["opposite"]],
        lambda v: fst.gender_counterfactuals(BALANCED, v), "target")
    add("fst.mutations.candidates", counts,
        lambda v: fst.mutations(BALANCED, "gender", candidates=v), "candidates")
    add("fst.mutations.min_ratio", [*NOT_A_NUMBER, -1],
        lambda v: fst.mutations(BALANCED, "gender", min_ratio=v), "min_ratio")
    add("fst.mutations.subset", NOT_A_FLAG,
        lambda v: fst.mutations(BALANCED, "gender", subset=v), "subset")
    add("fst.template_fills.subset", NOT_A_FLAG,
        lambda v: fst.template_fills("country", subset=v), "subset")
    return cases


@pytest.mark.parametrize(("make", "value", "name"), _option_cases())
def test_a_bad_option_is_refused_by_name(
    make: Callable[[Any], object], value: Any, name: str
) -> None:
    refused(lambda: make(value), ConfigurationError, name)


def test_a_refused_count_says_the_fix() -> None:
    corpus = Corpus(BALANCED)
    assert "pass max_words=50" in refused(lambda: corpus.anchored(max_words="50"),
                                          ConfigurationError, "max_words")
    assert "e.g. limit=2" in refused(lambda: corpus.anchored(limit=2.5), ConfigurationError,
                                     "limit")
    assert "pass n=3" in refused(lambda: corpus.sample("3"), ConfigurationError, "n")
    assert "lowest score first" in refused(
        lambda: psa(model(), BALANCED, ["A", "B"], score_range=(1, 0)), ConfigurationError,
        "score_range")


def test_psa_score_range_message_no_longer_talks_about_the_threshold() -> None:
    message = refused(lambda: psa(model(), BALANCED, ["Alice"], score_range=(1, 0)),
                      ConfigurationError, "score_range=(1, 0)")
    assert "threshold" not in message


@pytest.mark.parametrize(
    ("names", "fragment"),
    [
        ([], "names is empty"),
        (["Alice", "Alice"], "repeated: ['Alice']"),
        (["Alice", " Alice "], "repeated: ['Alice']"),
        ("Alice", "'Alice'"),
        ([None], "non-empty strings"),
        ([b"Alice"], "non-empty strings"),
        ([""], "non-empty strings"),
        (["  "], "non-empty strings"),
        (5, "names must be a list"),
        (b"Alice", "names must be a list"),
    ],
    ids=_id,
)
@pytest.mark.parametrize("call", [
    pytest.param(lambda n: psa(model(), BALANCED, n), id="psa"),
    pytest.param(lambda n: pf.assert_scoresens_below(model(), BALANCED, n, 0.5),
                 id="assert_scoresens_below"),
    pytest.param(lambda n: perturb.names([anchor_of("He left.")], n), id="perturb.names"),
    pytest.param(lambda n: fst.name_perturbations(BALANCED, n), id="fst.name_perturbations"),
])
def test_bad_names_are_refused(call: Callable[[Any], object], names: Any, fragment: str) -> None:
    refused(lambda: call(names), ConfigurationError, "names", fragment)


# ---------------------------------------------------------------------------- texts


def _text_cases() -> list[Any]:
    anchor = Anchor("He sat.", Span(0, 2, "He"), "subject", "male", "title", True)
    cases: list[Any] = []

    def add(label: str, values: list[Any], make: Callable[[Any], object], *names: str) -> None:
        for value in values:
            cases.append(pytest.param(make, value, names, id=f"{label}={_id(value)}"))

    add("gender_swap", NOT_A_TEXT, lambda v: perturb.gender_swap(v), "text", "must be a str")
    add("gender_swap neutral", NOT_A_TEXT, lambda v: perturb.gender_swap(v, "neutral"),
        "text", "must be a str")
    add("gender_swaps item", NOT_A_TEXT, lambda v: perturb.gender_swaps(["He sat.", v]),
        "texts", "item 1")
    add("gender_swaps", ["He sat.", None, 5, b"He sat."], lambda v: perturb.gender_swaps(v),
        "texts")
    add("GenderSwapKind", NOT_A_TEXT, lambda v: GenderSwapKind()(v), "texts")
    add("kind.perturb_many", ["He sat.", None, 5, [None], [b"x"]],
        lambda v: perturb.get_kind("gender_swap").perturb_many(v), "texts")
    add("DictionaryKind.perturb", NOT_A_TEXT,
        lambda v: DictionaryKind("d", {"church": ["mosque"]}).perturb(v), "text")
    add("mutations", NOT_A_TEXT, lambda v: perturb.mutations(v, "gender", graph=TOY_GRAPH,
                                                             vectors=TOY_VECTORS), "text")
    add("mutations_many item", NOT_A_TEXT, lambda v: perturb.mutations_many(
        ["The king left.", v], "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS), "texts[1]")
    add("mutations_many", ["The king left.", b"The king"], lambda v: perturb.mutations_many(
        v, "gender", graph=TOY_GRAPH, vectors=TOY_VECTORS), "texts")
    add("analogy", NOT_A_TEXT, lambda v: perturb.analogy(v, "gender", graph=TOY_GRAPH,
                                                         vectors=TOY_VECTORS), "text")
    add("active", NOT_A_TEXT, lambda v: perturb.active(v, "gender", graph=TOY_GRAPH), "text")
    add("names anchored", [["He sat."], [None], [b"He sat."], [anchor, "He sat."], "He sat.",
                           None, 5], lambda v: perturb.names(v, ["Alice"]), "anchored")
    add("names one anchor", [anchor], lambda v: perturb.names(v, ["Alice"]), "[anchor]")
    add("names groups", [["f"], "f", 5], lambda v: perturb.names([anchor], ["Alice"],
                                                                 groups=v), "groups")
    add("fill term", NOT_A_TEXT, lambda v: perturb.fill("I am {x}", v), "term")
    add("fill group", [5, b"male", ["male"]], lambda v: perturb.fill("I am {he/she} {x}",
                                                                    "a", v), "group")
    add("fill template", [None, 5, b"I am {x}"], lambda v: perturb.fill(v, "a"), "template")
    add("Template", [None, 5, b"I am {x}"], lambda v: Template(v), "template")
    add("templates groups list", [[None], [b"a"], [5], "abc", 5],
        lambda v: perturb.templates(["I am {x}"], v), "groups")
    add("templates groups mapping", [{"g": "abc"}, {"g": [None]}, {"g": [b"x"]}, {"g": 5}],
        lambda v: perturb.templates(["I am {x}"], v), "group")
    add("templates reference", [5, b"x"],
        lambda v: perturb.templates(["I am {x}"], ["a"], reference=v), "reference")
    add("templates", [[None], [5]], lambda v: perturb.templates(v, ["a"]), "template")
    add("Corpus source", [b"corpus.txt", bytearray(b"x"), 5, None, {"a"}, {"a": 1}],
        lambda v: Corpus(v), "corpus")
    add("Corpus item", [[None], [b"He sat."], ["He sat.", 5]], lambda v: list(Corpus(v)),
        "item")
    add("psa texts", [[None], [b"He sat."], ["He sat.", 5], None, 5],
        lambda v: psa(model(), v, ["Alice"]), "")
    add("Corpus.column", [5, "", None, b"text"], lambda v: Corpus(["a"], column=v), "column")
    add("Corpus.name", [5, b"n"], lambda v: Corpus(["a"], name=v), "name")
    add("Corpus.encoding", [5, None, "no-such-codec", b"utf-8"],
        lambda v: Corpus(["a"], encoding=v), "encoding")
    add("Corpus.errors", [5, None, "bogus", b"strict"], lambda v: Corpus(["a"], errors=v),
        "errors")
    return cases


@pytest.mark.parametrize(("make", "value", "names"), _text_cases())
def test_what_is_not_a_text_is_refused_by_name(
    make: Callable[[Any], object], value: Any, names: tuple[str, ...]
) -> None:
    refused(lambda: make(value), ConfigurationError, *names)


def test_bytes_as_a_text_say_how_to_decode() -> None:
    message = refused(lambda: perturb.gender_swap(b"He sat."), ConfigurationError, "text")
    assert "decode" in message


# ------------------------------------------------------------------- corpus files


def _write(path: Path, suffix: str, good: list[str], bad: bytes, line: int) -> Path:
    """A corpus file whose line `line` (1-based, counting a header) holds `bad`."""
    target = path / f"corpus{suffix}"
    if suffix == ".txt":
        rows = [text.encode() for text in good]
    elif suffix == ".csv":
        rows = [b"text"] + [f'"{text}"'.encode() for text in good]
    else:
        rows = [json.dumps({"text": text}).encode() for text in good]
    if suffix == ".jsonl":
        rows.insert(line - 1, b'{"text": "She ' + bad + b' left."}')
    elif suffix == ".csv":
        rows.insert(line - 1, b'"She ' + bad + b' left."')
    else:
        rows.insert(line - 1, b"She " + bad + b" left.")
    target.write_bytes(b"\n".join(rows) + b"\n")
    return target


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".jsonl"])
@pytest.mark.parametrize("bad", [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\x80\x80"], ids=_id)
@pytest.mark.parametrize("line", [2, 3, 5])
def test_invalid_bytes_in_a_corpus_file_name_the_file_the_line_and_the_options(
    tmp_path: Path, suffix: str, bad: bytes, line: int
) -> None:
    path = _write(tmp_path, suffix, ["He sat.", "It rained.", "He left.", "So it goes."], bad,
                  line)
    message = refused(lambda: list(Corpus(path)), ConfigurationError, str(path),
                      f"line {line}", "encoding=", "errors=")
    assert "UnicodeDecodeError" not in message
    with time_limit():
        replaced = list(Corpus(path, errors="replace"))
        latin = list(Corpus(path, encoding="latin-1"))
    assert len(replaced) == len(latin) == 5
    assert any("\ufffd" in text for text in replaced)


def test_a_utf16_file_read_as_utf8_fails_on_line_1_and_reads_with_its_encoding(
    tmp_path: Path,
) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("He sat.\nShe left.\n", encoding="utf-16")
    refused(lambda: Corpus(path), ConfigurationError, "line 1", "encoding=")
    assert list(Corpus(path, encoding="utf-16")) == ["He sat.", "She left."]


def test_surrogateescape_reads_and_anchoring_skips_the_bad_line(tmp_path: Path) -> None:
    path = _write(tmp_path, ".txt", BALANCED, b"\xff", 2)
    with time_limit():
        anchors = Corpus(path, errors="surrogateescape").anchored()
    assert anchors.report.unparsable == 1
    assert all("\udcff" not in a.text for a in anchors)


# ----------------------------------------------------------------- pytest runs


def test_a_bad_corpus_file_given_to_pytest_is_a_named_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "comments.txt").write_bytes(b"He sat.\nShe \xff left.\n")
    pytester.makepyfile(
        """
        def test_corpus(fairness_corpus):
            assert list(fairness_corpus)
        """
    )
    result = pytester.runpytest_subprocess("--fairness-corpus=comments.txt", "-p",
                                           "no:randomly", timeout=120)
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "comments.txt', line 2" in out
    assert "encoding=" in out
    assert "errors=" in out
    assert "UnicodeDecodeError" not in out


def test_psa_in_a_pytest_run_counts_an_unparsable_text(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest_fairness as pf

        TEXTS = ["She went home.", "He went home.", "I saw her \\ud800 book."]

        def test_psa():
            model = pf.as_model(lambda ts: [0.9 if "Alice" in t else 0.1 for t in ts])
            pf.assert_scoresens_below(model, TEXTS, ["Alice", "Bob"], 0.01)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", timeout=120)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "1 corpus text(s) spaCy cannot parse (1 with a lone surrogate) skipped" in out
    assert "UnicodeEncodeError" not in out
