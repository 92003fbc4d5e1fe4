"""PSA's hot path on strings (issue 31): `NameSplicer` gives exactly the texts of
`perturb.names`, and a PSA run builds `Perturbation` records only for what it keeps."""

from __future__ import annotations

from typing import Any, get_args

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import ConfigurationError, perturb
from pytest_fairness.checks import psa as psa_module
from pytest_fairness.perturb.name_swap import NameSplicer, check_names
from pytest_fairness.types import Anchor, AnchorRole, Casing, Span

NAMES = ["Alice", "James", "Zoë", "Mary-Jane", "Ng", "  Bob  ", "O'Neil", "Ashley"]


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=30),
    st.text(min_size=1, max_size=8),
    st.text(max_size=30),
    st.sampled_from(get_args(AnchorRole)),
    st.sampled_from(get_args(Casing)),
    st.booleans(),
    st.sampled_from(["'s", "'"]),
    st.lists(st.text(min_size=1, max_size=10).filter(lambda n: n.strip()), min_size=1,
             max_size=6, unique_by=str.strip),
)
def test_the_splice_equals_the_records_texts(
    head: str, word: str, tail: str, role: AnchorRole, casing: Casing, initial: bool,
    style: Any, names: list[str],
) -> None:
    try:
        checked = check_names(names)
    except ConfigurationError:
        return  # names the run would refuse: never reach the splice
    text = head + word + tail
    a = Anchor(text, Span(len(head), len(head) + len(word), word), role, "female", casing,
               initial)
    expected = [p.perturbed for p in perturb.names([a], checked, possessive_style=style)]
    assert NameSplicer(checked, style)(a) == expected


def test_real_anchors_of_every_role_and_casing() -> None:
    pytest.importorskip("spacy")
    sentences = [
        "She left early.", "I saw him yesterday.", "I like her book.", "HIS BOOK IS RED.",
        "The red book is hers.", "He hurt himself.", "Bob said she was late.",
        "the doctor said he would call.", "When she arrived, he was gone.",
        "They told him that his car was hers.", "SHE SAID NO.",
    ]
    anchors = pf.Corpus(sentences).anchored("pronoun", max_words=50, balance_gender=False)
    assert len(anchors) >= 8
    names = check_names(NAMES)
    splice = NameSplicer(names)
    for a in anchors:
        assert splice(a) == [p.perturbed for p in perturb.names([a], names)]


def test_a_span_that_does_not_match_its_sentence_is_refused_as_names_refuses_it() -> None:
    bad = Anchor("She left.", Span(0, 3, "Her"), "subject", "female", "title", True)
    with pytest.raises(ConfigurationError, match="does not match its sentence"):
        perturb.names([bad], ["Alice"])
    with pytest.raises(ConfigurationError, match="does not match its sentence"):
        NameSplicer(["Alice"])(bad)


def test_an_unknown_possessive_style_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="possessive style"):
        NameSplicer(["Alice"], "s'")  # type: ignore[arg-type]


SENTENCES = [
    f"{pronoun} {verb} the {thing} {when}."
    for pronoun in ("She", "He") for verb in ("sold", "painted", "hated", "loved", "fixed")
    for thing in ("car", "house", "garden", "boat") for when in ("yesterday", "today", "again")
] + [f"I gave {obj} the {thing}." for obj in ("her", "him") for thing in ("keys", "cake")] + [
    f"{det} {thing} was {adj}." for det in ("Her", "His") for thing in ("dog", "job")
    for adj in ("awful", "great")
]


def length_model(texts: list[str]) -> np.ndarray:
    return np.array([(len(t) * 37 % 101) / 100.0 for t in texts])


def test_psa_scores_the_same_texts_and_keeps_the_same_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("spacy")
    anchors = pf.Corpus(SENTENCES).anchored("pronoun", balance_gender=False)
    names = ["Alice", "James", "Ngozi", "Carlos"]
    seen: list[str] = []

    def recording(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return length_model(texts)

    built = {"n": 0}
    real = perturb.names

    def counting(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        built["n"] += len(out)
        return out

    monkeypatch.setattr(psa_module._perturb, "names", counting)
    run = psa_module.psa_run(pf.as_model(recording, output="score", cache_size=0), anchors,
                             names, top_n=3, chunk_size=50, balance_gender=False)
    old_texts = [t for a in anchors for t in
                 [a.text, *(p.perturbed for p in real([a], names))]]
    # the same texts in the same order (the adapter sends each distinct text of a chunk once)
    assert list(dict.fromkeys(seen)) == list(dict.fromkeys(old_texts))
    chunks = psa_module._perturbed_chunks(iter(anchors), 7, names,
                                          psa_module.PSARun(anchors=None, names=names,
                                                            threshold=0.5))
    assert [t for _, _, texts in chunks for row in texts for t in row] == old_texts
    assert run.shown  # the worst sentences kept their records, identical to before
    for index, (a, records) in run.shown.items():
        assert records == tuple(real([a], names))
        for name, record in zip(names, records, strict=True):
            assert run.perturbation(index, name) == record
    # records were built for kept sentences only, not for every sentence x name
    assert built["n"] < len(anchors) * len(names) / 2


def test_the_ascii_fast_path_of_check_names_skips_only_safe_characters() -> None:
    """`check_names` skips the per-character scan for ASCII printable names: that holds
    only because no such character is unsafe; a name with one that is still fails."""
    from pytest_fairness.runtime.printable import unsafe

    assert not any(unsafe(chr(c)) for c in range(0x20, 0x7F))
    assert check_names(["Ann-Marie O'Neil", "José"]) == ["Ann-Marie O'Neil", "José"]
    for bad in ("Ann\x1bMarie", "Bob\u202e", "Eve\x7f"):
        with pytest.raises(pf.ConfigurationError, match="holds the character"):
            check_names([bad])
