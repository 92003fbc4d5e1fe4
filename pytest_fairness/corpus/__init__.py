"""Corpora: where the sentences that fairness tests perturb come from.

A `Corpus` wraps a list of texts, a `.txt` / `.csv` / `.jsonl` file, an iterable or a
zero-argument callable returning an iterable. It is streamed: files are re-read lazily on
each pass and nothing is loaded whole, so a corpus of millions of lines is fine.

`Corpus.sample` draws a seeded reservoir sample; `Corpus.anchored` finds the PSA anchors
(psa, sections 2 and 2.2): sentences of at most 50 words with an English third-person
singular pronoun, balanced between female and male pronouns, or (kind="person") with a
person name or person noun. `Corpus.iter_anchored` streams the same anchors in bounded
memory (two passes when balancing genders). spaCy is loaded through
`pytest_fairness.resources.nlp` on first use.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal, TypeAlias

from ..context import current_settings
from ..errors import ConfigurationError
from ..resources import nlp as _nlp
from ..types import Anchor, AnchorRole, Casing, PronounRole, Span

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
        the default English pipeline; it is loaded up front, so a wrong name fails
        whatever the texts hold). For pronouns the first whole-word pronoun is found by a
        regex, without a parse: its form gives the gender, and the role of he, she, him,
        hers, himself and herself; only texts whose first pronoun is "her" or "his" are
        parsed (`nlp.pipe` in batches of at most `batch_size`, with the tok2vec, tagger
        and parser only), and `sentence_initial` of the others comes from the
        punctuation (see `_unparsed_pronoun_anchor`). Person anchors parse every text
        (NER and POS).

        The result is a list with a `report` attribute (`AnchorReport`) counting texts
        read, too long, without anchor and kept. No anchor at all raises
        `ConfigurationError` saying why.
        """
        finder, limit = _check_anchor_args(kind, max_words, batch_size, limit, balance_gender)
        _nlp.load(nlp)  # a misconfigured pipeline fails here, whatever the texts hold
        counts: Counter[str] = Counter()
        collector = _Collector(balance_gender, limit)
        for index, anchor in _scan(
            iter(self), finder, max_words, batch_size, nlp, counts, collector.accept,
            collector.full,
        ):
            collector.add(index, anchor)
        kept = collector.select(random.Random(_seed(seed)))
        report = self._report(kind, max_words, counts, kept)
        if not kept:
            if report.seen == 0:
                raise self._empty_error("find anchors in")
            raise ConfigurationError(_no_anchor_message(report, finder, collector))
        return AnchorList(kept, report)

    @property
    def reiterable(self) -> bool:
        """False for a corpus built from a one-shot iterator (it can be read only once)."""
        return self._iterator is None

    def iter_anchored(
        self,
        kind: str = "pronoun",
        *,
        max_words: int = 50,
        balance_gender: bool = True,
        seed: int | None = None,
        limit: int | None = None,
        nlp: str | None = None,
        batch_size: int = 256,
    ) -> AnchorStream:
        """The anchors of `anchored()`, the same ones in the same order, streamed in
        bounded memory (psa, section 2; corpora in section 2.2).

        Nothing proportional to the corpus is kept. Gender balancing needs the number of
        female and male anchors before the first one can be kept or dropped, so with
        `balance_gender` the corpus is read twice:

        1. a counting pass: for pronouns no parse at all (the first pronoun's form gives
           its gender); for kind="person" the texts are parsed (twice the parse cost);
        2. the selecting pass: the majority gender's anchors are downsampled to the
           minority's count with `random.Random(seed)`, exactly as `anchored()` does
           (the positions drawn are kept as one int per kept anchor of that gender), and
           only the kept texts are parsed.

        A one-shot iterator cannot be read twice: its texts are copied to an anonymous
        temporary file during the first pass (in memory up to 8 MB, then on disk; removed
        when the stream is closed or collected) and the second pass reads them back.
        Without `balance_gender` the corpus is read once.

        The counting pass runs when this method is called, so an error (no anchor, one
        gender only) is raised here and `AnchorStream.total` is known before iterating;
        otherwise `total` is None and `AnchorStream.report` is set once the stream ends.
        Arguments as for `anchored()`.
        """
        finder, limit = _check_anchor_args(kind, max_words, batch_size, limit, balance_gender)
        _nlp.load(nlp)
        if not balance_gender:
            single = AnchorStream(iter(()), None, self)
            single._items = self._single_pass(finder, kind, max_words, limit, nlp, batch_size,
                                              single)
            return single
        spool: IO[str] | None = None
        source: Iterator[str] = iter(self)
        if not self.reiterable:
            spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by the stream
                max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8"
            )
            source = _tee(source, spool)
        counts: Counter[str] = Counter()
        counter = _Collector(True, limit)
        for _ in _scan(source, finder, max_words, batch_size, nlp, counts, counter.accept,
                       counter.full, build=False):
            pass  # pragma: no cover - nothing is yielded without build
        selector = counter.selector(random.Random(_seed(seed)))
        counts["kept"] = selector.total
        report = self._report(kind, max_words, counts, None, selector.kept_genders())
        if selector.total == 0:
            if spool is not None:
                spool.close()
            if report.seen == 0:
                raise self._empty_error("find anchors in")
            raise ConfigurationError(_no_anchor_message(report, finder, counter))
        if spool is not None:
            spool.seek(0)
            second: Iterator[str] = _unspool(spool)
        else:
            second = iter(self)
        pairs = _scan(second, finder, max_words, batch_size, nlp, Counter(), selector.accept,
                      selector.done)
        stream = AnchorStream((anchor for _, anchor in pairs), selector.total, self, spool)
        stream.report = report
        return stream

    def _single_pass(
        self,
        finder: _Finder,
        kind: str,
        max_words: int,
        limit: int | None,
        nlp: str | None,
        batch_size: int,
        stream: AnchorStream,
    ) -> Iterator[Anchor]:
        counts: Counter[str] = Counter()
        genders: Counter[str | None] = Counter()
        collector = _Collector(False, limit)
        for _, anchor in _scan(iter(self), finder, max_words, batch_size, nlp, counts,
                               collector.accept, collector.full):
            counts["kept"] += 1
            genders[anchor.gender] += 1
            yield anchor
        report = self._report(kind, max_words, counts, None,
                              (genders["female"], genders["male"]))
        stream.report = report
        if report.kept == 0:
            if report.seen == 0:
                raise self._empty_error("find anchors in")
            raise ConfigurationError(_no_anchor_message(report, finder, collector))

    def _report(
        self,
        kind: str,
        max_words: int,
        counts: Counter[str],
        kept: list[Anchor] | None,
        genders: tuple[int, int] | None = None,
    ) -> AnchorReport:
        if kept is not None:
            found = Counter(anchor.gender for anchor in kept)
            genders = (found["female"], found["male"])
        assert genders is not None
        return AnchorReport(
            source=self.name,
            kind=kind,
            max_words=max_words,
            seen=counts["seen"],
            too_long=counts["too_long"],
            no_anchor=counts["no_anchor"],
            anchored=counts["anchored"],
            kept=counts["kept"] if kept is None else len(kept),
            female=genders[0],
            male=genders[1],
        )

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


#: Bytes of a one-shot corpus kept in memory before its copy moves to a temporary file.
_SPOOL_BYTES = 8 * 1024 * 1024


class AnchorStream(Iterator[Anchor]):
    """The anchors of `Corpus.iter_anchored`, one at a time, in corpus order.

    `total` is the number of anchors the stream will give when it is known in advance
    (gender balancing counts them first), else None. `report` (`AnchorReport`) is set
    once the counts are known: after the counting pass, or when the stream ends.
    """

    def __init__(
        self,
        items: Iterator[Anchor],
        total: int | None,
        corpus: Corpus,
        spool: IO[str] | None = None,
    ) -> None:
        self._items = items
        self.total = total
        self.corpus = corpus
        self.report: AnchorReport | None = None
        self._spool = spool

    def __iter__(self) -> AnchorStream:
        return self

    def __next__(self) -> Anchor:
        try:
            return next(self._items)
        except StopIteration:
            self.close()
            raise

    def close(self) -> None:
        """Release the temporary copy of a one-shot corpus (also done at the end)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None


def _tee(texts: Iterator[str], spool: IO[str]) -> Iterator[str]:
    """`texts`, each also written to `spool` as one JSON string per line."""
    for text in texts:
        spool.write(json.dumps(text))
        spool.write("\n")
        yield text


def _unspool(spool: IO[str]) -> Iterator[str]:
    for line in spool:
        yield json.loads(line)


def _check_anchor_args(
    kind: str, max_words: int, batch_size: int, limit: int | None, balance_gender: bool
) -> tuple[_Finder, int | None]:
    """The finder of `kind` and the effective limit; raises on bad arguments."""
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
    return finder, limit


def _short_texts(
    texts: Iterator[str], max_words: int, prefilter: re.Pattern[str] | None,
    counts: Counter[str],
) -> Iterator[tuple[int, str]]:
    """(index, text) of the texts worth parsing; counts the others in `counts`."""
    for index, text in enumerate(texts):
        counts["seen"] += 1
        if len(text.split()) > max_words:
            counts["too_long"] += 1
        elif prefilter is not None and prefilter.search(text) is None:
            counts["no_anchor"] += 1
        else:
            yield index, text


def _scan(
    texts: Iterator[str],
    finder: _Finder,
    max_words: int,
    batch_size: int,
    nlp: str | None,
    counts: Counter[str],
    accept: Callable[[str | None], bool],
    stop: Callable[[], bool],
    *,
    build: bool = True,
) -> Iterator[tuple[int, Anchor]]:
    """(index, anchor) of the anchors `accept(gender)` keeps, in corpus order.

    `accept` is asked once per anchored text, in corpus order; reading stops after the
    batch in which `stop()` becomes true. For pronouns the first pronoun is found without
    a parse and only accepted texts whose pronoun is "her" or "his" are parsed (tagger
    and parser; `finder.unused_components` disabled); other kinds parse every candidate.
    With `build=False` (a counting pass) nothing is parsed for pronouns or yielded.
    """
    for batch in _batches(_short_texts(texts, max_words, finder.prefilter, counts),
                          batch_size):
        if finder.locate is not None:
            kept: list[tuple[int, str, Anchor | None]] = []
            for index, text in batch:
                found = finder.locate(text)
                if found is None:
                    counts["no_anchor"] += 1
                    continue
                counts["anchored"] += 1
                if accept(found[0]):
                    kept.append((index, text, found[1]))
            if build and kept:
                need = [text for _, text, anchor in kept if anchor is None]
                docs = _parse(need, nlp, finder.unused_components) if need else iter(())
                for index, _, anchor in kept:
                    if anchor is None:
                        anchor = finder.find(next(docs))
                        assert anchor is not None
                    yield index, anchor
        else:
            docs = _parse([text for _, text in batch], nlp, finder.unused_components)
            for (index, _), doc in zip(batch, docs, strict=True):
                anchor = finder.find(doc)
                if anchor is None:
                    counts["no_anchor"] += 1
                    continue
                counts["anchored"] += 1
                if accept(anchor.gender) and build:
                    yield index, anchor
        if stop():
            break


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


def _locate_pronoun(text: str) -> tuple[int, int, Gender, PronounRole | None] | None:
    """(start, end, gender, role) of the first whole-word pronoun of `text`, no parse.

    The role is None for "her" and "his", which only the parse resolves.
    """
    for match in _PRONOUN_PATTERN.finditer(text):
        entry = PRONOUNS.get(match.group().lower())
        start, end = match.span()
        if entry is None or not _whole_word(text, start, end):
            continue
        return start, end, entry[0], entry[1]
    return None


def _pronoun_anchor(doc: Doc) -> Anchor | None:
    """The first third-person singular pronoun of `doc`, as an anchor."""
    found = _locate_pronoun(doc.text)
    if found is None:
        return None
    start, end, gender, role = found
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:  # pragma: no cover - expand always finds a token
        return _anchor(doc.text, start, end, role or "possessive_determiner", gender,
                       _initial_in_text(doc.text, start))
    token = span[0]
    return _anchor(doc.text, start, end, role or _possessive_role(token), gender,
                   _sentence_initial(token))


def _unparsed_pronoun_anchor(text: str) -> tuple[Gender, Anchor | None] | None:
    """The pronoun anchor of `text` when its form decides the role (no parse needed).

    None when `text` has no pronoun; (gender, None) when the first pronoun is "her" or
    "his" and the parse must resolve it. Without a parse, `sentence_initial` comes from
    `_initial_in_text`: on the 20,000 OANC sentences it agrees with the parse for all
    but 4 of the 1,947 unambiguous anchors (title-case pronouns after a colon, a list
    mark or a run-on sentence, which the parser starts a sentence at). It matters only
    for lower-case pronouns: `perturb.names` title-cases a name that replaces a
    title-case word anyway.
    """
    found = _locate_pronoun(text)
    if found is None:
        return None
    start, end, gender, role = found
    if role is None:
        return gender, None
    return gender, _anchor(text, start, end, role, gender, _initial_in_text(text, start))


# A sentence boundary in plain text: final punctuation, closing quotes, then a space.
_BOUNDARY = re.compile(r"[.!?]+['\"\u2019\u201d)\]]*\s")


def _initial_in_text(text: str, start: int) -> bool:
    """Whether only punctuation or space precedes `start` since the last sentence end
    (".", "!" or "?" then a space) of `text`: the unparsed stand-in for
    `_sentence_initial`."""
    head = text[:start]
    last = 0
    for match in _BOUNDARY.finditer(head):
        last = match.end()
    return not any(char.isalnum() for char in head[last:])


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
    locate: Callable[[str], tuple[Gender, Anchor | None] | None] | None = None
    """Finds the anchor without a parse: None (no anchor), or its gender and the anchor
    (None when only the parse can complete it)."""


_FINDERS: dict[str, _Finder] = {
    "pronoun": _Finder(
        describe="English third-person singular pronoun (" + ", ".join(PRONOUNS) + ")",
        prefilter=_PRONOUN_PATTERN,
        # the role reads the tag and dependency of the pronoun (never a space, the one
        # token whose tag attribute_ruler sets), so the ruler is not needed
        unused_components=("ner", "lemmatizer", "attribute_ruler"),
        find=_pronoun_anchor,
        locate=_unparsed_pronoun_anchor,
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
    """Which anchors to keep under the limit, balanced on `select`.

    Anchors are offered one by one in corpus order (`accept`, then `add` for the kept
    ones) and refused once `full()`, so the result does not depend on the batch size.
    What each gender group keeps is therefore a prefix of its anchors in corpus order:
    the counts alone say which (the counting pass of `Corpus.iter_anchored`).
    """

    def __init__(self, balance: bool, limit: int | None) -> None:
        self.balance = balance
        self.limit = limit
        self.quota = limit // 2 if balance and limit is not None else None
        self.counts: dict[Gender | None, int] = {"female": 0, "male": 0, None: 0}
        self.groups: dict[Gender | None, list[tuple[int, Anchor]]] = {
            "female": [], "male": [], None: []
        }

    def _group(self, gender: str | None) -> Gender | None:
        if self.balance and gender == "female":
            return "female"
        if self.balance and gender == "male":
            return "male"
        return None

    def accept(self, gender: str | None) -> bool:
        group = self._group(gender)
        over_quota = group is not None and self.quota is not None and (
            self.counts[group] >= self.quota
        )
        if self.full() or over_quota:
            return False
        self.counts[group] += 1
        return True

    def add(self, index: int, anchor: Anchor) -> None:
        self.groups[self._group(anchor.gender)].append((index, anchor))

    def full(self) -> bool:
        if self.limit is None:
            return False
        female, male, other = (self.counts[g] for g in ("female", "male", None))
        return 2 * min(female, male) + other >= self.limit

    def found(self, gender: Gender) -> int:
        return self.counts[gender]

    def select(self, rng: random.Random) -> list[Anchor]:
        female, male, other = (self.groups[g] for g in ("female", "male", None))
        if self.balance:
            size = min(len(female), len(male))
            female = _downsample(female, size, rng)
            male = _downsample(male, size, rng)
            if self.limit is not None:
                other = other[: self.limit - 2 * size]
        return [anchor for _, anchor in sorted(female + male + other, key=lambda a: a[0])]

    def selector(self, rng: random.Random) -> _Selector:
        """What `select` would keep, from the counts alone (same draws from `rng`)."""
        quotas = dict(self.counts)
        chosen: dict[Gender | None, list[int]] = {}
        if self.balance:
            size = min(quotas["female"], quotas["male"])
            for gender in GENDERS:
                if quotas[gender] > size:
                    chosen[gender] = sorted(rng.sample(range(quotas[gender]), size))
                quotas[gender] = min(quotas[gender], size) if gender in chosen else quotas[
                    gender]
            if self.limit is not None:
                quotas[None] = min(quotas[None], max(0, self.limit - 2 * size))
        return _Selector(self.counts, quotas, chosen, self._group)


class _Selector:
    """Keeps the anchors `_Collector.select` keeps, deciding as they come in order."""

    def __init__(
        self,
        available: dict[Gender | None, int],
        kept: dict[Gender | None, int],
        chosen: dict[Gender | None, list[int]],
        group: Callable[[str | None], Gender | None],
    ) -> None:
        self.available = dict(available)
        self.kept = kept
        self.chosen = chosen
        self.group = group
        self.seen: dict[Gender | None, int] = dict.fromkeys(available, 0)
        self.next_chosen: dict[Gender | None, int] = dict.fromkeys(chosen, 0)
        self.total = sum(kept.values())

    def kept_genders(self) -> tuple[int, int]:
        return self.kept["female"], self.kept["male"]

    def accept(self, gender: str | None) -> bool:
        group = self.group(gender)
        position = self.seen[group]
        self.seen[group] += 1
        if group not in self.chosen:
            return position < self.kept[group]
        chosen = self.chosen[group]
        at = self.next_chosen[group]
        if at < len(chosen) and chosen[at] == position:
            self.next_chosen[group] = at + 1
            return True
        return False

    def done(self) -> bool:
        """True once every group has passed the last anchor it keeps."""
        for group, seen in self.seen.items():
            chosen = self.chosen.get(group)
            if chosen is None:
                if seen < self.kept[group]:
                    return False
            elif chosen and seen <= chosen[-1]:
                return False
        return True


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
