"""Anchoring in shards (issue 31): the shards of a corpus, counted apart and anchored apart
with the selection drawn from their summed counts, keep exactly the anchors
`Corpus.iter_anchored` keeps, in the same order, with the same report and errors."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

import pytest_fairness as pf
from pytest_fairness.corpus.shards import (
    ShardCounts,
    count_shard,
    merge_counts,
    shard_anchors,
    unbalanced_report,
)
from pytest_fairness.errors import ConfigurationError

TEXTS = [
    *(f"She said the {t} was fine ({k})." for k, t in enumerate(["film", "trip", "game"] * 4)),
    *(f"He thought the {t} was long ({k})." for k, t in enumerate(["film", "book"] * 3)),
    "I gave her the book.", "Her book was long.", "His dog barked at her.",
    "We told him the news.", "The sky was blue.", "She saw herself in the mirror.",
    "He " + "very " * 60 + "tired.", "He left on a day \ud800 could not be read.",
    "They said it was fine.",
]


@pytest.mark.parametrize("cuts", [(0, len(TEXTS)), (0, 5, len(TEXTS)),
                                  (0, 1, 2, 17, 30, len(TEXTS)),
                                  (0, 0, 12, len(TEXTS), len(TEXTS))])
@pytest.mark.parametrize("seed", [0, 7])
def test_balanced_shards_keep_the_anchors_of_one_pass(cuts: tuple[int, ...], seed: int) -> None:
    stream = pf.Corpus(TEXTS).iter_anchored("pronoun", balance_gender=True, seed=seed)
    expected = list(stream)
    shards = [TEXTS[a:b] for a, b in itertools.pairwise(cuts)]
    counts = [count_shard(s, "pronoun", 50, True) for s in shards]
    selection = merge_counts(pf.Corpus(TEXTS), counts, "pronoun", 50, seed)
    got = [a for s, start in zip(shards, selection.starts, strict=True)
           for a in shard_anchors(s, "pronoun", 50, (selection.selector, start), Counter())]
    assert got == expected
    assert selection.report == stream.report
    assert selection.report.unparsable == 1


def test_unbalanced_shards_keep_every_anchor_with_the_same_report() -> None:
    stream = pf.Corpus(TEXTS).iter_anchored("pronoun", balance_gender=False)
    expected = list(stream)
    got, counts = [], []
    for shard in (TEXTS[:9], TEXTS[9:10], TEXTS[10:]):
        seen: Counter[str] = Counter()
        got += list(shard_anchors(shard, "pronoun", 50, None, seen))
        counts.append(ShardCounts(dict(seen)))
    assert got == expected
    genders = (sum(a.gender == "female" for a in got), sum(a.gender == "male" for a in got))
    assert unbalanced_report(pf.Corpus(TEXTS), counts, "pronoun", 50, genders) == stream.report


def test_shards_without_anchors_fail_as_one_pass_does() -> None:
    for texts in (["The sky was blue.", "We left."], ["She left.", "She stayed."]):
        with pytest.raises(ConfigurationError) as one:
            pf.Corpus(texts).iter_anchored("pronoun", balance_gender=True, seed=0)
        counts = [count_shard(texts[:1], "pronoun", 50, True),
                  count_shard(texts[1:], "pronoun", 50, True)]
        with pytest.raises(ConfigurationError) as shards:
            merge_counts(pf.Corpus(texts), counts, "pronoun", 50, 0)
        assert str(shards.value) == str(one.value)
