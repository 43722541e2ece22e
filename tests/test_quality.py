import json
import math

import networkx as nx
import pytest

from graphrag_local.stages.communities import build_graph
from graphrag_local.stages.quality import level_quality, partition_change

TRIANGLES = [["a", "b", "c"], ["d", "e", "f"]]


def two_triangles(triangle_weight=1.0, bridge_weight=1.0):
    """Triangles abc and def joined by the edge c-d."""
    edges = [(a, b, triangle_weight) for a, b in ["ab", "bc", "ac", "de", "ef", "df"]]
    return build_graph(list("abcdef"), edges + [("c", "d", bridge_weight)])


# Two triangles, m = 7 edges, 15 node pairs, degrees a2 b2 c3 d3 e2 f2.
@pytest.mark.parametrize(
    "parts, modularity, coverage, performance",
    [
        # 2 * (3/7 - (7/14)^2); 6 of 7 edges inside; (6 intra + 8 inter non-edges) / 15
        (TRIANGLES, 6 / 7 - 1 / 2, 6 / 7, 14 / 15),
        # one community: Q = 0 exactly; every edge inside; only the 7 edges are right
        ([list("abcdef")], 0.0, 1.0, 7 / 15),
        # singletons: -sum (d_i / 14)^2 = -34/196; no edge inside; 15 - 7 non-edges right
        ([[n] for n in "abcdef"], -34 / 196, 0.0, 8 / 15),
    ],
)
def test_two_triangles_known_figures(parts, modularity, coverage, performance):
    q = level_quality(two_triangles(), parts)
    assert q["modularity"] == round(modularity, 4)
    assert q["coverage"] == round(coverage, 4)
    assert q["performance"] == round(performance, 4)


def test_two_triangles_counts_and_sizes():
    q = level_quality(two_triangles(), [["a"], ["b", "c"], ["d", "e", "f"]])
    assert q["communities"] == 3
    assert q["sizes"] == {"min": 1, "median": 2.0, "max": 3, "mean": 2.0}
    assert q["singletons"] == 1


def test_modularity_uses_weights_and_coverage_counts_edges():
    # triangle edges weigh 2, the bridge 1: m = 13, each side's degree sum 13
    q = level_quality(two_triangles(triangle_weight=2.0), TRIANGLES)
    assert q["modularity"] == round(12 / 13 - 1 / 2, 4)
    assert q["coverage"] == round(6 / 7, 4)
    assert q["performance"] == round(14 / 15, 4)


@pytest.mark.parametrize(
    "parts",
    [TRIANGLES, [list("abcdef")], [[n] for n in "abcdef"], [["a", "d"], ["b", "e"], ["c", "f"]]],
)
def test_agrees_with_networkx(parts):
    g = two_triangles(triangle_weight=1.5, bridge_weight=0.25)
    q = level_quality(g, parts)
    coverage, performance = nx.community.partition_quality(g, parts)
    assert q["modularity"] == round(nx.community.modularity(g, parts, weight="weight"), 4)
    assert (q["coverage"], q["performance"]) == (round(coverage, 4), round(performance, 4))


def test_order_of_communities_and_members_does_not_matter():
    g = two_triangles(triangle_weight=0.3, bridge_weight=0.7)
    a = level_quality(g, [["a", "b"], ["c", "d"], ["e", "f"]])
    b = level_quality(g, [["f", "e"], ["b", "a"], ["d", "c"]])
    assert a == b


@pytest.mark.parametrize(
    "graph, parts, expected",
    [
        (nx.Graph(), [], dict(communities=0, modularity=0.0, coverage=0.0, performance=0.0)),
        # no edges: modularity and coverage defined as 0; all 3 pairs are right non-edges
        (
            build_graph(["x", "y", "z"], []),
            [["x"], ["y"], ["z"]],
            dict(communities=3, modularity=0.0, coverage=0.0, performance=1.0),
        ),
        (
            build_graph(["x", "y", "z"], []),
            [["x", "y", "z"]],
            dict(communities=1, modularity=0.0, coverage=0.0, performance=0.0),
        ),
        (
            build_graph(["x"], []),
            [["x"]],
            dict(communities=1, modularity=0.0, coverage=0.0, performance=0.0),
        ),
        # edges that all weigh 0 carry no modularity
        (
            build_graph(["x", "y"], [("x", "y", 0.0)]),
            [["x", "y"]],
            dict(communities=1, modularity=0.0, coverage=1.0, performance=1.0),
        ),
    ],
)
def test_degenerate_graphs(graph, parts, expected):
    q = level_quality(graph, parts)
    assert {k: q[k] for k in expected} == expected
    json.dumps(q, allow_nan=False)


def test_empty_graph_sizes_and_empty_groups_ignored():
    assert level_quality(nx.Graph(), [[]]) == {
        "communities": 0,
        "modularity": 0.0,
        "coverage": 0.0,
        "performance": 0.0,
        "sizes": {"min": 0, "median": 0.0, "max": 0, "mean": 0.0},
        "singletons": 0,
    }


def test_self_loops_count_in_modularity_only():
    g = two_triangles()
    g.add_edge("a", "a", weight=1.0)
    q = level_quality(g, TRIANGLES)
    assert (q["coverage"], q["performance"]) == (round(6 / 7, 4), round(14 / 15, 4))
    assert q["modularity"] == round(nx.community.modularity(g, TRIANGLES), 4)


@pytest.mark.parametrize(
    "parts, message",
    [
        ([["a", "b", "c"], ["d", "e"]], "1 graph nodes in no community"),
        ([["a", "b", "c"], ["d", "e", "f", "zz"]], "1 unknown nodes"),
        ([["a", "b", "c"], ["c", "d", "e", "f"]], "more than one community"),
    ],
)
def test_rejects_what_is_not_a_partition(parts, message):
    with pytest.raises(ValueError, match=message):
        level_quality(two_triangles(), parts)


# partition_change

NODES = [f"n{i}" for i in range(100)]


def test_identical_partition_does_not_move():
    p = {n: f"c{i % 7}" for i, n in enumerate(NODES)}
    assert partition_change(p, dict(p)) == {
        "nodes_compared": 100,
        "nmi": 1.0,
        "ari": 1.0,
        "added": 0,
        "removed": 0,
    }


def test_relabelled_partition_does_not_move():
    old = {n: f"c{i % 7}" for i, n in enumerate(NODES)}
    new = {n: f"other-{(i % 7) * 31}" for i, n in enumerate(NODES)}
    c = partition_change(old, new)
    assert (c["nmi"], c["ari"]) == (1.0, 1.0)


def test_unrelated_partition():
    # 10 x 10 grid, rows against columns: every cell holds one node, so MI = 0 exactly;
    # ARI = 2 * (0 - 450 * 450) / (900 * 4950 - 2 * 450 * 450) = -0.1
    old = {n: i % 10 for i, n in enumerate(NODES)}
    new = {n: i // 10 for i, n in enumerate(NODES)}
    c = partition_change(old, new)
    assert (c["nmi"], c["ari"]) == (0.0, -0.1)


def test_small_move_by_hand():
    # {a b}{c d} -> {a}{b c d}: ARI's index equals its expectation; NMI = MI / mean entropy
    c = partition_change({"a": 1, "b": 1, "c": 2, "d": 2}, {"a": 1, "b": 2, "c": 2, "d": 2})
    mutual = 0.25 * math.log(2) + 0.25 * math.log(2 / 3) + 0.5 * math.log(4 / 3)
    entropies = math.log(2) - (0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert c["ari"] == 0.0
    assert c["nmi"] == round(mutual / (entropies / 2), 4)


def test_only_shared_nodes_are_compared():
    old = {"a": 1, "b": 1, "c": 2, "gone": 3}
    new = {"a": "x", "b": "x", "c": "y", "new1": "z", "new2": "z"}
    assert partition_change(old, new) == {
        "nodes_compared": 3,
        "nmi": 1.0,
        "ari": 1.0,
        "added": 2,
        "removed": 1,
    }


@pytest.mark.parametrize(
    "old, new, nmi, ari",
    [
        ({}, {}, 1.0, 1.0),
        ({"a": 1}, {"a": 2}, 1.0, 1.0),
        ({"a": 1, "b": 1}, {"a": 2, "b": 2}, 1.0, 1.0),  # one community on both sides
        ({"a": 1, "b": 2}, {"a": 3, "b": 4}, 1.0, 1.0),  # all singletons on both sides
        ({"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": 2}, 0.0, 0.0),  # one side has 1
        ({"a": 1, "b": 2}, {"c": 1, "d": 2}, 1.0, 1.0),  # no node in both
    ],
)
def test_degenerate_changes(old, new, nmi, ari):
    c = partition_change(old, new)
    assert (c["nmi"], c["ari"]) == (nmi, ari)
    json.dumps(c, allow_nan=False)


def test_agrees_with_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics")
    # deterministic, uneven, partly related labels
    old = {n: (i * 7) % 13 for i, n in enumerate(NODES)}
    new = {n: ((i * 7) % 13) // 3 if i % 4 else i % 5 for i, n in enumerate(NODES)}
    a, b = [old[n] for n in NODES], [new[n] for n in NODES]
    c = partition_change(old, new)
    assert c["nmi"] == round(metrics.normalized_mutual_info_score(a, b), 4)
    assert c["ari"] == round(metrics.adjusted_rand_score(a, b), 4)
