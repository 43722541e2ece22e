"""Quality figures for community levels: how good one partition is, and how far it moved.

`level_quality` scores one level of the hierarchy against the entity graph: modularity
(weighted, through networkx), coverage and performance (Fortunato's definitions, counting
edges, not weights), and the spread of community sizes. `partition_change` compares two
node -> community maps (two builds, or two levels) by NMI and ARI over the nodes they share.

It only evaluates partitions it is given; it never detects communities. cdlib would give
modularity and NMI/ARI but not coverage or performance, pulls in 37 packages (about 275 MB:
pandas, plotly, PuLP's solver binaries, IPython), takes about 2 s to import, and computes
NMI/ARI with scikit-learn anyway; the figures below are a few exact lines each.

Every figure is a plain float rounded to 4 places, never NaN. Where a ratio has nothing
to measure, it is defined rather than left undefined:
- modularity is 0.0 for a graph without edges (or whose edges all weigh 0);
- coverage is 0.0 for a graph without edges, and performance 0.0 for fewer than two nodes;
- NMI and ARI are 1.0 when nothing can tell the two partitions apart: no nodes compared,
  one node, or both putting every compared node in one community. These are the only
  cases in which their formulas divide by zero, and in each of them the partitions agree.
Self-loops count in modularity (as networkx counts them) but not in coverage or
performance, which are about pairs of distinct nodes.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Hashable, Mapping

import networkx as nx


def level_quality(graph: nx.Graph, parts: list[list[str]]) -> dict:
    """Figures for one partition of all of `graph`'s nodes (empty groups are ignored).

    {"communities": n, "modularity": float, "coverage": float, "performance": float,
     "sizes": {"min": int, "median": float, "max": int, "mean": float}, "singletons": int}
    """
    # sorted, so that the floating-point sums do not depend on the order given
    groups = sorted(sorted(p) for p in parts if p)
    community = _check_partition(graph, groups)
    sizes = [len(g) for g in groups]

    intra = inter = 0
    for a, b in graph.edges():
        if a == b:
            continue
        if community[a] == community[b]:
            intra += 1
        else:
            inter += 1
    pairs = math.comb(graph.number_of_nodes(), 2)
    inter_pairs = pairs - sum(math.comb(s, 2) for s in sizes)
    coverage = intra / (intra + inter) if intra + inter else 0.0
    performance = (intra + inter_pairs - inter) / pairs if pairs else 0.0

    return {
        "communities": len(groups),
        "modularity": _round(_modularity(graph, groups)),
        "coverage": _round(coverage),
        "performance": _round(performance),
        "sizes": {
            "min": min(sizes, default=0),
            "median": _round(statistics.median(sizes) if sizes else 0.0),
            "max": max(sizes, default=0),
            "mean": _round(statistics.fmean(sizes) if sizes else 0.0),
        },
        "singletons": sizes.count(1),
    }


def partition_change(old: Mapping[str, Hashable], new: Mapping[str, Hashable]) -> dict:
    """How much a partition moved, over the nodes in both maps (node -> community id).

    NMI is normalised by the arithmetic mean of the two entropies (scikit-learn's and
    cdlib's default); ARI is Hubert and Arabie's, and can be slightly negative.
    {"nodes_compared": int, "nmi": float, "ari": float, "added": int, "removed": int}
    """
    shared = sorted(old.keys() & new.keys())
    pairs = Counter((old[n], new[n]) for n in shared)
    old_sizes = Counter(old[n] for n in shared)
    new_sizes = Counter(new[n] for n in shared)
    return {
        "nodes_compared": len(shared),
        "nmi": _round(_nmi(len(shared), pairs, old_sizes, new_sizes)),
        "ari": _round(_ari(len(shared), pairs, old_sizes, new_sizes)),
        "added": len(new.keys() - old.keys()),
        "removed": len(old.keys() - new.keys()),
    }


def _check_partition(graph: nx.Graph, groups: list[list[str]]) -> dict[str, int]:
    community: dict[str, int] = {}
    for i, group in enumerate(groups):
        for node in group:
            if node in community:
                raise ValueError(f"node {node!r} is in more than one community")
            community[node] = i
    unknown = community.keys() - set(graph.nodes)
    missing = set(graph.nodes) - community.keys()
    if unknown or missing:
        raise ValueError(
            f"communities do not partition the graph: {len(missing)} graph nodes in no "
            f"community (e.g. {sorted(missing)[:3]}), {len(unknown)} unknown nodes "
            f"(e.g. {sorted(unknown)[:3]})"
        )
    return community


def _modularity(graph: nx.Graph, groups: list[list[str]]) -> float:
    if graph.size(weight="weight") == 0:
        return 0.0
    return nx.community.modularity(graph, groups, weight="weight")


def _nmi(n: int, pairs: Counter, a: Counter, b: Counter) -> float:
    if len(a) <= 1 and len(b) <= 1:
        return 1.0  # n <= 1, or one community on both sides: identical
    mutual = math.fsum(nij / n * math.log(n * nij / (a[i] * b[j])) for (i, j), nij in pairs.items())
    mean_entropy = (_entropy(n, a) + _entropy(n, b)) / 2
    return min(max(mutual / mean_entropy, 0.0), 1.0)


def _entropy(n: int, sizes: Counter) -> float:
    return -math.fsum(s / n * math.log(s / n) for s in sizes.values())


def _ari(n: int, pairs: Counter, a: Counter, b: Counter) -> float:
    # in integers, one division at the end: index, expected index and maximum index,
    # all multiplied by 2 * C(n, 2)
    total = math.comb(n, 2)
    together = sum(math.comb(nij, 2) for nij in pairs.values())
    in_a = sum(math.comb(s, 2) for s in a.values())
    in_b = sum(math.comb(s, 2) for s in b.values())
    denominator = (in_a + in_b) * total - 2 * in_a * in_b
    if denominator == 0:
        return 1.0  # both all singletons or both one community (or n <= 1): identical
    return 2 * (together * total - in_a * in_b) / denominator


def _round(x: float) -> float:
    return round(float(x), 4) + 0.0  # + 0.0 turns -0.0 into 0.0
