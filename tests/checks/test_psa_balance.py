"""PSA's gender balance holds exactly over the sentences it scores (psa, section 2.2).

Balancing happens after everything that can drop a sentence: texts too long, unparsable or
without an anchor (dropped before balancing), reflexive pronouns (not anchors), and
sentences the model does not score (a remote scorer's `max_length`), which take a
sentence of the other gender with them. The parse is spaCy's: one pipeline for all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import Corpus
from pytest_fairness.checks.psa import PSARun, _psa_notes, psa_run
from pytest_fairness.errors import ConfigurationError, NothingJudgedError

pytestmark = pytest.mark.slow

NAMES = ["Al", "Bo"]
MAX_CHARS = 80  # the remote model's max_length, in characters

#: Sentence makers by what they are; each takes a number that makes the text distinct.
KINDS = {
    "female": lambda i: ["She left on day {i}.", "I saw her on day {i}.",
                         "The book is hers, day {i}.", "Her idea was good on day {i}."][i % 4]
    .format(i=i),
    "male": lambda i: ["He left on day {i}.", "Give it to him on day {i}.",
                       "His book is red on day {i}."][i % 3].format(i=i),
    "reflexive_first_female": lambda i: f"The queen herself said she would come on day {i}.",
    "reflexive_first_male": lambda i: f"The king himself said he would come on day {i}.",
    "reflexive_only": lambda i: [f"The man hurt himself on day {i}.",
                                 f"The girl taught herself on day {i}."][i % 2],
    "no_anchor": lambda i: f"The sky was blue on day {i}.",
    "too_long": lambda i: f"She said on day {i} " + "word " * 60,
    "unparsable": lambda i: f"He left on day {i} \ud800.",
    # at most 50 words, more than MAX_CHARS characters: the remote model skips them
    "model_skips_female": lambda i: f"She said that the weather was extraordinarily and "
    f"remarkably fine for the season on day {i}.",
    "model_skips_male": lambda i: f"He said that the weather was extraordinarily and "
    f"remarkably fine for the season on day {i}.",
}


def remote_model() -> object:
    """A remote scorer that skips texts longer than MAX_CHARS characters."""

    def score(texts: Sequence[str]) -> list[float]:
        return [(len(t) % 7) / 7 for t in texts]

    return pf.as_model(score, remote=True, max_length=MAX_CHARS, output="score",
                       labels=("neg", "pos"))


def scored_genders(run: PSARun) -> Counter[str | None]:
    assert run.anchors is not None
    assert len(run.anchors) == run.result.n_sentences
    return Counter(anchor.gender for anchor in run.anchors)


def test_a_sentence_anchored_after_its_reflexive_is_scored() -> None:
    texts = ["The queen herself said she would come.", "He left."]
    run = psa_run(lambda ts: [0.5] * len(ts), texts, NAMES, keep_anchors=True, seed=1)
    assert scored_genders(run) == {"female": 1, "male": 1}
    assert run.n_without_perturbation == run.n_unbalanced == 0


def test_a_sentence_the_model_skips_takes_one_of_the_other_gender_with_it() -> None:
    texts = [KINDS["model_skips_female"](0), "She left.", "He left.", "Give it to him."]
    run = psa_run(remote_model(), texts, NAMES, keep_anchors=True, seed=1)
    assert scored_genders(run) == {"female": 1, "male": 1}
    assert (run.n_skipped, run.n_unbalanced) == (1, 1)
    assert any("left out to keep female and male balanced" in note for note in _psa_notes(run))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    kinds=st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=24),
    seed=st.integers(0, 3),
    chunk_size=st.sampled_from([3, 9, 2000]),
    one_shot=st.booleans(),
)
def test_female_and_male_sentences_scored_are_equal_in_number(
    kinds: list[str], seed: int, chunk_size: int, one_shot: bool
) -> None:
    texts = [KINDS[kind](i) for i, kind in enumerate(kinds)]
    source = Corpus(iter(texts)) if one_shot else Corpus(texts)
    try:
        run = psa_run(remote_model(), source, NAMES, keep_anchors=True, seed=seed,
                      chunk_size=chunk_size)
    except (ConfigurationError, NothingJudgedError):
        return  # no anchor of one gender, or nothing scored: nothing to balance
    genders = scored_genders(run)
    assert genders["female"] == genders["male"]
    assert set(genders) <= {"female", "male"}
    assert (run.result.n_sentences + run.n_unbalanced + run.n_skipped
            + run.n_without_perturbation) == run.n_anchors
    assert run.n_without_perturbation == 0  # every anchor takes a name


def test_what_waits_for_its_pair_is_small_and_shown_sentences_keep_their_perturbations() -> None:
    """A sentence waiting for a partner of the other gender keeps only its anchor and a copy
    of its scores (not its perturbations, nor a view that would keep its chunk's scores
    alive: memory grew with the corpus when the perturbations waited too); a sentence that
    waited and is then shown gets the perturbations it was scored with."""
    from pytest_fairness.checks.psa import _GenderBalance

    names = ["Alice", "Bob"]
    texts = ["She liked the film.", "She hated the long trip.", "She said nothing.",
             "He liked the film.", "He hated the long trip.", "He said nothing."]
    anchors = [a for a in pf.Corpus(texts).anchored(balance_gender=False)]
    used = [(a, tuple(pf.perturb.names([a], names))) for a in anchors]
    scores = np.arange(len(used) * 3, dtype=np.float64).reshape(len(used), 3) / 100
    balance = _GenderBalance()
    out, _, _ = balance.pair(used[:3], scores[:3, 0], scores[:3, 1:])
    assert out == []
    for (_anchor, ps), _, row in balance.waiting["female"]:
        assert ps == ()
        assert row.base is None
    out, _orig, pert = balance.pair(used[3:], scores[3:, 0], scores[3:, 1:])
    assert [a.gender for a, _ in out] == ["female", "male"] * 3
    assert pert.tolist() == [scores[i, 1:].tolist() for i in (0, 3, 1, 4, 2, 5)]
    run = psa_run(pf.as_model(lambda t: [len(x) / 100 for x in t], output="score"),
                  pf.Corpus(texts), names, chunk_size=9, top_n=10)
    for index in run.shown:
        anchor = run.anchor(index)
        assert [run.perturbation(index, n).perturbed for n in names] == [
            p.perturbed for p in pf.perturb.names([anchor], names)]
    assert any(run.anchor(i).gender == "female" for i in run.shown)
