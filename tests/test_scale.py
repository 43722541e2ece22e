"""No stage grows as communities x relationships (issue 20): the edges of a community or
of a query's names are read through an index by endpoint, in the order a scan gives."""

import random
from dataclasses import dataclass

import pytest

from graphrag_local.edges import Edges

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
