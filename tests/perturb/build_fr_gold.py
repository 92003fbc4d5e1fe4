"""Builds tests/perturb/data/fr_gender_gold.tsv: French (original, swapped) pairs made by
RULES FROM FRAMES (templates x hand-written masculine/feminine pairs), never by running the
swapper. Run: python tests/perturb/build_fr_gold.py. Each frame gives a masculine and a
feminine sentence; both directions are written. Rows "category<TAB>original<TAB>swapped";
a sentence that must not change has itself as swapped."""

from __future__ import annotations

import itertools
from pathlib import Path

OUT = Path(__file__).parent / "data" / "fr_gender_gold.tsv"

# Adjectives (masculine, feminine), written by hand.
ADJECTIVES = [
    ("content", "contente"), ("heureux", "heureuse"), ("actif", "active"),
    ("ancien", "ancienne"), ("beau", "belle"), ("vieux", "vieille"), ("nouveau", "nouvelle"),
    ("franc", "franche"), ("gentil", "gentille"), ("fier", "fière"), ("jeune", "jeune"),
    ("triste", "triste"), ("fatigué", "fatiguée"), ("prêt", "prête"),
    ("sérieux", "sérieuse"), ("cruel", "cruelle"), ("bon", "bonne"), ("discret", "discrète"),
    ("doux", "douce"), ("roux", "rousse"), ("grand", "grande"), ("petit", "petite"),
    ("blond", "blonde"), ("brun", "brune"), ("courageux", "courageuse"),
    ("sportif", "sportive"), ("italien", "italienne"), ("français", "française"),
    ("malade", "malade"), ("riche", "riche"), ("curieux", "curieuse"), ("jaloux", "jalouse"),
    ("loyal", "loyale"), ("inquiet", "inquiète"), ("mignon", "mignonne"),
    ("naïf", "naïve"), ("seul", "seule"), ("intelligent", "intelligente"),
    ("généreux", "généreuse"), ("attentif", "attentive"),
]
PARTICIPLES_ETRE = [("allé", "allée"), ("venu", "venue"), ("parti", "partie"),
                    ("arrivé", "arrivée"), ("sorti", "sortie"), ("né", "née"),
                    ("tombé", "tombée"), ("resté", "restée"), ("entré", "entrée"),
                    ("rentré", "rentrée"), ("descendu", "descendue"), ("monté", "montée")]
PRONOMINAL = [("levé", "levée"), ("couché", "couchée"), ("réveillé", "réveillée"),
              ("habillé", "habillée"), ("promené", "promenée"), ("trompé", "trompée"),
              ("assis", "assise"), ("excusé", "excusée"), ("marié", "mariée"),
              ("perdu", "perdue")]
# Person nouns (masculine, feminine), singular.
NOUNS_CONSONANT = [
    ("chanteur", "chanteuse"), ("danseur", "danseuse"), ("vendeur", "vendeuse"),
    ("serveur", "serveuse"), ("coiffeur", "coiffeuse"), ("directeur", "directrice"),
    ("lecteur", "lectrice"), ("traducteur", "traductrice"), ("infirmier", "infirmière"),
    ("boulanger", "boulangère"), ("boucher", "bouchère"), ("cuisinier", "cuisinière"),
    ("policier", "policière"), ("pharmacien", "pharmacienne"),
    ("musicien", "musicienne"), ("technicien", "technicienne"), ("roi", "reine"),
    ("prince", "princesse"), ("duc", "duchesse"), ("comte", "comtesse"),
    ("baron", "baronne"), ("père", "mère"), ("frère", "sœur"), ("neveu", "nièce"),
    ("cousin", "cousine"), ("voisin", "voisine"), ("patron", "patronne"),
    ("paysan", "paysanne"), ("candidat", "candidate"), ("président", "présidente"),
]
NOUNS_VOWEL = [("acteur", "actrice"), ("auteur", "autrice"), ("éditeur", "éditrice"),
               ("instituteur", "institutrice"), ("avocat", "avocate"),
               ("étudiant", "étudiante"), ("ami", "amie"), ("oncle", "tante"),
               ("employé", "employée"), ("ouvrier", "ouvrière"), ("empereur", "impératrice"),
               ("informaticien", "informaticienne"), ("électricien", "électricienne"),
               ("homme", "femme"), ("enseignant", "enseignante")]
EPICENE_CONSONANT = ["journaliste", "ministre", "secrétaire", "collègue", "juge",
                     "dentiste", "pianiste", "psychologue", "photographe", "touriste",
                     "stagiaire", "bibliothécaire", "libraire", "comptable", "concierge"]
EPICENE_VOWEL = ["élève", "artiste", "architecte", "enfant", "adulte", "interprète"]
THINGS = [("la table", "grande"), ("la maison", "belle"), ("la voiture", "rapide"),
          ("le livre", "long"), ("le bureau", "grand"), ("la porte", "ouverte"),
          ("le jardin", "beau"), ("la ville", "calme")]
FIXED = [("La victime", "blessée"), ("La personne", "contente"), ("La vedette", "arrivée"),
         ("Le témoin", "présent"), ("La recrue", "prête"), ("Le bébé", "malade")]
IMPERSONAL = [
    "Il pleut depuis ce matin.", "Il faut partir maintenant.", "Il y a une table ici.",
    "Il est important de lire.", "Il est trois heures.", "Il était une fois un village.",
    "Il neige sur la ville.", "Il fait beau aujourd'hui.", "Il est nécessaire de dormir.",
    "Il est possible que la porte soit ouverte.", "Il s'agit d'une question simple.",
    "Il semble que la route est longue.", "Il est temps de manger.",
    "Il est difficile de comprendre.", "Il fait froid dehors.", "Il faudra du courage.",
    "Il n'y a pas de pain.", "Il est midi.", "Il suffit de demander.",
    "Il est évident que la maison est vieille.", "Il est tard.", "Il manque une chaise.",
    "Il existe une solution.", "Il est vrai que la ville est calme.",
    "Il se peut que la route soit longue.", "Il est arrivé un accident.",
    "Il s'est passé quelque chose.", "Il était environ midi.", "Il manque deux chaises.",
    "Il gèle ce matin.", "Il vaut mieux partir.", "Il est interdit de fumer.",
    "Il convient de noter la date.", "Il reste du pain.",
]


def plural(word: str, feminine: bool) -> str:
    if feminine or not word.endswith(("s", "x")):
        if word.endswith("eau"):
            return word + "x"
        if word.endswith("al") and not feminine:
            return word[:-2] + "aux"
        return word + "s"
    return word


def vowel(word: str) -> bool:
    return word[0] in "aeiouéèêh" and not word.startswith("hé")


def the(word: str, fem: bool) -> str:
    return f"l'{word}" if vowel(word) else (f"la {word}" if fem else f"le {word}")


def this(word: str, fem: bool) -> str:
    return f"cette {word}" if fem else (f"cet {word}" if vowel(word) else f"ce {word}")


def of_the(word: str, fem: bool) -> str:
    return f"de {the(word, fem)}" if fem or vowel(word) else f"du {word}"


def to_the(word: str, fem: bool) -> str:
    return f"à {the(word, fem)}" if fem or vowel(word) else f"au {word}"


def handsome(word: str, fem: bool) -> str:
    return f"belle {word}" if fem else (f"bel {word}" if vowel(word) else f"beau {word}")


def old(word: str, fem: bool) -> str:
    return f"vieille {word}" if fem else (f"vieil {word}" if vowel(word) else f"vieux {word}")


def new(word: str, fem: bool) -> str:
    return (f"nouvelle {word}" if fem
            else (f"nouvel {word}" if vowel(word) else f"nouveau {word}"))


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def rows() -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []

    def pair(category: str, masc: str, fem: str) -> None:
        out.append((category, masc, fem))
        out.append((category, fem, masc))

    for m, f in ADJECTIVES:
        pair("pronoun+adjective", f"Il est {m}.", f"Elle est {f}.")
        pair("pronoun+adjective", f"Il n'était pas très {m}.", f"Elle n'était pas très {f}.")
        pair("pronoun+adjective", f"Il semble {m}.", f"Elle semble {f}.")
        pair("pronoun+adjective", f"Ils sont {plural(m, False)}.",
             f"Elles sont {plural(f, True)}.")
    for (m, f), (am, af) in itertools.product(PARTICIPLES_ETRE, ADJECTIVES[:4]):
        pair("etre auxiliary", f"Il est {m} hier et il était {am}.",
             f"Elle est {f} hier et elle était {af}.")
    for m, f in PARTICIPLES_ETRE:
        pair("etre auxiliary", f"Ils sont {m}s ensemble.", f"Elles sont {f}s ensemble.")
    for m, f in PRONOMINAL:
        pair("pronominal verb", f"Il s'est {m} tôt.", f"Elle s'est {f} tôt.")
        pair("pronominal verb", f"Il ne s'est pas {m}.", f"Elle ne s'est pas {f}.")
    for verb, ours in [("vois", "voyons"), ("connais", "connaissons"), ("aime", "aimons"),
                       ("appelle", "appelons"), ("regarde", "regardons"),
                       ("attends", "attendons"), ("cherche", "cherchons"),
                       ("admire", "admirons"), ("entends", "entendons"),
                       ("invite", "invitons")]:
        pair("object pronoun", f"Je le {verb} souvent.", f"Je la {verb} souvent.")
        pair("object pronoun", f"Nous ne le {ours} pas.", f"Nous ne la {ours} pas.")
    for m, f in [("vu", "vue"), ("connu", "connue"), ("invité", "invitée"), ("aidé", "aidée")]:
        out.append(("preceding object", f"Je l'ai {f} hier.", f"Je l'ai {m} hier."))
        for (nm, nf) in NOUNS_CONSONANT[:8]:
            pair("preceding object", f"Le {nm} que j'ai {m} est parti.",
                 f"La {nf} que j'ai {f} est partie.")
    for prep in ["avec", "pour", "sans", "chez", "contre", "derrière", "devant", "vers"]:
        pair("stressed pronoun", f"Je travaille {prep} lui.", f"Je travaille {prep} elle.")
        pair("stressed pronoun", f"Je travaille {prep} eux.", f"Je travaille {prep} elles.")
    for verb in ["gagné", "parlé", "chanté", "payé"]:
        pair("stressed pronoun", f"C'est lui qui a {verb}.", f"C'est elle qui a {verb}.")
        pair("stressed pronoun", f"Il l'a {verb} lui-même.", f"Elle l'a {verb} elle-même.")
    for m, f in NOUNS_CONSONANT + NOUNS_VOWEL:
        pair("determiner+noun", f"{cap(the(m, False))} est content.",
             f"{cap(the(f, True))} est contente.")
        pair("determiner+noun", f"Un {m} est arrivé.", f"Une {f} est arrivée.")
        pair("determiner+noun", f"{cap(this(m, False))} est très gentil.",
             f"{cap(this(f, True))} est très gentille.")
        pair("contraction", f"Je parle {of_the(m, False)}.", f"Je parle {of_the(f, True)}.")
        pair("contraction", f"Je pense {to_the(m, False)}.", f"Je pense {to_the(f, True)}.")
    for m, f in NOUNS_VOWEL + NOUNS_CONSONANT[:10]:
        pair("irregular vowel-initial", f"Un {handsome(m, False)} est venu.",
             f"Une {handsome(f, True)} est venue.")
        pair("irregular vowel-initial", f"{cap(the(old(m, False), False))} est fatigué.",
             f"{cap(the(old(f, True), True))} est fatiguée.")
        pair("irregular vowel-initial", f"Un {new(m, False)} est arrivé.",
             f"Une {new(f, True)} est arrivée.")
    for m, f in NOUNS_VOWEL:
        pair("elision", f"{cap(the(m, False))} est heureux.", f"{cap(the(f, True))} est heureuse.")
        pair("elision", f"{cap(this(m, False))} est sérieux.",
             f"{cap(this(f, True))} est sérieuse.")
        pair("elision", f"Je parle {of_the(m, False)}.", f"Je parle {of_the(f, True)}.")
        pair("elision", f"Il parle {to_the(m, False)}.", f"Elle parle {to_the(f, True)}.")
    for thing in ["maison", "voiture", "ville", "table", "famille", "chambre"]:
        pair("possessive", f"Il aime sa {thing}.", f"Elle aime sa {thing}.")
    for thing in ["livre", "jardin", "travail", "chien", "bureau", "pays"]:
        pair("possessive", f"Il aime son {thing}.", f"Elle aime son {thing}.")
    for (m, f) in [("mari", "femme"), ("frère", "sœur"), ("père", "mère"), ("fils", "fille"),
                   ("oncle", "tante"), ("cousin", "cousine"), ("voisin", "voisine")]:
        det_m = "son"
        det_f = "son" if f[0] in "aeiou" else "sa"
        pair("possessive", f"Elle parle avec {det_m} {m}.", f"Il parle avec {det_f} {f}.")
        pair("possessive", f"Mon {m} est venu." if m != "mari" else "Mon mari est venu.",
             f"Ma {f} est venue." if f[0] not in "aeiou" else f"Mon {f} est venue.")
    pair("possessive", "Il aime son ami.", "Elle aime son amie.")
    for e in EPICENE_CONSONANT:
        pair("epicene", f"Le {e} est content.", f"La {e} est contente.")
        pair("epicene", f"Un {e} est parti.", f"Une {e} est partie.")
        pair("epicene", f"Ce {e} est sérieux.", f"Cette {e} est sérieuse.")
    for e in EPICENE_VOWEL:
        pair("epicene", f"Un {e} est venu.", f"Une {e} est venue.")
        pair("epicene", f"Cet {e} est heureux.", f"Cette {e} est heureuse.")
    for name in ["Dupont", "Martin", "Bernard", "Durand", "Lefebvre", "Moreau"]:
        pair("titles", f"Monsieur {name} est arrivé.", f"Madame {name} est arrivée.")
        pair("titles", f"M. {name} est content.", f"Mme {name} est contente.")
    for thing, adj in THINGS:
        out.append(("never changed", f"{cap(thing)} est {adj}.", f"{cap(thing)} est {adj}."))
    for noun, adj in FIXED:
        out.append(("never changed", f"{noun} est {adj}.", f"{noun} est {adj}."))
    for sentence in IMPERSONAL:
        out.append(("impersonal il", sentence, sentence))
    return out


def main() -> None:
    data = rows()
    OUT.write_text("category\toriginal\tswapped\n"
                   + "".join(f"{c}\t{o}\t{s}\n" for c, o, s in data), encoding="utf-8")
    print(len(data), "pairs written to", OUT)


if __name__ == "__main__":
    main()
