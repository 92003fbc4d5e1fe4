"""A sweep of bad inputs over the data surfaces of issue 26 -- `Dataset`, `Dataset.iter_rows`,
`Corpus`, the benchmark loaders, pairs -- each classified as a named error (a
`ConfigurationError` whose message names the input or option), a correct result, an
internal crash (any other exception), a hang (past the time limit) or a silent result (no
error where one was due). Not collected by pytest (the tests of each family are in
`test_data_file_inputs.py`); run it for the counts::

    PYTHONPATH=. python tests/robustness/data_file_sweep.py [--verbose]
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_fairness.corpus.benchmarks import bbq, crows_pairs, identity_term_templates, winobias
from pytest_fairness.corpus.dataset import Dataset
from pytest_fairness.corpus.pairs import diff_spans, pairs_from_columns
from pytest_fairness.corpus.sources import Corpus
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.runtime.printable import printable

LIMIT = 20.0
WINO = "pro_stereotyped_type1.txt.dev"
WINO_LINE = "1 [The developer] argued with the designer because [she] did not like it.\n"
BBQ_ROW: dict[str, Any] = {
    "example_id": 0, "question_index": "1", "question_polarity": "neg",
    "context_condition": "ambig", "category": "Age",
    "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"],
                    "ans2": ["Can't be determined", "unknown"]},
    "additional_metadata": {"stereotyped_groups": ["old"]},
    "context": "I saw a grandson and their grandfather.", "question": "Who forgot?",
    "ans0": "The grandfather", "ans1": "The grandson", "ans2": "Can't be determined",
    "label": 2,
}
READERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "Dataset csv": ("data.csv", lambda p: Dataset(p)),
    "Dataset tsv": ("data.tsv", lambda p: Dataset(p)),
    "Dataset jsonl": ("data.jsonl", lambda p: Dataset(p)),
    "Dataset json": ("data.json", lambda p: Dataset(p)),
    "Dataset parquet": ("data.parquet", lambda p: Dataset(p)),
    "iter_rows csv": ("data.csv", lambda p: list(Dataset.iter_rows(p))),
    "iter_rows jsonl": ("data.jsonl", lambda p: list(Dataset.iter_rows(p))),
    "pairs_from_columns": ("data.csv", lambda p: pairs_from_columns(p)),
    "Corpus txt": ("corpus.txt", lambda p: Corpus(p).sample(1, seed=0)),
    "Corpus csv": ("corpus.csv", lambda p: Corpus(p).sample(1, seed=0)),
    "Corpus jsonl": ("corpus.jsonl", lambda p: Corpus(p).sample(1, seed=0)),
    "crows_pairs": ("crows.csv", lambda p: crows_pairs(p)),
    "identity_term_templates": ("terms.csv", lambda p: identity_term_templates(p)),
    "bbq": ("Age.jsonl", lambda p: bbq(p)),
    "winobias": (WINO, lambda p: winobias(p)),
}


LOADERS = ("crows_pairs", "identity_term_templates", "bbq", "winobias")


class Hang(Exception):
    pass


@contextmanager
def limit(seconds: float = LIMIT) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


Case = tuple[str, Callable[[], object], tuple[str, ...], Callable[[object], bool] | None]
CASES: list[Case] = []


def bad(name: str, call: Callable[[], object], *names: str) -> None:
    """A case that must raise a named error mentioning every one of `names`."""
    CASES.append((name, call, names, None))


def good(name: str, call: Callable[[], object], check: Callable[[object], bool]) -> None:
    """A hostile but valid case: it must return a result that `check` accepts."""
    CASES.append((name, call, (), check))


def build(root: Path) -> None:
    def fresh(tag: str) -> Path:
        folder = root / f"{len(CASES)}-{tag}"
        folder.mkdir()
        return folder

    # Special files, for every reader.
    for reader, (file_name, read) in READERS.items():
        for kind in ("fifo", "dev zero", "directory", "missing", "dangling link",
                     "control chars", "nul", "empty"):
            folder = fresh("special")
            path = folder / file_name
            names: tuple[str, ...] = (file_name,)
            if kind == "fifo":
                os.mkfifo(path)
                names += ("named pipe",)
            elif kind == "dev zero":
                path.symlink_to("/dev/zero")
                names += ("/dev/zero",)
            elif kind == "directory":
                path.mkdir()  # the loaders take a folder too: they say what it lacks
                names += () if reader in LOADERS else ("directory",)
            elif kind == "dangling link":
                path.symlink_to(folder / "gone")
            elif kind == "control chars":
                path = folder / f"x\x1b[2J\u202e{file_name}"
                names = ("\\x1b",)
            elif kind == "nul":
                path = folder / f"x\x00{file_name}"
                names = ("\\x00",)
            elif kind == "empty":
                path.write_bytes(b"")
            bad(f"{reader}: {kind}", lambda r=read, p=path: r(p), *names)

    # Cells over csv's field limit.
    for reader in ("Dataset csv", "Dataset tsv", "iter_rows csv", "pairs_from_columns",
                   "Corpus csv", "crows_pairs", "identity_term_templates"):
        for quoted in (False, True):
            file_name, read = READERS[reader]
            path = fresh("long") / file_name
            cell = '"' + "b" * 20_000_000 + '"' if quoted else "a" * 200_000
            delimiter = "\t" if reader.endswith("tsv") else ","
            header = {"crows_pairs": "sent_more,sent_less,stereo_antistereo,bias_type",
                      "identity_term_templates": "template,label,identity",
                      "pairs_from_columns": "sent_more,sent_less"}.get(reader,
                                                                       f"text{delimiter}label")
            path.write_text(f"{header}\n{cell}{delimiter}x{delimiter}stereo{delimiter}age\n")
            bad(f"{reader}: cell over the field limit ({'20 MB' if quoted else '200k'})",
                lambda r=read, p=path: r(p), "field limit")

    # Deep JSON.
    deep = "[" * 100_000 + "]" * 100_000
    for reader, body in (
            ("Dataset jsonl", '{"text": ' + deep + "}\n"),
            ("Dataset jsonl", '{"text": "a"}\n{"text": "b", "unused": ' + deep + "}\n"),
            ("Dataset json", '[{"text": "a", "unused": ' + deep + "}]"),
            ("Dataset json", deep),
            ("iter_rows jsonl", '{"text": "a", "unused": ' + deep + "}\n"),
            ("Corpus jsonl", '{"text": "a", "unused": ' + deep + "}\n"),
            ("bbq", json.dumps(BBQ_ROW)[:-1] + ', "x": ' + deep + "}\n")):
        file_name, read = READERS[reader]
        path = fresh("deep") / file_name
        path.write_text(body)
        bad(f"{reader}: 100k-deep JSON", lambda r=read, p=path: r(p), "nested deeper")

    # Encodings.
    csv_path = fresh("enc") / "data.csv"
    csv_path.write_text("text,sent_more,sent_less\nhi,a b,a c\n")
    entries: dict[str, Callable[[object], object]] = {
        "Dataset": lambda e: Dataset(csv_path, encoding=e),  # type: ignore[arg-type]
        "iter_rows": lambda e: list(Dataset.iter_rows(csv_path, encoding=e)),  # type: ignore[arg-type]
        "Corpus": lambda e: Corpus(csv_path, encoding=e),  # type: ignore[arg-type]
        "pairs_from_columns": lambda e: pairs_from_columns(csv_path, encoding=e),  # type: ignore[arg-type]
    }
    for entry, call in entries.items():
        for encoding in ("rot13", "base64", "hex", "zlib_codec", "bz2_codec", "uu", "quopri",
                         "nope", "utf-8\x00", 8, None, b"utf-8"):
            bad(f"{entry}: encoding={encoding!r}", lambda c=call, e=encoding: c(e), "encoding")

    # Parquet.
    import pyarrow as pa
    import pyarrow.parquet as pq

    for kind in ("truncated", "empty", "text", "footer cut", "random", "duplicate columns",
                 "header cut"):
        for streamed in (False, True):
            path = fresh("pq") / "data.parquet"
            if kind == "duplicate columns":
                pq.write_table(pa.table([pa.array(["a"]), pa.array(["b"])],
                                        names=["text", "text"]), path)
            else:
                pq.write_table(pa.table({"text": [f"s {i}" for i in range(200)]}), path)
                whole = path.read_bytes()
                path.write_bytes({"truncated": whole[: len(whole) // 2], "empty": b"",
                                  "text": b"text\nhello\n", "footer cut": whole[:-6],
                                  "random": bytes(range(256)) * 8,
                                  "header cut": whole[4:]}[kind])
            call = (lambda p=path: list(Dataset.iter_rows(p))) if streamed else (
                lambda p=path: Dataset(p))
            bad(f"parquet {kind} ({'iter_rows' if streamed else 'Dataset'})", call,
                "data.parquet")

    # Missing values spelled out.
    for spelled in ("NaN", "nan", "NAN", "-nan", "NA", "N/A", "n/a", "#N/A", "<NA>", "NaT",
                    "null", "NULL"):
        path = fresh("nan") / "labels.csv"
        path.write_text(f"text,label\nGood.,pos\nBad.,{spelled}\n")
        bad(f"label {spelled!r}", lambda p=path: Dataset(p, label="label"), "no label")
        bad(f"label {spelled!r} streamed",
            lambda p=path: list(Dataset.iter_rows(p, label="label")), "no label")
        path2 = fresh("nan") / "texts.csv"
        path2.write_text(f"text,label\n{spelled},pos\n")
        bad(f"text {spelled!r}", lambda p=path2: Dataset(p), "'text'")
    groups = fresh("nan") / "groups.csv"
    groups.write_text("text,g\nA.,f\nB.,NaN\nC.,m\n")
    good("group 'NaN' is in no group", lambda: Dataset(groups, groups="g").groups("g"),
         lambda m: list(m) == ["f", "m"] and m.n_missing == 1)  # type: ignore[attr-defined]
    none_label = fresh("nan") / "none.csv"
    none_label.write_text("text,label\nA.,none\nB.,severe\n")
    good("label 'none' is a class", lambda: Dataset(none_label, label="label").labels,
         lambda labels: labels == ("none", "severe"))

    # BBQ.
    def bbq_file(rows: list[dict[str, Any]], name: str = "Age.jsonl",
                 encoding: str = "utf-8") -> Path:
        path = fresh("bbq") / name
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding=encoding)
        return path

    for value in ("abc", "12", 1.5, True, None, [1], {"a": 1}):
        path = bbq_file([dict(BBQ_ROW, example_id=value)])
        bad(f"bbq example_id {value!r}", lambda p=path: bbq(p), "example_id")
    path = bbq_file([dict(BBQ_ROW, context="A café owner.")], encoding="latin-1")
    bad("bbq latin-1", lambda p=path: bbq(p), "UTF-8")
    path = bbq_file([BBQ_ROW])
    bad("bbq Age file, categories='Religion'", lambda p=path: bbq(p, categories="Religion"),
        "categories=")
    path = bbq_file([BBQ_ROW], name="Religion.jsonl")
    bad("bbq Age rows in Religion.jsonl", lambda p=path.parent: bbq(p), "category 'Age'")
    for key, value in (("label", 3), ("label", True), ("category", "Aging"),
                       ("category", ["Age"]), ("context", ""), ("context", 5),
                       ("context_condition", "vague"), ("question_polarity", "x"),
                       ("answer_info", []), ("additional_metadata", {"stereotyped_groups": "o"})):
        path = bbq_file([dict(BBQ_ROW, **{key: value})])
        bad(f"bbq {key}={value!r}", lambda p=path: bbq(p), "line 1")
    for key in ("label", "context", "answer_info"):
        path = bbq_file([{k: v for k, v in BBQ_ROW.items() if k != key}])
        bad(f"bbq without {key}", lambda p=path: bbq(p), key)
    for text in ("[1, 2]\n", "{not json}\n", "\n\n"):
        path = fresh("bbq") / "Age.jsonl"
        path.write_text(text)
        bad(f"bbq line {text!r}", lambda p=path: bbq(p), "Age.jsonl")

    # WinoBias.
    for selection in ({"splits": "test"}, {"types": 2}, {"stereotypes": "anti"},
                      {"splits": "train"}, {"types": 3}, {"types": "1"}):
        path = fresh("wino") / WINO
        path.write_text(WINO_LINE)
        option = next(iter(selection))
        bad(f"winobias {selection}", lambda p=path, s=selection: winobias(p, **s), option)
    for line in ("[The developer] argued because [she] left.\n", "1 The developer left.\n",
                 "1 [The developer] argued with [the designer].\n",
                 "1 [The developer] told [him] that [she] left.\n",
                 "1 [The developer argued because [she] left.\n", "1 [] argued because [she].\n"):
        path = fresh("wino") / WINO
        path.write_text(line)
        bad(f"winobias line {line[:30]!r}", lambda p=path: winobias(p), "line 1")
    path = fresh("wino") / "wino.txt"
    path.write_text(WINO_LINE)
    bad("winobias unknown file name", lambda p=path: winobias(p), "wino.txt")

    # CrowS-Pairs.
    header = "sent_more,sent_less,stereo_antistereo,bias_type\n"
    for row in ("A nurse cried.,A nurse cried.,stereo,gender\n", ",A man.,stereo,gender\n",
                "A nurse.,A doctor.,maybe,gender\n", "A nurse.,A doctor.,stereo,height\n",
                "A nurse.,A doctor.,stereo,gender,extra\n", ""):
        path = fresh("crows") / "crows.csv"
        path.write_text(header + row)
        bad(f"crows row {row[:30]!r}", lambda p=path: crows_pairs(p), "crows.csv")
    path = fresh("crows") / "crows.csv"
    path.write_text("sent_more,sent_less\nA.,B.\n")
    bad("crows missing columns", lambda p=path: crows_pairs(p), "missing column")
    path = fresh("crows") / "crows.csv"
    path.write_text(header + "A nurse.,A doctor.,stereo,gender\n")
    bad("crows bias_types='height'", lambda p=path: crows_pairs(p, bias_types="height"),
        "bias_types")

    # Identity-term templates.
    header = "template,label,identity\n"
    for row in ("I am a person.,1,gay\n", "I am {identity}.,1,\n", "I am {identity}.,nan,gay\n",
                "I am {identity}.,,gay\n", ""):
        path = fresh("terms") / "terms.csv"
        path.write_text(header + row)
        bad(f"templates row {row[:30]!r}", lambda p=path: identity_term_templates(p),
            "terms.csv")

    # Pairs.
    rows = [{"text": "She is a nurse.", "g": "f", "k": "1", "lst": [1], "obj": {"a": 1}},
            {"text": "He is a nurse.", "g": "m", "k": "1", "lst": [1], "obj": {"a": 1}}]
    data = Dataset(rows, groups="g")
    for key in (5, 2.5, b"k", {"k": 1}, [5], ["k", ""], True, "nope"):
        bad(f"pairs key={key!r}", lambda k=key: data.pairs(k, a="f", b="m"), "key")
    bad("pairs group='nope'", lambda: data.pairs("k", "nope", a="f", b="m"), "group=")
    for column in ("lst", "obj"):
        bad(f"pairs key cells {column}", lambda c=column: data.pairs(c, a="f", b="m"),
            "pairing key")
    for kwargs in ({"group": 5}, {"a": "x"}, {"a": "m"}, {"match": "x"}, {"a": 5}):
        options: dict[str, Any] = {"key": "k", "a": "f", "b": "m", **kwargs}
        bad(f"pairs {kwargs}", lambda o=options: data.pairs(**o),
            next(iter(kwargs)) if "a" not in kwargs else "a")
    for kwargs in ({"a": "x", "b": "x"}, {"groups": ("a",)}, {"attribute": ""},
                   {"a": "text", "b": "missing"}, {"a": "text", "b": "x", "attribute_column": 5},
                   {"a": "text", "b": "x", "attribute_column": "nope"}, {"a": "sent_more"}):
        bad(f"pairs_from_columns {kwargs}",
            lambda o=kwargs: pairs_from_columns([{"text": "a", "x": "b"}], **o),
            list(kwargs)[-1])
    words = [f"w{i % 997}" for i in range(60_000)]
    changed = list(words)
    changed[31_000] = "CHANGED"
    good("pairs of 60k words, one changed",
         lambda: diff_spans(" ".join(words), " ".join(changed)),
         lambda spans: [s.text for s in spans[1]] == ["CHANGED"])  # type: ignore[index]
    one, two = " ".join(f"a{i}" for i in range(20_000)), " ".join(f"b{i}" for i in range(20_000))
    good("pairs of 20k words, all changed", lambda: diff_spans(one, two),
         lambda spans: spans[1][0].text == two)  # type: ignore[index]
    spread = [("Q" if i % 600 == 0 else w) for i, w in enumerate(words)]
    good("pairs of 60k words, 100 changed", lambda: diff_spans(" ".join(words), " ".join(spread)),
         lambda spans: len(spans[0]) == 100)  # type: ignore[arg-type]

    # Delimiters and other Dataset cases.
    for file_name, body in (("data.tsv", "text,label,g\nhi,1,a\n"),
                            ("data.csv", "text\tlabel\tg\nhi\t1\ta\n"),
                            ("data.csv", "text;label;g\nhi;1;a\n"),
                            ("data.csv", "text|label|g\nhi|1|a\n")):
        path = fresh("delim") / file_name
        path.write_text(body)
        bad(f"{file_name} delimited otherwise", lambda p=path: Dataset(p, label="label"),
            "looks")
    for file_name, body, named in (
            ("data.csv", "text,text\na,b\n", "duplicate"),
            ("data.csv", "text,label\na,pos\nb,neg,x\n", "fields"),
            ("data.csv", "label\npos\n", "text"),
            ("data.csv", "text\n", "no rows"),
            ("data.csv", 'text\n"unclosed\nmore rows\n', "never closed"),
            ("data.csv", 'text,label\n"a"b,1\n', "expected after"),
            ("data.jsonl", '{"text": "a", "text": "b"}\n', "duplicate"),
            ("data.jsonl", '{"text": "a"}\n[1]\n', "line 2"),
            ("data.jsonl", '{"text": 5}\n', "not a text"),
            ("data.jsonl", '{"text": "a", "label": true}\n', "bool"),
            ("data.jsonl", '{"text": "a", "label": 1.5}\n', "label"),
            ("data.jsonl", '{"text": "a", "label": 1}\n{"text": "b", "label": "x"}\n', "mix"),
            ("data.jsonl", '{"text": "a", "label": NaN}\n', "no label"),
            ("data.jsonl", '{"text": "a", "label": Infinity}\n', "label"),
            ("data.json", '{"text": "a"}', "list of objects"),
            ("data.json", '[1, 2]', "mapping"),
            ("data.csv", "text,label\n\xff,1\n", "line")):
        path = fresh("ds") / file_name
        path.write_bytes(body.encode("utf-8", "surrogateescape") if "\xff" not in body
                         else body.encode("latin-1"))
        call = (lambda p=path: Dataset(p, label="label")) if '"label"' in body or \
            "label" in body.split("\n")[0] else (lambda p=path: Dataset(p))
        bad(f"Dataset {file_name} {body[:28]!r}", call, named)
    nul = fresh("ds") / "nul.csv"
    nul.write_text("text\nab\x00c\n")
    good("a NUL inside a text is kept as written", lambda: Dataset(nul).texts,
         lambda texts: texts == ("ab\x00c",))
    for call, named in ((lambda: Dataset(3), "int"), (lambda: Dataset({"text": ["a"]}), "dict"),
                        (lambda: Dataset(b"text"), "bytes"),
                        (lambda: Dataset([{"text": "a"}], text=""), "text"),
                        (lambda: Dataset([{"text": "a"}], groups="g"), "groups="),
                        (lambda: Dataset([{"text": "a", "g": None}], groups="g"), "'g'"),
                        (lambda: Dataset([{"text": "a"}], drop_missing="yes"), "drop_missing"),
                        (lambda: Dataset([{"text": "a"}]).select("x"), "select"),
                        (lambda: Dataset([{"text": "a"}]).select([5]), "row index"),
                        (lambda: Dataset([{"text": ""}], drop_missing=True), "no rows"),
                        (lambda: Dataset.iter_rows([{"text": "a"}]), "iter_rows"),
                        (lambda: Dataset("data.xlsx"), ".xlsx")):
        bad(f"Dataset call {named}", call, named)

    # Values too long or too deep to print, group cells that are no single value.
    huge = "9" * 5000
    for reader, body in (("Dataset jsonl", '{"text": "a", "label": ' + huge + "}\n"),
                         ("Dataset json", '[{"text": "a", "x": ' + huge + "}]"),
                         ("iter_rows jsonl", '{"text": "a", "x": ' + huge + "}\n"),
                         ("Corpus jsonl", '{"text": "a", "x": ' + huge + "}\n"),
                         ("bbq", json.dumps(BBQ_ROW)[:-1] + ', "x": ' + huge + "}\n")):
        file_name, read = READERS[reader]
        path = fresh("huge") / file_name
        path.write_text(body)
        bad(f"{reader}: a 5,000-digit number", lambda r=read, p=path: r(p), "number")
    bad("Dataset text 10**5000", lambda: Dataset([{"text": 10**5000}]), "too long to show")
    for cell in ([1], {"a": 1}, ("f", "m")):
        bad(f"group cell {cell!r}",
            lambda c=cell: Dataset([{"text": "a", "g": c}], groups="g").groups("g"), "'g'")
    for value in ([1], {"a": 1}, None, True):
        path = bbq_file([dict(BBQ_ROW, question_index=value)])
        bad(f"bbq question_index {value!r}", lambda p=path: bbq(p), "question_index")

    # Blow-ups bounded.
    many = Dataset([{"text": f"{w} {i}", "g": w, "k": "one"} for w in "ab" for i in range(1_001)],
                   groups="g", keys="k")
    bad("pairs match='all' of 1,001 x 1,001 rows", lambda: many.pairs(a="a", b="b", match="all"),
        "pairs")
    wide = Dataset([{"text": f"t{i}", "x": str(i % 150), "y": str(i % 149)}
                    for i in range(150 * 149)], groups=("x", "y"))
    bad("intersections of 150 x 149 values", lambda: wide.intersections(("x", "y")),
        "intersectional groups")

    # Corpus.
    for call, named in ((lambda: Corpus("texts.docx"), ".docx"), (lambda: Corpus(b"x"), "bytes"),
                        (lambda: Corpus({"a"}), "set"), (lambda: Corpus(5), "int"),
                        (lambda: Corpus(["a"], column=""), "column"),
                        (lambda: Corpus(["a"], errors="nope"), "errors=")):
        bad(f"Corpus {named}", call, named)
    for file_name, body, named in (("c.csv", "body\nhi\n", "column"),
                                   ("c.jsonl", "[1]\n", "line 1"),
                                   ("c.jsonl", '{"text": 5}\n', "not a string"),
                                   ("c.jsonl", '{"body": "x"}\n', "no key"),
                                   ("c.txt", "caf\xe9\n", "latin-1")):
        path = fresh("corpus") / file_name
        path.write_bytes(body.encode("latin-1"))
        bad(f"Corpus {file_name} {body[:20]!r}", lambda p=path: list(Corpus(p)), named)


def classify(case: Case) -> tuple[str, str]:
    _name, call, names, check = case
    try:
        with limit():
            result = call()
    except Hang:
        return "hang", ""
    except ConfigurationError as exc:
        message = str(exc)
        if check is not None:
            return "crash", f"refused a valid input: {message[:160]}"
        if printable(message) != message:
            return "unsafe message", message[:160]
        missing = [n for n in names if n not in message]
        return ("named" if not missing else "named, input not named"), message[:160]
    except Exception as exc:
        return "crash", f"{type(exc).__name__}: {str(exc)[:160]}"
    if check is None:
        return "silent", repr(result)[:160]
    return ("correct" if check(result) else "silent"), ""


def main() -> int:
    verbose = "--verbose" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        counts: Counter[str] = Counter()
        for case in CASES:
            outcome, detail = classify(case)
            counts[outcome] += 1
            if verbose or outcome not in ("named", "correct"):
                print(f"{outcome:24} {printable(case[0])}  {printable(detail)}")
    print(f"{len(CASES)} cases: " + ", ".join(f"{n} {k}" for k, n in counts.most_common()))
    return 0 if set(counts) <= {"named", "correct"} else 1


if __name__ == "__main__":
    sys.exit(main())
