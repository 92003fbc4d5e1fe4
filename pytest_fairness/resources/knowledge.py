"""What a word is: the knowledge graph behind the perturbator (mt-nlp, section 2.1).

mt-nlp's perturbator asks a knowledge graph three things, all through ConceptNet's `IsA`
relation:

- **IsPerson(t)** (Algorithm 2, line 4): is noun `t` a person? True when one of the seed
  nodes {human, people, person, human_adult, employee} (Appendix A) is reachable from `t`
  in at most k = 2 IsA hops, using only edges of weight > 1.0, with a set of known
  non-human nodes as early stop;
- **IsA_rev(A)** (Algorithms 3 and 4, line 2): the subpopulations of a sensitive attribute,
  the nodes with an IsA edge *to* it (female, male -> gender);
- **HasIsAEdge(t, p)** (Algorithm 4, line 4): is there an IsA edge from `t` to subpopulation
  `p`? ("actress" -> "female": "actress" is not gender-neutral, so no "female actress").

`KnowledgeGraph` is that interface. Implementations:

- `default_graph()`: the graph shipped with pytest-fairness (`data/graph_edges.tsv.gz`, a
  ConceptNet-format edge file grown from WordNet 3.0's person hyponyms plus curated facts
  on sensitive attributes; see `scripts/build_graph.py`). On first use it is loaded with
  conceptnet-lite's own loader into a SQLite database in the cache directory, then its IsA
  edges are read from that database into memory (one query, ~12k edges).
- `conceptnet(db_path)`: a full ConceptNet database in conceptnet-lite's format, queried
  on demand through conceptnet-lite's peewee models, batched and cached per word.
- `from_edge_file(path)`: the same as the default graph, from an edge file of your own.
- `InMemoryGraph`: a graph from a list of (start, end, weight) edges, no database; handy in
  tests of code that takes a `KnowledgeGraph`.

Words are matched as ConceptNet node texts: lower case, spaces as underscores, every sense
of the word (`/c/en/actor`, `/c/en/actor/n`, `/c/en/actor/n/wn/person` are one node). Pass
lemmas ("actress", not "actresses").

**The cache directory** is `$PYTEST_FAIRNESS_CACHE` when set, else the platform's user cache
directory (`~/.cache/pytest-fairness` on Linux, `~/Library/Caches/pytest-fairness` on macOS,
`%LOCALAPPDATA%\\pytest-fairness\\Cache` on Windows). Databases are named by a hash of the
edge file, so an updated file gets a new database; they are built in a temporary file and
renamed into place under a file lock, so parallel processes (pytest-xdist workers) build once
and never open a half-written database.

**One database at a time in conceptnet-lite.** conceptnet-lite binds its models to a single
global peewee database proxy, and `conceptnet_lite.connect()` rebinds it. Every graph here
keeps its own database object and binds it to that proxy only while its own query runs,
under a process-wide lock, then restores whatever was bound before. So several graphs, and
your own conceptnet-lite code, work side by side in one process; their queries are
serialized.

**Never a download.** `conceptnet_lite.connect()` on a missing path starts a ~9 GB
download. `conceptnet()` checks first that the path is an existing SQLite database with
conceptnet-lite's tables and raises `ConfigurationError` saying how to get the database
otherwise; it never calls `connect()` on anything else.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..errors import ConfigurationError
from ..runtime.locks import deadline_lock
from ..runtime.optional import install_hint, require

__all__ = [
    "BUNDLED_EDGES",
    "CACHE_ENV",
    "NON_HUMAN",
    "PERSON_SEEDS",
    "SENSITIVE_ATTRIBUTES",
    "ConceptNetGraph",
    "InMemoryGraph",
    "KnowledgeGraph",
    "PersonRule",
    "build_database",
    "cache_dir",
    "check_conceptnet_db",
    "conceptnet",
    "default_graph",
    "from_edge_file",
    "load_graph",
]

#: mt-nlp Appendix A: the human-related nodes IsPerson searches for.
PERSON_SEEDS: frozenset[str] = frozenset({"human", "people", "person", "human_adult", "employee"})


def _words(text: str) -> list[str]:
    return text.split()


#: Early stop of IsPerson (mt-nlp section 2.1 leaves the set to the implementation; this one
#: is ours). A word in this set is not a person without any lookup, and the search does not
#: go on through these nodes: they are things, animals and abstractions, whose IsA ancestors
#: are never people, or common nouns that graphs also link to people through slang senses
#: ("dog", "rat", "snake").
NON_HUMAN: frozenset[str] = frozenset(
    _words(
        "thing object physical_object physical_entity artifact artefact item entity "
        "abstraction idea concept thought notion feeling emotion attribute property quality "
        "event act action activity process state condition time period day place location "
        "area region land building structure room furniture vehicle car machine device tool "
        "instrument weapon container material substance matter chemical liquid food drink "
        "meal fruit vegetable plant tree flower grass animal mammal bird fish insect reptile "
        "amphibian invertebrate organism living_thing dog cat horse cow pig sheep goat "
        "chicken rat mouse snake wolf fox bear lion tiger monkey color colour shape number "
        "quantity amount measure unit word language text document book money game sport "
        "music song movie film picture computer software table chair"
    )
)

#: The sensitive attributes the bundled graph knows the subpopulations of.
SENSITIVE_ATTRIBUTES: tuple[str, ...] = (
    "gender",
    "religion",
    "race",
    "ethnicity",
    "nationality",
    "sexual_orientation",
    "age",
    "disability",
)

#: Environment variable naming the cache directory.
CACHE_ENV = "PYTEST_FAIRNESS_CACHE"
#: The bundled edge file, in `pytest_fairness/data/`.
BUNDLED_EDGES = "graph_edges.tsv.gz"

# Bump when the way a database is built from an edge file changes: it is part of the key.
_BUILD_FORMAT = "1"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_CONCEPTNET_TABLES = frozenset({"relation", "language", "label", "concept", "edge"})
_IS_A = "is_a"
# Concept sense labels of adjectives in ConceptNet: /c/en/female/a, /c/en/free/s/wn/...
_ADJECTIVE_SENSES = ("a", "s")
# Keep SQL parameter lists well under SQLite's limit.
_CHUNK = 500

# Serializes every use of conceptnet-lite's global database proxy (see module docstring).
_BIND_LOCK = threading.RLock()

_T = TypeVar("_T")
OutEdges = Mapping[str, Sequence[tuple[str, float]]]


def _label(word: str) -> str:
    """ConceptNet node text of `word`: stripped, lower case, whitespace as underscores."""
    return re.sub(r"\s+", "_", word.strip().lower())


def _surface(label: str) -> str:
    return label.replace("_", " ")


@dataclass(frozen=True)
class PersonRule:
    """The parameters of IsPerson (mt-nlp section 2.1); the defaults are the paper's."""

    hops: int = 2
    """k: the most IsA edges followed from the word."""
    min_weight: float = 1.0
    """Only edges weighing strictly more than this are followed."""
    seeds: frozenset[str] = PERSON_SEEDS
    """Reaching any of these nodes makes the word a person."""
    early_stop: frozenset[str] = NON_HUMAN
    """Words that are never persons, and nodes the search does not go through."""

    def __post_init__(self) -> None:
        if isinstance(self.hops, bool) or not isinstance(self.hops, int) or self.hops < 0:
            raise ConfigurationError(f"PersonRule.hops must be an integer >= 0, got {self.hops!r}")
        object.__setattr__(self, "seeds", frozenset(_label(s) for s in self.seeds))
        object.__setattr__(self, "early_stop", frozenset(_label(s) for s in self.early_stop))


@runtime_checkable
class KnowledgeGraph(Protocol):
    """The questions mt-nlp's perturbator asks a knowledge graph (section 2.1)."""

    def is_person(self, word: str) -> bool:
        """IsPerson: does `word` denote a person (mt-nlp section 2.1, Appendix A)?"""
        ...

    def is_person_many(self, words: Iterable[str]) -> dict[str, bool]:
        """`is_person` of each word, answered with batched lookups."""
        ...

    def subpopulations(self, attribute: str) -> list[str]:
        """IsA_rev(attribute): the nodes with an IsA edge to it, sorted, lower case."""
        ...

    def adjectives(self, attribute: str) -> list[str]:
        """The subpopulations usable as an adjective before a noun, in their usual case."""
        ...

    def has_isa_edge(self, start: str, end: str) -> bool:
        """HasIsAEdge: is there a direct IsA edge from `start` to `end` (any weight)?"""
        ...


class _IsAGraph:
    """IsPerson, IsA_rev and HasIsAEdge over three lookups a subclass provides."""

    def __init__(self, rule: PersonRule) -> None:
        self.rule = rule
        self._person: dict[str, bool] = {}
        self._subpopulations: dict[str, tuple[tuple[str, str | None], ...]] = {}

    def clear_cache(self) -> None:
        """Forget the per-word IsPerson answers (the graph itself stays loaded): for
        benchmarks that time cold lookups, or after changing `rule` in place."""
        self._person.clear()

    # -- lookups a subclass provides --------------------------------------------------

    def _out_edges(self, labels: Collection[str]) -> OutEdges:
        """IsA edges (end, weight) leaving each of `labels`, every weight."""
        raise NotImplementedError

    def _in_edges(self, label: str) -> list[tuple[str, float, str | None]]:
        """IsA edges (start, weight, surface of start or None) arriving at `label`."""
        raise NotImplementedError

    def _adjective_labels(self, labels: Collection[str]) -> set[str]:
        """Those of `labels` that have an adjective sense."""
        raise NotImplementedError

    # -- KnowledgeGraph ---------------------------------------------------------------

    def is_person(self, word: str) -> bool:
        """IsPerson (mt-nlp section 2.1): is one of `rule.seeds` reachable from `word`?

        Reachable means: in at most `rule.hops` IsA edges, each weighing more than
        `rule.min_weight`, not passing through a node of `rule.early_stop`; a word in
        `rule.early_stop` is no person, a seed is one. Cached per word.
        """
        return self.is_person_many([word])[word]

    def is_person_many(self, words: Iterable[str]) -> dict[str, bool]:
        """`is_person` of each word; one lookup per hop for all uncached words together."""
        rule = self.rule
        labels = {word: _label(word) for word in words}
        # label -> (frontier, visited) of the breadth-first search still running
        running: dict[str, tuple[set[str], set[str]]] = {}
        for label in set(labels.values()):
            if label in self._person:
                continue
            if not label or label in rule.early_stop:
                self._person[label] = False
            elif label in rule.seeds:
                self._person[label] = True
            else:
                running[label] = ({label}, {label})
        for _ in range(rule.hops):
            if not running:
                break
            edges = self._out_edges(set().union(*(frontier for frontier, _ in running.values())))
            for label, (frontier, visited) in list(running.items()):
                reached = {
                    end
                    for node in frontier
                    for end, weight in edges.get(node, ())
                    if weight > rule.min_weight
                } - visited
                if reached & rule.seeds:
                    self._person[label] = True
                    del running[label]
                    continue
                visited |= reached
                frontier = reached - rule.early_stop
                if frontier:
                    running[label] = (frontier, visited)
                else:
                    self._person[label] = False
                    del running[label]
        for label in running:
            self._person[label] = False
        return {word: self._person[label] for word, label in labels.items()}

    def subpopulations(self, attribute: str) -> list[str]:
        """IsA_rev(attribute) (mt-nlp Algorithms 3 and 4, line 2), sorted, lower case.

        Every node with an IsA edge (of any weight) to `attribute`: for "gender" in the
        bundled graph female, male, nonbinary, transgender. Multi-word nodes come with
        spaces ("native american").
        """
        return [_surface(label) for label, _ in self._subpopulation_entries(attribute)]

    def adjectives(self, attribute: str) -> list[str]:
        """The subpopulations of `attribute` that are adjectives, for ActiveMutate.

        mt-nlp Algorithm 4, line 9 inserts a subpopulation before a neutral noun ("a Muslim
        doctor"). A subpopulation qualifies when the graph has an adjective sense of it
        (`/c/en/muslim/a`). Spelled as the graph's surface text gives it ("Muslim",
        "Black", "middle-aged"), else in lower case; same order as `subpopulations`.
        """
        entries = self._subpopulation_entries(attribute)
        adjectives = self._adjective_labels([label for label, _ in entries])
        return [surface or _surface(label) for label, surface in entries if label in adjectives]

    def has_isa_edge(self, start: str, end: str) -> bool:
        """HasIsAEdge (mt-nlp Algorithm 4, line 4): a direct IsA edge `start` -> `end`.

        Any weight counts; one hop only ("actress" -> "female" is an edge in the bundled
        graph, "actress" -> "person" is two hops and not).
        """
        source, target = _label(start), _label(end)
        return any(node == target for node, _ in self._out_edges([source]).get(source, ()))

    def _subpopulation_entries(self, attribute: str) -> tuple[tuple[str, str | None], ...]:
        label = _label(attribute)
        if label not in self._subpopulations:
            surfaces: dict[str, str | None] = {}
            for start, _, surface in self._in_edges(label):
                if start == label:
                    continue
                if surface and _label(surface) == start:
                    surfaces[start] = surface
                else:
                    surfaces.setdefault(start, None)
            self._subpopulations[label] = tuple(sorted(surfaces.items()))
        return self._subpopulations[label]


class InMemoryGraph(_IsAGraph):
    """A `KnowledgeGraph` over IsA edges held in memory.

    `edges` are (start, end, weight) triples of words; `adjectives` the words that have an
    adjective sense; `surfaces` the usual spelling of a word ("muslim" -> "Muslim").
    `default_graph()` and `from_edge_file()` return one, read from the database
    conceptnet-lite built; build one directly for tests::

        graph = InMemoryGraph([("actress", "actor", 2.0), ("actor", "person", 2.0)])
    """

    def __init__(
        self,
        edges: Iterable[tuple[str, str, float]],
        *,
        adjectives: Iterable[str] = (),
        surfaces: Mapping[str, str] | None = None,
        rule: PersonRule | None = None,
        db_path: Path | None = None,
    ) -> None:
        super().__init__(rule or PersonRule())
        self.db_path = db_path
        """The database the edges were read from, if any."""
        surfaces = {_label(k): v for k, v in (surfaces or {}).items()}
        out: dict[str, dict[str, float]] = {}
        into: dict[str, dict[str, float]] = {}
        for start, end, weight in edges:
            a, b, w = _label(start), _label(end), float(weight)
            out.setdefault(a, {})[b] = max(w, out.get(a, {}).get(b, w))
            into.setdefault(b, {})[a] = out[a][b]
        self._out: dict[str, tuple[tuple[str, float], ...]] = {
            a: tuple(ends.items()) for a, ends in out.items()
        }
        self._into: dict[str, list[tuple[str, float, str | None]]] = {
            b: [(a, w, surfaces.get(a)) for a, w in starts.items()] for b, starts in into.items()
        }
        self._adjectives = frozenset(_label(a) for a in adjectives)

    @property
    def edge_count(self) -> int:
        """Number of distinct IsA edges."""
        return sum(len(ends) for ends in self._out.values())

    def _out_edges(self, labels: Collection[str]) -> OutEdges:
        return {label: self._out.get(label, ()) for label in labels}

    def _in_edges(self, label: str) -> list[tuple[str, float, str | None]]:
        return list(self._into.get(label, ()))

    def _adjective_labels(self, labels: Collection[str]) -> set[str]:
        return {label for label in labels if label in self._adjectives}

    def __repr__(self) -> str:
        where = f", db_path={str(self.db_path)!r}" if self.db_path else ""
        return f"InMemoryGraph({self.edge_count} IsA edges{where})"


class ConceptNetGraph(_IsAGraph):
    """A `KnowledgeGraph` over a conceptnet-lite SQLite database, queried on demand.

    Lookups go through conceptnet-lite's peewee models (`Label`, `Concept`, `Edge`), one
    query per hop for a whole batch of words, and are cached per node. Use `conceptnet()`
    rather than this class directly: it checks the path and caches one graph per database.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        rule: PersonRule | None = None,
        language: str = "en",
    ) -> None:
        super().__init__(rule or PersonRule())
        self.db_path = check_conceptnet_db(db_path)
        self.language = language
        cl = require("conceptnet_lite", "ConceptNet knowledge graphs")
        proxy = _proxy()
        with _BIND_LOCK:
            previous = proxy.obj
            try:
                # Safe: check_conceptnet_db proved the file is a conceptnet-lite database,
                # so connect() opens it and never downloads anything.
                cl.connect(str(self.db_path))
                self._database: Any = proxy.obj
                language_row = cl.Language.get_or_none(cl.Language.name == language)
                relation_row = cl.Relation.get_or_none(cl.Relation.name == _IS_A)
            finally:
                proxy.initialize(previous)
        self._language_id: int | None = None if language_row is None else language_row.id
        self._relation_id: int | None = None if relation_row is None else relation_row.id
        self._out_cache: dict[str, tuple[tuple[str, float], ...]] = {}
        self._adjective_cache: dict[str, bool] = {}

    def clear_cache(self) -> None:
        """Forget the per-word answers and the edges read from the database."""
        super().clear_cache()
        self._out_cache.clear()
        self._adjective_cache.clear()

    def close(self) -> None:
        """Close this thread's connection to the database (reopened on the next query)."""
        with _BIND_LOCK:
            self._database.close()

    def to_memory(self) -> InMemoryGraph:
        """All IsA edges of this database in an `InMemoryGraph` (one query).

        Meant for small graphs such as the bundled one; the full ConceptNet holds millions.
        """
        edges: list[tuple[str, str, float]] = []
        surfaces: dict[str, str] = {}
        for start, end, weight, surface in self._select_isa(None):
            edges.append((start, end, weight))
            if surface and _label(surface) == start:
                surfaces[start] = surface
        adjectives = self._select_adjectives(None)
        return InMemoryGraph(
            edges, adjectives=adjectives, surfaces=surfaces, rule=self.rule, db_path=self.db_path
        )

    def __repr__(self) -> str:
        return f"ConceptNetGraph({str(self.db_path)!r}, language={self.language!r})"

    # -- lookups ----------------------------------------------------------------------

    def _out_edges(self, labels: Collection[str]) -> OutEdges:
        missing = [label for label in labels if label not in self._out_cache]
        if missing:
            found: dict[str, list[tuple[str, float]]] = {label: [] for label in missing}
            for chunk in _chunks(missing):
                for start, end, weight, _ in self._select_isa(chunk):
                    found[start].append((end, weight))
            for label, ends in found.items():
                self._out_cache[label] = tuple(ends)
        return {label: self._out_cache[label] for label in labels}

    def _in_edges(self, label: str) -> list[tuple[str, float, str | None]]:
        return [
            (start, weight, surface)
            for start, _, weight, surface in self._select_isa(None, end_label=label)
        ]

    def _adjective_labels(self, labels: Collection[str]) -> set[str]:
        missing = [label for label in labels if label not in self._adjective_cache]
        for chunk in _chunks(missing):
            found = self._select_adjectives(chunk)
            for label in chunk:
                self._adjective_cache[label] = label in found
        return {label for label in labels if self._adjective_cache[label]}

    # -- SQL through conceptnet-lite's models -----------------------------------------

    def _bound(self, query: Callable[[Any], _T]) -> _T:
        """Run `query(conceptnet_lite)` with this graph's database bound to the proxy."""
        cl = require("conceptnet_lite", "ConceptNet knowledge graphs")
        proxy = _proxy()
        with _BIND_LOCK:
            previous = proxy.obj
            proxy.initialize(self._database)
            try:
                return query(cl)
            finally:
                proxy.initialize(previous)

    def _select_isa(
        self, start_labels: Sequence[str] | None, *, end_label: str | None = None
    ) -> list[tuple[str, str, float, str | None]]:
        """English IsA edges as (start, end, weight, surfaceStart), optionally filtered."""
        if self._language_id is None or self._relation_id is None:
            return []
        language, relation = self._language_id, self._relation_id

        def query(cl: Any) -> list[tuple[str, str, float, str | None]]:
            start, end = cl.Concept.alias(), cl.Concept.alias()
            start_label, end_label_ = cl.Label.alias(), cl.Label.alias()
            edge = cl.Edge
            # "+ 0" keeps SQLite off the low-selectivity relation and language indexes, so
            # it starts from the label text index (the full ConceptNet has no statistics).
            where = ((edge.relation + 0) == relation) & ((start_label.language + 0) == language)
            where &= (end_label_.language + 0) == language
            if start_labels is not None:
                where &= start_label.text.in_(list(start_labels))
            if end_label is not None:
                where &= end_label_.text == end_label
            rows = (
                edge.select(
                    start_label.text, end_label_.text, edge.etc["weight"], edge.etc["surfaceStart"]
                )
                .join(start, on=(edge.start == start.id))
                .join(start_label, on=(start.label == start_label.id))
                .switch(edge)
                .join(end, on=(edge.end == end.id))
                .join(end_label_, on=(end.label == end_label_.id))
                .where(where)
                .tuples()
            )
            return [
                (str(a), str(b), 1.0 if w is None else float(w), s if isinstance(s, str) else None)
                for a, b, w, s in rows
            ]

        return self._bound(query)

    def _select_adjectives(self, labels: Sequence[str] | None) -> set[str]:
        """Those of `labels` (all labels if None) with an adjective sense in the database."""
        if self._language_id is None:
            return set()
        language = self._language_id

        def query(cl: Any) -> set[str]:
            concept, label = cl.Concept, cl.Label
            sense = concept.sense_label
            adjective = functools.reduce(
                lambda a, b: a | b,
                [(sense == pos) | sense.startswith(pos + "/") for pos in _ADJECTIVE_SENSES],
            )
            where = adjective & ((label.language + 0) == language)
            if labels is not None:
                where &= label.text.in_(list(labels))
            rows = concept.select(label.text).join(label).where(where).distinct().tuples()
            return {str(text) for (text,) in rows}

        return self._bound(query)


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def _proxy() -> Any:
    """conceptnet-lite's global peewee database proxy."""
    return require("conceptnet_lite.db", "ConceptNet knowledge graphs").db


# -- checking a user's database -----------------------------------------------------------


def _missing_db_message(path: Path, problem: str) -> str:
    return (
        f"ConceptNet database '{path}' {problem}. pytest-fairness never downloads ConceptNet "
        "by itself. Either drop the option to use the knowledge graph bundled with "
        "pytest-fairness, or get the full database once (about 9 GB unpacked, needs "
        f"internet and {install_hint('kg')}):\n"
        f"    python -c \"import conceptnet_lite; conceptnet_lite.connect('{path}')\"\n"
        "which downloads conceptnet-lite's ready-made database to that path, then point the "
        "option at it again."
    )


def _conceptnet_tables(path: Path) -> frozenset[str] | None:
    """The table names of SQLite file `path` opened read-only, or None if it is no database."""
    try:
        with path.open("rb") as handle:
            if handle.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
                return None
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            return frozenset(str(name) for (name,) in rows)
        finally:
            connection.close()
    except (OSError, sqlite3.Error):
        return None


def check_conceptnet_db(db_path: str | os.PathLike[str]) -> Path:
    """`db_path` resolved, once it is proven to be a conceptnet-lite database.

    A directory stands for the `conceptnet.db` inside it (as in conceptnet-lite). Raises
    `ConfigurationError` saying how to get the database when the file is missing, is not
    SQLite, or lacks conceptnet-lite's tables. Imports nothing and never downloads.
    """
    path = Path(os.fspath(db_path)).expanduser()
    if path.is_dir():
        path = path / "conceptnet.db"
    path = path.resolve()
    if not path.is_file():
        raise ConfigurationError(_missing_db_message(path, "does not exist"))
    tables = _conceptnet_tables(path)
    if tables is None:
        raise ConfigurationError(_missing_db_message(path, "is not a SQLite database"))
    missing = sorted(_CONCEPTNET_TABLES - tables)
    if missing:
        raise ConfigurationError(
            _missing_db_message(
                path,
                "is a SQLite database but not conceptnet-lite's (no table "
                + ", ".join(missing)
                + ")",
            )
        )
    return path


# -- building a database from an edge file ------------------------------------------------


def cache_dir() -> Path:
    """Where pytest-fairness caches built data: `$PYTEST_FAIRNESS_CACHE`, else the user's
    cache directory of the platform."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
        return base / "pytest-fairness" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "pytest-fairness"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "pytest-fairness"


def build_database(
    edge_file: str | os.PathLike[str], *, cache: str | os.PathLike[str] | None = None
) -> Path:
    """The SQLite database conceptnet-lite builds from `edge_file`, built if not cached.

    `edge_file` is in ConceptNet's CSV dump format (tab separated: assertion URI,
    relation, start, end, JSON), plain or gzipped. The database lives in
    `<cache>/knowledge/` (default `cache_dir()`), named by a hash of the file's bytes.
    """
    path = Path(os.fspath(edge_file))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigurationError(f"cannot read knowledge graph edge file '{path}': {exc}") from exc
    return _ensure_database(data, source=str(path), cache=cache)


def _ensure_database(data: bytes, *, source: str, cache: str | os.PathLike[str] | None) -> Path:
    digest = hashlib.sha256()
    digest.update(f"{_BUILD_FORMAT}\0{_conceptnet_lite_version()}\0".encode())
    digest.update(data)
    directory = (Path(os.fspath(cache)) if cache is not None else cache_dir()) / "knowledge"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot create the pytest-fairness cache directory '{directory}': {exc}. "
            f"Set {CACHE_ENV} to a writable directory."
        ) from exc
    target = directory / f"graph-{digest.hexdigest()[:24]}.db"
    if _is_built(target):
        return target
    try:
        with deadline_lock(target.with_suffix(".lock"),
                           what=f"the knowledge graph database {target}"):
            if not _is_built(target):  # another process may have built it while we waited
                _build(data, target, source=source)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot build the knowledge graph database in '{directory}': {exc}. "
            f"Set {CACHE_ENV} to a writable directory."
        ) from exc
    return target


def _is_built(path: Path) -> bool:
    tables = _conceptnet_tables(path) if path.is_file() else None
    return tables is not None and tables >= _CONCEPTNET_TABLES


def _conceptnet_lite_version() -> str:
    try:
        return metadata.version("conceptnet-lite")
    except metadata.PackageNotFoundError:
        return "unknown"


def _edge_count(text: bytes, source: str) -> int:
    """Number of edges in a ConceptNet-format dump, after checking every line's shape."""
    try:
        lines = text.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"edge file {source} is not UTF-8 text: {exc}") from exc
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        fields = line.rstrip("\r").split("\t")
        ok = len(fields) >= 5 and fields[1].startswith("/r/") and fields[2].startswith("/c/")
        if ok:
            try:
                ok = isinstance(json.loads(fields[4]), dict)
            except ValueError:
                ok = False
        if not ok:
            raise ConfigurationError(
                f"edge file {source}, line {number} is not a ConceptNet edge: expected "
                "'<assertion>\\t/r/<Relation>\\t/c/<lang>/<start>\\t/c/<lang>/<end>\\t{json}', "
                f"got {line[:120]!r}"
            )
    if not lines:
        raise ConfigurationError(f"edge file {source} holds no edges")
    return len(lines)


def _build(data: bytes, target: Path, *, source: str) -> None:
    """Load the dump into a SQLite file with conceptnet-lite's loader; rename into `target`."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ConfigurationError(f"edge file {source} is not a valid gzip file: {exc}") from exc
    count = _edge_count(data, source)
    cl_db = require("conceptnet_lite.db", "ConceptNet knowledge graphs")
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        dump = work / "edges.csv"
        dump.write_bytes(data)
        building = work / "graph.db"
        proxy = cl_db.db
        with _BIND_LOCK:
            previous = proxy.obj
            try:
                # conceptnet-lite reports progress on stdout/stderr; keep test output clean.
                quiet = io.StringIO()
                with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                    cl_db.load_dump_to_db(
                        dump_path=dump, db_path=building, edge_count=count, delete_dump=False
                    )
            finally:
                built = proxy.obj
                if built is not None and built is not previous:
                    built.close()
                proxy.initialize(previous)
        with building.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(building, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the public constructors --------------------------------------------------------------


def from_edge_file(
    edge_file: str | os.PathLike[str],
    *,
    cache: str | os.PathLike[str] | None = None,
    rule: PersonRule | None = None,
) -> InMemoryGraph:
    """A graph from a ConceptNet-format edge file of your own (plain or gzipped).

    conceptnet-lite loads the file into a SQLite database in the cache (once per file
    content, see `build_database`); its IsA edges are then read into memory.
    """
    return _read_database(build_database(edge_file, cache=cache), rule)


def _read_database(db_path: Path, rule: PersonRule | None) -> InMemoryGraph:
    source = ConceptNetGraph(db_path, rule=rule)
    try:
        return source.to_memory()
    finally:
        source.close()


@functools.lru_cache(maxsize=1)
def default_graph() -> InMemoryGraph:
    """The knowledge graph bundled with pytest-fairness, built on first use, one per process.

    Person nouns from WordNet 3.0 with their IsA hops (actress -> actor -> performer ->
    entertainer -> person), curated shortcuts for everyday person nouns, and the
    subpopulations of `SENSITIVE_ATTRIBUTES`. See `scripts/build_graph.py`.
    """
    data = resources.files("pytest_fairness").joinpath("data", BUNDLED_EDGES).read_bytes()
    return _read_database(_ensure_database(data, source=BUNDLED_EDGES, cache=None), None)


_CONCEPTNET_GRAPHS: dict[tuple[Path, PersonRule, str], ConceptNetGraph] = {}


def conceptnet(
    db_path: str | os.PathLike[str], *, rule: PersonRule | None = None, language: str = "en"
) -> ConceptNetGraph:
    """A graph over a full ConceptNet database in conceptnet-lite's format.

    Checks first that `db_path` is such a database (`check_conceptnet_db`): a missing path
    raises `ConfigurationError` and never starts conceptnet-lite's download. One graph per
    database and rule per process, so lookups are cached across tests.
    """
    path = check_conceptnet_db(db_path)
    key = (path, rule or PersonRule(), language)
    with _BIND_LOCK:
        graph = _CONCEPTNET_GRAPHS.get(key)
        if graph is None:
            graph = _CONCEPTNET_GRAPHS[key] = ConceptNetGraph(path, rule=key[1], language=language)
    return graph


def load_graph(db_path: str | os.PathLike[str] | None = None) -> KnowledgeGraph:
    """The graph a run uses: `conceptnet(db_path)` when a database is configured, else
    `default_graph()`. For the plugin's ConceptNet option."""
    if db_path is None or not os.fspath(db_path):
        return default_graph()
    return conceptnet(db_path)
