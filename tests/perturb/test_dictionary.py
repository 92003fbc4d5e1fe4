"""A user's replacement dictionary as a perturbation kind (`perturb.dictionary`)."""

from __future__ import annotations

from typing import Any

import pytest
from _perturbation_checks import assert_exact_spans
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.perturb.dictionary import DictionaryKind
from pytest_fairness.types import Perturbation

RELIGION = {"Christian": ["Muslim", "Jewish", "Hindu"], "church": ["mosque", "synagogue", "temple"]}
MAPPING = DictionaryKind("religion", RELIGION)
PAIRS = DictionaryKind("faith_swap", [("Christian", "Muslim"), ("church", "mosque")],
                       attribute="religion")
QUICK = settings(max_examples=200, deadline=None, database=None)


def perturbed(kind: DictionaryKind, text: str) -> list[str]:
    found = kind.perturb(text)
    for p in found:
        assert p.original == text
        assert p.perturbed != text
        assert_exact_spans(p)
    return [p.perturbed for p in found]


def one(kind: DictionaryKind, text: str) -> str:
    found = perturbed(kind, text)
    assert len(found) == 1, found
    return found[0]


# --------------------------------------------------------------------------- a mapping


def test_a_mapping_gives_one_perturbation_per_found_word_and_alternative() -> None:
    text = "The Christian walked to church, and the church was full."
    found = MAPPING.perturb(text)
    assert [p.perturbed for p in found] == [
        "The Muslim walked to church, and the church was full.",
        "The Jewish walked to church, and the church was full.",
        "The Hindu walked to church, and the church was full.",
        "The Christian walked to mosque, and the mosque was full.",
        "The Christian walked to synagogue, and the synagogue was full.",
        "The Christian walked to temple, and the temple was full.",
    ]
    assert [(p.from_group, p.to_group) for p in found] == [
        ("Christian", "Muslim"), ("Christian", "Jewish"), ("Christian", "Hindu"),
        ("church", "mosque"), ("church", "synagogue"), ("church", "temple"),
    ]
    mosque = found[3]
    assert mosque.kind == "religion"
    assert mosque.attribute == "religion"
    assert [(s.start, s.end, s.text) for s in mosque.original_spans] == [
        (24, 30, "church"), (40, 46, "church")
    ]
    assert [(s.start, s.end, s.text) for s in mosque.perturbed_spans] == [
        (24, 30, "mosque"), (40, 46, "mosque")
    ]
    assert mosque.from_words == ("church", "church")
    assert mosque.to_words == ("mosque", "mosque")
    for p in found:
        assert_exact_spans(p)


def test_a_text_without_a_dictionary_word_has_no_perturbation() -> None:
    assert MAPPING.perturb("The weather was fine.") == []
    assert MAPPING.perturb("") == []
    assert PAIRS.perturb("Nothing here.") == []


def test_alternatives_given_as_one_string_are_refused() -> None:
    # issue 26: {"a": "bc"} read as one alternative or as letters alike: a named error
    with pytest.raises(ConfigurationError, match=r"alternatives of 'church' must be a list "
                       r"of strings, got the string 'mosque'; write \{'church': \['mosque'\]\}"):
        DictionaryKind("d", {"church": "mosque"})
    kind = DictionaryKind("d", {"church": ["mosque"]})
    assert kind.entries == {"church": ("mosque",)}
    assert perturbed(kind, "a church") == ["a mosque"]


# --------------------------------------------------------------------------- pairs


def test_pairs_swap_every_listed_word_both_ways_at_once() -> None:
    text = "The Muslim left the church; the Christian left the mosque."
    (p,) = PAIRS.perturb(text)
    assert p.perturbed == "The Christian left the mosque; the Muslim left the church."
    assert p.kind == "faith_swap"
    assert p.attribute == "religion"
    assert p.from_words == ("Muslim", "church", "Christian", "mosque")
    assert p.to_words == ("Christian", "mosque", "Muslim", "church")
    assert (p.from_group, p.to_group) == (None, None)  # several words swapped
    assert_exact_spans(p)
    (single,) = PAIRS.perturb("A mosque, another MOSQUE.")
    assert single.perturbed == "A church, another CHURCH."
    assert (single.from_group, single.to_group) == ("mosque", "church")
    assert PAIRS.entries == {
        "Christian": ("Muslim",), "Muslim": ("Christian",), "church": ("mosque",),
        "mosque": ("church",),
    }


# --------------------------------------------------------------------------- words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("church", "mosque"),
        ("Church", "Mosque"),
        ("CHURCH", "MOSQUE"),
        ("Christian", "Muslim"),
        ("christian", "muslim"),
        ("CHRISTIAN", "MUSLIM"),
    ],
)
def test_case_is_kept(text: str, expected: str) -> None:
    assert perturbed(MAPPING, text)[0] == expected
    assert one(PAIRS, text) == expected


def test_a_replacement_written_as_the_dictionary_word_keeps_its_own_spelling() -> None:
    kind = DictionaryKind("phones", [("iPhone", "Pixel")])
    assert one(kind, "my iPhone") == "my Pixel"
    assert one(kind, "my Pixel") == "my iPhone"
    assert one(kind, "my IPHONE") == "my PIXEL"
    assert one(kind, "my iphone") == "my pixel"


def test_phrases_match_whole_and_the_longest_word_wins() -> None:
    kind = DictionaryKind("d", {"Catholic church": ["Orthodox church"], "church": ["mosque"]})
    found = kind.perturb("The Catholic church and a church.")
    assert [p.perturbed for p in found] == [
        "The Orthodox church and a church.",
        "The Catholic church and a mosque.",
    ]
    # any run of whitespace inside a phrase matches; the span covers the whole phrase
    (p, _) = kind.perturb("The catholic\n  church and a church.")
    assert p.perturbed == "The orthodox church and a church."
    assert p.original_spans[0].text == "catholic\n  church"
    assert_exact_spans(p)
    assert perturbed(kind, "CATHOLIC CHURCH")[0] == "ORTHODOX CHURCH"
    assert perturbed(kind, "Catholic churches") == []  # "church" is inside "churches"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Christian's church.", "The Muslim's mosque."),
        ("The Christians' church.", "The Christians' mosque."),  # not a word of the pairs
        ("The Christian\u2019s church\u2019ll do.", "The Muslim\u2019s mosque\u2019ll do."),
        ("CHRISTIAN'S CHURCH'S", "MUSLIM'S MOSQUE'S"),
    ],
)
def test_possessives_and_clitics_are_kept(text: str, expected: str) -> None:
    assert one(PAIRS, text) == expected


def test_possessive_spans_leave_the_s_out() -> None:
    (p,) = PAIRS.perturb("Christian's")
    assert [s.text for s in p.original_spans] == ["Christian"]
    assert p.perturbed == "Muslim's"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("church, church. church! church? (church) [church]", "mosque, mosque. mosque! "
         "mosque? (mosque) [mosque]"),
        ("\u00abchurch\u00bb \u201cchurch\u201d 'church' \"church\"",
         "\u00abmosque\u00bb \u201cmosque\u201d 'mosque' \"mosque\""),
        ("church-goer/church\tchurch\nchurch", "mosque-goer/mosque\tmosque\nmosque"),
    ],
)
def test_punctuation_separates_words(text: str, expected: str) -> None:
    assert one(PAIRS, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "churches", "Churchill", "antichurch", "church_bell", "church2", "2church",
        "\u00e9church", "church\u00e9", "church\u0301", "\u03b1church", "church\u03b1",
        "\u6559\u4f1achurch", "church\u6559", "\u0928church", "church\u093e",
        "O'church", "church'ness", "church\u2019t",
    ],
)
def test_a_word_inside_another_word_is_untouched(text: str) -> None:
    assert PAIRS.perturb(text) == []
    assert MAPPING.perturb(text) == []


def test_unicode_dictionary_words() -> None:
    kind = DictionaryKind(
        "fr", {"\u00e9glise": ["mosqu\u00e9e"], "l'\u00e9glise": ["la mosqu\u00e9e"]}
    )
    assert perturbed(kind, "Une \u00e9glise, \u00c9glise, \u00c9GLISE.") == [
        "Une mosqu\u00e9e, Mosqu\u00e9e, MOSQU\u00c9E."
    ]
    # an apostrophe joins words: the elided form is its own entry
    assert perturbed(kind, "Dans l'\u00e9glise.") == ["Dans la mosqu\u00e9e."]
    hindi = DictionaryKind("hi", [("\u0939\u093f", "\u092e\u0941")])  # vowel signs are marks
    assert hindi.perturb("\u0939\u093f\u0902") == []  # followed by a combining mark
    assert one(hindi, "\u0939\u093f \u0939\u093f\u0902") == "\u092e\u0941 \u0939\u093f\u0902"


def test_a_shorter_word_still_matches_where_the_longer_one_is_inside_a_word() -> None:
    kind = DictionaryKind("d", {"ab": ["X"], "ab cd": ["Y"]})
    # "ab cd" is followed by a combining mark (inside a word); "ab" alone still stands
    assert perturbed(kind, "ab cd\u0301") == ["X cd\u0301"]
    assert perturbed(kind, "ab cd's") == ["Y's"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({}, "dictionary is empty"),
        ([], "pairs is empty"),
        ({"": ["x"]}, "empty word"),
        ({"   ": ["x"]}, "empty word"),
        ({"church": [""]}, "empty word"),
        ({"!!": ["x"]}, "no letter or digit"),
        ({1: ["x"]}, "must be strings"),
        ({"church": [1]}, "must be strings"),
        ({"church": {"mosque"}}, "list of strings"),
        ({"church": b"mosque"}, "list of strings"),
        ({"church": []}, "no alternatives"),
        ({"church": ["mosque", "Church"]}, "mapped to itself"),
        ({"church": ["mosque", "MOSQUE"]}, "twice"),
        ({"Christian": ["Muslim"], "christian": ["Hindu"]}, "differ only by case"),
        ([("church", "church")], "to itself"),
        ([("church", "CHURCH")], "to itself"),
        ([("church", "mosque"), ("temple", "Church")], "two pairs"),
        ([("church", "mosque", "temple")], "two words"),
        (["church"], "two words"),
        ([("church", None)], "must be strings"),
        ("church", "mapping word -> alternatives"),
        (42, "mapping word -> alternatives"),
    ],
)
def test_bad_dictionaries_are_configuration_errors(entries: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        DictionaryKind("d", entries)


def test_bad_names_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="name"):
        DictionaryKind("", RELIGION)
    with pytest.raises(ConfigurationError, match="attribute"):
        DictionaryKind("d", RELIGION, attribute=" religion")
    with pytest.raises(ConfigurationError, match="expected a text"):
        MAPPING.perturb(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- properties

LETTERS = "abcdef"
WORD = st.text(LETTERS, min_size=2, max_size=5)
# filler never spells a dictionary word in another casing: no letter of LETTERS, but
# letters with and without case, a combining mark, apostrophes, digits and punctuation
FILLER = st.text("xyzXYZs\u00e9\u00c9\u03bb\u6559\u0301'\u2019 .,-_(2\n", max_size=6)


@st.composite
def pair_dictionaries(draw: st.DrawFn) -> list[tuple[str, str]]:
    words = draw(st.lists(WORD, min_size=2, max_size=8, unique=True))
    words = words[: len(words) // 2 * 2]
    styles = draw(st.lists(st.sampled_from([str.lower, str.title]), min_size=len(words),
                           max_size=len(words)))
    return [(styles[i](words[i]), styles[i](words[i + 1])) for i in range(0, len(words), 2)]


@st.composite
def texts_of(draw: st.DrawFn, words: list[str]) -> str:
    """Dictionary words in lower, Title or UPPER case, written as is, between filler."""
    pieces = []
    for _ in range(draw(st.integers(0, 6))):
        pieces.append(draw(FILLER))
        word = draw(st.sampled_from(words))
        pieces.append(draw(st.sampled_from([word, word.lower(), word.title(), word.upper()])))
    pieces.append(draw(FILLER))
    return "".join(pieces)


def restored(p: Perturbation) -> str:
    """`p.perturbed` with every perturbed span put back to its original text."""
    text = p.perturbed
    for old, new in sorted(zip(p.original_spans, p.perturbed_spans, strict=True),
                           key=lambda pair: -pair[1].start):
        assert text[new.start : new.end] == new.text
        text = text[: new.start] + old.text + text[new.end :]
    return text


@QUICK
@given(data=st.data(), pairs=pair_dictionaries())
def test_pairs_applied_twice_give_the_original(data: st.DataObject,
                                               pairs: list[tuple[str, str]]) -> None:
    kind = DictionaryKind("d", pairs)
    text = data.draw(texts_of([w for pair in pairs for w in pair]))
    found = kind.perturb(text)
    if not found:
        return
    (p,) = found
    assert_exact_spans(p)
    assert restored(p) == text
    (back,) = kind.perturb(p.perturbed)
    assert back.perturbed == text
    assert [s.text for s in back.original_spans] == list(p.to_words)


@QUICK
@given(data=st.data(), pairs=pair_dictionaries(),
       alternatives=st.lists(WORD, min_size=1, max_size=3, unique=True))
def test_mapping_spans_are_exact(data: st.DataObject, pairs: list[tuple[str, str]],
                                 alternatives: list[str]) -> None:
    keys = [a for a, _ in pairs]
    entries = {key: [alt for alt in alternatives if alt.lower() != key.lower()] or ["zz"]
               for key in keys}
    kind = DictionaryKind("d", entries)
    text = data.draw(texts_of(keys))
    found = kind.perturb(text)
    assert len({p.perturbed for p in found}) == len(found)
    by_key: dict[str, list[str]] = {}
    for p in found:
        assert p.perturbed != text
        assert_exact_spans(p)
        assert restored(p) == text
        assert p.from_group is not None
        assert p.from_group in entries
        assert p.to_group in entries[p.from_group]
        assert {s.text.lower() for s in p.original_spans} == {p.from_group.lower()}
        by_key.setdefault(p.from_group, []).append(p.to_group)
    assert by_key == {key: entries[key] for key in by_key}  # every alternative, in order


@QUICK
@given(text=st.text(LETTERS + LETTERS.upper() + " '\u2019\u0301\u00e9-.", max_size=40))
def test_spans_are_exact_on_any_text(text: str) -> None:
    kind = DictionaryKind("d", [("ab", "cd"), ("abc", "ef"), ("fa fb", "dd")])
    mapping = DictionaryKind("m", {"ab": ["cd", "x y"], "be": ["E"], "fa fb": ["c"]})
    for p in kind.perturb(text) + mapping.perturb(text):
        assert_exact_spans(p)
        assert restored(p) == text
        assert p.original[p.original_spans[0].start : p.original_spans[0].end] == (
            p.original_spans[0].text
        )


@QUICK
@given(word=st.sampled_from(["church", "Christian", "Muslim", "mosque"]),
       letter=st.characters(categories=["Lu", "Ll", "Lo", "Mn", "Nd"]),
       before=st.booleans())
def test_a_word_touching_a_letter_is_never_replaced(word: str, letter: str,
                                                   before: bool) -> None:
    text = letter + word if before else word + letter
    assert PAIRS.perturb(text) == []
    assert MAPPING.perturb(text) == []
