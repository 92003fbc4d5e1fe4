"""Prediction caches: the in-memory LRU every adapter uses, and an optional store on disk.

`PredictionCache` is the bounded map one pytest session keeps per underlying model (see
`SessionState.cache_for`). `DiskCache` persists predictions between runs in SQLite
(stdlib `sqlite3`), one file per model fingerprint: `as_model(..., fingerprint="v3")`
with a cache directory (`--fairness-cache-dir`, ini `fairness_cache_dir`, or
`as_model(cache_dir=...)`). The fingerprint is the user's promise that the model has not
changed: a model without one is never persisted, since nothing tells us when its weights
or code changed. The adapter configuration that affects outputs is part of every key.

The file runs in WAL mode with a busy timeout, so several processes (pytest-xdist
workers) read and write it at once. A row is stored as its kind (`"proba"` / `"score"`),
its width (the shape of a 1-D row), float64 bytes and a CRC-32 of those bytes. Anything
wrong with the file (not a database, unreadable, a row of the wrong size or checksum)
gives a `CacheWarning` and the adapter carries on from memory: never a crash, never a
row that was not written by the same fingerprint and configuration. A row that reads
back intact but holds values no model output may have (NaN, a score outside the
adapter's `score_range`: a file edited by hand, checksum and all) is dropped with a
`CacheWarning` too (`DiskCache.reject`) and scored again: the cache is trusted no more
than the model. A file this process may not write (a read-only file or directory, where
WAL mode could not create its -shm file) is opened read-only (SQLite URI
`mode=ro&immutable=1`): its rows are read, new predictions stay in memory.

An adapter's configuration is keyed in memory as given and on disk by `stable_config`;
objects compared by identity (a tokenizer, a length function) go in it wrapped in `Ident`.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import itertools
import os
import re
import sqlite3
import threading
import warnings
import zlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from ...errors import ConfigurationError
from ...settings import DEFAULT_CACHE_SIZE as DEFAULT_CACHE_SIZE
from ...types import FloatArray
from ...validation import check_int

Kind = Literal["proba", "score"]
Row = tuple[Kind, FloatArray]
#: A model's rows in the in-memory cache: each text is stored as one int, the serial of the
#: batch's block of rows (kept once by the cache) shifted left by `_SHIFT`, plus the
#: text's row in it (`PredictionCache.put_rows`). No tuple per text: a tuple was 64 bytes
#: the garbage collector walks, about a third of the adapter's time on a cheap model.
_SHIFT = 32
_ROW = (1 << _SHIFT) - 1
#: Places in a list of texts.
IntArray = npt.NDArray[np.intp]

#: Schema version written in the file; a file with another version is left alone.
SCHEMA = 1
#: Rows looked up per SQL statement (below SQLite's default limit of host parameters).
_CHUNK = 500
#: Rows written per transaction.
_FLUSH_EVERY = 2_000


class RowHits(NamedTuple):
    """What `PredictionCache.get_rows` found: `found[i]` whether `keys[i]` was stored, and
    the rows of the hits, one group per block they came from: (their places in `keys`,
    the block's kind, their rows)."""

    found: Any  # a boolean array, one per key
    groups: list[tuple[IntArray, Kind, FloatArray]]


class CacheWarning(UserWarning):
    """The persistent prediction cache could not be used; predictions stay in memory."""


class PredictionCache:
    """A least-recently-used map from keys to prediction entries, bounded in entries.

    Keys live in namespaces (an adapter's configuration: the options that change its
    outputs), so the hot path never builds a (configuration, text) tuple per text:
    `get_many(space, texts)` and `put_many(space, texts, entries)` do a dictionary
    operation per text and nothing else. Each namespace is a plain dict in recency order
    (a hit moves its key to the end); when the bound is passed, the least recently used
    entries of the namespace being written go first, then those of the others. Holds at
    most `max_entries` entries in all. Thread-safe. `stats()` counts look-ups that hit and
    missed. `get(key)`/`put(key, entry)` use the namespace None.

    A model's rows go in by `put_rows(space, texts, kind, block)` and come out by
    `get_rows(space, texts)`: the block is kept once and each text holds an int naming
    its row, so storing and finding rows is C-level work with no object per text. A
    namespace holds rows or entries, not both. Blocks no text refers to any more are
    dropped once the rows of all blocks kept pass twice the bound (`_sweep`).
    """

    def __init__(self, max_entries: int = DEFAULT_CACHE_SIZE) -> None:
        self.max_entries = check_int(max_entries, "cache_size", minimum=1)
        self._spaces: dict[Hashable, dict[Hashable, Any]] = {}
        self._size = 0
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        # the blocks of `put_rows`: serial -> (kind, read-only rows), and their rows in all
        self._blocks: dict[int, tuple[Kind, FloatArray]] = {}
        self._serial = 0
        self._block_rows = 0
        self._sweep_at = 2 * self.max_entries
        self._row_spaces: set[Hashable] = set()

    def get(self, key: Hashable) -> Any:
        return self.get_many(None, [key])[0]

    def put(self, key: Hashable, entry: Any) -> None:
        self.put_many(None, [key], [entry])

    def put_rows(self, space: Hashable, keys: Sequence[Hashable], kind: Kind,
                 block: FloatArray, start: int = 0) -> None:
        """Store row i of `block` (read-only, one row per key) under `keys[i]` in `space`,
        for i from `start` on (most recently used last)."""
        if len(keys) != len(block):
            raise ValueError(f"{len(keys)} keys for a block of {len(block)} rows")
        if start >= len(keys):
            return
        with self._lock:
            self._serial += 1
            base = self._serial << _SHIFT
            self._blocks[self._serial] = (kind, block)
            self._block_rows += len(block)
            self._row_spaces.add(space)
            table = self._spaces.setdefault(space, {})
            before = len(table)
            table.update(zip(keys if start == 0 else itertools.islice(keys, start, None),
                             range(base + start, base + len(keys)), strict=True))
            self._size += len(table) - before
            if self._size > self.max_entries:
                self._evict(space)
            if self._block_rows > self._sweep_at:
                self._sweep()

    def get_rows(self, space: Hashable, keys: Sequence[Hashable]) -> RowHits | None:
        """The rows stored for `keys` in `space` (`put_rows`), or None when none is:
        `RowHits` (where the hits are in `keys`, and their rows by block)."""
        with self._lock:
            table = self._spaces.get(space)
            if not table or table.keys().isdisjoint(keys):  # stops at the first hit
                self._misses += len(keys)
                return None
            stored = list(map(table.get, keys))
            misses = stored.count(None)
            self._hits += len(keys) - misses
            self._misses += misses
            if misses == len(keys):
                return None
            found = np.fromiter(map(bool, stored), dtype=bool, count=len(keys))  # codes > 0
            at = np.flatnonzero(found)
            mask = found.tolist()
            codes = np.fromiter(itertools.compress(stored, mask), dtype=np.int64, count=len(at))
            hit_keys = list(itertools.compress(keys, mask))
            # most recently used last
            table.update(zip(hit_keys, map(table.pop, hit_keys), strict=True))
            serials = codes >> _SHIFT
            rows = codes & _ROW
            if serials[0] == serials[-1] and (serials == serials[0]).all():
                kind, block = self._blocks[int(serials[0])]
                return RowHits(found, [(at, kind, block[rows])])
            order = np.argsort(serials, kind="stable")
            serials, at, rows = serials[order], at[order], rows[order]
            cuts = np.flatnonzero(np.diff(serials)) + 1
            groups: list[tuple[IntArray, Kind, FloatArray]] = []
            for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(serials)],
                              strict=True):
                kind, block = self._blocks[int(serials[lo])]
                groups.append((at[lo:hi], kind, block[rows[lo:hi]]))
            return RowHits(found, groups)

    def get_many(self, space: Hashable, keys: Sequence[Hashable]) -> list[Any]:
        """The entries of `keys` in `space` (None for a miss), in order, under one lock."""
        with self._lock:
            table = self._spaces.get(space)
            found: list[Any] = list(map(table.get, keys)) if table else [None] * len(keys)
            hits = len(found) - found.count(None)
            if hits and table is not None:
                pop = table.pop
                for key, entry in zip(keys, found, strict=True):
                    if entry is not None:
                        table[key] = pop(key)  # most recently used: last
            self._hits += hits
            self._misses += len(found) - hits
            return found

    def put_many(self, space: Hashable, keys: Sequence[Hashable],
                 entries: Sequence[Any]) -> None:
        """Store `entries` under `keys` in `space` (most recently used last)."""
        with self._lock:
            table = self._spaces.setdefault(space, {})
            before = len(table)
            table.update(zip(keys, entries, strict=True))
            self._size += len(table) - before
            if self._size > self.max_entries:
                self._evict(space)

    def _evict(self, first: Hashable) -> None:
        """Drop the least recently used entries until the bound holds: those of `first`
        (the namespace just written) before the others, in one pass per namespace."""
        order = [first, *(s for s in self._spaces if s != first)]
        for space in order:
            excess = self._size - self.max_entries
            if excess <= 0:
                return
            table = self._spaces[space]
            drop = list(itertools.islice(iter(table), min(excess, len(table))))
            collections.deque(map(table.__delitem__, drop), maxlen=0)
            self._size -= len(drop)
            if not table:
                del self._spaces[space]

    def _sweep(self) -> None:
        """Drop the blocks of rows no stored text refers to any more; the next sweep once
        the rows kept pass twice the bound (or twice what is left, when blocks that few
        texts still refer to hold more)."""
        live: set[int] = set()
        for space in list(self._row_spaces):
            table = self._spaces.get(space)
            if not table:
                self._row_spaces.discard(space)
                continue
            codes = np.fromiter(table.values(), dtype=np.int64, count=len(table))
            live.update(np.unique(codes >> _SHIFT).tolist())
        self._blocks = {s: b for s, b in self._blocks.items() if s in live}
        self._block_rows = sum(len(block) for _, block in self._blocks.values())
        self._sweep_at = max(2 * self.max_entries, 2 * self._block_rows)

    def stats(self) -> dict[str, int]:
        """`{"entries", "max_entries", "hits", "misses"}` of this cache."""
        with self._lock:
            return {
                "entries": self._size,
                "max_entries": self.max_entries,
                "hits": self._hits,
                "misses": self._misses,
            }

    def __len__(self) -> int:
        return self._size

    def __contains__(self, key: Hashable) -> bool:
        table = self._spaces.get(None)
        return table is not None and key in table


def cache_file(directory: str | Path, fingerprint: str) -> Path:
    """The SQLite file of `fingerprint` in `directory`: a readable prefix of the
    fingerprint plus a hash of all of it, so distinct fingerprints never share a file."""
    check_fingerprint(fingerprint)
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", fingerprint)[:40].strip("._") or "model"
    digest = hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:16]
    return Path(directory) / f"{readable}-{digest}.sqlite"


def check_fingerprint(fingerprint: object) -> str:
    if not isinstance(fingerprint, str) or not fingerprint.strip():
        raise ConfigurationError(
            f"fingerprint={fingerprint!r} must be a non-empty string that changes whenever "
            'the model changes, e.g. fingerprint="toxicity-v3" or a hash of the weights file'
        )
    return fingerprint


class DiskCache:
    """Predictions of one model fingerprint in a SQLite file (see the module docstring).

    Keys are `(config, text)` with `config` a string describing the adapter settings that
    affect outputs. `get_many` and `put` never raise: on any database error the store
    warns once (`CacheWarning`) and turns itself off (`broken` is then the reason).
    """

    #: What the store holds, as its warnings name it (a subclass storing other rows
    #: changes these; `generation_cache.AnswerStore` stores generated answers).
    label = "prediction cache"
    items = "predictions"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.broken: str | None = None
        self.read_only = False
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str, str, int, bytes, int]] = []
        self._counts = {"hits": 0, "misses": 0, "writes": 0, "bad_rows": 0}
        self._db: sqlite3.Connection | None = None
        self._warned_rows = False
        self._warned_values = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_file() and not _writable(self.path):
                self._db, self.read_only = self._open_read_only(), True
            else:
                try:
                    self._db = self._open_read_write()
                except sqlite3.OperationalError:
                    if not self.path.is_file():
                        raise
                    # e.g. a read-only directory as seen by SQLite (WAL needs -shm there)
                    self._db, self.read_only = self._open_read_only(), True
        except (sqlite3.Error, OSError) as exc:
            self._fail(exc, "open")

    def _open_read_write(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            str(self.path), timeout=60.0, check_same_thread=False, isolation_level=None
        )
        try:
            db.execute("PRAGMA busy_timeout = 60000")
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise sqlite3.DatabaseError(f"could not switch to WAL mode (got {mode!r})")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
            _check_schema(db)
            db.execute(
                "CREATE TABLE IF NOT EXISTS rows (config TEXT NOT NULL, text TEXT NOT NULL, "
                "kind TEXT NOT NULL, width INTEGER NOT NULL, data BLOB NOT NULL, "
                "crc INTEGER NOT NULL, PRIMARY KEY (config, text)) WITHOUT ROWID"
            )
        except BaseException:
            db.close()
            raise
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        """The file opened read-only and immutable (SQLite URI `mode=ro&immutable=1`): no
        -wal or -shm file is needed, so a cache in a read-only directory is still read."""
        uri = self.path.resolve().as_uri() + "?mode=ro&immutable=1"
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        try:
            _check_schema(db)
            db.execute("SELECT 1 FROM rows LIMIT 1").fetchall()
        except BaseException:
            db.close()
            raise
        return db

    # ----------------------------------------------------------------- reading, writing

    @staticmethod
    def _stored(
        db: sqlite3.Connection, config: str, texts: Sequence[str]
    ) -> Iterator[tuple[str, str, int, bytes, int]]:
        """The stored cells (text, kind, width, data, crc) of `texts` under `config`, asked
        for `_CHUNK` texts at a time (SQLite limits the parameters of one query)."""
        for start in range(0, len(texts), _CHUNK):
            chunk = list(texts[start : start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            query = ("SELECT text, kind, width, data, crc FROM rows "
                     f"WHERE config = ? AND text IN ({marks})")
            yield from db.execute(query, [config, *chunk])

    def get_many(self, config: str, texts: Sequence[str]) -> dict[str, Row]:
        """Rows stored for `texts` under `config` (absent texts are left out)."""
        out: dict[str, Row] = {}
        texts = [t for t in texts if _storable(t)]
        if not texts:
            return out
        with self._lock:
            db = self._db
            if db is None:
                return out
            try:
                for text, kind, width, data, crc in self._stored(db, config, texts):
                    row = _decode(kind, width, data, crc)
                    if row is None:
                        self._counts["bad_rows"] += 1
                        continue
                    out[text] = row
            except sqlite3.Error as exc:
                self._fail(exc, "read")
                return {}
            self._counts["hits"] += len(out)
            self._counts["misses"] += len(texts) - len(out)
        if self._counts["bad_rows"] and not self._warned_rows:
            self._warned_rows = True
            warnings.warn(
                f"prediction cache {self.path}: {self._counts['bad_rows']} damaged row(s) "
                "ignored; those texts are scored again and rewritten",
                CacheWarning,
                stacklevel=3,
            )
        return out

    def reject(self, rows: Sequence[str]) -> None:
        """Count rows `get_many` returned that the adapter found unsound (values a fresh
        prediction would be refused for: a tampered file with a valid checksum), as
        damaged rows rather than hits, and warn once; the adapter scores those texts again
        and rewrites them. `rows` describe each one (text -> row (why))."""
        if not rows:
            return
        with self._lock:
            self._counts["bad_rows"] += len(rows)
            self._counts["hits"] -= len(rows)
            self._counts["misses"] += len(rows)
            warn, self._warned_values = not self._warned_values, True
        if warn:
            shown = "; ".join(rows[:3])
            if len(rows) > 3:
                shown += f"; ... and {len(rows) - 3} more"
            again = "" if self.read_only else " and rewritten"
            warnings.warn(
                f"prediction cache {self.path}: {len(rows)} row(s) with values no model "
                f"output may have dropped ({shown}); those texts are scored again{again}",
                CacheWarning,
                stacklevel=3,
            )

    def put(self, config: str, text: str, kind: Kind, row: FloatArray) -> None:
        """Queue one row; written by `flush` (or once enough rows are queued). A text SQLite
        cannot store (a lone surrogate, as in cut-off emoji escapes) stays in memory only,
        as does every row of a store opened `read_only`."""
        if self._db is None or self.read_only or not _storable(text):
            return
        data = np.ascontiguousarray(row, dtype="<f8").tobytes()
        with self._lock:
            self._pending.append((config, text, kind, int(row.shape[0]), data, zlib.crc32(data)))
            full = len(self._pending) >= _FLUSH_EVERY
        if full:
            self.flush()

    def put_many(self, config: str, items: Iterable[tuple[str, Kind, FloatArray]]) -> None:
        for text, kind, row in items:
            self.put(config, text, kind, row)
        self.flush()

    def flush(self) -> None:
        """Write the queued rows in one transaction."""
        with self._lock:
            db, pending = self._db, self._pending
            self._pending = []
            if db is None or not pending:
                return
            if self._transaction(db, lambda db: db.executemany(
                    "INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?, ?, ?)", pending), "write"):
                self._counts["writes"] += len(pending)

    @property
    def closed(self) -> bool:
        """Closed by `close` (a store turned off by an error is `broken` instead)."""
        return self._db is None and self.broken is None

    def stats(self) -> dict[str, int | str | None]:
        """`{"path", "hits", "misses", "writes", "bad_rows", "broken", "read_only"}` of
        this store (`read_only`: 1 when the file could only be read, else 0)."""
        with self._lock:
            return {
                "path": str(self.path),
                **self._counts,
                "broken": self.broken,
                "read_only": int(self.read_only),
            }

    def close(self) -> None:
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ----------------------------------------------------------------- failure

    def _transaction(self, db: sqlite3.Connection, work: Callable[[sqlite3.Connection], object],
                     during: str) -> bool:
        """Run `work(db)` in one immediate transaction: committed, or rolled back and
        re-raised on any error; an SQLite error turns the store off (`_fail`, naming
        `during`) and gives False."""
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._fail(exc, during, stacklevel=5)
            return False
        return True

    def _fail(self, exc: BaseException, during: str, *, stacklevel: int = 4) -> None:
        """Turn the store off with a warning; the adapter continues from memory."""
        self.broken = f"{type(exc).__name__}: {exc}"
        db, self._db, self._pending = self._db, None, []
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        warnings.warn(
            f"{self.label} {self.path} could not be used ({during}: {self.broken}); "
            f"{self.items} are kept in memory for this run only. Delete the file (or point "
            "--fairness-cache-dir elsewhere) to start a fresh cache.",
            CacheWarning,
            stacklevel=stacklevel,
        )


def _check_schema(db: sqlite3.Connection) -> None:
    found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if found is None or found[0] != str(SCHEMA):
        raise sqlite3.DatabaseError(
            f"schema version {found[0] if found else None!r}, expected {SCHEMA}"
        )


def _writable(path: Path) -> bool:
    """Whether this process may write `path` and create files next to it (-wal, -shm)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _decode(kind: object, width: object, data: object, crc: object) -> Row | None:
    """The row stored as (kind, width, bytes, crc), or None when anything is off."""
    if kind not in ("proba", "score") or not isinstance(width, int) or width < 1:
        return None
    if not isinstance(data, bytes) or len(data) != 8 * width:
        return None
    if zlib.crc32(data) != crc:
        return None
    row = np.frombuffer(data, dtype="<f8").astype(np.float64)
    row.setflags(write=False)
    return ("proba" if kind == "proba" else "score"), row


_OPEN: dict[Path, DiskCache] = {}
_OPEN_LOCK = threading.Lock()


def open_disk_cache(directory: str | Path, fingerprint: str) -> DiskCache:
    """The process's one `DiskCache` of `fingerprint` in `directory` (opened once)."""
    path = cache_file(directory, fingerprint).resolve()
    with _OPEN_LOCK:
        store = _OPEN.get(path)
        if store is None or store.closed:
            store = DiskCache(path)
            _OPEN[path] = store
        return store


def _storable(text: str) -> bool:
    """Whether SQLite can bind `text` (UTF-8 encodable: no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def close_disk_caches() -> None:
    """Flush and close every store this process opened (the plugin calls it at exit)."""
    with _OPEN_LOCK:
        stores = list(_OPEN.values())
        _OPEN.clear()
    for store in stores:
        store.close()


# --------------------------------------------------------------------------- keys


class Ident:
    """An object in a cache key, compared by identity (a tokenizer, a length function).

    In memory the key holds the object itself (so its id is never reused). On disk it is
    written by what can be read of its contents: a function by its name and a digest of its
    code (an edited body gives a new key), a Hugging Face tokenizer by its class, source
    (`name_or_path`) and vocabulary size; anything else by its type only, so the model's
    `fingerprint=` must change when such an object does.
    """

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ident) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __repr__(self) -> str:
        obj = self.obj
        kind = type(obj)
        name = getattr(obj, "__qualname__", None) or kind.__qualname__
        code = getattr(obj, "__code__", None)
        if code is not None:
            module = getattr(obj, "__module__", kind.__module__)
            return f"<{module}.{name} code={_code_digest(code)}>"
        source = getattr(obj, "name_or_path", None)
        if source is not None:
            try:
                size = len(obj)  # type: ignore[arg-type]
            except TypeError:
                size = None
            return f"<{kind.__module__}.{name} source={source!r} vocab={size}>"
        return f"<{kind.__module__}.{name}>"


def stable_config(config: Hashable) -> str:
    """An adapter configuration as the disk cache keys it: the same string in every run
    for the same options (objects compared by identity are written as `Ident` shows them)."""
    return repr(config)


def _code_digest(code: Any) -> str:
    """A digest of a code object's bytecode, constants and names, nested functions included
    (their `repr` would hold a memory address)."""
    digest = hashlib.sha256()

    def feed(c: Any) -> None:
        digest.update(c.co_code)
        digest.update(repr(c.co_names).encode())
        for const in c.co_consts:
            if hasattr(const, "co_code"):
                feed(const)
            else:
                digest.update(repr(const).encode())

    feed(code)
    return digest.hexdigest()[:16]
