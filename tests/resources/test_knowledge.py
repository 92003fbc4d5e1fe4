"""The knowledge graph: IsPerson, subpopulations, HasIsAEdge (mt-nlp section 2.1).

Everything runs against real conceptnet-lite databases built in temporary cache
directories: the bundled graph once per session, and tiny edge files written here.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.resources import knowledge
from pytest_fairness.resources.knowledge import (
    CACHE_ENV,
    SENSITIVE_ATTRIBUTES,
    ConceptNetGraph,
    InMemoryGraph,
    KnowledgeGraph,
    PersonRule,
)

pytest.importorskip("conceptnet_lite")

Edges = list[tuple[str, str, float]]


def write_edges(path: Path, edges: Edges, *, gz: bool = False) -> Path:
    """A ConceptNet-format dump of IsA edges between English nouns."""
    lines = []
    for start, end, weight in edges:
        a, b = f"/c/en/{start}/n", f"/c/en/{end}/n"
        data = json.dumps({"dataset": "/d/test", "weight": weight})
        lines.append(f"/a/[/r/IsA/,{a}/,{b}/]\t/r/IsA\t{a}\t{b}\t{data}\n")
    payload = "".join(lines).encode()
    path.write_bytes(gzip.compress(payload) if gz else payload)
    return path


# actress -> actor -> performer -> entertainer -> person, as in WordNet: 4, 3, 2, 1 hops.
TINY: Edges = [
    ("actress", "actor", 2.0),
    ("actor", "performer", 2.0),
    ("performer", "entertainer", 2.0),
    ("entertainer", "person", 2.0),
    ("clerk", "employee", 2.0),  # another seed
    ("toddler", "child", 2.0),
    ("child", "human", 2.0),
    ("statue", "person", 1.0),  # weight 1.0: not > 1.0
    ("mannequin", "model", 0.5),
    ("model", "person", 2.0),
    ("priest", "person", 1.01),
    ("critter", "animal", 2.0),  # early stop: the search does not go on through "animal"
    ("animal", "person", 2.0),
    ("dog", "companion", 2.0),  # "dog" itself is an early-stop word
    ("companion", "person", 2.0),
    ("table", "furniture", 2.0),
    ("furniture", "artifact", 2.0),
    ("idea", "concept", 2.0),
]


@pytest.fixture(scope="session")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[InMemoryGraph, Path]]:
    """The bundled graph, built once into a session cache directory."""
    cache = tmp_path_factory.mktemp("fairness-cache")
    knowledge.default_graph.cache_clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CACHE_ENV, str(cache))
        graph = knowledge.default_graph()
    knowledge.default_graph.cache_clear()
    yield graph, cache
    knowledge.default_graph.cache_clear()


@pytest.fixture
def graph(bundled: tuple[InMemoryGraph, Path]) -> InMemoryGraph:
    return bundled[0]


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    return write_edges(tmp_path / "tiny.csv", TINY)


GraphFactory = Callable[..., KnowledgeGraph]


@pytest.fixture(params=["memory", "sql"])
def tiny(request: pytest.FixtureRequest, tiny_file: Path, tmp_path: Path) -> GraphFactory:
    """Graphs over the tiny edge file: read into memory, or queried live with SQL."""

    def make(rule: PersonRule | None = None) -> KnowledgeGraph:
        if request.param == "memory":
            return knowledge.from_edge_file(tiny_file, cache=tmp_path / "cache", rule=rule)
        db = knowledge.build_database(tiny_file, cache=tmp_path / "cache")
        return ConceptNetGraph(db, rule=rule)

    return make


# -- IsPerson -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word", ["actress", "soldier", "doctor", "nurse", "king", "woman", "Police Officer", "mom"]
)
def test_bundled_graph_knows_person_nouns(graph: InMemoryGraph, word: str) -> None:
    assert graph.is_person(word)


@pytest.mark.parametrize("word", ["table", "dog", "car", "idea", "robot", "doll", "", "xyzzy"])
def test_bundled_graph_knows_non_human_nouns(graph: InMemoryGraph, word: str) -> None:
    assert not graph.is_person(word)


def test_bundled_graph_keeps_wordnet_hops(graph: InMemoryGraph) -> None:
    chain = ["actress", "actor", "performer", "entertainer", "person"]
    for start, end in itertools.pairwise(chain):
        assert graph.has_isa_edge(start, end), (start, end)
    # actress reaches person in 2 hops only through the everyday shortcut actor -> person
    assert graph.has_isa_edge("actor", "person")


def test_bundled_weak_edges_count_only_with_a_lower_weight_bound(
    bundled: tuple[InMemoryGraph, Path],
) -> None:
    _, cache = bundled
    data = Path(knowledge.__file__).parent.parent / "data" / knowledge.BUNDLED_EDGES
    lenient = knowledge.from_edge_file(data, cache=cache, rule=PersonRule(min_weight=0.5))
    assert lenient.is_person("robot")  # robot -IsA(1.0)-> worker -> person


def test_hops(tiny: GraphFactory) -> None:
    graph = tiny()
    assert graph.is_person("person")  # a seed itself
    assert graph.is_person("entertainer")  # 1 hop
    assert graph.is_person("performer")  # 2 hops
    assert not graph.is_person("actor")  # 3 hops
    assert not graph.is_person("actress")  # 4 hops
    assert graph.is_person("clerk")  # seed "employee"
    assert graph.is_person("toddler")  # 2 hops to seed "human"
    wider = tiny(PersonRule(hops=3))
    assert wider.is_person("actor")
    assert not wider.is_person("actress")


def test_edges_of_weight_at_most_one_are_ignored(tiny: GraphFactory) -> None:
    graph = tiny()
    assert not graph.is_person("statue")  # weight 1.0
    assert not graph.is_person("mannequin")  # 0.5 then 2.0
    assert graph.is_person("priest")  # 1.01
    lenient = tiny(PersonRule(min_weight=0.4))
    assert lenient.is_person("statue")
    assert lenient.is_person("mannequin")


def test_early_stop(tiny: GraphFactory) -> None:
    graph = tiny()
    assert not graph.is_person("dog")  # an early-stop word: no lookup at all
    assert not graph.is_person("critter")  # the search stops at "animal"
    assert not graph.is_person("table")
    assert not graph.is_person("idea")
    unbounded = tiny(PersonRule(early_stop=frozenset()))
    assert unbounded.is_person("dog")
    assert unbounded.is_person("critter")


def test_batch_equals_single_lookups(tiny: GraphFactory) -> None:
    words = ["actress", "actor", "performer", "Entertainer", "statue", "priest", "dog", "nobody"]
    batch = tiny().is_person_many(words)
    single = tiny(PersonRule())
    assert batch == {word: single.is_person(word) for word in words}


def test_results_are_cached_per_word(tiny_file: Path, tmp_path: Path) -> None:
    graph = knowledge.conceptnet(knowledge.build_database(tiny_file, cache=tmp_path))
    assert graph.is_person("performer")
    assert not graph.is_person("actress")

    def no_more_queries(*args: object, **kwargs: object) -> object:
        raise AssertionError("looked up again")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(graph, "_select_isa", no_more_queries)
        assert graph.is_person("performer")
        assert not graph.is_person("actress")
        assert graph.is_person_many(["performer", "actress"]) == {
            "performer": True,
            "actress": False,
        }
        assert graph.has_isa_edge("actress", "actor")  # its out-edges were cached on the way


def test_clear_cache_forgets_answers_and_edges(tiny_file: Path, tmp_path: Path) -> None:
    graph = knowledge.conceptnet(knowledge.build_database(tiny_file, cache=tmp_path))
    assert graph.is_person("performer")
    graph.clear_cache()
    queries: list[object] = []
    select = graph._select_isa

    def counted(*args: object, **kwargs: object) -> object:
        queries.append(args)
        return select(*args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(graph, "_select_isa", counted)
        assert graph.is_person("performer")  # the same answer, looked up again
    assert queries


def test_clear_cache_of_an_in_memory_graph() -> None:
    graph = InMemoryGraph([("actress", "actor", 2.0), ("actor", "person", 2.0)])
    assert graph.is_person("actress")
    graph.clear_cache()
    assert graph._person == {}
    assert graph.is_person("actress")


# -- subpopulations, adjectives, HasIsAEdge ---------------------------------------------

EXPECTED_SUBPOPULATIONS = {
    "gender": {"female", "male"},
    "religion": {"christian", "muslim", "jewish", "hindu", "buddhist"},
    "race": {"black", "white", "asian"},
    "ethnicity": {"hispanic", "latino"},
    "nationality": {"american", "mexican", "chinese", "indian", "nigerian"},
    "sexual_orientation": {"gay", "lesbian", "bisexual", "straight"},
    "age": {"young", "old", "elderly"},
    "disability": {"blind", "deaf", "disabled"},
}


@pytest.mark.parametrize("attribute", SENSITIVE_ATTRIBUTES)
def test_subpopulations(graph: InMemoryGraph, attribute: str) -> None:
    found = graph.subpopulations(attribute)
    assert EXPECTED_SUBPOPULATIONS[attribute] <= set(found)
    assert found == sorted(set(found))
    assert attribute.replace("_", " ") not in found
    adjectives = graph.adjectives(attribute)
    assert [a.lower() for a in adjectives] == found  # every bundled subpopulation is one


def test_subpopulations_accept_spaces_and_case(graph: InMemoryGraph) -> None:
    assert graph.subpopulations("Sexual Orientation") == graph.subpopulations("sexual_orientation")
    assert "native american" in graph.subpopulations("race")
    assert graph.subpopulations("no such attribute") == []
    assert graph.adjectives("no such attribute") == []


def test_adjectives_keep_their_usual_spelling(graph: InMemoryGraph) -> None:
    assert {"female", "male"} <= set(graph.adjectives("gender"))
    assert {"Muslim", "Christian", "Jewish"} <= set(graph.adjectives("religion"))
    assert {"Black", "Asian", "Native American"} <= set(graph.adjectives("race"))
    assert {"gay", "lesbian"} <= set(graph.adjectives("sexual_orientation"))
    assert {"old", "young", "middle-aged"} <= set(graph.adjectives("age"))
    assert {"blind", "deaf"} <= set(graph.adjectives("disability"))


def test_has_isa_edge(graph: InMemoryGraph) -> None:
    assert graph.has_isa_edge("actress", "female")
    assert graph.has_isa_edge("Actress", "Female")
    assert graph.has_isa_edge("king", "male")
    assert not graph.has_isa_edge("actor", "female")  # neutral: ActiveMutate may insert
    assert not graph.has_isa_edge("actress", "person")  # two hops, not an edge
    assert not graph.has_isa_edge("female", "actress")  # IsA is directed
    assert graph.has_isa_edge("muslim", "religion")


def test_live_queries_agree_with_the_preloaded_graph(graph: InMemoryGraph) -> None:
    assert graph.db_path is not None
    live = ConceptNetGraph(graph.db_path)
    words = ["actress", "doctor", "medico", "table", "dog", "robot", "female", "chap"]
    assert live.is_person_many(words) == graph.is_person_many(words)
    for attribute in SENSITIVE_ATTRIBUTES:
        assert live.subpopulations(attribute) == graph.subpopulations(attribute)
        assert live.adjectives(attribute) == graph.adjectives(attribute)
    assert live.has_isa_edge("actress", "female")
    assert not live.has_isa_edge("actor", "female")


def test_graphs_implement_the_protocol(graph: InMemoryGraph, tiny: GraphFactory) -> None:
    assert isinstance(graph, KnowledgeGraph)
    assert isinstance(tiny(), KnowledgeGraph)
    assert isinstance(InMemoryGraph([]), KnowledgeGraph)


def test_in_memory_graph_from_triples() -> None:
    graph = InMemoryGraph(
        [("nurse", "person", 2.0), ("female", "gender", 2.0), ("male", "gender", 2.0)],
        adjectives=["female", "male"],
        surfaces={"female": "Female"},
    )
    assert graph.is_person("nurse")
    assert graph.subpopulations("gender") == ["female", "male"]
    assert graph.adjectives("gender") == ["Female", "male"]


# -- the database: never a download, clear errors -----------------------------------


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Calls of anything in conceptnet-lite that connects or downloads."""
    import conceptnet_lite
    import conceptnet_lite.db

    calls: list[str] = []

    def record(name: str) -> Callable[..., None]:
        def called(*args: object, **kwargs: object) -> None:
            calls.append(name)
            raise AssertionError(f"conceptnet_lite {name} called")

        return called

    for module in (conceptnet_lite, conceptnet_lite.db):
        for name in ("connect", "download_db", "download_dump", "prepare_db"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, record(name))
    return calls


def test_missing_database_is_a_clear_error_and_no_download(
    tmp_path: Path, downloads: list[str]
) -> None:
    missing = tmp_path / "conceptnet.db"
    with pytest.raises(ConfigurationError) as info:
        knowledge.conceptnet(missing)
    message = str(info.value)
    assert str(missing) in message
    assert "does not exist" in message
    assert "conceptnet_lite.connect(" in message  # how to get it
    assert "bundled" in message  # or what to do instead
    with pytest.raises(ConfigurationError):
        knowledge.load_graph(missing)
    with pytest.raises(ConfigurationError, match="does not exist"):
        knowledge.conceptnet(tmp_path)  # a directory without conceptnet.db
    assert downloads == []
    assert not missing.exists()
    assert list(tmp_path.iterdir()) == []


def test_non_conceptnet_files_are_rejected_untouched(tmp_path: Path, downloads: list[str]) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database")
    with pytest.raises(ConfigurationError, match="is not a SQLite database"):
        knowledge.conceptnet(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE things (x)")
    connection.close()
    with pytest.raises(ConfigurationError, match="not conceptnet-lite's"):
        knowledge.conceptnet(other)
    with sqlite3.connect(other) as connection:  # connect() would have created its tables
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert tables == {"things"}
    assert downloads == []


def test_load_graph_picks_the_configured_database(
    bundled: tuple[InMemoryGraph, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    graph, cache = bundled
    monkeypatch.setenv(CACHE_ENV, str(cache))
    assert graph.db_path is not None
    live = knowledge.load_graph(graph.db_path)
    assert isinstance(live, ConceptNetGraph)
    assert live is knowledge.load_graph(str(graph.db_path))  # one graph per database
    assert isinstance(knowledge.load_graph(None), InMemoryGraph)
    knowledge.default_graph.cache_clear()


def test_bad_edge_files_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text('/a/[...]\t/r/IsA\t/c/en/a/n\t/c/en/b/n\t{"weight": 2.0}\nnonsense\n')
    with pytest.raises(ConfigurationError, match="line 2 is not a ConceptNet edge"):
        knowledge.build_database(bad, cache=tmp_path / "cache")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ConfigurationError, match="holds no edges"):
        knowledge.build_database(empty, cache=tmp_path / "cache")
    with pytest.raises(ConfigurationError, match="cannot read"):
        knowledge.build_database(tmp_path / "absent.csv", cache=tmp_path / "cache")
    assert not list((tmp_path / "cache" / "knowledge").glob("*.db"))


# -- the cache ------------------------------------------------------------------------


def test_second_default_graph_reuses_the_cached_database(
    bundled: tuple[InMemoryGraph, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import conceptnet_lite.db

    graph, cache = bundled
    assert graph.db_path is not None
    assert graph.db_path.parent == cache / "knowledge"
    before = graph.db_path.stat()

    def no_rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("rebuilt the bundled database")

    monkeypatch.setenv(CACHE_ENV, str(cache))
    monkeypatch.setattr(conceptnet_lite.db, "load_dump_to_db", no_rebuild)
    knowledge.default_graph.cache_clear()
    try:
        again = knowledge.default_graph()
        assert knowledge.default_graph() is again  # one per process
    finally:
        knowledge.default_graph.cache_clear()
    assert again.db_path == graph.db_path
    after = graph.db_path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert again.is_person("actress")


def test_changed_edge_file_gets_a_new_database(tmp_path: Path) -> None:
    edges = write_edges(tmp_path / "edges.csv.gz", TINY, gz=True)
    first = knowledge.from_edge_file(edges, cache=tmp_path)
    assert knowledge.build_database(edges, cache=tmp_path) == first.db_path
    assert not first.is_person("actor")
    write_edges(edges, [*TINY, ("actor", "person", 2.0)], gz=True)
    second = knowledge.from_edge_file(edges, cache=tmp_path)
    assert second.db_path != first.db_path
    assert second.is_person("actor")
    assert first.db_path is not None
    assert first.db_path.is_file()  # the old one is left alone
    leftovers = [p.name for p in (tmp_path / "knowledge").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert knowledge.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert knowledge.cache_dir() == tmp_path / "xdg" / "pytest-fairness"
        monkeypatch.delenv("XDG_CACHE_HOME")
        assert knowledge.cache_dir() == Path.home() / ".cache" / "pytest-fairness"


def test_parallel_processes_build_once_and_agree(tmp_path: Path) -> None:
    edges = write_edges(tmp_path / "edges.csv", TINY)
    cache = tmp_path / "cache"
    code = (
        "import sys\n"
        "from pytest_fairness import knowledge\n"
        "path = knowledge.build_database(sys.argv[1], cache=sys.argv[2])\n"
        "print(path)\n"
        "print(knowledge.ConceptNetGraph(path).is_person('performer'))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(edges), str(cache)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0], outputs
    assert len({out for out, _ in outputs}) == 1
    path, answer = outputs[0][0].split()
    assert answer == "True"
    names = sorted(p.name for p in (cache / "knowledge").iterdir())
    assert names == [Path(path).name, Path(path).with_suffix(".lock").name]


# -- conceptnet-lite's single global database -------------------------------------------


def test_two_databases_in_one_process(tmp_path: Path) -> None:
    import conceptnet_lite.db

    proxy = conceptnet_lite.db.db
    before = proxy.obj
    one = write_edges(tmp_path / "one.csv", [("nurse", "person", 2.0)])
    two = write_edges(tmp_path / "two.csv", [("nurse", "pet", 2.0), ("tutor", "person", 2.0)])
    first = knowledge.conceptnet(knowledge.build_database(one, cache=tmp_path))
    second = knowledge.conceptnet(knowledge.build_database(two, cache=tmp_path))
    for _ in range(2):  # interleaved, each sees its own database
        assert first.is_person("nurse")
        assert not second.is_person("nurse")
        assert second.is_person("tutor")
        assert not first.is_person("tutor")
        assert first.has_isa_edge("nurse", "person")
        assert second.has_isa_edge("nurse", "pet")
    assert proxy.obj is before  # whatever was bound before is bound again


def test_importing_knowledge_loads_no_heavy_dependency() -> None:
    code = (
        "import json, sys\n"
        "import pytest_fairness.resources.knowledge\n"
        "print(json.dumps([m for m in ('conceptnet_lite', 'wn', 'peewee', 'pytest') "
        "if m in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert json.loads(out.stdout) == []
