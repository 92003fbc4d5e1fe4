"""French gender counterfactuals that keep agreement (issue 28).

`french_swap(doc)` swaps the gender of every person a sentence mentions, in one
`Perturbation` (kind "gender_swap", attribute "gender"), from spaCy's tokens and tags
(``fr_core_news_sm``) plus rules of French grammar and the lexicons of
`pytest_fairness.resources.french`:

- pronouns: subject il <-> elle, ils <-> elles (an impersonal il never: il pleut, il faut,
  il y a, il est important de, il est trois heures, il était une fois, il fait beau);
  object le <-> la before the verb (je la vois -> je le vois); stressed lui <-> elle and
  eux <-> elles after a preposition, in "c'est lui", a comparison or "lui-même"; the
  indirect object clitic lui (je lui parle) is not gendered and stays;
- person nouns of the lexicon (acteur <-> actrice, père <-> mère, Monsieur <-> Madame; "sa
  femme" -> "son mari", "la femme" -> "l'homme"), with their determiners (le/la/l', un/une,
  ce/cet/cette, du/de la/de l', au/à la/à l', possessives mon/ma ...) and the adjectives of
  their noun phrase (une belle actrice -> un bel acteur); an epicene noun (le/la
  journaliste) keeps its form and changes its determiners and adjectives; a noun whose
  grammatical gender is not the person's (la victime) and things (la table) never change;
- agreement with the person: adjectives and past participles after être and the copulas
  (sembler, paraître, devenir, rester), être auxiliaries and pronominal verbs (elle s'est
  levée), coordinated ones (grande et belle), a relative qui/que (la femme que j'ai vue), a
  feminine participle after l' + avoir (je l'ai vue -> je l'ai vu); possessives agree with
  the possessed noun, so "sa maison" stays.

Pure: no pytest, no model library (spaCy's Doc is read, never imported).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...resources.french import elides, feminine, lexicon, masculine, plural
from ...resources.french_pronouns import CLITICS as _CLITICS
from ...resources.french_pronouns import NEUTER_LE_VERBS as _NEUTER_LE_VERBS
from ...resources.french_pronouns import PREPOSITIONS as _PREPOSITIONS
from ...resources.french_pronouns import is_impersonal, is_stressed
from ...resources.french_pronouns import low as _low
from ...types import Perturbation
from .._edit import Edit, apply_casing, apply_edits, casing_of

__all__ = ["french_name_pairs", "french_swap", "is_impersonal", "name_at_anchors",
           "name_edits"]

_OPPOSITE = {"male": "female", "female": "male"}
_SUBJECT = {"il": ("male", "sing"), "elle": ("female", "sing"), "ils": ("male", "plur"),
            "elles": ("female", "plur")}
_SUBJECT_FORM = {("male", "sing"): "il", ("female", "sing"): "elle",
                 ("male", "plur"): "ils", ("female", "plur"): "elles"}
_STRESSED_FORM = {("male", "sing"): "lui", ("female", "sing"): "elle",
                  ("male", "plur"): "eux", ("female", "plur"): "elles"}
_REFLEXIVE = {"lui-même": "elle-même", "elle-même": "lui-même", "eux-mêmes": "elles-mêmes",
              "elles-mêmes": "eux-mêmes"}
_SKIP = frozenset({
    "ne", "n'", "se", "s'", "me", "m'", "te", "t'", "lui", "leur", "y", "en", "pas", "plus",
    "jamais", "point", "très", "si", "trop", "bien", "vraiment", "toujours", "déjà",
    "encore", "aussi", "souvent", "assez", "tellement", "peu", "presque", "rarement",
    "parfois", "enfin", "vite", "tout", "tous", "toutes", "alors", "donc", "désormais",
    "soudain", "hier", "aujourd'hui", "demain", "certainement", "probablement", "sûrement",
    "particulièrement", "extrêmement", "complètement", "totalement", "plutôt", "beaucoup",
    "fort", "un", "moins", "autant", "aussitôt", "ensemble", "ici", "là",
    "dehors", "tard", "tôt", "longtemps", "maintenant", "ailleurs", "lui-même", "elle-même",
    "eux-mêmes", "elles-mêmes",
})
_INTENSIFIERS = frozenset({"très", "si", "plus", "moins", "trop", "assez", "vraiment",
                           "tellement", "fort", "bien", "aussi", "particulièrement"})
_ETRE = frozenset({
    "est", "sont", "était", "étaient", "sera", "seront", "serait", "seraient", "fut",
    "furent", "soit", "soient", "suis", "es", "sommes", "êtes", "étais", "étions", "étiez",
    "serai", "seras", "serons", "serez", "être",
    "semble", "semblent", "semblait", "semblaient", "paraît", "paraissent", "paraissait",
    "devient", "deviennent", "devenait", "deviendra", "reste", "restent", "restait",
    "restera", "demeure", "demeurent", "demeurait", "sembla", "devint", "resta",
})
# Verbs that take an agreeing attribute when reflexive: elle se sent seule.
_REFLEXIVE_COPULAS = frozenset({
    "sent", "sens", "sentait", "sentent", "sentaient", "croit", "crois", "croyait",
    "montre", "montrait", "montrent", "révèle", "révélait", "trouve", "trouvait",
    "trouvent", "déclare", "déclarait", "considère", "considérait", "dit", "disait",
    "sentira", "sentirait", "sentit",
})
_COPULAR_PARTICIPLES = frozenset({"devenu", "resté", "demeuré", "été", "redevenu"})
_AVOIR = frozenset({
    "ai", "as", "a", "avons", "avez", "ont", "avais", "avait", "avions", "aviez",
    "avaient", "aura", "auront", "aurait", "auraient", "eut", "eurent", "ait", "aient",
    "avoir", "aurai", "auras",
})
# Plural forms of être, avoir and the copulas: a plural subject ("la mère et la tante").
_PLURAL_VERBS = frozenset({
    "sont", "étaient", "seront", "seraient", "furent", "soient", "sommes", "êtes",
    "semblent", "semblaient", "paraissent", "deviennent", "devenaient", "restent",
    "restaient", "demeurent", "ont", "avaient", "auront", "auraient", "eurent", "aient",
    "sentent", "sentaient", "croient", "montrent", "trouvent", "avons", "avez",
})
_COORD = frozenset({"et", ",", "ou", "mais", "ni"})
_DEFINITE = frozenset({"le", "la", "l'"})
_POSSESSIVE = {"mon": "m", "ma": "m", "ton": "t", "ta": "t", "son": "s", "sa": "s"}
_AGREEING_DETERMINERS = frozenset({"quel", "quelle", "aucun", "aucune", "certain",
                                   "certaine", "tout", "toute", "nul", "nulle"})
_DETERMINERS = (frozenset({"le", "la", "l'", "un", "une", "ce", "cet", "cette", "du", "au"})
                | frozenset(_POSSESSIVE) | _AGREEING_DETERMINERS)
_FEMININE_DETERMINERS = frozenset({"la", "une", "cette", "ma", "ta", "sa", "quelle",
                                   "aucune", "certaine", "toute", "nulle"})
_MASCULINE_DETERMINERS = frozenset({"le", "un", "ce", "cet", "du", "au", "quel", "aucun",
                                    "certain", "tout", "nul"})
_TITLES = {"monsieur": "madame", "madame": "monsieur", "mademoiselle": "monsieur",
           "messieurs": "mesdames", "mesdames": "messieurs", "mesdemoiselles": "messieurs",
           "m.": "mme", "mme": "m.", "mlle": "m.", "mme.": "m."}
_TITLE_GENDER = {"monsieur": "male", "messieurs": "male", "m.": "male"}
_PARTICIPLE = re.compile(
    r"(é|ée|és|ées|i|ie|is|ies|u|ue|us|ues|it|ite|its|ites|ert|erte|erts|ertes|ort|orte|"
    r"orts|ortes|int|inte|ints|intes|is|ise|ises)$")
_NOT_AGREEING = _PREPOSITIONS | _SKIP | frozenset({
    "ici", "là", "partout", "en", "dans", "que", "qu'", "qui", "ensuite", "puis",
    "mi", "oui", "si", "ni", "lui", "eux", "elle", "elles", "il", "ils",
})

# ---------------------------------------------------------------- agreement


def _number_of(token: Any, default: str = "sing") -> str:
    number = token.morph.get("Number")
    if number:
        return "plur" if number[0] == "Plur" else "sing"
    return default


def _singular_adjective(word: str, number: str) -> str:
    lex = lexicon()
    if number != "plur" or word in lex.to_feminine or word in lex.to_masculine:
        return word
    if word.endswith("eaux"):
        return word[:-1]
    if word.endswith("aux") and word[:-3] + "al" in lex.to_feminine:
        return word[:-3] + "al"
    if word.endswith("s") and not word.endswith(("ss",)) and word[:-1] not in ("gro", "ba"):
        return word[:-1]
    return word


def agree(word: str, gender: str, number: str, *, before_vowel: bool = False) -> str:
    """`word` (an adjective or past participle, any gender) made to agree with a person of
    `gender` ("male" / "female") and `number` ("sing" / "plur"): content -> contente,
    heureuses -> heureux, belle -> bel `before_vowel`. Case is kept."""
    low = word.lower()
    base = _singular_adjective(low, number)
    if gender == "female":
        new = feminine(base)
        if number == "plur":
            new = new + "s"
    else:
        new = masculine(base, before_vowel=before_vowel and number == "sing")
        if number == "plur":
            new = plural(new)
    return apply_casing(new, casing_of(word))


def _is_agreeing(token: Any) -> bool:
    """Whether `token` can be an adjective or past participle agreeing with a person."""
    low = _low(token)
    if low in _NOT_AGREEING or token.is_punct or not token.is_alpha:
        return low in lexicon().adjectives and "-" not in low
    if low in lexicon().adjectives or _singular_adjective(low, "plur") in lexicon().adjectives:
        return True
    if low in lexicon().nouns or low in lexicon().epicene:
        return False
    pos = token.pos_
    if pos == "ADJ" or (pos in ("VERB", "AUX") and "Part" in token.morph.get("VerbForm")):
        return True
    if pos in ("VERB", "AUX", "ADP", "NOUN", "ADV") and _PARTICIPLE.search(low):
        return "Fin" not in token.morph.get("VerbForm") and "Inf" not in token.morph.get(
            "VerbForm")
    return False


def _is_predicative(token: Any) -> bool:
    """`_is_agreeing`, or right after être: any word that looks like a past participle
    whatever its tag (spaCy tags "poli" in "il est très poli" as a finite verb)."""
    if _is_agreeing(token):
        return True
    low = _low(token)
    lex = lexicon()
    return (token.is_alpha and low not in _NOT_AGREEING and low not in lex.nouns
            and low not in lex.epicene and low not in lex.fixed
            and token.pos_ in ("VERB", "ADJ", "NOUN", "ADV", "ADP")
            and _PARTICIPLE.search(low) is not None)


def _word_edit(token: Any, new: str) -> Edit | None:
    new = apply_casing(new, casing_of(token.text)) if new.lower() == new else new
    if new == token.text:
        return None
    return Edit(token.idx, token.idx + len(token.text), new)


class _Swap:
    """One sentence's swap: collects edits by token index."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self.lows = [_low(t) for t in doc]
        self.edits: dict[int, Edit] = {}
        self.new_words: dict[int, str] = {}
        self.sources: set[str] = set()
        self.np_gender: str | None = None

    def put(self, i: int, new: str) -> None:
        edit = _word_edit(self.doc[i], new)
        self.new_words[i] = new.lower()
        if edit is not None:
            self.edits[i] = edit

    def word_at(self, i: int) -> str:
        return self.new_words.get(i, self.lows[i])

    # -------------------------------------------------------- agreement of a predicate

    def agreeing_run(self, k: int, gender: str, number: str, *,
                     predicative: bool = False) -> int:
        """Inflect the adjectives / participles starting at `k` (coordinated ones
        included; `predicative`: right after être, `_is_predicative`); the index after
        them."""
        doc, n = self.doc, len(self.doc)
        test = _is_predicative if predicative else _is_agreeing
        while k < n:
            while k < n and self.lows[k] in _SKIP and self.lows[k] not in ("un",):
                k += 1
            if k < n and predicative and self.lows[k] in ("le", "la", "un", "une"):
                adj = k + 1
                while adj < n and self.lows[adj] in ("plus", "moins"):
                    adj += 1
                if adj < n and _is_agreeing(doc[adj]) and (
                        adj + 1 >= n or doc[adj + 1].is_punct or self.lows[adj + 1] in (
                            "de", "d'", "du", "des")):
                    self.put(adj, agree(doc[adj].text, gender, number))
                    self.determiner(k, gender, number)  # il est le meilleur
                    return adj + 1
            if k >= n or not test(doc[k]) or k in self.new_words:
                return k
            self.put(k, agree(doc[k].text, gender, number))
            k += 1
            if k < n and self.lows[k] in _COORD and k + 1 < n:
                after = k + 1
                while after < n and self.lows[after] in _SKIP:
                    after += 1
                if after < n and test(doc[after]) and after not in self.new_words:
                    k = after
                    continue
            return k
        return k

    def predicate(self, j: int, gender: str, number: str) -> None:
        """Agreement of what follows a subject ending before token `j`."""
        n = len(self.doc)
        k = j
        while k < n and self.lows[k] in _SKIP:
            k += 1
        if k >= n:
            return
        word = self.lows[k]
        verb = word
        reflexive = k > 0 and self.lows[k - 1] in ("se", "s'")
        if word in _AVOIR and k + 1 < n and self.lows[k + 1] in ("été", "semblé", "paru"):
            k += 2
        elif word in _ETRE or (word in _REFLEXIVE_COPULAS and k > 0
                                and self.lows[k - 1] in ("se", "s'")):
            k += 1
        else:
            return
        if verb in _PLURAL_VERBS:
            number = "plur"  # coordinated subjects: la mère et la tante sont venues
        while k < n and self.lows[k] in ("tous", "toutes"):
            self.put(k, "toutes" if gender == "female" else "tous")
            k += 1
        while k < n and self.lows[k] in _SKIP:
            k += 1
        while k < n and self.lows[k].rstrip("es") in _COPULAR_PARTICIPLES | {"devenu"[:-1]}:
            if self.lows[k] != "été":
                self.put(k, agree(self.doc[k].text, gender, number))
            k += 1
            while k < n and self.lows[k] in _SKIP:
                k += 1
        if reflexive and word in _ETRE and k + 1 < n and (
                self.lows[k + 1] in _DETERMINERS or self.lows[k + 1] in _PLURAL_DETERMINERS):
            return  # elle s'est lavé les mains: the object follows, no agreement
        self.agreeing_run(k, gender, number, predicative=True)

    def relative(self, j: int, gender: str, number: str) -> None:
        """A relative clause after a swapped noun ("qui est venue", "que j'ai vue"), and
        the predicate after an object relative ("la femme que j'ai vue était grande")."""
        n = len(self.doc)
        if j + 1 < n and self.lows[j] == "," and self.lows[j + 1] == "qui":
            j += 1
        if j >= n:
            return
        if self.lows[j] == "qui":
            self.predicate(j + 1, gender, number)
            return
        if self.lows[j] not in ("que", "qu'"):
            return
        k = j + 1
        while k < n and (self.lows[k] in _CLITICS or self.lows[k] in _SKIP):
            k += 1
        if k < n and self.lows[k] in _AVOIR:
            end = self.agreeing_run(k + 1, gender, number)
            if end > k + 1:
                self.predicate(end, gender, number)

    # -------------------------------------------------------- noun phrases

    def noun_phrase(self, i: int, new_noun: str | None, gender: str, number: str) -> None:
        """The person noun at `i` (made `new_noun`, or kept when epicene) with its
        determiner and adjectives made to agree with `gender` (the new gender)."""
        doc, lows = self.doc, self.lows
        if new_noun is not None:
            self.put(i, new_noun)
        left = i - 1
        adjectives: list[int] = []
        while left >= 0 and lows[left] not in _DETERMINERS and (
                _is_agreeing(doc[left]) or lows[left] in ("très", "si", "plus", "trop")):
            if _is_agreeing(doc[left]):
                adjectives.append(left)
            left -= 1
        right = i + 1
        after = right
        while after < len(doc) and lows[after] in _INTENSIFIERS:
            after += 1
        if after < len(doc) and (doc[after].pos_ == "ADJ" or lows[after] in lexicon().adjectives):
            right = self.agreeing_run(right, gender, number)
        for k in sorted(adjectives, reverse=True):
            nxt = self.word_at(k + 1)
            self.put(k, agree(doc[k].text, gender, number, before_vowel=elides(nxt)))
        if left >= 0 and lows[left] in _DETERMINERS:
            self.determiner(left, gender, number)
        elif left >= 1 and lows[left] in ("les", "ces", "mes", "tes", "ses", "nos", "vos",
                                          "leurs") and lows[left - 1] in ("tous", "toutes"):
            self.put(left - 1, "toutes" if gender == "female" else "tous")
            left -= 1
        self.relative(right, gender, number)
        if left <= 0 or lows[left - 1] not in _PREPOSITIONS | {"au", "du"}:
            if left >= 1 and lows[left - 1] == "et":  # le roi et la reine sont venus
                number = "plur"
                if self.np_gender == "male":
                    gender = "male"
            self.np_gender = gender
            self.predicate(self.after_complement(right), gender, number)
        else:
            self.np_gender = gender

    def after_complement(self, j: int) -> int:
        """The index after a noun complement starting at `j` ("de Paul", "de ma sœur",
        "du village"), or `j` when there is none: the subject's verb follows it."""
        n, lows = len(self.doc), self.lows
        if j >= n or lows[j] not in ("de", "d'", "du", "des"):
            return j
        k = j + 1
        for _ in range(4):
            if k >= n or lows[k] in _ETRE or lows[k] in _AVOIR or self.doc[k].is_punct:
                break
            k += 1
        return k if k < n and (lows[k] in _ETRE or lows[k] in _AVOIR) else j

    def determiner(self, d: int, gender: str, number: str) -> None:
        doc, lows = self.doc, self.lows
        old = lows[d]
        nxt = self.word_at(d + 1)
        vowel = elides(nxt)
        female = gender == "female"
        new: str
        start = d
        if old in _DEFINITE:
            new = "l'" if vowel else ("la" if female else "le")
            if d > 0 and lows[d - 1] in ("de", "à") and not female and not vowel:
                start = d - 1
                new = "du" if lows[d - 1] == "de" else "au"
        elif old in ("du", "au"):
            prep = "de" if old == "du" else "à"
            new = f"{prep} l'" if vowel else (f"{prep} la" if female else old)
        elif old in ("un", "une"):
            new = "une" if female else "un"
        elif old in ("ce", "cet", "cette"):
            new = "cette" if female else ("cet" if vowel else "ce")
        elif old in _POSSESSIVE:
            new = _POSSESSIVE[old] + ("a" if female and not vowel else "on")
        elif old in _AGREEING_DETERMINERS:
            new = agree(old, gender, number)
        else:
            return
        if new == old and start == d:
            return
        token = doc[d]
        shown = apply_casing(new, casing_of(doc[start].text))
        end = token.idx + len(token.text)
        if new.endswith("'"):
            if d + 1 < len(doc):
                end = doc[d + 1].idx
        elif not token.whitespace_ and old.endswith("'"):
            shown += " "
        self.edits.pop(d, None)
        self.edits[start] = Edit(doc[start].idx, end, shown)
        self.new_words[d] = new

    def noun_gender(self, i: int) -> str | None:
        """The gender of the epicene noun at `i`, from its determiner."""
        k = i - 1
        while k >= 0 and _is_agreeing(self.doc[k]) and self.lows[k] not in _DETERMINERS:
            k -= 1
        if k < 0:
            return None
        det = self.lows[k]
        lex = lexicon()
        for a in range(k + 1, i):  # mon ancienne collègue: the adjective says it
            word = _singular_adjective(self.lows[a], "plur")
            if word in lex.to_masculine and lex.to_masculine[word] != word:
                return "female"
            if word in lex.to_feminine and lex.to_feminine[word] != word:
                return "male"
        if det in _FEMININE_DETERMINERS:
            return "female"
        if det in _MASCULINE_DETERMINERS or (det in ("mon", "ton", "son") and not elides(
                self.lows[k + 1])):
            return "male"
        if det == "l'" or det in ("mon", "ton", "son"):
            gender = self.doc[i].morph.get("Gender")
            return None if not gender else ("female" if gender[0] == "Fem" else "male")
        return None


_SINGULAR_DETERMINERS = _DETERMINERS | {"l'"}
_PLURAL_DETERMINERS = frozenset({"les", "des", "ces", "mes", "tes", "ses", "nos", "vos",
                                 "leurs", "aux", "plusieurs", "quelques"})


def _number_from_determiner(swap: _Swap, i: int) -> str | None:
    """"sing" / "plur" from the determiner of the noun at `i` (le héros, les héros)."""
    k = i - 1
    while k >= 0 and _is_agreeing(swap.doc[k]) and swap.lows[k] not in _DETERMINERS:
        k -= 1
    if k < 0:
        return None
    if swap.lows[k] in _PLURAL_DETERMINERS:
        return "plur"
    return "sing" if swap.lows[k] in _SINGULAR_DETERMINERS else None


def _possessed(swap: _Swap, i: int) -> bool:
    k = i - 1
    while k >= 0 and _is_agreeing(swap.doc[k]) and swap.lows[k] not in _DETERMINERS:
        k -= 1
    return k >= 0 and swap.lows[k] in ("mon", "ma", "ton", "ta", "son", "sa", "notre",
                                       "votre", "leur", "mes", "tes", "ses", "nos", "vos",
                                       "leurs")


def _stressed(swap: _Swap, i: int) -> bool:
    return is_stressed(swap.lows, i)


def _elide_before(swap: _Swap, k: int, new: str) -> None:
    """que/de before a stressed pronoun, elided or not as the new pronoun needs: "qu'elle"
    -> "que lui", "que lui" -> "qu'elle"."""
    token = swap.doc[k]
    full = "que" if swap.lows[k].startswith("qu") else "de"
    wanted = full[:-1] + "'" if elides(new) else full
    if wanted == swap.lows[k]:
        return
    shown = apply_casing(wanted, casing_of(token.text))
    end = token.idx + len(token.text)
    if wanted.endswith("'"):
        end = swap.doc[k + 1].idx
    elif not token.whitespace_:
        shown += " "
    swap.edits[k] = Edit(token.idx, end, shown)


def french_swap(doc: Any, names: Mapping[str, tuple[str, str]] | None = None
                ) -> Perturbation | None:
    """The gender counterfactual of the parsed French sentence `doc` (module docstring),
    or None when it mentions no gendered person. With `names` (a first name -> (its
    gender, the name it becomes): `french_name_pairs`), first names swap too, a subject
    name with its predicate's agreement ("Marie est allée" -> "Jean est allé")."""
    swap = _Swap(doc)
    lex = lexicon()
    lows = swap.lows
    n = len(doc)
    for i, token in enumerate(doc):
        if i in swap.new_words:
            continue
        if names and token.text in names and token.text[:1].isupper():
            gender, other = names[token.text]
            swap.put(i, other)
            swap.sources.add(gender)
            j = i + 1
            while j < n and doc[j].text[:1].isupper() and doc[j].is_alpha:
                j += 1  # a surname: Marie Curie est allée
            if j < n and lows[j] in ("et", "ou"):
                continue  # the first of coordinated names: the last one agrees for both
            if i >= 2 and lows[i - 1] in ("et", "ou") and doc[i - 2].text in names:
                both = {_OPPOSITE[gender], _OPPOSITE[names[doc[i - 2].text][0]]}
                swap.predicate(j, "male" if "male" in both else "female", "plur")
            elif i == 0 or lows[i - 1] not in _PREPOSITIONS:
                swap.predicate(j, _OPPOSITE[gender], "sing")
            continue
        low = lows[i]
        bare = low.lstrip("-")
        if low in _REFLEXIVE:
            swap.put(i, _REFLEXIVE[low])
            swap.sources.add("male" if low.startswith(("lui", "eux")) else "female")
            continue
        if bare in ("lui", "eux") or (bare in ("elle", "elles") and _stressed(swap, i)):
            if bare in ("lui", "eux") and not _stressed(swap, i):
                continue  # the indirect object clitic: je lui parle
            gender, number = _SUBJECT.get(bare) or (("male", "plur") if bare == "eux"
                                                      else ("male", "sing"))
            if bare == "eux":
                gender, number = "male", "plur"
            elif bare == "lui":
                gender, number = "male", "sing"
            new = _STRESSED_FORM[(_OPPOSITE[gender], number)]
            swap.put(i, low[: len(low) - len(bare)] + new)
            swap.relative(i + 1, _OPPOSITE[gender], number)  # c'est lui qui est venu
            if i > 0 and lows[i - 1] in ("qu'", "que", "d'", "de") and not doc[i - 1].is_sent_start:
                _elide_before(swap, i - 1, new)
            swap.sources.add(gender)
            continue
        if bare in _SUBJECT:
            if bare == "il" and is_impersonal(doc, i):
                continue
            gender, number = _SUBJECT[bare]
            new_gender = _OPPOSITE[gender]
            swap.put(i, low[: len(low) - len(bare)] + _SUBJECT_FORM[(new_gender, number)])
            swap.sources.add(gender)
            if not low.startswith("-"):
                swap.predicate(i + 1, new_gender, number)
            elif i > 0 and lows[i - 1] in _ETRE:  # est-elle arrivée
                swap.agreeing_run(i + 1, new_gender, number, predicative=True)
            continue
        if low in ("-la", "-le") or (low in ("la", "le") and i > 0 and lows[i - 1] == "-"
                                    ):
            swap.put(i, low[:-2] + ("le" if low.endswith("la") else "la"))
            swap.sources.add("female" if low.endswith("la") else "male")
            continue
        if low in ("la", "le") and i > 0 and (lows[i - 1] in _CLITICS or lows[i - 1] in (
                "ne", "n'")) and i + 1 < n and lows[i + 1] not in lex.nouns and \
                lows[i + 1] not in lex.epicene and not (
                    low == "le" and lows[i + 1] in _NEUTER_LE_VERBS):
            gender = "female" if low == "la" else "male"
            swap.put(i, "le" if low == "la" else "la")
            swap.sources.add(gender)
            continue
        if low == "l'" and i + 2 < n and lows[i + 1] in _AVOIR and i > 0 and (
                lows[i - 1] in _CLITICS):
            k = i + 2
            while k < n and lows[k] in _SKIP:
                k += 1
            if k < n and _is_agreeing(doc[k]) and str(doc[k].lower_).endswith(("e", "es")) \
                    and masculine(lows[k].rstrip("s")) != lows[k].rstrip("s"):
                swap.put(k, agree(doc[k].text, "male", _number_of(doc[k])))
                swap.agreeing_run(k + 1, "male", _number_of(doc[k]))
                swap.sources.add("female")
            continue
        if low in _TITLES:
            gender = _TITLE_GENDER.get(low, "female")
            if i > 0 and lows[i - 1] in ("un", "une", "le", "la", "ce", "cette"):
                noun = "dame" if low == "monsieur" else ("monsieur" if low in (
                    "madame", "mademoiselle") else None)
                if noun is not None:
                    swap.noun_phrase(i, noun, _OPPOSITE[gender], "sing")
                    swap.sources.add(gender)
                    continue
            new_title = _TITLES[low]
            if new_title in ("m.", "mme") and token.text[:1].isupper():
                new_title = "M." if new_title == "m." else "Mme"
            swap.put(i, new_title)
            swap.sources.add(gender)
            j = i + 1
            while j < n and doc[j].text[:1].isupper() and doc[j].is_alpha:
                j += 1
            if i == 0 or lows[i - 1] not in _PREPOSITIONS:
                swap.predicate(j, _OPPOSITE[gender], "plur" if low.endswith("s") else "sing")
            continue
        if low in lex.fixed:
            continue
        prefix = ""
        if low.startswith("ex-") and low[3:] in lex.nouns:
            prefix, low = "ex-", low[3:]
        if low in lex.nouns and (token.pos_ in ("NOUN", "PROPN", "ADJ", "VERB") or i > 0):
            gender, new = lex.nouns[low]
            if low in lex.adjectives and not (i > 0 and (
                    lows[i - 1] in _DETERMINERS or _is_agreeing(doc[i - 1]))):
                continue  # an adjective of nationality (il est français): agreement does it
            number = lex.number.get(low) or _number_from_determiner(swap, i) or _number_of(
                token)
            if number == "plur":
                new = lex.plurals.get(new, new)
            if low in ("femme", "femmes") and _possessed(swap, i):
                new = "mari" if low == "femme" else "maris"
            if low in ("fille", "filles") and (_possessed(swap, i) or (
                    i + 1 < n and lows[i + 1] in ("de", "d'", "du", "des"))):
                new = "fils"
            swap.noun_phrase(i, prefix + new, _OPPOSITE[gender], number)
            swap.sources.add(gender)
            continue
        if low in lex.epicene:
            gender_or_none = swap.noun_gender(i)
            if gender_or_none is None:
                continue
            number = _number_of(token)
            swap.noun_phrase(i, None, _OPPOSITE[gender_or_none], number)
            swap.sources.add(gender_or_none)
    if not swap.edits:
        return None
    from_group = next(iter(swap.sources)) if len(swap.sources) == 1 else None
    to_group = _OPPOSITE[from_group] if from_group is not None else None
    return apply_edits(doc.text, list(swap.edits.values()), kind="gender_swap",
                       attribute="gender", from_group=from_group, to_group=to_group)


def french_name_pairs(swap_names: bool | Mapping[str, str],
                      pairs: Sequence[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The first-name table of `french_swap`: name -> (its gender, the name it becomes).
    `swap_names` True pairs the (female, male) `pairs` both ways (the French lists by
    rank: `perturb.languages.french_name_table`); a mapping name -> name is used both
    ways, each name's gender from `pairs` or given as the mapping's key side (`ValueError`
    names one with no known gender)."""
    if swap_names is False:
        return {}
    known = {f: "female" for f, _ in pairs} | {m: "male" for _, m in pairs}
    if swap_names is True:
        table = {f: ("female", m) for f, m in pairs}
        table.update({m: ("male", f) for f, m in pairs})
        return table
    table = {}
    for a, b in swap_names.items():
        gender = known.get(a) or (_OPPOSITE[known[b]] if b in known else None)
        if gender is None:
            raise ValueError(a)
        table[a] = (gender, b)
        table.setdefault(b, (_OPPOSITE[gender], a))
    return table


def name_edits(doc: Any, i: int, name: str, gender: str) -> list[Edit]:
    """The edits that put `name`, of `gender` ("female" / "male"), in place of the personal
    pronoun at ``doc[i]`` (a subject il/elle or a stressed lui/elle), with the agreement of
    that gender: "Il est allé." -> "Marie est allée.", "Elle s'est levée." -> "Jean s'est
    levé."; an elided que/de before it is written out or elided as the name needs
    ("qu'elle" -> "que Marie", "que lui" -> "qu'Anne")."""
    lows = [_low(t) for t in doc]
    stressed = lows[i] in ("lui", "elle") and is_stressed(lows, i)
    swap = _Swap(doc)
    token = doc[i]
    swap.edits[i] = Edit(token.idx, token.idx + len(token.text), name)
    swap.new_words[i] = name.lower()
    if i > 0 and lows[i - 1] in ("qu'", "que", "d'", "de"):
        _elide_before(swap, i - 1, name)
    if stressed:
        swap.relative(i + 1, gender, "sing")  # c'est lui qui est venu
    else:
        swap.predicate(i + 1, gender, "sing")
    return list(swap.edits.values())


def name_at_anchors(doc: Any, names: list[tuple[str, str]]) -> list[Perturbation]:
    """Each personal subject or stressed pronoun of `doc` (il, elle, lui after a
    preposition; never an impersonal il, nor an inverted -il) replaced by each of `names`
    (name, "female" / "male"), with the agreement of that name's gender (`name_edits`):
    "Il est content." -> "Marie est contente." The perturbations have kind "names",
    `to_group` the name's gender and `from_group` the pronoun's."""
    lows = [_low(t) for t in doc]
    found: list[Perturbation] = []
    for i, low in enumerate(lows):
        stressed = low in ("lui", "elle") and is_stressed(lows, i)
        if low == "il" and is_impersonal(doc, i):
            continue
        if low not in ("il", "elle") and not stressed:
            continue
        if low == "lui" and not stressed:
            continue
        source = "female" if low == "elle" else "male"
        for name, gender in names:
            found.append(apply_edits(doc.text, name_edits(doc, i, name, gender),
                                     kind="names", attribute="gender", from_group=source,
                                     to_group=gender))
    return found
