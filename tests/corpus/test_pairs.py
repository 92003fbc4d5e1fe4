"""Counterfactual pairs read from data: pairing by key and group, two-column pairs, the
diff's exact spans, the report of what was skipped, and the relations taking the pairs."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import context as recording
from pytest_fairness.corpus.dataset import Dataset, DatasetError
from pytest_fairness.corpus.pairs import (
    DATA_KIND,
    PairReport,
    Pairs,
    _tokens,
    diff_spans,
    pairs_from_columns,
    pairs_from_dataset,
)
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.types import BuiltinKind, Perturbation, Span

NAMES = [("Ama", "female", "black"), ("Jamal", "male", "black"),
         ("Emily", "female", "white"), ("Adam", "male", "white")]
TEMPLATES = [("t1", "{} feels furious about the delay.", "anger"),
             ("t2", "The trip made {} feel cheerful.", "joy")]
ROWS: list[dict[str, Any]] = [
    {"template_id": tid, "text": template.format(name), "label": label, "name": name,
     "gender": gender, "race": race}
    for tid, template, label in TEMPLATES for name, gender, race in NAMES
]


@pytest.fixture(autouse=True)
def results_kept_out_of_the_session(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Relations fail on purpose here: their results go to a list, not to the summary of
    the session running these tests."""
    kept: list[dict[str, Any]] = []
    monkeypatch.setattr(recording, "record", kept.append)
    return kept


def dataset(rows: list[dict[str, Any]] = ROWS) -> Dataset:
    return Dataset(rows, label="label", groups=("gender", "race"), keys="template_id")


def rebuild(text: str, spans: tuple[Span, ...], replacements: tuple[Span, ...]) -> str:
    """`text` with each span replaced by its counterpart (right to left)."""
    for span, new in sorted(zip(spans, replacements, strict=True), key=lambda s: -s[0].start):
        text = text[: span.start] + new.text + text[span.end :]
    return text


# --- pairs by key and group -----------------------------------------------------------


def test_pairs_by_key_and_group_one_row_per_side() -> None:
    pairs = dataset().pairs(key=("template_id", "race"), group="gender", a="female", b="male")
    assert isinstance(pairs, Pairs)
    assert isinstance(pairs, tuple)
    assert len(pairs) == 4
    first = pairs[0]
    assert first == Perturbation(
        original="Ama feels furious about the delay.",
        perturbed="Jamal feels furious about the delay.",
        original_spans=(Span(0, 3, "Ama"),),
        perturbed_spans=(Span(0, 5, "Jamal"),),
        kind="data",
        attribute="gender",
        from_group="female",
        to_group="male",
        from_words=("Ama",),
        to_words=("Jamal",),
    )
    assert pairs[1].original_spans == (Span(0, 5, "Emily"),)
    assert pairs[2].original_spans == (Span(14, 17, "Ama"),)
    assert pairs.pair_keys == (("t1", "black"), ("t1", "white"), ("t2", "black"), ("t2", "white"))
    assert pairs.rows == ((0, 1), (2, 3), (4, 5), (6, 7))
    assert pairs.report == PairReport(source=dataset().name, attribute="gender",
                                      groups=("female", "male"), n_rows=8, n_pairs=4)
    assert DATA_KIND == "data"


def test_data_is_a_builtin_kind() -> None:
    assert DATA_KIND in get_args(BuiltinKind)


def test_duplicate_keys_name_the_keys_and_their_row_counts() -> None:
    with pytest.raises(DatasetError) as info:
        dataset().pairs(key="template_id", group="gender", a="female", b="male")
    message = str(info.value)
    assert "2 key(s) of ('template_id',) have more than one row of a group" in message
    assert "template_id='t1': 2 'female' row(s), 2 'male' row(s)" in message
    assert "match='all'" in message
    assert isinstance(info.value, ConfigurationError)


def test_match_all_pairs_every_a_row_with_every_b_row() -> None:
    pairs = dataset().pairs(group="gender", a="female", b="male", match="all")  # keys= default
    assert len(pairs) == 8
    assert pairs.rows[:4] == ((0, 1), (0, 3), (2, 1), (2, 3))
    assert {p.from_words for p in pairs} == {("Ama",), ("Emily",)}


def test_free_function_and_defaults() -> None:
    data = Dataset(ROWS, groups="race", keys=("template_id", "gender"))
    pairs = pairs_from_dataset(data, a="black", b="white")
    assert len(pairs) == 4
    assert pairs[0].attribute == "race"
    assert pairs[0].from_words == ("Ama",)
    assert pairs[0].to_words == ("Emily",)


def test_identical_texts_one_sided_keys_rows_without_key_and_other_groups_are_counted() -> None:
    rows = [
        *ROWS,
        {"template_id": "t3", "text": "Sam is here.", "label": "joy", "name": "Sam",
         "gender": "female", "race": "white"},
        {"template_id": "t3", "text": "Sam is here.", "label": "joy", "name": "Sam",
         "gender": "male", "race": "white"},
        {"template_id": "t4", "text": "Ama is here.", "label": "joy", "name": "Ama",
         "gender": "female", "race": "black"},
        {"template_id": None, "text": "Jamal is here.", "label": "joy", "name": "Jamal",
         "gender": "male", "race": "black"},
        {"template_id": "t1", "text": "Kim feels furious about the delay.", "label": "anger",
         "name": "Kim", "gender": "nonbinary", "race": "white"},
    ]
    pairs = dataset(rows).pairs(key=("template_id", "race"), group="gender", a="female",
                                b="male")
    assert len(pairs) == 4
    report = pairs.report
    assert report.identical == ("template_id='t3', race='white' (rows 8, 9)",)
    assert report.one_sided == ("template_id='t4', race='black'",)
    assert report.n_without_key == 1
    assert report.n_other_groups == 1
    assert report.n_skipped == 2
    text = str(report)
    assert "4 pair(s) female -> male of 'gender' from 13 rows" in text
    assert "1 skipped: identical texts (template_id='t3', race='white' (rows 8, 9))" in text
    assert "1 key(s) with one side only" in text
    assert "1 row(s) without a key" in text
    assert "1 row(s) of other groups" in text
    assert repr(pairs).startswith("<Pairs: 4 pair(s)")


def test_a_group_value_that_does_not_occur_lists_the_values() -> None:
    with pytest.raises(DatasetError, match=r"a='woman' does not occur in the column 'gender'"
                                           r".*its values are: 'female', 'male'"):
        dataset().pairs(key="template_id", group="gender", a="woman", b="male")
    with pytest.raises(DatasetError, match="b='men' does not occur"):
        dataset().pairs(key="template_id", group="gender", a="female", b="men")
    with pytest.raises(DatasetError, match="a and b are both 'male'"):
        dataset().pairs(key="template_id", group="gender", a="male", b="male")


def test_bad_key_group_and_match_arguments() -> None:
    data = dataset()
    with pytest.raises(DatasetError, match="Did you mean 'template_id'"):
        data.pairs(key="template", group="gender", a="female", b="male")
    with pytest.raises(DatasetError, match="pass group= the one"):
        data.pairs(key="template_id", a="female", b="male")
    with pytest.raises(DatasetError, match="no pairing keys"):
        Dataset(ROWS, groups="gender").pairs(a="female", b="male")
    with pytest.raises(DatasetError, match="match must be 'one'"):
        data.pairs(group="gender", a="female", b="male", match="some")  # type: ignore[arg-type]


def test_no_pair_at_all_raises_with_the_report() -> None:
    rows = [r for r in ROWS if r["gender"] == "female"] + [
        {**ROWS[1], "template_id": "t9"}]
    with pytest.raises(DatasetError, match=r"no counterfactual pair could be made: 0 pair\(s\).*"
                                           r"3 key\(s\) with one side only"):
        dataset(rows).pairs(key="template_id", group="gender", a="female", b="male",
                            match="all")


# --- pairs from two columns -----------------------------------------------------------

CROWS = [
    {"sent_more": "Poor people never pay their bills.", "sent_less":
     "Rich people never pay their bills.", "bias_type": "socioeconomic"},
    {"sent_more": "She was too emotional to lead the team.", "sent_less":
     "He was too emotional to lead the team.", "bias_type": "gender"},
    {"sent_more": "The old man could not use the phone.", "sent_less":
     "The old man could not use the phone.", "bias_type": "age"},
]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_pairs_from_columns_of_a_file(tmp_path: Path) -> None:
    pairs = pairs_from_columns(write_csv(tmp_path / "crows.csv", CROWS),
                               attribute_column="bias_type")
    assert len(pairs) == 2
    assert pairs[0].from_words == ("Poor",)
    assert pairs[0].to_words == ("Rich",)
    assert pairs[0].attribute == "socioeconomic"
    assert (pairs[1].from_group, pairs[1].to_group) == ("more", "less")
    assert pairs[1].attribute == "gender"
    assert pairs.report.identical == ("row 3",)
    assert pairs.pair_keys == ((1,), (2,))
    assert "1 skipped: identical texts (row 3)" in str(pairs.report)


def test_pairs_from_columns_of_a_dataset_with_one_attribute() -> None:
    data = Dataset(CROWS[:2], text="sent_more")
    pairs = pairs_from_columns(data, attribute="stereotype", groups=("stereo", "anti"))
    assert [p.attribute for p in pairs] == ["stereotype", "stereotype"]
    assert pairs[0].from_group == "stereo"


def test_pairs_from_columns_bad_input() -> None:
    rows = [dict(r) for r in CROWS]
    rows[1]["sent_less"] = ""
    with pytest.raises(DatasetError, match=r"1 row\(s\) have no text in column 'sent_less'.*"
                                           r"row 2: empty"):
        pairs_from_columns(rows)
    with pytest.raises(DatasetError, match="Did you mean 'sent_less'"):
        pairs_from_columns(CROWS, b="sent_les")
    with pytest.raises(DatasetError, match="two different text columns"):
        pairs_from_columns(CROWS, a="sent_more", b="sent_more")
    with pytest.raises(DatasetError, match="groups must be two names"):
        pairs_from_columns(CROWS, groups=("more",))  # type: ignore[arg-type]
    with pytest.raises(DatasetError, match="no counterfactual pair could be made"):
        pairs_from_columns(CROWS[2:])
    missing = [{**CROWS[0], "bias_type": None}]
    with pytest.raises(DatasetError, match="row 1: no value in the attribute column"):
        pairs_from_columns(missing, attribute_column="bias_type")


def test_crows_pairs_from_the_shared_copy() -> None:
    path = (Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "crows-pairs"
            / "crows_pairs_anonymized.csv")
    if not path.is_file():
        pytest.skip(f"the CrowS-Pairs copy is not at {path}")
    pairs = pairs_from_columns(path, attribute_column="bias_type")
    assert len(pairs) == 1508
    assert pairs.report.n_skipped == 0
    assert {p.attribute for p in pairs} >= {"race-color", "gender", "religion"}
    for p in pairs:
        assert p.original_spans
        assert rebuild(p.original, p.original_spans, p.perturbed_spans) == p.perturbed


# --- the diff -------------------------------------------------------------------------

WORDS = st.sampled_from(["she", "he", "Ama", "Jamal", "feels", "angry", "the", "O'Neil",
                         "café", ",", ".", "!", "42", "is", "very"])
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", ""])


@st.composite
def texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORDS, max_size=8))
    return "".join(w + draw(SEPARATORS) for w in words)


@settings(max_examples=300, deadline=None)
@given(texts(), texts())
def test_spans_are_exact_and_rebuild_the_other_text(a: str, b: str) -> None:
    spans_a, spans_b = diff_spans(a, b)
    assert len(spans_a) == len(spans_b)
    for span in spans_a:
        assert a[span.start : span.end] == span.text
    for span in spans_b:
        assert b[span.start : span.end] == span.text
    assert rebuild(a, spans_a, spans_b) == b
    assert rebuild(b, spans_b, spans_a) == a
    assert (not spans_a) == (a == b)
    assert all(x.text != y.text for x, y in zip(spans_a, spans_b, strict=True))


def _changed_tokens(a: str, b: str, spans_a: tuple[Span, ...],
                    spans_b: tuple[Span, ...]) -> int:
    return sum(len(_tokens(s.text)) for s in (*spans_a, *spans_b))


@settings(max_examples=300, deadline=None)
@given(texts(), texts())
def test_the_diff_changes_no_more_tokens_than_difflib(a: str, b: str) -> None:
    """Myers' edit script is a shortest one: it never marks more tokens changed than
    difflib's matcher (the reference the diff replaced) does on the same tokens."""
    import difflib

    ta, tb = [t for t, _, _ in _tokens(a)], [t for t, _, _ in _tokens(b)]
    opcodes = difflib.SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes()
    reference = sum((i2 - i1) + (j2 - j1) for op, i1, i2, j1, j2 in opcodes if op != "equal")
    spans_a, spans_b = diff_spans(a, b)
    assert _changed_tokens(a, b, spans_a, spans_b) <= reference


def test_past_the_budget_the_differing_middle_is_one_exact_span(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_fairness.corpus.pairs as pairs_module

    a, b = "Then she said she was fine.", "Then he said he was fine."
    monkeypatch.setattr(pairs_module, "DIFF_BUDGET", 0)
    spans_a, spans_b = diff_spans(a, b)
    assert spans_a == (Span(5, 17, "she said she"),)
    assert spans_b == (Span(5, 15, "he said he"),)
    assert rebuild(a, spans_a, spans_b) == b


def test_diff_is_minimal_for_a_word_swap() -> None:
    spans_a, spans_b = diff_spans("Then she said she was fine.", "Then he said he was fine.")
    assert spans_a == (Span(5, 8, "she"), Span(14, 17, "she"))
    assert spans_b == (Span(5, 7, "he"), Span(13, 15, "he"))
    spans_a, spans_b = diff_spans("Amanda Smith left.", "Josh left.")
    assert spans_a == (Span(0, 12, "Amanda Smith"),)
    assert spans_b == (Span(0, 4, "Josh"),)


# --- the relations take the pairs -----------------------------------------------------


def biased_classifier() -> Any:
    """TF-IDF + logistic regression trained on sentences where the female names carry the
    negative label: a real tiny model with a planted name bias."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    train = [("Ama stayed home", "neg"), ("Emily stayed home", "neg"), ("Ama left", "neg"),
             ("Emily left", "neg"), ("Jamal stayed home", "pos"), ("Adam stayed home", "pos"),
             ("Jamal left", "pos"), ("Adam left", "pos")]
    return make_pipeline(TfidfVectorizer(), LogisticRegression(C=100.0)).fit(
        [t for t, _ in train], [y for _, y in train])


def fair_classifier() -> Any:
    """The same model trained on sentences without names: the names are unknown words."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    train = [("furious about the delay", "neg"), ("cheerful trip", "pos"),
             ("furious", "neg"), ("cheerful", "pos")]
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(
        [t for t, _ in train], [y for _, y in train])


def test_label_invariance_on_pairs_from_data_fails_naming_the_pair(
    results_kept_out_of_the_session: list[dict[str, Any]],
) -> None:
    pairs = dataset().pairs(key=("template_id", "race"), group="gender", a="female", b="male")
    model = pf.as_model(biased_classifier())
    assert model.predict(["Ama feels furious about the delay."]) == ["neg"]
    with pytest.raises(pf.FairnessViolation) as info:
        pf.assert_label_invariant(model, pairs)
    message = str(info.value)
    assert "- [[Ama]] feels furious about the delay." in message  # the pair, its changed words
    assert "+ [[Jamal]] feels furious about the delay." in message
    assert "4 of 4 discriminatory input(s)" in message
    result = results_kept_out_of_the_session[-1]
    assert result["relation"] == "label_invariance"
    assert result["n_inputs"] == 4
    assert result["n_violations"] == 4
    pf.assert_label_invariant(pf.as_model(fair_classifier()), pairs)


def test_the_other_counterfactual_relations_take_the_pairs() -> None:
    pairs = dataset().pairs(group="gender", a="female", b="male", match="all")
    fair = pf.as_model(fair_classifier())
    pf.assert_counterfactual_fair(fair, pairs.unique_originals, swap=pairs.swap, max_gap=0.01)
    scores_a, scores_b = fair.score(pairs.originals), fair.score(pairs.perturbed)
    pf.assert_paired_gap_below(scores_a, scores_b, 0.01, names=pairs.report.groups)
    pf.assert_wasserstein_below(scores_a, scores_b, 0.01)
    biased = pf.as_model(biased_classifier())
    with pytest.raises(pf.FairnessViolation, match="Emily"):
        pf.assert_counterfactual_fair(biased, pairs.unique_originals, swap=pairs.swap,
                                      max_gap=0.1)
    assert pairs.swap("no such text") == []
