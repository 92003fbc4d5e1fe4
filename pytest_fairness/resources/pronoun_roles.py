"""The grammatical role of an English third-person singular pronoun, read from spaCy's parse
and checked by rules of English grammar.

One function, `pronoun_role`, shared by the gender swap (`pytest_fairness.perturb.gender`)
and PSA's pronoun anchors (`pytest_fairness.corpus.anchors`, psa section 2.2), so both
read a pronoun the same way. It lives here, below both layers.

Most forms decide their role alone (he/she: subject, him: object, himself/herself:
reflexive, hers: possessive pronoun). "her" (object or possessive determiner) and "his"
(possessive determiner or possessive pronoun) need the sentence, and the tagger alone is
not enough: the small English pipeline tags "her" in "I made her feel discouraged" as
PRP$, and "his" in "That car is his, not hers" / "His is the red one" as PRP$ too. The
rule used here: a possessive is a determiner only when it *determines a noun phrase that
follows it*: the parse attaches it as ``poss`` to a head on its right (not to another
possessive pronoun, as in the mis-parse of "his, not hers"), and the next word belongs to
that head's phrase ("her very old dog", "his after-dinner remarks", "his \"homecoming\"")
and is not a comma, a full stop, a colon or a conjunction (except in "his or her
reasons"). A possessive tagged PRP$ before a gerund ("his being named") and a superlative
after "at" ("at her best") are determiners too.

Otherwise "her" is an object (also as the subject of a small clause or a bare infinitive,
"made her feel", "let her go", "found her funny": English uses the object form there) and
"his" is a possessive pronoun. One more check covers what the tagger gets wrong after a
verb of causation or perception (make, let, have, help, see, hear, watch, notice, feel,
observe, ...): "her" followed by a verb that is also a noun ("I watched her dance",
"He made her cry", "I saw her fall") is the object of the bare infinitive when that word
is in the `bare_infinitives` list of ``data/pronouns.json`` (everyday intransitive verbs),
takes no modifier of its own and is not followed by another noun. Truly ambiguous
pairs stay possessive: "I saw her work", "I heard her call" (work, call, play, help,
answer are left out of the list on purpose).

Only the tag (``tag_``), the dependency (``dep_``), the head and the words are read, so
the role is the same with spaCy's lemmatizer and attribute ruler switched off (PSA's
anchoring parses without them).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..types import PronounRole

__all__ = ["FIXED_ROLES", "pronoun_role"]

#: The pronoun forms whose role the form alone decides.
FIXED_ROLES: dict[str, PronounRole] = {
    "he": "subject",
    "she": "subject",
    "him": "object",
    "himself": "reflexive",
    "herself": "reflexive",
    "hers": "possessive_pronoun",
}

# Tags of a next word that ends the pronoun's phrase: "his, not hers", "It is his."
_BREAKS = frozenset({",", ".", ":"})
# Dependencies of a possessive determiner (spaCy's English labels).
_DETERMINER_DEPS = frozenset({"poss", "nmod", "compound", "dep", "det"})
# "his or her reasons": a possessive coordinated with the one being read.
_COORDINATED_DETERMINERS = frozenset({"her", "his", "their", "my", "your", "our", "its"})
# Possessive pronouns a mis-parsed determiner may hang on ("his, not hers").
_POSSESSIVE_PRONOUNS = frozenset({"hers", "his", "mine", "yours", "ours", "theirs"})


@dataclass(frozen=True)
class _Lexicon:
    governors: frozenset[str]
    bare_infinitives: frozenset[str]
    transitive_infinitives: frozenset[str]
    home_verbs: frozenset[str]
    dative_verbs: frozenset[str]


@functools.lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    path = resources.files("pytest_fairness").joinpath("data", "pronouns.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return _Lexicon(
        governors=frozenset(data["small_clause_verbs"]),
        bare_infinitives=frozenset(data["bare_infinitives"]),
        transitive_infinitives=frozenset(data["transitive_infinitives"]),
        home_verbs=frozenset(data["home_verbs"]),
        dative_verbs=frozenset(data["dative_verbs"]),
    )


def pronoun_role(token: Any) -> PronounRole | None:
    """The role of a gendered third-person singular pronoun token (spaCy `Token`), or None.

    The five roles of psa (section 2.2): "subject" (he, she), "object" (him, and "her"
    that does not determine a noun, including the subject of a bare infinitive or small
    clause: "I made her feel sad"), "possessive_determiner" ("her book", "his book"),
    "possessive_pronoun" (hers, and "his" that does not determine a noun: "the car is
    his", "His is red") and "reflexive" (himself, herself). See the module docstring for
    the rules. A doc without a dependency parse falls back to the tag (PRP$: determiner).
    None for any other word.
    """
    low: str = token.text.lower()
    fixed = FIXED_ROLES.get(low)
    if fixed is not None:
        return fixed
    if low not in ("her", "his"):
        return None
    if not token.doc.has_annotation("DEP"):
        determiner = token.tag_ == "PRP$"
    else:
        determiner = _determines_a_noun(token) and not (
            low == "her" and _bare_infinitive_subject(token)
        )
    if determiner:
        return "possessive_determiner"
    return "object" if low == "her" else "possessive_pronoun"


def _within(word: Any, head: Any) -> bool:
    """Whether `word` is `head` or hangs below it in the parse."""
    for _ in range(len(word.doc)):
        if word.i == head.i:
            return True
        if word.head.i == word.i:
            return False
        word = word.head
    return False  # pragma: no cover - a spaCy parse is a tree


def _determines_a_noun(token: Any) -> bool:
    """Whether the possessive `token` determines a noun phrase on its right: attached
    as ``poss`` to a head on its right whose phrase goes on with the next word (see the
    module docstring), a gerund ("his being named") or a superlative ("at her best")."""
    doc = token.doc
    if token.i + 1 >= len(doc):
        return False
    word = doc[token.i + 1]
    if word.tag_ in _BREAKS or word.lower_ in _POSSESSIVE_PRONOUNS:
        return False
    if word.tag_ == "CC":
        return _coordinated_determiner(token)
    if token.tag_ == "PRP$" and word.tag_ == "VBG" and token.dep_ != "conj":
        return True  # a possessive before a gerund or a participle: "his being named"
    if token.i > 0 and doc[token.i - 1].lower_ == "at" and word.tag_ in ("JJS", "RBS"):
        return True  # "at her best", "at his most generous"
    if token.dep_ not in _DETERMINER_DEPS:
        return False  # "His is red" (nsubj/expl), "hers or his" (conj), "made her feel"
    head = token.head
    if head.i <= token.i or head.lower_ in _POSSESSIVE_PRONOUNS:
        return False
    return _within(word, head)


def _coordinated_determiner(token: Any) -> bool:
    """ "his or her reasons", "her and his cars": a possessive coordinated with another
    one that determines a noun is a determiner too; "from her and her family" (the same
    word twice) only when the parse attaches the first one as a determiner."""
    doc = token.doc
    if token.i + 2 >= len(doc):
        return False
    other = doc[token.i + 2]
    if other.lower_ not in _COORDINATED_DETERMINERS:
        return False
    if other.lower_ == token.lower_ and token.dep_ not in _DETERMINER_DEPS:
        return False
    if other.lower_ in ("her", "his"):
        return _determines_a_noun(other)
    return True


def _bare_infinitive_subject(token: Any) -> bool:
    """Whether "her" is the object of a verb though the tagger read the next word as the
    noun it determines (see the module docstring): the subject of a bare infinitive
    ("I watched her dance", "He made her cry", "I had her sign the form") or the object
    of a verb of motion before "home" ("The dog followed her home"), or the first object
    of "wish" or "owe" ("I wish her luck")."""
    doc = token.doc
    if token.i + 1 >= len(doc):
        return False
    word = doc[token.i + 1]
    if token.head.i != word.i:
        return False
    governor = word.head
    if governor.i >= token.i:
        return False
    after = doc[word.i + 1] if word.i + 1 < len(doc) else None
    lexicon = _lexicon()
    if word.lower_ == "home":
        return governor.lower_ in lexicon.home_verbs and (
            after is None or after.tag_ not in ("NN", "NNS", "NNP", "NNPS", "POS")
        )
    if governor.lower_ in lexicon.dative_verbs:
        # "I wish her luck", "I owe her money": the first object is the person
        return after is None or after.tag_ in _BREAKS
    if governor.lower_ not in lexicon.governors:
        return False
    if any(c.i != token.i and c.dep_ in ("amod", "compound", "det", "nummod", "poss")
           for c in word.children):
        return False
    if word.lower_ in lexicon.transitive_infinitives:
        # a verb only with its own object after it: "had her sign the form", not "her sign"
        return after is not None and after.tag_ in ("DT", "PRP$", "PRP", "CD")
    if word.lower_ not in lexicon.bare_infinitives:
        return False
    return after is None or after.tag_ not in ("NN", "NNS", "NNP", "NNPS", "POS")
