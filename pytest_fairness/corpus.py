"""Corpora: where the sentences that fairness tests perturb come from.

A `Corpus` wraps a list of texts, a `.txt` / `.csv` / `.jsonl` file, an iterable or a
zero-argument callable returning an iterable. It is streamed: files are re-read lazily on
each pass and nothing is loaded whole, so a corpus of millions of lines is fine.

`Corpus.sample` draws a seeded reservoir sample; `Corpus.anchored` finds the PSA anchors
(psa, sections 2 and 2.2): sentences of at most 50 words with an English third-person
singular pronoun, balanced between female and male pronouns, or (kind="person") with a
person name or person noun. spaCy is loaded through `pytest_fairness.nlp` on first use.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import nlp as _nlp
from .errors import ConfigurationError
from .recording import current_settings
from .types import Anchor, AnchorRole, Casing, PronounRole, Span

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

Gender = Literal["female", "male"]
GENDERS: tuple[Gender, ...] = ("female", "male")

#: What `Corpus` accepts: a file path, an iterable of texts, or a callable returning one.
CorpusSource: TypeAlias = str | os.PathLike[str] | Iterable[str] | Callable[[], Iterable[str]]

#: File types a corpus can be read from.
FILE_SUFFIXES: tuple[str, ...] = (".txt", ".csv", ".jsonl")

#: The `kind` values `Corpus.anchored` accepts.
ANCHOR_KINDS: tuple[str, ...] = ("pronoun", "person")

#: English third-person singular pronouns (psa, section 2.2): the gender of each, and its
#: role when the form alone decides it ("her" and "his" are resolved from the parse).
PRONOUNS: dict[str, tuple[Gender, PronounRole | None]] = {
    "he": ("male", "subject"),
    "him": ("male", "object"),
    "his": ("male", None),
    "himself": ("male", "reflexive"),
    "she": ("female", "subject"),
    "her": ("female", None),
    "hers": ("female", "possessive_pronoun"),
    "herself": ("female", "reflexive"),
}

# Cheap test run before parsing: a text this does not match has no pronoun anchor.
_PRONOUN_PATTERN = re.compile(r"\b(?:" + "|".join(PRONOUNS) + r")\b", re.IGNORECASE)


class Corpus:
    """A re-iterable, streamed collection of texts.

    `source` is one of:

    - a list or tuple (or any re-iterable collection) of str;
    - a path (str or `os.PathLike`) to a `.txt` file (one text per line, blank lines
      skipped), a `.csv` file (the `column` column) or a `.jsonl` file (the `column` key
      of each JSON object); blank texts in files are skipped;
    - a zero-argument callable returning an iterable of str, called again on each pass;
    - a one-shot iterator or generator, which can be iterated once only.

    Iterating yields str; any other item raises `ConfigurationError` naming its position.
    `name` is how errors refer to the corpus (the file path by default).
    """

    def __init__(
        self, source: CorpusSource, *, column: str = "text", name: str | None = None
    ) -> None:
        self.column = column
        self._path: Path | None = None
        self._collection: Iterable[object] | None = None
        self._factory: Callable[[], object] | None = None
        self._iterator: Iterator[object] | None = None
        self._consumed = False
        if isinstance(source, (str, os.PathLike)):
            self._path = _corpus_file(source)
            default_name = str(self._path)
        elif isinstance(source, (Set, Mapping)):
            raise ConfigurationError(
                f"a corpus cannot be a {type(source).__name__}: it has no fixed order of "
                "texts (or holds keys, not texts). Pass a list of str, e.g. sorted(texts)"
            )
        elif isinstance(source, Iterator):
            self._iterator = source
            default_name = f"one-shot {type(source).__name__}"
        elif isinstance(source, Iterable):
            self._collection = source
            size = f" of {len(source)} texts" if isinstance(source, (list, tuple)) else ""
            default_name = f"{type(source).__name__}{size}"
        elif callable(source):
            self._factory = source
            default_name = f"{getattr(source, '__qualname__', type(source).__name__)}()"
        else:
            raise ConfigurationError(
                f"cannot make a corpus from {type(source).__name__} {source!r:.80}; pass a "
                "list of str, a .txt/.csv/.jsonl file path, or a callable returning texts"
            )
        self.name = name if name is not None else default_name
        if self._path is not None:
            for _ in self:  # reads the header and first record: a wrong column fails here
                break

    @classmethod
    def from_source(cls, source: CorpusSource | Corpus, *, column: str = "text") -> Corpus:
        """`source` itself when it is a `Corpus`, else `Corpus(source, column=column)`."""
        if isinstance(source, Corpus):
            return source
        return cls(source, column=column)

    def __repr__(self) -> str:
        return f"Corpus({self.name!r})"

    def __iter__(self) -> Iterator[str]:
        if self._path is not None:
            return _read_file(self._path, self.column, self.name)
        if self._iterator is not None:
            if self._consumed:
                raise ConfigurationError(
                    f"corpus {self.name} was built from a one-shot iterator, which is already "
                    "used up, and it is being read a second time. Pass a list, a file path, "
                    "or a callable returning a fresh iterator (e.g. `lambda: read_texts()`)"
                )
            self._consumed = True
            return _checked(self._iterator, self.name)
        if self._factory is not None:
            produced = self._factory()
            if isinstance(produced, str) or not isinstance(produced, Iterable):
                raise ConfigurationError(
                    f"corpus {self.name}: the callable returned {type(produced).__name__}, "
                    "not an iterable of texts"
                )
            return _checked(produced, self.name)
        assert self._collection is not None
        return _checked(self._collection, self.name)

    def sample(self, n: int, seed: int | None = None) -> list[str]:
        """`n` texts drawn uniformly without replacement, in corpus order.

        Streams the corpus once (reservoir sampling with `random.Random(seed)`), so the
        same seed gives the same sample. Fewer than `n` texts: all of them. `seed`
        defaults to the run's seed (`--fairness-seed`, 0 outside pytest).
        """
        if n < 0:
            raise ConfigurationError(f"sample size must be >= 0, got {n}")
        rng = random.Random(_seed(seed))
        reservoir: list[tuple[int, str]] = []
        seen = 0
        for index, text in enumerate(self):
            seen += 1
            if index < n:
                reservoir.append((index, text))
            else:
                slot = rng.randrange(index + 1)
                if slot < n:
                    reservoir[slot] = (index, text)
        if seen == 0:
            raise self._empty_error("sample from")
        reservoir.sort(key=lambda item: item[0])
        return [text for _, text in reservoir]

    def anchored(
        self,
        kind: str = "pronoun",
        *,
        max_words: int = 50,
        balance_gender: bool = True,
        seed: int | None = None,
        limit: int | None = None,
        nlp: str | None = None,
        batch_size: int = 256,
    ) -> AnchorList:
        """The texts that hold an anchor, one `Anchor` each, in corpus order.

        Implements the anchor selection of PSA (psa, section 2; corpora in section 2.2):
        texts of at most `max_words` whitespace-separated words that contain a referring
        expression to a person. Each corpus text is one unit (PSA takes whole comments);
        it is not split into sentences.

        - kind="pronoun": the anchor is the *first* English third-person singular pronoun
          (he, him, his, himself, she, her, hers, herself) written as a whole word. Its
          role comes from the form and, for "her" and "his", from spaCy's tag and
          dependency label; its gender is female or male.
        - kind="person": the anchor is the first PERSON entity (role "name", gender None)
          or person noun (role "person_noun", see `is_person_noun`; gender from
          `person_noun_gender`), whichever comes first.

        `balance_gender` keeps as many female as male anchors (psa, section 2.2): the
        majority is downsampled with `random.Random(seed)`, keeping corpus order; anchors
        without a gender are never dropped. `limit` caps the number of anchors and stops
        reading the corpus once it is reached; with `balance_gender` the first
        `limit // 2` anchors of each gender are kept (for pronouns an odd limit is
        rounded down).

        `nlp` names the spaCy pipeline (default: the run's `--fairness-spacy-model`, else
        the default English pipeline). Texts are parsed with `nlp.pipe` in batches of
        `batch_size`, with unused components disabled; for pronouns a regex skips texts
        without a candidate before parsing.

        The result is a list with a `report` attribute (`AnchorReport`) counting texts
        read, too long, without anchor and kept. No anchor at all raises
        `ConfigurationError` saying why.
        """
        finder = _FINDERS.get(kind)
        if finder is None:
            raise ConfigurationError(
                f"unknown anchor kind {kind!r}; valid kinds: {', '.join(ANCHOR_KINDS)}"
            )
        _check_positive("max_words", max_words)
        _check_positive("batch_size", batch_size)
        if limit is not None:
            _check_positive("limit", limit)
            if balance_gender and kind == "pronoun":
                limit -= limit % 2
                if limit == 0:
                    raise ConfigurationError(
                        "limit=1 with balance_gender=True cannot hold one anchor of each "
                        "gender; pass limit >= 2 or balance_gender=False"
                    )
        counts: Counter[str] = Counter()
        collector = _Collector(balance_gender, limit)
        texts = self._short_texts(max_words, finder.prefilter, counts)
        for batch in _batches(texts, batch_size):
            docs = _parse([text for _, text in batch], nlp, finder.unused_components)
            for (index, _), doc in zip(batch, docs, strict=True):
                anchor = finder.find(doc)
                if anchor is None:
                    counts["no_anchor"] += 1
                else:
                    counts["anchored"] += 1
                    collector.offer(index, anchor)
            if collector.full():
                break
        kept = collector.select(random.Random(_seed(seed)))
        genders = Counter(anchor.gender for anchor in kept)
        report = AnchorReport(
            source=self.name,
            kind=kind,
            max_words=max_words,
            seen=counts["seen"],
            too_long=counts["too_long"],
            no_anchor=counts["no_anchor"],
            anchored=counts["anchored"],
            kept=len(kept),
            female=genders["female"],
            male=genders["male"],
        )
        if not kept:
            if report.seen == 0:
                raise self._empty_error("find anchors in")
            raise ConfigurationError(_no_anchor_message(report, finder, collector))
        return AnchorList(kept, report)

    def _short_texts(
        self, max_words: int, prefilter: re.Pattern[str] | None, counts: Counter[str]
    ) -> Iterator[tuple[int, str]]:
        """(index, text) of the texts worth parsing; counts the others in `counts`."""
        for index, text in enumerate(self):
            counts["seen"] += 1
            if len(text.split()) > max_words:
                counts["too_long"] += 1
            elif prefilter is not None and prefilter.search(text) is None:
                counts["no_anchor"] += 1
            else:
                yield index, text

    def _empty_error(self, action: str) -> ConfigurationError:
        return ConfigurationError(
            f"corpus {self.name} is empty: there is nothing to {action}. Check the source "
            "(a .txt file holds one text per line; blank lines and blank texts are skipped)"
        )


@dataclass(frozen=True)
class AnchorReport:
    """Why a corpus gave the anchors it gave: counts of one `Corpus.anchored` call.

    `seen == too_long + no_anchor + anchored` and `kept <= anchored`.
    """

    source: str
    kind: str
    max_words: int
    seen: int
    """Texts read from the corpus."""
    too_long: int
    """Texts of more than `max_words` words (not parsed)."""
    no_anchor: int
    """Texts without an anchor of this kind."""
    anchored: int
    """Texts with an anchor."""
    kept: int
    """Anchors returned, after the limit and gender balancing."""
    female: int
    """Returned anchors of female gender."""
    male: int
    """Returned anchors of male gender."""

    @property
    def dropped(self) -> int:
        """Anchors found but not returned (over the limit, or to balance genders)."""
        return self.anchored - self.kept

    def summary(self) -> str:
        return (
            f"{self.kind} anchors in {self.source}: read {self.seen} texts, "
            f"{self.too_long} longer than {self.max_words} words, {self.no_anchor} without "
            f"anchor, {self.anchored} anchored, {self.kept} kept "
            f"({self.female} female, {self.male} male)"
        )


class AnchorList(list[Anchor]):
    """The anchors `Corpus.anchored` returns, with the counts that explain them."""

    def __init__(self, anchors: Iterable[Anchor], report: AnchorReport) -> None:
        super().__init__(anchors)
        self.report = report


def is_person_noun(word: str) -> bool:
    """Whether `word` is a singular English noun naming a person ("doctor", "mother").

    A stand-in word list (data/person_nouns.txt) until the knowledge-graph check of the
    mt-nlp paper (IsPerson by ConceptNet IsA reachability) replaces it.
    """
    return word.lower() in _person_nouns()


def person_noun_gender(word: str) -> Gender | None:
    """The gender a person noun carries ("mother": female), None when neutral or unknown."""
    return _person_nouns().get(word.lower())


# --- reading sources -------------------------------------------------------------------


def _corpus_file(source: str | os.PathLike[str]) -> Path:
    path = Path(source).expanduser()
    if path.suffix.lower() not in FILE_SUFFIXES:
        hint = ""
        if isinstance(source, str) and not path.is_file():
            hint = f"; to make a corpus of one text, pass a list: Corpus([{source!r:.60}])"
        raise ConfigurationError(
            f"corpus file {str(source)!r:.100} must end in {', '.join(FILE_SUFFIXES)}{hint}"
        )
    if not path.is_file():
        raise ConfigurationError(f"corpus file '{path}' does not exist")
    return path


def _read_file(path: Path, column: str, name: str) -> Iterator[str]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _read_csv(path, column, name)
    if suffix == ".jsonl":
        return _read_jsonl(path, column, name)
    return _read_txt(path)


def _read_txt(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8-sig") as handle:
        for line in handle:
            text = line.rstrip("\r\n")
            if text.strip():
                yield text


def _read_csv(path: Path, column: str, name: str) -> Iterator[str]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            return
        if column not in reader.fieldnames:
            raise ConfigurationError(
                f"corpus {name} has no column '{column}'; its columns are: "
                f"{', '.join(map(repr, reader.fieldnames))}. Pass column=... (or set "
                "--fairness-corpus-column / the fairness_corpus_column ini key)"
            )
        for row in reader:
            text = row.get(column)
            if text is None:
                raise ConfigurationError(
                    f"corpus {name}: the row ending on line {reader.line_num} has no value "
                    f"in column '{column}'"
                )
            if text.strip():
                yield text


def _read_jsonl(path: Path, column: str, name: str) -> Iterator[str]:
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"corpus {name}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigurationError(f"{where} is not valid JSON ({exc})") from exc
            if not isinstance(record, dict):
                raise ConfigurationError(
                    f"{where} is a JSON {type(record).__name__}, not an object with a "
                    f"'{column}' key"
                )
            if column not in record:
                raise ConfigurationError(
                    f"{where} has no key '{column}'; its keys are: "
                    f"{', '.join(map(repr, record))}. Pass column=... (or set "
                    "--fairness-corpus-column / the fairness_corpus_column ini key)"
                )
            text = record[column]
            if not isinstance(text, str):
                raise ConfigurationError(
                    f"{where}: '{column}' is a {type(text).__name__} ({text!r:.60}), not a string"
                )
            if text.strip():
                yield text


def _checked(items: Iterable[object], name: str) -> Iterator[str]:
    for position, item in enumerate(items):
        if not isinstance(item, str):
            raise ConfigurationError(
                f"corpus {name}: item {position} (counting from 0) is a "
                f"{type(item).__name__} ({item!r:.60}), not a str; a corpus holds texts"
            )
        yield item


def _batches(items: Iterable[tuple[int, str]], size: int) -> Iterator[list[tuple[int, str]]]:
    batch: list[tuple[int, str]] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _parse(texts: list[str], name: str | None, unused: tuple[str, ...]) -> Iterator[Doc]:
    """`texts` parsed by the spaCy pipeline `name` (else the run's), without `unused`."""
    pipeline = _nlp.load(name)
    disable = [component for component in unused if component in pipeline.pipe_names]
    docs: Iterator[Doc] = pipeline.pipe(texts, batch_size=len(texts), disable=disable)
    return docs


def _seed(seed: int | None) -> int:
    return current_settings().seed if seed is None else seed


def _check_positive(what: str, value: int) -> None:
    if value < 1:
        raise ConfigurationError(f"{what} must be a positive integer, got {value}")


# --- finding anchors in a parsed text --------------------------------------------------


def _pronoun_anchor(doc: Doc) -> Anchor | None:
    """The first third-person singular pronoun of `doc`, as an anchor."""
    for token in doc:
        entry = PRONOUNS.get(token.lower_)
        if entry is None:
            continue
        start, end = token.idx, token.idx + len(token.text)
        if not _whole_word(doc.text, start, end):
            continue
        gender, role = entry
        return _anchor(doc.text, start, end, role or _possessive_role(token), gender,
                       _sentence_initial(token))
    return None


def _possessive_role(token: Token) -> PronounRole:
    """Role of "her" (object or determiner) or "his" (determiner or pronoun) from the parse.

    "her" is a determiner when tagged PRP$ or attached as `poss`; "his" is a determiner
    only when attached as `poss` to a noun ("his book"), else a possessive pronoun ("the
    book is his"). Without a dependency parse the PRP$ tag decides.
    """
    determiner = token.dep_ == "poss"
    if token.lower_ == "her" or not token.doc.has_annotation("DEP"):
        determiner = determiner or token.tag_ == "PRP$"
    if determiner:
        return "possessive_determiner"
    return "object" if token.lower_ == "her" else "possessive_pronoun"


def _person_anchor(doc: Doc) -> Anchor | None:
    """The first PERSON entity or person noun of `doc`, as an anchor."""
    name = next((ent for ent in doc.ents if ent.label_ == "PERSON"), None)
    noun = next(
        (
            token
            for token in doc
            if token.pos_ in ("NOUN", "PROPN")
            and token.ent_type_ != "PERSON"
            and is_person_noun(token.text)
            and _whole_word(doc.text, token.idx, token.idx + len(token.text))
        ),
        None,
    )
    if name is not None and (noun is None or name.start_char < noun.idx):
        return _anchor(doc.text, name.start_char, name.end_char, "name", None,
                       _sentence_initial(name[0]))
    if noun is not None:
        return _anchor(doc.text, noun.idx, noun.idx + len(noun.text), "person_noun",
                       person_noun_gender(noun.text), _sentence_initial(noun))
    return None


def _anchor(
    text: str, start: int, end: int, role: AnchorRole, gender: Gender | None, initial: bool
) -> Anchor:
    word = text[start:end]
    return Anchor(text=text, span=Span(start, end, word), role=role, gender=gender,
                  casing=_casing(word), sentence_initial=initial)


def _casing(word: str) -> Casing:
    """"upper" for HE, "title" for He (and McCain), "lower" otherwise."""
    if word.isupper():
        return "upper"
    return "title" if word[:1].isupper() else "lower"


def _whole_word(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is not glued to a letter, digit, "_" or "-"."""
    around = text[start - 1 : start] + text[end : end + 1]
    return not any(char.isalnum() or char in "_-" for char in around)


def _sentence_initial(token: Token) -> bool:
    """Whether only punctuation or space precedes `token` in its sentence."""
    doc = token.doc
    i = token.i
    while i > 0 and not doc[i].is_sent_start:
        previous = doc[i - 1]
        if not (previous.is_punct or previous.is_space):
            return False
        i -= 1
    return True


@functools.cache
def _person_nouns() -> dict[str, Gender | None]:
    data = resources.files("pytest_fairness") / "data" / "person_nouns.txt"
    nouns: dict[str, Gender | None] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, gender = line.split("\t")
        nouns[word] = "female" if gender == "female" else "male" if gender == "male" else None
    return nouns


@dataclass(frozen=True)
class _Finder:
    describe: str
    prefilter: re.Pattern[str] | None
    unused_components: tuple[str, ...]
    find: Callable[[Doc], Anchor | None]


_FINDERS: dict[str, _Finder] = {
    "pronoun": _Finder(
        describe="English third-person singular pronoun (" + ", ".join(PRONOUNS) + ")",
        prefilter=_PRONOUN_PATTERN,
        unused_components=("ner", "lemmatizer"),
        find=_pronoun_anchor,
    ),
    "person": _Finder(
        describe="person name (spaCy PERSON entity) or person noun",
        prefilter=None,
        unused_components=("lemmatizer",),
        find=_person_anchor,
    ),
}


# --- limit and gender balance ----------------------------------------------------------


class _Collector:
    """Anchors offered in corpus order, kept under the limit, balanced on `select`.

    Anchors are offered one by one in corpus order and refused once `full()`, so the
    result does not depend on the batch size.
    """

    def __init__(self, balance: bool, limit: int | None) -> None:
        self.balance = balance
        self.limit = limit
        self.quota = limit // 2 if balance and limit is not None else None
        self.groups: dict[Gender | None, list[tuple[int, Anchor]]] = {
            "female": [], "male": [], None: []
        }

    def _group(self, anchor: Anchor) -> Gender | None:
        if self.balance and anchor.gender == "female":
            return "female"
        if self.balance and anchor.gender == "male":
            return "male"
        return None

    def offer(self, index: int, anchor: Anchor) -> None:
        group = self.groups[self._group(anchor)]
        over_quota = self._group(anchor) is not None and self.quota is not None and (
            len(group) >= self.quota
        )
        if not self.full() and not over_quota:
            group.append((index, anchor))

    def full(self) -> bool:
        if self.limit is None:
            return False
        female, male, other = (len(self.groups[g]) for g in ("female", "male", None))
        return 2 * min(female, male) + other >= self.limit

    def found(self, gender: Gender) -> int:
        return len(self.groups[gender])

    def select(self, rng: random.Random) -> list[Anchor]:
        female, male, other = (self.groups[g] for g in ("female", "male", None))
        if self.balance:
            size = min(len(female), len(male))
            female = _downsample(female, size, rng)
            male = _downsample(male, size, rng)
            if self.limit is not None:
                other = other[: self.limit - 2 * size]
        return [anchor for _, anchor in sorted(female + male + other, key=lambda a: a[0])]


def _downsample(
    items: list[tuple[int, Anchor]], size: int, rng: random.Random
) -> list[tuple[int, Anchor]]:
    if len(items) <= size:
        return items
    chosen = sorted(rng.sample(range(len(items)), size))
    return [items[i] for i in chosen]


def _no_anchor_message(report: AnchorReport, finder: _Finder, collector: _Collector) -> str:
    if report.anchored:
        female, male = collector.found("female"), collector.found("male")
        missing = "male" if male == 0 else "female"
        return (
            f"corpus {report.source}: found {female} female and {male} male {report.kind} "
            f"anchors, so balancing genders keeps none. Add texts with {missing} "
            f"{report.kind}s, or pass balance_gender=False"
        )
    hint = f" Raise max_words (now {report.max_words})." if report.too_long else ""
    return (
        f"corpus {report.source} has no {report.kind} anchor: read {report.seen} texts; "
        f"{report.too_long} had more than {report.max_words} words and {report.no_anchor} had "
        f"no {finder.describe}.{hint} Use a corpus with such sentences"
    )
