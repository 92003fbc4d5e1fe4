"""The built-in taggers: a spaCy pipeline's entity recogniser (`spacy_tagger`), a
transformers token classifier (`token_classifier_tagger`) and a user's callable
(`callable_tagger`). spaCy, transformers and torch are imported inside the functions that
call them, never here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from ...errors import ConfigurationError, TaggerOutputError
from ...runtime.printable import printable
from ..classifiers.family import describe
from ..classifiers.torchnn import device_of, eval_mode
from .base import Tagger
from .bio import BIO_MODES, BioMode, bio_spans, split_tag

__all__ = ["callable_tagger", "spacy_labels", "spacy_tagger", "token_classifier_tagger"]

#: spaCy components that set `doc.ents`.
_ENTITY_COMPONENTS = ("ner", "entity_ruler", "span_ruler")


def spacy_labels(nlp: Any) -> tuple[str, ...]:
    """The entity labels of a spaCy pipeline's recognisers (its "ner" and rulers);
    `ConfigurationError` when it has none."""
    found = [name for name, component in nlp.pipeline
             if name in _ENTITY_COMPONENTS or type(component).__name__ in (
                 "EntityRecognizer", "EntityRuler")]
    if not found:
        raise ConfigurationError(
            f"the spaCy pipeline {type(nlp).__name__} has no entity recogniser (its "
            f"components: {', '.join(nlp.pipe_names) or 'none'}), so doc.ents stays empty. "
            "Load a pipeline with one (spacy.load('en_core_web_sm')), or add one "
            "(nlp.add_pipe('entity_ruler'))")
    labels: list[str] = []
    for name in found:
        labels.extend(str(x) for x in getattr(nlp.get_pipe(name), "labels", ()))
    return tuple(dict.fromkeys(labels))


def _not_needed(nlp: Any) -> list[str]:
    """The components an entity recogniser alone does not need, to run it faster: when
    the only entity component is a statistical "ner", every other component except a
    shared embedding layer it listens to (the tagger, parser, lemmatizer, attribute
    ruler). With a rule-based recogniser (whose patterns may read tags or lemmas), none."""
    entity = [name for name, c in nlp.pipeline
              if name in _ENTITY_COMPONENTS or type(c).__name__ in ("EntityRecognizer",
                                                                    "EntityRuler")]
    if entity != ["ner"] or type(nlp.get_pipe("ner")).__name__ != "EntityRecognizer":
        return []
    skip = []
    for name, component in nlp.pipeline:
        if name == "ner":
            continue
        if "ner" in (getattr(component, "listening_components", None) or ()):
            continue  # ner reads this layer's output
        skip.append(name)
    return skip


def spacy_tagger(
    nlp: Any, *, labels: Collection[str] | None = None,
    label_map: Mapping[str, str] | None = None, batch_size: int = 64,
) -> Tagger:
    """A spaCy `Language` with an entity recogniser as a `Tagger`: the spans are
    ``doc.ents`` (``ent.start_char``, ``ent.end_char``, ``ent.label_``), texts run through
    ``nlp.pipe`` with the components the recogniser does not need disabled (`_not_needed`;
    the entities are the same). `labels` default to the recogniser's labels (renamed by
    `label_map`)."""
    own = spacy_labels(nlp)
    if labels is None:
        mapping = dict(label_map or {})
        labels = tuple(dict.fromkeys(mapping.get(x, x) for x in own)) or None

    skip = _not_needed(nlp)

    def tag_batch(texts: list[str]) -> list[list[tuple[int, int, str]]]:
        return [[(e.start_char, e.end_char, e.label_) for e in doc.ents]
                for doc in nlp.pipe(texts, batch_size=batch_size, disable=skip)]

    meta = getattr(nlp, "meta", None) or {}
    called = f"{meta.get('lang', '?')}_{meta.get('name', '?')}" if meta else type(nlp).__name__
    return Tagger(tag_batch, name=f"spaCy pipeline {called!r}", labels=labels,
                  label_map=label_map, batch_size=batch_size)


def token_classifier_tagger(
    model: Any, tokenizer: Any, *, labels: Collection[str] | None = None,
    label_map: Mapping[str, str] | None = None, bio: BioMode = "strict",
    batch_size: int = 32, name: str | None = None,
) -> Tagger:
    """A transformers token classifier (``AutoModelForTokenClassification``) with its fast
    tokenizer as a `Tagger`: each word takes the tag of its first sub-token (the argmax
    of the logits, through ``model.config.id2label``), and the words' BIO tags are
    aggregated to spans (`bio.bio_spans`, `bio` "strict" or "lenient"). Texts longer than
    the model accepts are truncated (entities past the cut are not found). `labels`
    default to the entity types of ``id2label`` (renamed by `label_map`). Non-finite
    logits raise `TaggerOutputError`."""
    if bio not in BIO_MODES:
        raise ConfigurationError(f"bio must be 'strict' or 'lenient', got {bio!r:.40}")
    if not getattr(tokenizer, "is_fast", False):
        raise ConfigurationError(
            f"the tokenizer {type(tokenizer).__name__} is not a fast tokenizer, so it gives "
            "no character offsets for its tokens; load it with AutoTokenizer.from_pretrained("
            "..., use_fast=True)")
    id2label = {int(k): str(v) for k, v in (model.config.id2label or {}).items()}
    tags = [id2label[i] for i in sorted(id2label)]
    for tag in tags:
        split_tag(tag)  # a model of another scheme is refused before it runs
    if labels is None:
        mapping = dict(label_map or {})
        labels = tuple(dict.fromkeys(mapping.get(split_tag(t)[1], split_tag(t)[1])
                                     for t in tags if t != "O")) or None
    limit = getattr(model.config, "max_position_embeddings", None)
    shown = name or f"token classifier {type(model).__name__!r}"

    def tag_batch(texts: list[str]) -> list[Any]:
        import torch

        kwargs: dict[str, Any] = {"return_offsets_mapping": True, "padding": True,
                                  "truncation": True, "return_tensors": "pt"}
        if isinstance(limit, int) and limit > 2:
            kwargs["max_length"] = min(limit, getattr(tokenizer, "model_max_length", limit))
        encoded = tokenizer(texts, **kwargs)
        offsets = encoded.pop("offset_mapping").tolist()
        device = device_of(model)
        with torch.no_grad(), eval_mode(model):
            logits = model(**{k: v.to(device) for k, v in encoded.items()}).logits
        if not bool(torch.isfinite(logits).all()):
            raise TaggerOutputError(
                f"{printable(shown)} returned non-finite logits (NaN or inf) for a batch of "
                f"{len(texts)} text(s); check the model's weights and inputs")
        best = logits.argmax(dim=-1).tolist()
        out: list[Any] = []
        for i, text in enumerate(texts):
            words: dict[int, list[Any]] = {}
            for t, word in enumerate(encoded.word_ids(i)):
                start, end = offsets[i][t]
                if word is None or start == end:
                    continue
                if word not in words:
                    tag = id2label.get(best[i][t])
                    if tag is None:
                        raise TaggerOutputError(
                            f"{printable(shown)} predicted class {best[i][t]}, which "
                            "model.config.id2label does not name; fix the config")
                    words[word] = [start, end, tag]
                else:
                    words[word][1] = max(words[word][1], end)
            runs = [(s, e, tag) for s, e, tag in sorted(words.values())]
            out.append(bio_spans(runs, mode=bio, text=text))
        return out

    return Tagger(tag_batch, name=shown, labels=labels, label_map=label_map,
                  batch_size=batch_size)


def callable_tagger(
    function: Callable[[str], Any], *, labels: Collection[str] | None = None,
    label_map: Mapping[str, str] | None = None, batch_size: int = 64,
    name: str | None = None,
) -> Tagger:
    """A callable ``function(text) -> [(start, end, label), ...]`` as a `Tagger` (spans
    may also be `Span`s). Its output is validated per text (`validate_spans`)."""
    return Tagger(lambda texts: [function(t) for t in texts],
                  name=name or f"tagger {describe(function)}", labels=labels,
                  label_map=label_map, batch_size=batch_size)
