"""Stage 8: the graph and its hierarchical Leiden communities.

Every connected component is clustered (not only the largest, as microsoft/graphrag
does), seeded, on a sorted edge list. Any community larger than `max_cluster_size` is
re-partitioned at the next level; a community that is small enough (or cannot be split)
is carried to the next level unchanged, so each level partitions all nodes. Uses
leidenalg on igraph directly: cdlib would add a large dependency tree for a loop this
short."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ..schema import content_id


@dataclass(frozen=True)
class Cluster:
    id: str
    level: int
    parent: str
    members: tuple[str, ...]  # node names, sorted
    children: tuple[str, ...] = ()


def build_graph(nodes: list[str], edges: list[tuple[str, str, float]]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(sorted(nodes))
    for a, b, w in sorted(edges):
        g.add_edge(a, b, weight=w)
    return g


def leiden(graph: nx.Graph, nodes: list[str], seed: int) -> list[list[str]]:
    """Leiden (modularity) partition of the subgraph on `nodes`, per connected component."""
    import igraph as ig
    import leidenalg

    sub = graph.subgraph(nodes)
    parts: list[list[str]] = []
    for comp in sorted((sorted(c) for c in nx.connected_components(sub)), key=lambda c: c[0]):
        if len(comp) <= 2:
            parts.append(comp)
            continue
        index = {n: i for i, n in enumerate(comp)}
        edges = sorted(
            (min(index[a], index[b]), max(index[a], index[b]), d.get("weight", 1.0))
            for a, b, d in sub.subgraph(comp).edges(data=True)
        )
        ig_graph = ig.Graph(n=len(comp), edges=[(a, b) for a, b, _ in edges])
        partition = leidenalg.find_partition(
            ig_graph,
            leidenalg.ModularityVertexPartition,
            weights=[w for _, _, w in edges],
            seed=seed,
        )
        groups: dict[int, list[str]] = {}
        for vertex, membership in enumerate(partition.membership):
            groups.setdefault(membership, []).append(comp[vertex])
        parts.extend(sorted((sorted(g) for g in groups.values()), key=lambda g: g[0]))
    return parts


def hierarchical_leiden(
    graph: nx.Graph, max_cluster_size: int, seed: int, max_levels: int
) -> list[Cluster]:
    """All levels; level 0 is the coarsest. Each level is a partition of all nodes."""
    if graph.number_of_nodes() == 0:
        return []
    clusters: list[Cluster] = []
    current = [
        Cluster(_cid(0, m), 0, "", tuple(m)) for m in leiden(graph, list(graph.nodes), seed)
    ]
    for level in range(1, max_levels + 1):
        clusters_next: list[Cluster] = []
        children: dict[str, list[str]] = {}
        split_any = False
        for c in current:
            parts = [list(c.members)]
            if len(c.members) > max_cluster_size:
                found = leiden(graph, list(c.members), seed)
                if len(found) > 1:
                    parts, split_any = found, True
            for members in parts:
                child = Cluster(_cid(level, members), level, c.id, tuple(members))
                clusters_next.append(child)
                children.setdefault(c.id, []).append(child.id)
        if not split_any:
            break
        clusters.extend(
            Cluster(c.id, c.level, c.parent, c.members, tuple(children[c.id])) for c in current
        )
        current = clusters_next
    clusters.extend(current)
    return clusters


def _cid(level: int, members) -> str:
    return content_id("community", str(level), *members, length=12)
