"""No stage grows as communities x relationships (issue 20): the edges of a community or
of a query's names are read through an index by endpoint, in the order a scan gives; a
session reads each table of the index on first use."""

import random
from dataclasses import dataclass

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel, HashEmbedder
from test_pipeline import make_build, scripted

from graphrag_local.browse import show
from graphrag_local.edges import Edges
from graphrag_local.pipeline import run_build
from graphrag_local.prompts import load_prompts
from graphrag_local.query import Session, load_index_data
from graphrag_local.schema import Claim
from graphrag_local.search.common import IndexData
from graphrag_local.settings import Settings
from graphrag_local.store import Store

pytestmark = pytest.mark.fast


@dataclass(frozen=True)
class Rel:
    source: str
    target: str


def graph(n_nodes=20_000, n_edges=60_000, seed=7):
    rng = random.Random(seed)
    names = [f"e{i}" for i in range(n_nodes)]
    rels = []
    for _ in range(n_edges):  # mostly inside blocks of 50, as communities are
        a = rng.randrange(n_nodes)
        b = (a // 50) * 50 + rng.randrange(50) if rng.random() < 0.8 else rng.randrange(n_nodes)
        rels.append(Rel(names[a], names[b]))
    communities = [set(names[i : i + 50]) for i in range(0, n_nodes, 50)]
    return rels, communities


def test_edges_inside_and_touching_equal_a_scan_in_its_order():
    rels, communities = graph()
    edges = Edges(rels)
    for members in random.Random(1).sample(communities, 25):
        assert edges.inside(members) == [r for r in rels
                                         if r.source in members and r.target in members]
        assert edges.touching(members) == [r for r in rels
                                           if r.source in members or r.target in members]


def test_all_communities_read_each_edge_at_most_twice():
    rels, communities = graph()
    edges = Edges(rels)
    found = sum(len(edges.inside(members)) for members in communities)
    assert found > 0.8 * len(rels)  # most edges are inside a block
    # a scan per community would read 400 x 60,000 edges; the index reads each edge once
    # from each end at most
    assert edges.visits <= 2 * len(rels)


def test_a_self_loop_is_indexed_once():
    r = Rel("a", "a")
    assert Edges([r]).inside({"a"}) == [r] and Edges([r]).touching({"a"}) == [r]


def test_claims_about_names_equal_a_scan_in_its_order():
    rels, communities = graph(n_nodes=2_000, n_edges=6_000)
    claims = [Claim(f"c{i}", r.source, r.target, "T", "TRUE", "d", "", "", "", "k")
              for i, r in enumerate(rels)]
    data = IndexData(entities={}, relationships=rels, claims=claims, chunks={}, reports=[],
                     communities=[])
    for members in random.Random(2).sample(communities, 10):
        assert data.claims_about(members) == [c for c in claims if c.subject in members]
        assert data.edges.touching(members) == [r for r in rels
                                                if r.source in members or r.target in members]


class CountingStore(Store):
    """A store that records which tables were read."""

    def read(self, name, columns=None):
        self.tables_read.append(name)
        return super().read(name, columns)


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    base = tmp_path_factory.mktemp("lazyidx")
    docs = copy_corpus(base / "docs")
    run_build(make_build(docs, base / "idx", FakeChatModel(default=scripted)))
    return base / "idx"


def test_a_table_is_read_on_first_use_only(small_index):
    eager = {t: Store(small_index).read(t) for t in ("entities", "claims", "relationships")}
    store = CountingStore(small_index)
    store.tables_read = []
    data = load_index_data(store)
    assert store.tables_read == []
    rows = show(data, "entities")["entities"]
    assert store.tables_read == ["entities"]
    assert sorted(r["name"] for r in rows) == sorted(r["name"] for r in eager["entities"])
    name = rows[0]["name"]
    entity = show(data, "entities", name)["entity"]
    assert {"relationships", "claims"} <= set(store.tables_read)
    assert len(entity["relationships"]) == sum(name in (r["source"], r["target"])
                                               for r in eager["relationships"])
    read = list(store.tables_read)
    show(data, "entities", name)
    assert store.tables_read == read and len(read) == len(set(read))  # each table once


def test_a_session_opens_without_reading_its_tables(small_index, monkeypatch):
    read: list[str] = []
    real = Store.read
    monkeypatch.setattr(Store, "read", lambda self, name, columns=None: (
        read.append(name), real(self, name, columns))[1])
    s = Session(small_index, Settings(), load_prompts(), FakeChatModel, HashEmbedder)
    assert read == []
    assert s.data.entities and read == ["entities"]
