"""A corpus and a data set carry the language of their texts (issue 28)."""

from __future__ import annotations

import pytest

import pytest_fairness as pf
from pytest_fairness.errors import ConfigurationError


def test_a_corpus_read_in_another_language_is_a_copy() -> None:
    corpus = pf.Corpus(["Il est content.", "Elle est partie."])
    french = corpus.with_lang("fr-CA")
    assert (french.lang, french.lang_given) == ("fr", True)
    assert (corpus.lang, corpus.lang_given) == ("en", False)
    assert list(french) == list(corpus)
    assert french.name == corpus.name
    with pytest.raises(ConfigurationError, match="lang must be a language code"):
        corpus.with_lang("français")


@pytest.mark.parametrize(("given", "code"), [(None, "en"), ("en", "en"), ("FR", "fr"),
                                             ("fr_FR", "fr"), ("de-AT", "de")])
def test_a_dataset_carries_its_language(given: str | None, code: str) -> None:
    data = pf.Dataset([{"text": "Il est content.", "y": 1}, {"text": "Il pleut.", "y": 0}],
                      label="y", lang=given)
    assert (data.lang, data.lang_given) == (code, given is not None)
    picked = data.select([1])
    assert (picked.lang, picked.lang_given) == (data.lang, data.lang_given)
    corpus = data.corpus()
    assert (corpus.lang, corpus.lang_given) == (data.lang, data.lang_given)
    assert list(corpus) == ["Il est content.", "Il pleut."]
    assert corpus.name == data.name


def test_datasets_in_two_languages_differ() -> None:
    rows = [{"text": "Il est content."}]
    assert pf.Dataset(rows, lang="fr") != pf.Dataset(rows)
    assert pf.Dataset(rows, lang="fr") == pf.Dataset(rows, lang="fr-FR")


@pytest.mark.parametrize("bad", ["", "f", "français", "1x", 3, "\x1b[31mfr"])
def test_a_bad_language_code_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="lang must be a language code"):
        pf.Dataset([{"text": "x"}], lang=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="lang must be a language code"):
        pf.Corpus(["x"], lang=bad)  # type: ignore[arg-type]


def test_an_unregistered_language_is_refused_where_it_is_used() -> None:
    corpus = pf.Corpus(["Er ist froh."], lang="de")
    with pytest.raises(ConfigurationError, match="no anchors are found in 'de'"):
        corpus.anchored()
