"""Selecting anchors: which of a corpus's anchors are kept, and how they are handed on.

`anchored` gathers the anchors `anchors.scan_anchors` finds, caps them at a limit and
balances female and male ones (psa, section 2.2), returning an `AnchorList`;
`iter_anchored` gives the same anchors as an `AnchorStream` in bounded memory (a counting
pass, then a selecting pass; a one-shot corpus is spooled to a temporary file in
between). Both explain themselves with an `AnchorReport`. They read a corpus only through
`TextSource` (its texts, its name, whether it can be read twice) and take the seed as an
argument: `Corpus.anchored` and `Corpus.iter_anchored` call them.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Protocol

from ..errors import ConfigurationError
from ..resources.nlp import load as load_pipeline
from ..types import Anchor
from ..validation import check_bool, check_int
from .anchors import GENDERS, AnchorFinder, Gender, anchor_finder, scan_anchors


class TextSource(Protocol):
    """What selecting anchors reads from a corpus (`Corpus` is one)."""

    @property
    def name(self) -> str:
        """How errors and reports refer to the corpus."""
        ...

    @property
    def reiterable(self) -> bool:
        """False when the texts can be read only once."""
        ...

    def __iter__(self) -> Iterator[str]:
        """The texts, in corpus order (a fresh pass each call when `reiterable`)."""
        ...


@dataclass(frozen=True)
class AnchorReport:
    """Why a corpus gave the anchors it gave: counts of one `Corpus.anchored` call.

    `seen == too_long + unparsable + no_anchor + anchored` and `kept <= anchored`.
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
    unparsable: int = 0
    """Texts of at most `max_words` words that spaCy cannot parse, skipped (a lone
    surrogate, more characters than the pipeline's max_length:
    `pytest_fairness.resources.nlp.unparsable`)."""
    unparsable_reasons: tuple[tuple[str, int], ...] = ()
    """(reason, count) of the `unparsable` texts, most frequent first."""

    @property
    def dropped(self) -> int:
        """Anchors found but not returned (over the limit, or to balance genders)."""
        return self.anchored - self.kept

    def unparsable_note(self) -> str:
        """"N skipped because spaCy cannot parse them (why)", or "" when there are none."""
        if not self.unparsable:
            return ""
        why = ", ".join(f"{n} with {reason}" for reason, n in self.unparsable_reasons)
        return f"{self.unparsable} skipped because spaCy cannot parse them ({why})"

    def summary(self) -> str:
        """The counts in one line, for a person reading a log."""
        skipped = f"{self.unparsable_note()}, " if self.unparsable else ""
        return (
            f"{self.kind} anchors in {self.source}: read {self.seen} texts, "
            f"{self.too_long} longer than {self.max_words} words, {skipped}{self.no_anchor} "
            f"without anchor, {self.anchored} anchored, {self.kept} kept "
            f"({self.female} female, {self.male} male)"
        )


class AnchorList(list[Anchor]):
    """The anchors `Corpus.anchored` returns, with the counts that explain them."""

    def __init__(self, anchors: Iterable[Anchor], report: AnchorReport) -> None:
        super().__init__(anchors)
        self.report = report


class AnchorStream(Iterator[Anchor]):
    """The anchors of `Corpus.iter_anchored`, one at a time, in corpus order.

    `total` is the number of anchors the stream will give when it is known in advance
    (gender balancing counts them first), else None. `report` (`AnchorReport`) is set
    once the counts are known: after the counting pass, or when the stream ends.
    `corpus` is the corpus the anchors come from.
    """

    def __init__(
        self,
        items: Iterator[Anchor],
        total: int | None,
        corpus: TextSource,
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


def empty_corpus_error(name: str, action: str) -> ConfigurationError:
    """The error for corpus `name` holding no text, when there is nothing to `action`."""
    return ConfigurationError(
        f"corpus {name} is empty: there is nothing to {action}. Check the source "
        "(a .txt file holds one text per line; blank lines and blank texts are skipped)"
    )


# --- the two ways to select ------------------------------------------------------------


def anchored(
    corpus: TextSource,
    kind: str,
    *,
    max_words: int,
    balance_gender: bool,
    seed: int,
    limit: int | None,
    nlp: str | None,
    batch_size: int,
    lang: str = "en",
) -> AnchorList:
    """The anchors of `corpus`, in one list: what `Corpus.anchored` returns (psa, section
    2.2); see there for the arguments. The majority gender is downsampled with
    `random.Random(seed)`."""
    finder, limit = _check_anchor_args(kind, max_words, batch_size, limit, balance_gender,
                                       nlp, lang)
    nlp = finder.pipeline if nlp is None else nlp
    load_pipeline(nlp)  # a misconfigured pipeline fails here, whatever the texts hold
    counts: Counter[str] = Counter()
    collector = _Collector(balance_gender, limit)
    for index, anchor in scan_anchors(
        iter(corpus), finder, max_words, batch_size, nlp, counts, collector.accept,
        collector.full,
    ):
        collector.add(index, anchor)
    kept = collector.select(random.Random(seed))
    report = _report(corpus, kind, max_words, counts, kept)
    if not kept:
        if report.seen == 0:
            raise empty_corpus_error(corpus.name, "find anchors in")
        raise ConfigurationError(_no_anchor_message(report, finder, collector))
    return AnchorList(kept, report)


def iter_anchored(
    corpus: TextSource,
    kind: str,
    *,
    max_words: int,
    balance_gender: bool,
    seed: int,
    limit: int | None,
    nlp: str | None,
    batch_size: int,
    lang: str = "en",
) -> AnchorStream:
    """The anchors of `anchored()`, streamed: what `Corpus.iter_anchored` returns (psa,
    section 2.2); see there for the passes and the arguments."""
    finder, limit = _check_anchor_args(kind, max_words, batch_size, limit, balance_gender,
                                       nlp, lang)
    nlp = finder.pipeline if nlp is None else nlp
    load_pipeline(nlp)
    if not balance_gender:
        single = AnchorStream(iter(()), None, corpus)
        single._items = _single_pass(corpus, finder, kind, max_words, limit, nlp, batch_size,
                                     single)
        return single
    spool: IO[str] | None = None
    source: Iterator[str] = iter(corpus)
    if not corpus.reiterable:
        spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by the stream
            max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8"
        )
        source = _tee(source, spool)
    counts: Counter[str] = Counter()
    counter = _Collector(True, limit)
    for _ in scan_anchors(source, finder, max_words, batch_size, nlp, counts, counter.accept,
                          counter.full, build=False):
        pass  # pragma: no cover - nothing is yielded without build
    selector = counter.selector(random.Random(seed))
    counts["kept"] = selector.total
    report = _report(corpus, kind, max_words, counts, None, selector.kept_genders())
    if selector.total == 0:
        if spool is not None:
            spool.close()
        if report.seen == 0:
            raise empty_corpus_error(corpus.name, "find anchors in")
        raise ConfigurationError(_no_anchor_message(report, finder, counter))
    if spool is not None:
        spool.seek(0)
        second: Iterator[str] = _unspool(spool)
    else:
        second = iter(corpus)
    pairs = scan_anchors(second, finder, max_words, batch_size, nlp, Counter(),
                         selector.accept, selector.done)
    stream = AnchorStream((anchor for _, anchor in pairs), selector.total, corpus, spool)
    stream.report = report
    return stream


def _single_pass(
    corpus: TextSource,
    finder: AnchorFinder,
    kind: str,
    max_words: int,
    limit: int | None,
    nlp: str | None,
    batch_size: int,
    stream: AnchorStream,
) -> Iterator[Anchor]:
    """The anchors of an unbalanced `iter_anchored`; sets `stream.report` at the end."""
    counts: Counter[str] = Counter()
    genders: Counter[str | None] = Counter()
    collector = _Collector(False, limit)
    for _, anchor in scan_anchors(iter(corpus), finder, max_words, batch_size, nlp, counts,
                                  collector.accept, collector.full):
        counts["kept"] += 1
        genders[anchor.gender] += 1
        yield anchor
    report = _report(corpus, kind, max_words, counts, None,
                     (genders["female"], genders["male"]))
    stream.report = report
    if report.kept == 0:
        if report.seen == 0:
            raise empty_corpus_error(corpus.name, "find anchors in")
        raise ConfigurationError(_no_anchor_message(report, finder, collector))


def _report(
    corpus: TextSource,
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
    prefix = "unparsable: "
    reasons = sorted(
        ((key.removeprefix(prefix), n) for key, n in counts.items()
         if key.startswith(prefix) and n),
        key=lambda item: (-item[1], item[0]),
    )
    return AnchorReport(
        source=corpus.name,
        kind=kind,
        max_words=max_words,
        seen=counts["seen"],
        too_long=counts["too_long"],
        no_anchor=counts["no_anchor"],
        anchored=counts["anchored"],
        kept=counts["kept"] if kept is None else len(kept),
        female=genders[0],
        male=genders[1],
        unparsable=counts["unparsable"],
        unparsable_reasons=tuple(reasons),
    )


def _check_anchor_args(
    kind: str, max_words: int, batch_size: int, limit: int | None, balance_gender: bool,
    nlp: object = None,
    lang: str = "en",
) -> tuple[AnchorFinder, int | None]:
    """The finder of `kind` in `lang` and the effective limit; raises on bad arguments
    (each one named, through `pytest_fairness.validation`)."""
    finder = anchor_finder(kind, lang)
    _check_positive("max_words", max_words)
    _check_positive("batch_size", batch_size)
    check_bool(balance_gender, "balance_gender")
    if nlp is not None and (not isinstance(nlp, str) or not nlp.strip()):
        raise ConfigurationError(
            "nlp must be the name of a spaCy pipeline such as 'en_core_web_sm', or None for "
            f"the run's, got {type(nlp).__name__} {nlp!r:.60}"
        )
    if limit is not None:
        limit = _check_positive("limit", limit)
        if balance_gender and kind == "pronoun":
            limit -= limit % 2
            if limit == 0:
                raise ConfigurationError(
                    "limit=1 with balance_gender=True cannot hold one anchor of each "
                    "gender; pass limit >= 2 or balance_gender=False"
                )
    return finder, limit


def _check_positive(what: str, value: object) -> int:
    """`value` as a positive int: an integer (`check_int`: not a bool, 2.5, NaN or "3")
    of at least 1."""
    number = check_int(value, what)
    if number < 1:
        raise ConfigurationError(f"{what} must be a positive integer, got {number}")
    return number


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


def _no_anchor_message(report: AnchorReport, finder: AnchorFinder, collector: _Collector) -> str:
    if report.anchored:
        female, male = collector.found("female"), collector.found("male")
        missing = "male" if male == 0 else "female"
        return (
            f"corpus {report.source}: found {female} female and {male} male {report.kind} "
            f"anchors, so balancing genders keeps none. Add texts with {missing} "
            f"{report.kind}s, or pass balance_gender=False"
        )
    hint = f" Raise max_words (now {report.max_words})." if report.too_long else ""
    skipped = f"{report.unparsable_note()}, " if report.unparsable else ""
    return (
        f"corpus {report.source} has no {report.kind} anchor: read {report.seen} texts; "
        f"{report.too_long} had more than {report.max_words} words, {skipped}and "
        f"{report.no_anchor} had no {finder.describe}.{hint} Use a corpus with such sentences"
    )


# --- spooling a one-shot corpus between the two passes ---------------------------------

#: Bytes of a one-shot corpus kept in memory before its copy moves to a temporary file.
_SPOOL_BYTES = 8 * 1024 * 1024


def _tee(texts: Iterator[str], spool: IO[str]) -> Iterator[str]:
    """`texts`, each also written to `spool` as one JSON string per line."""
    for text in texts:
        spool.write(json.dumps(text))
        spool.write("\n")
        yield text


def _unspool(spool: IO[str]) -> Iterator[str]:
    for line in spool:
        yield json.loads(line)
