"""The one adapter type of token-level models: a `Tagger` returns labelled spans per text.

Whatever the model is (a spaCy pipeline's entity recogniser, a transformers token
classifier, a user's callable), the relations see a `Tagger`: ``tagger.tag_many(texts)``
returns, per text, its entity spans (`pytest_fairness.resources.spans.Span`), checked like
scores are: spans inside the text, integer offsets, labels from the declared set (after
`label_map` renamed the model's own label names). A model that returns text, tags or
offsets outside the text raises `TaggerOutputError` naming the model and the text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...errors import ConfigurationError, ModelCallError, SpanError, TaggerOutputError
from ...resources.spans import Span, validate_spans
from ...runtime.printable import printable
from ...validation import check_texts

__all__ = ["Tagger", "TaggerStats"]

#: What a batch function of a tagger returns: per text, its spans (`Span`s or tuples).
RawSpans = Sequence[object]


@dataclass(frozen=True)
class TaggerStats:
    """Counters of a `Tagger`: texts asked for, distinct texts tagged, calls of the model."""

    requested: int = 0
    tagged: int = 0
    calls: int = 0


class Tagger:
    """A token-level model as labelled spans per text.

    `tag_batch(texts)` is the model: one sequence of spans (`Span` or ``(start, end,
    label)``) per text, in order. `labels` is the declared set of labels (after
    `label_map`), None to accept any; `label_map` renames the model's labels (``{"PER":
    "PERSON"}``) before they are checked; `name` names the model in messages; texts are
    tagged `batch_size` at a time, each distinct text once per call."""

    def __init__(
        self,
        tag_batch: Callable[[list[str]], Sequence[object]],
        *,
        name: str,
        labels: Collection[str] | None = None,
        label_map: Mapping[str, str] | None = None,
        batch_size: int = 64,
    ) -> None:
        if not callable(tag_batch):
            raise ConfigurationError(
                f"a Tagger needs a function texts -> spans per text, got "
                f"{type(tag_batch).__name__}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigurationError(
                f"batch_size must be a positive int, got {batch_size!r:.40}")
        self._tag_batch = tag_batch
        self.name = name
        self.label_map = dict(_label_map(label_map))
        self.labels: tuple[str, ...] | None = None if labels is None else _labels(labels)
        self.batch_size = batch_size
        self._stats = TaggerStats()

    def __repr__(self) -> str:
        return f"Tagger({self.name!r}, labels={self.labels!r})"

    @property
    def stats(self) -> TaggerStats:
        """Counters of calls so far."""
        return self._stats

    def tag(self, text: str) -> tuple[Span, ...]:
        """The spans of one text."""
        return self.tag_many([text])[0]

    def tag_many(self, texts: Sequence[str]) -> list[tuple[Span, ...]]:
        """The spans of each text (validated; in text order), each distinct text tagged once."""
        items = check_texts(texts)
        distinct = list(dict.fromkeys(items))
        found: dict[str, tuple[Span, ...]] = {}
        calls = 0
        for i in range(0, len(distinct), self.batch_size):
            batch = distinct[i : i + self.batch_size]
            try:
                raw = self._tag_batch(list(batch))
            except (SpanError, ConfigurationError):
                raise
            except Exception as exc:
                raise ModelCallError(
                    f"{printable(self.name)} raised {type(exc).__name__} while tagging "
                    f"{len(batch)} text(s): {printable(str(exc))[:200]}") from exc
            calls += 1
            if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) \
                    or len(raw) != len(batch):
                got = (f"{type(raw).__name__} of length {len(raw)}"
                       if isinstance(raw, Sequence) else type(raw).__name__)
                raise TaggerOutputError(
                    f"{printable(self.name)} returned {got} for {len(batch)} text(s); a "
                    "tagger returns one list of (start, end, label) spans per text")
            for text, spans in zip(batch, raw, strict=True):
                found[text] = self._checked(text, spans)
        s = self._stats
        self._stats = TaggerStats(s.requested + len(items), s.tagged + len(distinct),
                                  s.calls + calls)
        return [found[t] for t in items]

    def _checked(self, text: str, spans: object) -> tuple[Span, ...]:
        try:
            if not isinstance(spans, (str, bytes)) and isinstance(spans, Iterable):
                spans = list(spans)  # a generator is read once
                if self.label_map:
                    spans = [_renamed(s, self.label_map) for s in spans]
            return validate_spans(text, spans, self.labels)  # type: ignore[arg-type]
        except SpanError as exc:
            if isinstance(exc, TaggerOutputError):
                raise
            raise TaggerOutputError(
                f"{printable(self.name)} on {printable(repr(text))[:80]}: {exc}") from exc


def _renamed(item: object, label_map: Mapping[str, str]) -> object:
    if isinstance(item, Span):
        return Span(item.start, item.end, label_map.get(item.label, item.label))
    if isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[2], str):
        return (item[0], item[1], label_map.get(item[2], item[2]))
    return item


def _labels(labels: object) -> tuple[str, ...]:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Collection):
        raise ConfigurationError(
            f"labels must be a collection of label names such as ['PERSON', 'GPE'], got "
            f"{type(labels).__name__} {printable(repr(labels))[:40]}")
    out = tuple(dict.fromkeys(labels))
    bad = [x for x in out if not isinstance(x, str) or not x.strip()]
    if bad or not out:
        raise ConfigurationError(
            f"labels must be non-empty strings, got {printable(repr(list(labels)))[:80]}; "
            "name each entity type the model may return")
    return out


def _label_map(label_map: object) -> Mapping[str, str]:
    if label_map is None:
        return {}
    if not isinstance(label_map, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip()
            for k, v in label_map.items()):
        raise ConfigurationError(
            f"label_map must map the model's label names to yours, e.g. {{'PER': "
            f"'PERSON'}}, got {printable(repr(label_map))[:60]}")
    return label_map
