"""Relationships indexed by endpoint, so that the edges of a community or of a query's
entities cost the degrees of their names, not a scan of every relationship (which made
report packing and the extractive reporter grow as communities x relationships).

Edges come back in the order of the list they were indexed from, as a scan would give.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class Edges:
    """`relationships` (anything with `.source` and `.target`) by endpoint name."""

    def __init__(self, relationships: Sequence[Any]):
        self.items = relationships
        self.at: dict[str, list[int]] = {}
        for i, r in enumerate(relationships):
            self.at.setdefault(r.source, []).append(i)
            if r.target != r.source:
                self.at.setdefault(r.target, []).append(i)
        self.visits = 0  # index entries read, for tests of growth

    def _gather(self, names: Iterable[str], both: bool) -> list[Any]:
        inside = names if isinstance(names, (set, frozenset)) else set(names)
        found: set[int] = set()
        for name in inside:
            for i in self.at.get(name, ()):
                self.visits += 1
                r = self.items[i]
                if not both or (r.source in inside and r.target in inside):
                    found.add(i)
        return [self.items[i] for i in sorted(found)]

    def inside(self, names: Iterable[str]) -> list[Any]:
        """The edges with both ends among `names`."""
        return self._gather(names, both=True)

    def touching(self, names: Iterable[str]) -> list[Any]:
        """The edges with at least one end among `names`."""
        return self._gather(names, both=False)
