"""Corpora: where the sentences that fairness tests perturb come from.

A `Corpus` wraps a list of texts, a `.txt` / `.csv` / `.jsonl` file, an iterable or a
zero-argument callable returning an iterable. It is streamed: files are re-read lazily on
each pass and nothing is loaded whole, so a corpus of millions of lines is fine.

`Corpus.sample` draws a seeded reservoir sample; `Corpus.anchored` and
`Corpus.iter_anchored` find the PSA anchors (psa, sections 2 and 2.2) by handing the
corpus to `selection`, which finds them with `anchors`.
"""

from __future__ import annotations

import codecs
import copy
import csv
import json
import os
import random
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Set
from pathlib import Path
from typing import TypeAlias

from ..errors import ConfigurationError
from ..runtime.files import open_binary, open_text, regular_file, shown_path, text_encoding
from ..runtime.printable import printable
from ..validation import check_int
from . import selection
from .selection import AnchorList, AnchorStream, empty_corpus_error

#: What `Corpus` accepts: a file path, an iterable of texts, or a callable returning one.
CorpusSource: TypeAlias = str | os.PathLike[str] | Iterable[str] | Callable[[], Iterable[str]]

#: File types a corpus can be read from.
FILE_SUFFIXES: tuple[str, ...] = (".txt", ".csv", ".jsonl")



def language_code(lang: object) -> str:
    """`lang` as a language code: its primary subtag, lower-cased ("fr-FR", "fr_CA" and
    " FR " give "fr"). Anything but a code of 2-8 ASCII letters raises `ConfigurationError`."""
    text = lang.strip().lower().replace("_", "-").split("-")[0] if isinstance(lang, str) else ""
    if not (2 <= len(text) <= 8 and text.isascii() and text.isalpha()):
        raise ConfigurationError(
            f"lang must be a language code such as 'en' or 'fr', got "
            f"{type(lang).__name__} {lang!r:.40}")
    return text


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

    Files are decoded with `encoding` (default "utf-8-sig": UTF-8, a leading byte-order
    mark dropped) and `errors` (default "strict"), as `open()` takes them. Bytes that are
    not valid in the encoding raise `ConfigurationError` naming the file, the line and
    both options: pass the file's real encoding (``encoding="latin-1"``, "cp1252",
    "utf-16", ...), or ``errors="replace"`` to read each bad byte as U+FFFD (a text that
    then holds a lone surrogate, as ``errors="surrogateescape"`` makes, is skipped and
    counted by `anchored`).

    `lang` is the language of its texts, a code of the language registry ("en" by
    default, "fr", "fr-FR"; `pytest_fairness.perturb.languages.get_language`): its
    anchors are that language's (`anchored`), and the relations and strategies that
    perturb (`assert_scoresens_below`, `assert_label_invariant`,
    `strategies.gender_counterfactuals`, ...) use it when they are not given ``lang=``;
    given another one, they raise `LanguageConflictError`. An unknown code raises
    `ConfigurationError` listing the registered ones.
    """

    def __init__(
        self,
        source: CorpusSource,
        *,
        column: str = "text",
        name: str | None = None,
        encoding: str = "utf-8-sig",
        errors: str = "strict",
        lang: str | None = None,
    ) -> None:
        self.lang: str = language_code("en" if lang is None else lang)
        """The language of the texts, as a code ("en", "fr"; "fr-FR" is kept as "fr"). The
        perturbations resolve it in the language registry (`perturb.languages`), which sits
        above the corpus: an unregistered code is refused there, naming the registered ones."""
        self.lang_given: bool = lang is not None
        """Whether `lang` was given: a relation given another ``lang=`` then raises
        `LanguageConflictError`; without it ("en" by default) ``lang=`` decides."""
        if not isinstance(column, str) or not column:
            raise ConfigurationError(
                f"column must be the name of a column (a non-empty str), got {column!r:.60}"
            )
        if name is not None and not isinstance(name, str):
            raise ConfigurationError(f"name must be a str or None, got {name!r:.60}")
        self.column = column
        self.encoding = _check_encoding(encoding)
        """How a corpus file is decoded (`open()`'s ``encoding``)."""
        self.errors = _check_errors(errors)
        """What decoding does with invalid bytes (`open()`'s ``errors``)."""
        self._path: Path | None = None
        self._collection: Iterable[object] | None = None
        self._factory: Callable[[], object] | None = None
        self._iterator: Iterator[object] | None = None
        self._consumed = False
        if isinstance(source, (str, os.PathLike)):
            self._path = _corpus_file(source)
            default_name = shown_path(self._path)  # control characters escaped
        elif isinstance(source, (bytes, bytearray, memoryview)):
            raise ConfigurationError(
                f"a corpus cannot be {type(source).__name__} {bytes(source)[:40]!r}: pass a "
                "file path as a str, or a list of texts (decode bytes first, e.g. "
                "data.decode('utf-8').splitlines())"
            )
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
    def from_source(cls, source: CorpusSource | Corpus, *, column: str = "text",
                    encoding: str | None = None, errors: str | None = None) -> Corpus:
        """`source` itself when it is a `Corpus`, else `Corpus(source, column=column)`
        (with `encoding` and `errors` when given)."""
        if isinstance(source, Corpus):
            return source
        options = {k: v for k, v in (("encoding", encoding), ("errors", errors)) if v}
        return cls(source, column=column, **options)

    def __repr__(self) -> str:
        return f"Corpus({self.name!r})"

    def __iter__(self) -> Iterator[str]:
        if self._path is not None:
            return _read_file(self._path, self.column, self.name, self.encoding, self.errors)
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

    @property
    def reiterable(self) -> bool:
        """False for a corpus built from a one-shot iterator (it can be read only once)."""
        return self._iterator is None

    def sample(self, n: int, seed: int | None = None) -> list[str]:
        """`n` texts drawn uniformly without replacement, in corpus order.

        Streams the corpus once (reservoir sampling with `random.Random(seed)`), so the
        same seed gives the same sample. Fewer than `n` texts: all of them. `seed`
        defaults to the run's seed (`--fairness-seed`, 0 outside pytest). `n` must be a
        whole number >= 0 (2.5, NaN or "3" raise `ConfigurationError`, never rounded).
        """
        n = check_int(n, "n", minimum=0)
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
            raise empty_corpus_error(self.name, "sample from")
        reservoir.sort(key=lambda item: item[0])
        return [text for _, text in reservoir]

    def with_lang(self, lang: str) -> Corpus:
        """This corpus (the same source, read the same way) with its texts in `lang`
        (`lang_given` set): what a relation given ``lang=`` reads a corpus built without
        one as."""
        other = copy.copy(self)
        other.lang = language_code(lang)
        other.lang_given = True
        return other

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
        majority is downsampled with `random.Random(seed)` (`seed` defaults to the run's
        seed, `--fairness-seed`, 0 outside pytest), keeping corpus order; anchors
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

        Words are whole words on grapheme boundaries: "she\u0301" (with a combining
        accent) is not "she", and "s\u200dhe" (a zero-width joiner inside) holds no "he"
        (`pytest_fairness.resources.text.whole_word`). A text spaCy cannot parse (a lone
        surrogate, more characters than the pipeline's max_length) is skipped and
        counted, whether or not its anchor needs a parse.

        A corpus in another language (``Corpus(texts, lang="fr")``) has that language's
        anchors, parsed by its pipeline unless `nlp` is given: in French the first
        singular subject il/elle (never an impersonal il: il pleut, il faut, il est
        important de) or stressed lui/elle (avec lui, c'est elle), each anchor with
        ``lang="fr"`` (`pytest_fairness.resources.french_pronouns`); kind="person" is
        English only.

        The result is a list with a `report` attribute (`AnchorReport`) counting texts
        read, too long, unparsable, without anchor and kept. No anchor at all raises
        `ConfigurationError` saying why. Every option is checked first: a wrong type or
        value (``max_words="50"``, ``limit=2.5``, NaN) raises `ConfigurationError` naming
        it.
        """
        return selection.anchored(
            self, kind, max_words=max_words, balance_gender=balance_gender,
            seed=_seed(seed), limit=limit, nlp=nlp, batch_size=batch_size, lang=self.lang,
        )

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
        return selection.iter_anchored(
            self, kind, max_words=max_words, balance_gender=balance_gender,
            seed=_seed(seed), limit=limit, nlp=nlp, batch_size=batch_size, lang=self.lang,
        )


def _seed(seed: int | None) -> int:
    """`seed`, else the run's seed (`--fairness-seed`; 0 outside pytest)."""
    # The one run setting the input layer reads, and the only place in corpus/ that
    # reads the run's context. A corpus is sampled and anchored from the user's own test
    # code (`Corpus(texts).sample(20)`), with no plugin or check in between to pass the
    # seed, and `--fairness-seed` promises to make such a test reproducible. The
    # `Corpus` methods resolve the seed here, at their entry; `selection` and the
    # sampling loop take it as an argument.
    if seed is not None:
        return check_int(seed, "seed")
    from ..context import current_settings

    return current_settings().seed


# --- reading sources -------------------------------------------------------------------


def _corpus_file(source: str | os.PathLike[str]) -> Path:
    path = Path(source).expanduser()
    if path.suffix.lower() not in FILE_SUFFIXES:
        hint = ""
        if isinstance(source, str) and not path.is_file():
            hint = f"; to make a corpus of one text, pass a list: Corpus([{source!r:.60}])"
        raise ConfigurationError(
            f"corpus file {printable(repr(str(source)))[:100]} must end in "
            f"{', '.join(FILE_SUFFIXES)}{hint}"
        )
    # A directory, FIFO or device named like a corpus file is refused by its type.
    return regular_file(path, "corpus file")


def _check_encoding(encoding: object) -> str:
    return text_encoding(encoding)


def _check_errors(errors: object) -> str:
    choices = "'strict', 'replace', 'ignore', 'backslashreplace' or 'surrogateescape'"
    if not isinstance(errors, str):
        raise ConfigurationError(
            f"errors must be a decoding error handler ({choices}), got "
            f"{type(errors).__name__} {errors!r:.60}"
        )
    try:
        codecs.lookup_error(errors)
    except LookupError:
        raise ConfigurationError(
            f"errors={errors!r:.60} is not a decoding error handler; pass {choices}"
        ) from None
    return errors


def _read_file(
    path: Path, column: str, name: str, encoding: str, errors: str
) -> Iterator[str]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _read_csv(path, column, name, encoding, errors)
    if suffix == ".jsonl":
        return _read_jsonl(path, column, name, encoding, errors)
    return _read_txt(path, encoding, errors)


def _lines(
    path: Path, encoding: str, errors: str, newline: str | None = None
) -> Generator[str, None, None]:
    """The lines of the file at `path`, decoded; bytes invalid in `encoding` raise
    `ConfigurationError` naming the file, the line and the options that fix it."""
    with open_text(path, "corpus file", encoding=encoding, errors=errors,
                   newline=newline) as handle:
        try:
            yield from handle
        except UnicodeError as exc:
            raise ConfigurationError(_decode_message(path, encoding, exc)) from None


def _decode_message(path: Path, encoding: str, error: UnicodeError) -> str:
    """Where in the file at `path` decoding with `encoding` first fails, and the fix.

    The file is decoded again, line by line, with an incremental decoder (state carried
    across lines, so a multi-byte encoding split at a newline byte still decodes): the
    failing line is one more than the newlines decoded before it.
    """
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    line, bad, reason = 1, b"", str(error)
    try:
        with open_binary(path, "corpus file") as handle:
            for raw in handle:
                try:
                    line += decoder.decode(raw).count("\n")
                except UnicodeDecodeError as exc:
                    bad, reason = bytes(exc.object[exc.start : exc.end]), exc.reason
                    break
    except (OSError, ConfigurationError):  # pragma: no cover - the file went away
        pass
    shown = f"the bytes {bad!r}" if bad else "its bytes"
    return (
        f"corpus file '{shown_path(path)}', line {line}: {shown} are not valid {encoding} "
        f"({reason}). Pass the file's encoding, e.g. Corpus({printable(repr(str(path)))}, "
        "encoding='latin-1') (or "
        "'cp1252', 'utf-16', ...), or errors='replace' to read each bad byte as U+FFFD "
        "(errors='ignore' drops them); with --fairness-corpus, pass "
        "--fairness-corpus-encoding=latin-1 or --fairness-corpus-errors=replace"
    )


def _read_txt(path: Path, encoding: str, errors: str) -> Iterator[str]:
    for line in _lines(path, encoding, errors):
        text = line.rstrip("\r\n")
        if text.strip():
            yield text


def _read_csv(
    path: Path, column: str, name: str, encoding: str, errors: str
) -> Iterator[str]:
    lines = _lines(path, encoding, errors, newline="")
    reader = csv.DictReader(lines, strict=True)  # an unclosed quote is an error
    try:
        try:
            if reader.fieldnames is None:
                return
        except csv.Error as exc:
            raise _csv_error(name, reader.reader.line_num, exc) from None
        if column not in reader.fieldnames:
            raise ConfigurationError(
                f"corpus {name} has no column '{column}'; its columns are: "
                f"{', '.join(map(repr, reader.fieldnames))}. Pass column=... (or set "
                "--fairness-corpus-column / the fairness_corpus_column ini key)"
            )
        while True:
            try:
                row = next(reader, None)
            except csv.Error as exc:
                raise _csv_error(name, reader.reader.line_num, exc) from None
            if row is None:
                return
            text = row.get(column)
            if text is None:
                raise ConfigurationError(
                    f"corpus {name}: the row ending on line {reader.line_num} has no value "
                    f"in column '{column}'"
                )
            if text.strip():
                yield text
    finally:
        lines.close()


def _csv_error(name: str, line: int, exc: csv.Error) -> ConfigurationError:
    """A `csv.Error` (a cell over csv's field limit, a stray quote) as a
    `ConfigurationError` naming the corpus, the line and the fix."""
    if "field limit" in str(exc):
        problem = (f"a cell is longer than {csv.field_size_limit():,} characters (the csv "
                   "module's field limit); most often a quote is left open, so the rest of "
                   "the file reads as one cell. Close it (a quote inside a cell is doubled: "
                   "\"\"), or store long texts in a .txt or .jsonl corpus")
    elif "unexpected end of data" in str(exc):
        problem = ("the file ends inside a quoted cell: a quote is never closed, so the "
                   "rest of the file would read as one text. Close it (a quote inside a "
                   "cell is doubled: \"\")")
    else:
        problem = f"cannot be read as CSV ({exc}); fix the line"
    return ConfigurationError(f"corpus {printable(name)}, line {line}: {problem}")


def _read_jsonl(
    path: Path, column: str, name: str, encoding: str, errors: str
) -> Iterator[str]:
    lines = _lines(path, encoding, errors)
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"corpus {name}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigurationError(f"{where} is not valid JSON ({exc})") from None
            except RecursionError:
                raise ConfigurationError(
                    f"{where} holds JSON nested deeper than Python's JSON reader can follow; "
                    f"each line must be an object with a '{column}' text") from None
            except ValueError as exc:  # a number of more than 4,300 digits
                raise ConfigurationError(
                    f"{where} holds a number Python will not read ({exc}); write it as a "
                    "string, or drop it") from None
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
    finally:
        lines.close()


def _checked(items: Iterable[object], name: str) -> Iterator[str]:
    for position, item in enumerate(items):
        if not isinstance(item, str):
            raise ConfigurationError(
                f"corpus {name}: item {position} (counting from 0) is a "
                f"{type(item).__name__} ({item!r:.60}), not a str; a corpus holds texts"
            )
        yield item
