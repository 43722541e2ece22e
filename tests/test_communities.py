import itertools

from graphrag_local.stages.communities import build_graph, hierarchical_leiden


def clique_graph(n_cliques, size, bridge=True, extra_components=0):
    nodes, edges = [], []
    for c in range(n_cliques):
        members = [f"c{c}n{i}" for i in range(size)]
        nodes += members
        edges += [(a, b, 1.0) for a, b in itertools.combinations(members, 2)]
        if bridge and c:
            edges.append((f"c{c-1}n0", f"c{c}n0", 0.1))
    for k in range(extra_components):
        nodes += [f"iso{k}a", f"iso{k}b"]
        edges.append((f"iso{k}a", f"iso{k}b", 1.0))
    nodes.append("lonely")
    return build_graph(nodes, edges)


def levels(clusters):
    out = {}
    for c in clusters:
        out.setdefault(c.level, []).append(c)
    return out


def test_every_level_partitions_all_nodes_including_small_components():
    g = clique_graph(4, 6, extra_components=2)
    clusters = hierarchical_leiden(g, max_cluster_size=10, seed=7, max_levels=4)
    for level, cs in levels(clusters).items():
        members = [m for c in cs for m in c.members]
        assert sorted(members) == sorted(g.nodes), f"level {level} is not a partition"
    lv0 = {m for c in levels(clusters)[0] for m in c.members}
    assert {"iso0a", "iso1b", "lonely"} <= lv0


def test_large_communities_are_split_at_the_next_level_with_parent_links():
    g = clique_graph(6, 5, bridge=True)
    clusters = hierarchical_leiden(g, max_cluster_size=4, seed=7, max_levels=4)
    by_id = {c.id: c for c in clusters}
    for c in clusters:
        if c.parent:
            parent = by_id[c.parent]
            assert parent.level == c.level - 1
            assert c.id in parent.children
            assert set(c.members) <= set(parent.members)
        for child in c.children:
            assert by_id[child].parent == c.id
    deepest = max(c.level for c in clusters)
    # communities over the size limit at a level are split below it unless unsplittable
    for c in clusters:
        if len(c.members) > 4 and c.level < deepest:
            assert len(c.children) > 1 or len(c.members) == 5


def test_seeded_and_deterministic():
    g = clique_graph(5, 5)
    a = hierarchical_leiden(g, 6, 42, 4)
    b = hierarchical_leiden(g, 6, 42, 4)
    assert a == b


def test_empty_graph():
    assert hierarchical_leiden(build_graph([], []), 10, 1, 3) == []
