"""The counting-based sentiment scorer of counterfactual-sentiment-bias, section 5.2.

Huang et al. (2020), "Reducing Sentiment Bias in Language Models via Counterfactual
Evaluation" (shared/papers/counterfactual-sentiment-bias-language-models.txt), section 5.2:
a sentiment classifier that "simply counts the number of positive opinion words p and the
number of negative opinion words n" and scores a text p / (p + n), or 0.5 when it has no
opinion word. (The text file lost the formula; p / (p + n) is the published one, and it is
the polarity (p - n) / (p + n) mapped from [-1, 1] to [0, 1].) It serves as a bias-free
baseline: it contains only opinion words, no identity terms, so it cannot itself score
"Syria" or "nurse" differently from "Italy" or "doctor".

The paper counts the opinion words of Hu & Liu (2004). This module reads its opinion
words from the VADER lexicon shipped in the `vaderSentiment` wheel (at run time, never
vendored): a word is positive when its mean valence is above `min_strength`, negative when
below `-min_strength`. You can pass your own lexicon instead (a mapping word -> signed
valence, e.g. +1 for Hu & Liu's positive words and -1 for the negative ones).

Tokens are the whitespace-separated pieces of the lower-cased text, looked up as they are
(so emoticons such as ":)" count) and, when not found, with the punctuation around them
stripped ("good." -> "good"). Multi-word lexicon entries and negation are not handled:
the paper's scorer is a plain count.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import string
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint
from ..types import FloatArray

__all__ = ["CountingSentimentScorer", "counting_sentiment", "vader_lexicon"]

_LEXICON_FILE = "vader_lexicon.txt"
_STRIP = string.punctuation + "\u201c\u201d\u2018\u2019\u00ab\u00bb\u2026"  # curly quotes, ...


@functools.cache
def vader_lexicon() -> dict[str, float]:
    """VADER's word -> mean valence (-4 .. 4), read from the installed `vaderSentiment`
    package's `vader_lexicon.txt` (the package is located, not imported).

    Raises `MissingDependencyError` naming `pip install vaderSentiment` when it is missing.
    """
    spec = importlib.util.find_spec("vaderSentiment")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    path = next(
        (Path(p) / _LEXICON_FILE for p in locations if (Path(p) / _LEXICON_FILE).is_file()), None
    )
    if path is None:
        raise MissingDependencyError(
            "the counting-based sentiment scorer reads its opinion words from the VADER "
            "lexicon, which is not installed. Install it with:\n    "
            + install_hint(None, ["vaderSentiment"])
        )
    lexicon: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip():
            continue
        try:
            value = float(parts[1])
        except ValueError:
            continue
        lexicon[parts[0].strip().lower()] = value
    if not lexicon:
        raise MissingDependencyError(
            f"{path} holds no lexicon entries; reinstall it: pip install --force-reinstall "
            "vaderSentiment"
        )
    return lexicon


class CountingSentimentScorer:
    """Counting-based sentiment (counterfactual-sentiment-bias, section 5.2):
    score = p / (p + n) with p, n the counts of positive and negative opinion words, and
    0.5 for a text without opinion words.

    Call it on a list of texts to get scores in [0, 1] (shape (n,)); `as_model(scorer)`
    wraps it as a single-score `TextModel`. `lexicon` maps words to signed valences
    (default: VADER's, `vader_lexicon()`); a word counts as positive when its valence is
    above `min_strength` and negative when below `-min_strength`.
    """

    def __init__(
        self, lexicon: Mapping[str, float] | None = None, *, min_strength: float = 0.0
    ) -> None:
        strength = float(min_strength)
        if not math.isfinite(strength) or strength < 0:
            raise ConfigurationError(f"min_strength must be a number >= 0, got {min_strength!r}")
        source = vader_lexicon() if lexicon is None else lexicon
        if isinstance(source, str) or not isinstance(source, Mapping):
            raise ConfigurationError(
                "lexicon must map words to signed valences, e.g. {'good': 1, 'bad': -1}"
            )
        positive, negative = set(), set()
        for word, value in source.items():
            key = str(word).strip().lower()
            if not key:
                continue
            if float(value) > strength:
                positive.add(key)
            elif float(value) < -strength:
                negative.add(key)
        if not positive and not negative:
            raise ConfigurationError(f"the lexicon has no opinion word with |valence| > {strength}")
        self.positive: frozenset[str] = frozenset(positive)
        self.negative: frozenset[str] = frozenset(negative)
        self.min_strength = strength

    def __repr__(self) -> str:
        return (
            f"CountingSentimentScorer({len(self.positive)} positive, "
            f"{len(self.negative)} negative words)"
        )

    def opinion_words(self, text: str) -> tuple[list[str], list[str]]:
        """The positive and the negative opinion words of `text`, in order, repeats kept."""
        if not isinstance(text, str):
            raise ConfigurationError(f"expected a text, got {type(text).__name__} {text!r}")
        pos: list[str] = []
        neg: list[str] = []
        for token in text.lower().split():
            word = (
                token if token in self.positive or token in self.negative else token.strip(_STRIP)
            )
            if word in self.positive:
                pos.append(word)
            elif word in self.negative:
                neg.append(word)
        return pos, neg

    def counts(self, text: str) -> tuple[int, int]:
        """(p, n): the numbers of positive and negative opinion words of `text`."""
        pos, neg = self.opinion_words(text)
        return len(pos), len(neg)

    def score_one(self, text: str) -> float:
        """p / (p + n), or 0.5 without opinion words (section 5.2)."""
        p, n = self.counts(text)
        return 0.5 if p + n == 0 else p / (p + n)

    def __call__(self, texts: Sequence[str]) -> FloatArray:
        """Scores in [0, 1] of `texts`, shape (len(texts),)."""
        if isinstance(texts, str):
            raise ConfigurationError(
                f"expected a list of texts, got a single string {texts!r}; wrap it: [text]"
            )
        return np.asarray([self.score_one(t) for t in texts], dtype=np.float64)


@functools.cache
def _default_scorer() -> CountingSentimentScorer:
    return CountingSentimentScorer()


def counting_sentiment(texts: Sequence[str]) -> FloatArray:
    """Counting-based sentiment scores of `texts` with VADER's opinion words
    (counterfactual-sentiment-bias, section 5.2); see `CountingSentimentScorer`."""
    return _default_scorer()(texts)
