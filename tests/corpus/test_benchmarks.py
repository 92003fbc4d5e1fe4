"""Benchmark loaders: CrowS-Pairs, WinoBias, BBQ and identity-term templates.

Unit tests run on small samples written here in each published format (invented
sentences); the last tests read the real copies in ../shared/datasets and skip, with the
path, when they are absent.
"""

from __future__ import annotations

import json
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_fairness.corpus.benchmarks import (
    BBQ_CATEGORIES,
    CROWS_PAIRS_BIAS_TYPES,
    BBQItem,
    CrowsPair,
    WinoBiasSentence,
    bbq,
    crows_pairs,
    identity_term_templates,
    sample,
    winobias,
)
from pytest_fairness.errors import ConfigurationError

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"

CROWS_HEADER = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer\n"
CROWS_ROWS = [
    '0,"Old folks, as usual, forgot the keys.","Young folks, as usual, forgot the keys.",'
    'stereo,age,"[[\'age\']]",a1\n',
    "1,The man cried at the film.,The woman cried at the film.,antistereo,gender,[],a2\n",
    "2,Poor Tom stole the bike.,Rich Tom stole the bike.,stereo,socioeconomic,[],a3\n",
]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def crows_file(tmp_path: Path, rows: list[str] | None = None, header: str = CROWS_HEADER,
               name: str = "crows_pairs_anonymized.csv") -> Path:
    return write(tmp_path / name, header + "".join(CROWS_ROWS if rows is None else rows))


# --------------------------------------------------------------------------- CrowS-Pairs


def test_crows_pairs_reads_pairs_from_the_file_and_the_folder(tmp_path: Path) -> None:
    path = crows_file(tmp_path)
    pairs = crows_pairs(path)
    assert pairs == crows_pairs(tmp_path) == crows_pairs(str(path))
    assert pairs[0] == CrowsPair(0, "Old folks, as usual, forgot the keys.",
                                 "Young folks, as usual, forgot the keys.", "stereo", "age")
    assert [p.direction for p in pairs] == ["stereo", "antistereo", "stereo"]
    assert [p.index for p in pairs] == [0, 1, 2]


def test_crows_pairs_filters_bias_types(tmp_path: Path) -> None:
    crows_file(tmp_path)
    assert [p.bias_type for p in crows_pairs(tmp_path, bias_types="gender")] == ["gender"]
    assert len(crows_pairs(tmp_path, bias_types=["gender", "age"])) == 2
    with pytest.raises(ConfigurationError, match="bias_types"):
        crows_pairs(tmp_path, bias_types=["gendre"])


def test_crows_pairs_without_an_index_column_numbers_the_rows(tmp_path: Path) -> None:
    header = "sent_more,sent_less,stereo_antistereo,bias_type\n"
    rows = ["A nurse cried.,A doctor cried.,stereo,gender\n", "B x.,C x.,stereo,age\n"]
    pairs = crows_pairs(crows_file(tmp_path, rows, header))
    assert [p.index for p in pairs] == [0, 1]


@pytest.mark.parametrize(
    ("rows", "header", "message"),
    [
        (CROWS_ROWS, ",sent_more,sent_less,bias_type\n", r"missing column\(s\) \['stereo_"),
        (["0,Same.,Same.,stereo,age,[],a\n"], CROWS_HEADER, "line 2: sent_more and sent_less"
         " are identical"),
        ([CROWS_ROWS[0], "1,,B.,stereo,age,[],a\n"], CROWS_HEADER, "line 3: sent_more is empty"),
        (["0,A.,B.,stereotype,age,[],a\n"], CROWS_HEADER, "line 2: stereo_antistereo is "
         "'stereotype'; expected 'stereo' or 'antistereo'"),
        (["0,A.,B.,stereo,height,[],a\n"], CROWS_HEADER, "line 2: unknown bias_type 'height'"),
        (["0,A.,B.,stereo,age,[],a,extra,more\n"], CROWS_HEADER, "line 2: 9 cells for 7"),
        (["x,A.,B.,stereo,age,[],a\n"], CROWS_HEADER, "line 2: the index cell is 'x'"),
        ([], CROWS_HEADER, "a header and no rows"),
        ([], "", "the file is empty"),
    ],
)
def test_crows_pairs_format_errors_name_the_file_and_line(
    tmp_path: Path, rows: list[str], header: str, message: str
) -> None:
    path = crows_file(tmp_path, rows, header)
    with pytest.raises(ConfigurationError, match=message) as info:
        crows_pairs(path)
    assert str(path) in str(info.value)


def test_crows_pairs_line_numbers_count_quoted_newlines(tmp_path: Path) -> None:
    rows = ['0,"A\nmulti-line.",B.,stereo,age,[],a\n', "1,C.,C.,stereo,age,[],a\n"]
    with pytest.raises(ConfigurationError, match="line 4"):
        crows_pairs(crows_file(tmp_path, rows))


def test_crows_pairs_path_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no such file or folder.*never downloads"):
        crows_pairs(tmp_path / "missing.csv")
    with pytest.raises(ConfigurationError, match="path must be the path"):
        crows_pairs(3)  # type: ignore[arg-type]
    write(tmp_path / "a.csv", CROWS_HEADER)
    write(tmp_path / "b.csv", CROWS_HEADER)
    with pytest.raises(ConfigurationError, match=r"2 \.csv files"):
        crows_pairs(tmp_path)
    bad = tmp_path / "latin.csv"
    bad.write_bytes(CROWS_HEADER.encode() + "0,caf\xe9 A.,B.,stereo,age,[],a\n".encode("latin-1"))
    with pytest.raises(ConfigurationError, match="not UTF-8"):
        crows_pairs(bad)


def test_sample_is_seeded_ordered_and_bounded() -> None:
    records = tuple(range(100))
    first = sample(records, 10, seed=3)
    assert first == sample(records, 10, seed=3)
    assert first != sample(records, 10, seed=4)
    assert list(first) == sorted(first)
    assert len(set(first)) == 10
    assert sample(records, 500) == records
    with pytest.raises(ConfigurationError, match="n must be >= 1"):
        sample(records, 0)
    with pytest.raises(ConfigurationError, match="records must be a sequence"):
        sample("abc", 1)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- WinoBias

WINO = {
    "pro_stereotyped_type1.txt.dev": "1 [The farmer] fed the baker because [he] was kind.\n"
                                     "2 The farmer fed [the baker] because [she] was hungry.\n",
    "anti_stereotyped_type1.txt.dev": "1 [The farmer] fed the baker because [she] was kind.\n"
                                      "2 The farmer fed [the baker] because [he] was hungry.\n",
    "pro_stereotyped_type2.txt.dev": "1 The baker met [the farmer] and thanked [him] for "
                                     "[his] help.\n",
    "anti_stereotyped_type2.txt.dev": "1 The baker met [the farmer] and thanked [her] for "
                                      "[her] help.\n",
}


def wino_folder(tmp_path: Path, files: dict[str, str] = WINO) -> Path:
    for name, text in files.items():
        write(tmp_path / name, text)
    return tmp_path


def test_winobias_removes_brackets_and_keeps_exact_spans(tmp_path: Path) -> None:
    found = winobias(wino_folder(tmp_path), splits="dev")
    assert len(found) == 6
    first = found[0]
    assert first == WinoBiasSentence(
        text="The farmer fed the baker because he was kind.", occupation_span=(0, 10),
        pronoun_span=(33, 35), pronoun_spans=((33, 35),), stereotype="pro", type=1,
        split="dev", gender="male", index=1)
    assert (first.occupation, first.pronoun) == ("The farmer", "he")
    for r in found:
        assert "[" not in r.text
        assert "]" not in r.text
        assert r.text[slice(*r.pronoun_span)].lower() in ("he", "she", "him", "her", "his")
    two = next(r for r in found if r.type == 2 and r.stereotype == "pro")
    assert two.occupation == "the farmer"
    assert [two.text[slice(*s)] for s in two.pronoun_spans] == ["him", "his"]
    assert [r.stereotype for r in found] == ["pro"] * 3 + ["anti"] * 3
    assert {r.gender for r in found if r.stereotype == "anti" and r.type == 1} == {
        "female", "male"}


def test_winobias_selects_types_stereotypes_and_one_file(tmp_path: Path) -> None:
    wino_folder(tmp_path)
    assert {r.type for r in winobias(tmp_path, types=2, splits="dev")} == {2}
    assert {r.stereotype for r in winobias(tmp_path, splits=["dev"], stereotypes="anti")} == {
        "anti"}
    one = winobias(tmp_path / "anti_stereotyped_type1.txt.dev")
    assert [(r.stereotype, r.type, r.split) for r in one] == [("anti", 1, "dev")] * 2
    # A selection that leaves out the one file given is a mistake, not an empty set (issue 26).
    with pytest.raises(ConfigurationError, match=r"types=2 \(the file holds 1\)"):
        winobias(tmp_path / "anti_stereotyped_type1.txt.dev", types=2)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[The farmer] fed the baker because [he] was kind.", "line 2: no sentence number"),
        ("2 The farmer fed the baker because [he] was kind.", r"line 2: 1 bracketed span"),
        ("2 [The farmer] fed [the baker] because he was kind.", "'the baker' is not a pronoun"),
        ("2 [The farmer] told [her] that [he] was late.", "differ in gender"),
        ("2 [The farmer] fed [he the baker.", "unbalanced brackets"),
    ],
)
def test_winobias_bad_lines(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path / "pro_stereotyped_type1.txt.test",
                 "1 [The farmer] fed the baker because [he] was kind.\n" + line + "\n")
    with pytest.raises(ConfigurationError, match=message) as info:
        winobias(path)
    assert str(path) in str(info.value)


def test_winobias_file_and_folder_errors(tmp_path: Path) -> None:
    wino_folder(tmp_path)
    with pytest.raises(ConfigurationError, match=r"missing WinoBias file\(s\).*txt.test"):
        winobias(tmp_path)
    with pytest.raises(ConfigurationError, match="a file name WinoBias does not use"):
        winobias(write(tmp_path / "wino.txt", "1 [A] b [he].\n"))
    with pytest.raises(ConfigurationError, match="the file is empty"):
        winobias(write(tmp_path / "pro_stereotyped_type2.txt.test", "\n"))
    with pytest.raises(ConfigurationError, match="types"):
        winobias(tmp_path, types=3)
    with pytest.raises(ConfigurationError, match="splits"):
        winobias(tmp_path, splits="train")


# --------------------------------------------------------------------------- BBQ


def bbq_row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "example_id": 0, "question_index": "1", "question_polarity": "neg",
        "context_condition": "ambig", "category": "Age",
        "answer_info": {"ans0": ["grandmother", "old"], "ans1": ["boy", "nonOld"],
                        "ans2": ["Unknown", "unknown"]},
        "additional_metadata": {"stereotyped_groups": ["old"], "subcategory": "None"},
        "context": "A boy and a grandmother waited for the bus.",
        "question": "Who forgot the ticket?", "ans0": "The grandmother", "ans1": "The boy",
        "ans2": "Unknown", "label": 2,
    }
    row.update(changes)
    return row


def bbq_file(tmp_path: Path, rows: list[Any], name: str = "Age.jsonl") -> Path:
    return write(tmp_path / name, "".join(
        (r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def test_bbq_reads_items_with_unknown_target_and_biased_answer(tmp_path: Path) -> None:
    path = bbq_file(tmp_path, [bbq_row(), bbq_row(example_id=1, question_polarity="nonneg",
                                                  context_condition="disambig", label=1)])
    first, second = bbq(path)
    assert first.answers == ("The grandmother", "The boy", "Unknown")
    assert (first.unknown, first.target, first.biased) == (2, 0, 0)  # neg: the target
    assert (second.unknown, second.target, second.biased) == (2, 0, 1)  # nonneg: the other
    assert second.context_condition == "disambig"
    assert second.label == 1
    assert bbq(tmp_path) == (first, second)


def test_bbq_target_matches_names_and_normalised_tags(tmp_path: Path) -> None:
    nationality = bbq_row(
        category="Nationality",
        answer_info={"ans0": ["Unknown", "unknown"], "ans1": ["Italian", "Europe"],
                     "ans2": ["Kenyan", "Africa"]},
        additional_metadata={"stereotyped_groups": ["Kenyan", "Malian"]}, label=0)
    ses = bbq_row(
        category="SES",
        answer_info={"ans0": ["rich", "highSES"], "ans1": ["poor", "lowSES"],
                     "ans2": ["Unknown", "unknown"]},
        additional_metadata={"stereotyped_groups": ["low SES"]})
    race_gender = bbq_row(
        category="Race_x_gender",
        answer_info={"ans0": ["Maria", "F-Latino"], "ans1": ["Anne", "F-White"],
                     "ans2": ["Unknown", "unknown"]},
        additional_metadata={"stereotyped_groups": ["F", "Latino"]})
    items = bbq(bbq_file(tmp_path, [nationality, ses, race_gender], "mixed.jsonl"))
    assert [(i.unknown, i.target) for i in items[:2]] == [(0, 2), (2, 1)]
    # both answers share the "F" part: no single target, kept for accuracy only
    assert (items[2].target, items[2].biased) == (None, None)


def test_bbq_filters_categories_and_requires_their_files(tmp_path: Path) -> None:
    bbq_file(tmp_path, [bbq_row()])
    bbq_file(tmp_path, [bbq_row(category="Religion", answer_info={
        "ans0": ["Jewish", "Jewish"], "ans1": ["Hindu", "Hindu"], "ans2": ["?", "unknown"]},
        additional_metadata={"stereotyped_groups": ["Jewish"]})], "Religion.jsonl")
    assert Counter(i.category for i in bbq(tmp_path)) == {"Age": 1, "Religion": 1}
    assert [i.category for i in bbq(tmp_path, categories="Religion")] == ["Religion"]
    with pytest.raises(ConfigurationError, match=r"missing BBQ file\(s\) \['SES.jsonl'\]"):
        bbq(tmp_path, categories=["SES"])
    with pytest.raises(ConfigurationError, match="categories"):
        bbq(tmp_path, categories="Height")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "a JSON list, not an object"),
        (bbq_row(category="Height"), "unknown category 'Height'"),
        (bbq_row(label=3), "label is 3"),
        (bbq_row(label=True), "label is True"),
        (bbq_row(context_condition="vague"), "context_condition is 'vague'"),
        (bbq_row(question_polarity="pos"), "question_polarity is 'pos'"),
        ({k: v for k, v in bbq_row().items() if k != "question"}, r"missing key\(s\) "
         r"\['question'\]"),
        (bbq_row(ans1=""), "an empty or non-text"),
        (bbq_row(answer_info={"ans0": ["a", "old"], "ans1": ["b", "nonOld"]}),
         "answer_info.ans2"),
        (bbq_row(answer_info={"ans0": ["a", "old"], "ans1": ["b", "nonOld"],
                              "ans2": ["c", "old"]}), "0 answers tagged 'unknown'"),
        (bbq_row(additional_metadata={}), "stereotyped_groups is None"),
    ],
)
def test_bbq_bad_rows_name_the_file_and_line(tmp_path: Path, row: Any, message: str) -> None:
    path = bbq_file(tmp_path, [bbq_row(), row])
    with pytest.raises(ConfigurationError, match=message) as info:
        bbq(path)
    assert str(path) in str(info.value)
    assert "expected" in str(info.value)


def test_bbq_empty_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"without \.jsonl files"):
        bbq(tmp_path)
    with pytest.raises(ConfigurationError, match="the file is empty"):
        bbq(write(tmp_path / "Age.jsonl", "\n\n"))


# --------------------------------------------------------------------------- templates

TEMPLATES = ("template,label,identity\n"
             '"I am a {identity} person",0,gay\n'
             '"I hate {identity} people",1,straight\n'
             '"Being {identity} is fine",0,straight\n')


class FakeDataset:
    def __init__(self, rows: list[dict[str, Any]], *, text: str, label: str,
                 groups: tuple[str, ...]) -> None:
        self.rows, self.text, self.label, self.groups = rows, text, label, groups


@pytest.fixture
def fake_dataset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand in for engineer A's `corpus.dataset` module (only its constructor is used)."""
    module = types.ModuleType("pytest_fairness.corpus.dataset")
    module.Dataset = FakeDataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pytest_fairness.corpus.dataset", module)


@pytest.mark.usefixtures("fake_dataset")
def test_identity_term_templates_fill_the_template(tmp_path: Path) -> None:
    found: Any = identity_term_templates(write(tmp_path / "t.csv", TEMPLATES))
    assert isinstance(found, FakeDataset)
    assert (found.text, found.label, found.groups) == ("text", "label", ("term",))
    assert found.rows[0] == {"text": "I am a gay person", "label": 0, "term": "gay",
                             "template": "I am a {identity} person"}
    assert [r["label"] for r in found.rows] == [0, 1, 0]


@pytest.mark.usefixtures("fake_dataset")
def test_identity_term_templates_other_columns_and_placeholder(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "phrase,toxic,group\n<X> are nice,no,women\n")
    found: Any = identity_term_templates(path, template="phrase", label="toxic", term="group",
                                         placeholder="<X>")
    assert found.rows == [{"text": "women are nice", "label": "no", "term": "women",
                           "template": "<X> are nice"}]


@pytest.mark.usefixtures("fake_dataset")
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("template,label\n", r"missing column\(s\) \['identity'\]"),
        ("template,label,identity\nno placeholder,0,gay\n", "line 2: the template"),
        ("template,label,identity\n{identity} ok,0,\n", "line 2: identity is empty"),
        ("template,label,identity\n{identity} ok,nan,gay\n", "line 2: label is 'nan'"),
        ("template,label,identity\n", "a header and no rows"),
    ],
)
def test_identity_term_templates_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        identity_term_templates(write(tmp_path / "t.csv", text))


def test_identity_term_templates_into_the_real_dataset(tmp_path: Path) -> None:
    dataset = pytest.importorskip("pytest_fairness.corpus.dataset",
                                  reason="corpus.dataset (engineer A) not there yet")
    found = identity_term_templates(write(tmp_path / "t.csv", TEMPLATES))
    assert isinstance(found, dataset.Dataset)


# --------------------------------------------------------------------------- real copies


def shared(name: str) -> Path:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"the shared benchmark copy is not at {path}")
    return path


def test_real_crows_pairs() -> None:
    pairs = crows_pairs(shared("crows-pairs"))
    assert len(pairs) == 1508
    counts = Counter(p.bias_type for p in pairs)
    assert set(counts) == set(CROWS_PAIRS_BIAS_TYPES)
    assert counts["race-color"] == 516
    assert counts["gender"] == 262
    assert counts["disability"] == 60
    assert [p.index for p in pairs] == list(range(1508))
    assert Counter(p.direction for p in pairs) == {"stereo": 1290, "antistereo": 218}


def test_real_winobias() -> None:
    found = winobias(shared("winobias"))
    counts = Counter((r.stereotype, r.type, r.split) for r in found)
    assert len(counts) == 8
    assert set(counts.values()) == {396}
    for r in found:
        assert r.text[slice(*r.pronoun_span)].lower() in ("he", "she", "him", "her", "his")
    pro = {(r.type, r.split, r.index): r.gender for r in found if r.stereotype == "pro"}
    anti = {(r.type, r.split, r.index): r.gender for r in found if r.stereotype == "anti"}
    assert pro.keys() == anti.keys()
    # the numbers align pro and anti sentences, but for two lines of type 2 test
    assert sorted(k for k in pro if pro[k] == anti[k]) == [(2, "test", 382), (2, "test", 384)]


def test_real_bbq() -> None:
    items = bbq(shared("bbq"))
    assert Counter(i.category for i in items) == {
        "Age": 3680, "Disability_status": 1556, "Nationality": 3080,
        "Physical_appearance": 1576, "Religion": 1200, "Sexual_orientation": 864}
    assert all(isinstance(i, BBQItem) and i.category in BBQ_CATEGORIES for i in items)
    assert all(i.target is not None and i.unknown != i.target for i in items)
    conditions = Counter((i.context_condition, i.question_polarity) for i in items)
    assert set(conditions.values()) == {len(items) // 4}
    # a negative question's biased answer is the target, a non-negative one's the other
    assert all((i.biased == i.target) == (i.question_polarity == "neg") for i in items)
