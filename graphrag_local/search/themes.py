"""Theme-structured answers: which groups of the corpus answer a question, and which one
or two sentences speak for each. One ranking for global search (a group is a community,
its title the report's) and for ts (a group is a document).

How it decides, in order:

1. **Relevance of a group**: the question's nearness to the group's centroid (what its
   sentences are about) and the mean nearness of its two nearest sentences, averaged.
2. **Focus**: how far relevance can tell groups apart. A question that some sentence of
   the corpus matches closely ("Who founded the Trust?") is focused; one that nothing
   matches closely ("What are the main themes?") is about the collection as a whole, and
   then a group's weight (how much the corpus says about it) ranks it instead. Measured
   with all-MiniLM-L6-v2 on the sample corpus: the best sentence of a factual question
   is 0.64-0.85 near it, of a collection-wide one 0.22-0.33 (`FOCUS_LOW`/`FOCUS_HIGH`).
3. **Selection** by maximal marginal relevance: each next group scores its relevance
   (or weight, by focus), plus a bonus when it brings a document the answer does not
   cite yet, minus its likeness to the groups already chosen; a focused question keeps
   only groups in the top part of its relevance range.
4. **Sentences**: under each group, the one or two sentences that are nearest the
   question (focused) or most central to the group (collection-wide; then a document
   not cited yet first), no two alike, within the answer's word budget.

Dynamic community selection (`select_dynamic`) starts at the root level and descends
into the relevant communities, within a budget of relevance tests; the test itself is
passed in (the embedding test here, or the model's YES/NO where it measures better)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..sentences import near_duplicate, standalone
from .common import Citation
from .evidence import SentenceIndex

# nearness of a question's best sentence at which relevance starts / fully decides
FOCUS_LOW = 0.35
FOCUS_HIGH = 0.60
COVERAGE_BONUS = 0.35  # a group that brings an uncited document
REDUNDANCY_PENALTY = 0.3  # times a chosen group's likeness above 0.5
RELEVANCE_MARGIN = 0.12  # a focused question keeps groups this near the best one


@dataclass(frozen=True)
class Group:
    """A candidate theme: a community (global) or a document (ts)."""

    key: str  # community id, or document id
    title: str
    citation: Citation | None  # its report (None for a document)
    rows: np.ndarray  # its sentences (rows of the SentenceIndex)
    weight: float  # how much the corpus says about it (log of its sentences)
    children: tuple[str, ...] = ()  # sub-communities (global)
    level: int = 0
    members: frozenset[str] | None = None  # its entities (None: any entity counts)


@dataclass
class Scored:
    group: Group
    relevance: float
    peak: float  # nearness of its nearest sentence
    centroid: np.ndarray
    sims: np.ndarray  # nearness of each of its rows to the question


@dataclass
class Theme:
    group: Group
    rows: list[int]
    relevance: float


@dataclass
class Selection:
    themes: list[Theme]
    focus: float
    considered: int  # groups scored
    tests: int = 0  # relevance tests spent (dynamic selection)
    trace: list[str] = field(default_factory=list)  # how dynamic selection went


def focus_of(peak: float) -> float:
    """0 (the question is about the whole collection) .. 1 (relevance decides)."""
    return float(np.clip((peak - FOCUS_LOW) / (FOCUS_HIGH - FOCUS_LOW), 0.0, 1.0))


def score_groups(groups: list[Group], sentences: SentenceIndex, q: np.ndarray) -> list[Scored]:
    out = []
    for g in groups:
        if len(g.rows) == 0:
            continue
        sims = sentences.similarity(q, g.rows)
        centroid = sentences.centroid(g.rows)
        top = np.sort(sims)[::-1][:2]
        qn = q / max(float(np.linalg.norm(q)), 1e-12)
        relevance = 0.5 * float(centroid @ qn) + 0.5 * float(top.mean())
        peak = float(top[0])
        out.append(Scored(g, relevance, peak, centroid, sims))
    return out


def _norm(values: list[float]) -> list[float]:
    lo, hi = min(values, default=0.0), max(values, default=0.0)
    return [(v - lo) / (hi - lo) if hi > lo else 1.0 for v in values]


def choose_themes(
    scored: list[Scored],
    sentences: SentenceIndex,
    *,
    max_themes: int,
    quotes_per_theme: int,
    max_words: int,
    focus: float | None = None,
    heading_words: Callable[[Group], int] = lambda g: len(g.title.split()),
) -> Selection:
    """Themes for the answer, best first, with their sentences."""
    if not scored:
        return Selection([], 0.0, 0)
    if focus is None:
        focus = focus_of(max(s.peak for s in scored))
    rel = _norm([s.relevance for s in scored])
    top_weight = max(s.group.weight for s in scored) or 1.0
    base = [focus * r + (1 - focus) * s.group.weight / top_weight for r, s in zip(rel, scored)]
    best_relevance = max(s.relevance for s in scored)
    pool = [i for i, s in enumerate(scored)
            if focus * (best_relevance - s.relevance) <= RELEVANCE_MARGIN]
    chosen: list[int] = []
    themes: list[Theme] = []
    covered: set[str] = set()
    used_rows: set[int] = set()
    texts: list[str] = []
    words = 0

    def take(theme: Theme, rows: list[int]) -> None:
        theme.rows += rows
        for r in rows:
            used_rows.add(r)
            covered.add(sentences.document[r])
            texts.append(sentences.text(r))

    # first one sentence per theme, as many themes as fit (breadth: the corpus's themes)
    while pool and len(themes) < max_themes:
        def gain(i: int) -> float:
            s = scored[i]
            docs = {sentences.document[r] for r in s.group.rows.tolist()}
            bonus = COVERAGE_BONUS if docs - covered else 0.0
            like = max((float(s.centroid @ scored[j].centroid) for j in chosen), default=0.0)
            return base[i] + bonus - REDUNDANCY_PENALTY * max(0.0, like - 0.5)

        best = max(pool, key=lambda i: (gain(i), -i))
        pool.remove(best)
        s = scored[best]
        rows = _pick_sentences(s, sentences, focus, 1, covered, used_rows, texts)
        if not rows:
            continue
        cost = heading_words(s.group) + len(sentences.text(rows[0]).split())
        if words + cost > max_words and themes:
            break
        words += cost
        chosen.append(best)
        themes.append(Theme(s.group, [], s.relevance))
        take(themes[-1], rows)
    # then more sentences under each, in order, while the budget lasts (depth)
    for _ in range(quotes_per_theme - 1):
        for i, theme in zip(chosen, themes):
            more = _pick_sentences(scored[i], sentences, focus, 1, covered, used_rows, texts,
                                   after=theme.rows[0])
            cost = sum(len(sentences.text(r).split()) for r in more)
            if more and words + cost <= max_words:
                words += cost
                take(theme, more)
    return Selection(themes, focus, len(scored))


def _pick_sentences(s: Scored, sentences: SentenceIndex, focus: float, count: int,
                    covered: set[str], used: set[int], taken: list[str],
                    after: int | None = None) -> list[int]:
    """The group's best sentences: near the question (focused) or about the group
    (collection-wide: central to it, naming its key members, standing alone as a
    statement), a sentence of an uncited document first, none said already. `after`: the
    theme's first sentence; a further one must score within 0.5 of it."""
    rows = s.group.rows
    central = sentences.matrix[rows] @ s.centroid if len(rows) else np.zeros(0)
    near = _norm(s.sims.tolist())
    cent = _norm(central.tolist())
    about = _norm(sentences.aboutness(rows, s.group.members).tolist())
    score_of: dict[int, float] = {}
    for k, r in enumerate(rows.tolist()):
        text = sentences.text(r)
        quality = standalone(text, long=30)  # a theme line should be short
        score_of[r] = focus * near[k] + (1 - focus) * (0.3 * cent[k] + 0.7 * about[k]) * quality
    ranked = sorted((r for r in score_of if r not in used and len(sentences.text(r).split()) >= 4),
                    key=lambda r: (-score_of[r], r))
    floor = score_of[after] - 0.5 if after in score_of else None
    picked: list[int] = []
    seen_docs = set(covered)
    for _ in range(count):
        best = None
        for r in ranked[:40]:
            text = sentences.text(r)
            if r in picked or any(near_duplicate(text, t) for t in taken):
                continue
            if any(near_duplicate(text, sentences.text(p)) for p in picked):
                continue
            bonus = 0.15 * (1 - focus) if sentences.document[r] not in seen_docs else 0.0
            if best is None or score_of[r] + bonus > best[0]:
                best = (score_of[r] + bonus, r)
        if best is None or (floor is not None and score_of[best[1]] < floor):
            break
        picked.append(best[1])
        seen_docs.add(sentences.document[best[1]])
    return picked


# --- dynamic community selection --------------------------------------------------------

RelevanceTest = Callable[[list[Scored]], list[bool]]


def embedding_test(margin: float = RELEVANCE_MARGIN) -> Callable[[list[Scored], float, float], list[bool]]:
    """Relevant when relevance is within `margin` of the best seen so far, or always when
    the question is about the whole collection (focus below one half)."""

    def test(groups: list[Scored], best: float, focus: float) -> list[bool]:
        if focus < 0.5:
            return [True] * len(groups)
        return [g.relevance >= best - margin for g in groups]

    return test


def select_dynamic(
    roots: list[Group],
    children: Callable[[Group], list[Group]],
    sentences: SentenceIndex,
    q: np.ndarray,
    test: Callable[[list[Scored], float, float], list[bool]],
    *,
    budget: int,
) -> tuple[list[Scored], int, list[str], float]:
    """microsoft/graphrag's dynamic community selection: test the root communities, then
    descend into the most relevant (or, for a collection-wide question, the heaviest) of
    the relevant ones, replacing a community by its relevant sub-communities, until the
    budget of tests is spent. Returns the communities to answer from, tests spent, a
    trace, and the focus."""
    frontier = score_groups(roots, sentences, q)
    tests = len(frontier)
    if not frontier:
        return [], 0, [], 0.0
    focus = focus_of(max(s.peak for s in frontier))
    best = max(s.relevance for s in frontier)
    keep = test(frontier, best, focus)
    trace = [f"root: {sum(keep)} of {len(frontier)} relevant (focus {focus:.2f})"]
    frontier = [s for s, k in zip(frontier, keep) if k] or frontier
    done: set[str] = set()
    while tests < budget:
        open_ = [s for s in frontier if s.group.children and s.group.key not in done]
        if not open_:
            break
        rank = (lambda s: s.relevance) if focus >= 0.5 else (lambda s: s.group.weight)
        parent = max(open_, key=lambda s: (rank(s), s.group.key))
        done.add(parent.group.key)
        subs = score_groups(children(parent.group), sentences, q)
        if tests + len(subs) > budget:
            break
        tests += len(subs)
        best = max([best] + [s.relevance for s in subs])
        relevant = [s for s, k in zip(subs, test(subs, best, focus)) if k]
        if len(relevant) > 1 or (relevant and relevant[0].group.key != parent.group.key):
            frontier = [s for s in frontier if s is not parent] + relevant
            trace.append(f"{parent.group.title}: {len(relevant)} of {len(subs)} sub-communities relevant")
    return frontier, tests, trace, focus
