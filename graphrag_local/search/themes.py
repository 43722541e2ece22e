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
   One that no sentence matches closely may still tell groups apart ("Which documents
   are about music or film?"): as far as its best groups lead the others (`selectivity`),
   relevance ranks its groups and their sentences as focus would.
3. **Selection** by maximal marginal relevance: each next group scores its relevance
   (or weight, by focus), plus a bonus when the sentence it would quote comes from a
   document the answer does not cite yet, minus its likeness to the groups already
   chosen. A focused question keeps only groups near the best one: by relevance, or by
   holding a sentence nearly as near the question as the best sentence of all, with a
   wider margin when every document holds such a sentence (`peak_margin`: a question
   whose closest matches are spread over the corpus is answered from all of it).
4. **Sentences**: under each group, the one or two sentences that are nearest the
   question (focused) or most central to the group (collection-wide), a sentence of a
   document not cited yet first, no two alike, within the answer's word budget.

Measured on ten of the paper's podcast questions (`eval coverage`, ten episodes): the
sentence-level coverage bonus and the peak rule took global answers from 7.0 to 8.5
episodes cited on average, at the same length; on the corpus without its repeated text,
the spread margin took questions 1-10 from 7.5 to 8.0 (11-20: 9.0 to 9.1), facts equal.

Dynamic community selection (`select_dynamic`) starts at the root level and descends
into the relevant communities, within a budget of relevance tests; the test itself is
passed in (the embedding test here, or the model's YES/NO where it measures better)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from .. import garbles
from ..sentences import asks, near_duplicate, opens_with_pronoun, standalone, unlabelled, word_count
from .common import Citation
from .evidence import SentenceIndex, settled
from .line_checks import said_of

# nearness of a question's best sentence at which relevance starts / fully decides
FOCUS_LOW = 0.35
FOCUS_HIGH = 0.60
COVERAGE_BONUS = 0.35  # a group that brings an uncited document
REDUNDANCY_PENALTY = 0.3  # times a chosen group's likeness above 0.5
RELEVANCE_MARGIN = 0.12  # a focused question keeps groups this near the best one
UNCITED_SENTENCE_BONUS = 0.1  # a sentence of a document the answer does not cite yet
PRONOUN_WEIGHT = 0.6  # a sentence's quality as a group's line when it opens "He ..." (`_rank_sentences`)
# a sentence's quality as a group's line when it says nothing (`_says_nothing`): a formula
# (`evidence.formulaic`), or one that only names something ("Mickey Goldberg and Michael
# Shadlen.", a topic's quote in the podcast's answer on companies; Carol's heading "THE
# LAST OF THE SPIRITS": 60 of the podcast index's 6,434 sentences of four words or more,
# 13 of Carol's 1,835)
FORMULA_WEIGHT = 0.05
# a reply's first sentence that says something is the answer to a question (`_answer`)
# unless a later one of its turn is this much nearer the question: "JUDY ESTRIN: I was on
# the design team of the Z8 and Z8000." (0.35) before "I was part of the software group."
# (0.38); "Whenever humanity creates a technology as powerful ... as AI, we owe it to
# ourselves ... to make it right." (0.57) after "FEI-FEI LI: Well, Kevin, that's a big
# topic." (0.42)
REPLY_FIRST = 0.1
PEAK_MARGIN = 0.08  # ... and groups holding a sentence this near its best sentence
SPREAD_DOCUMENTS = 4  # documents needed before a question's matches can be called spread
SPREAD_MARGIN = 0.15  # the median document's best sentence this near the best: spread,
# and then groups holding a sentence this near the best sentence are kept
# how far the three most relevant groups lead the median one for relevance to start / fully
# to rank a question's groups however unfocused it is (`selectivity`)
SELECTIVE_LOW = 0.13
SELECTIVE_HIGH = 0.20
SELECTIVE_GROUPS = 20  # groups needed before a median says anything


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
    peak: float  # nearness of its nearest sentence (unlifted: `SentenceIndex.plain_similarity`)
    centroid: np.ndarray
    sims: np.ndarray  # nearness of each of its rows to the question
    plain: float = 0.0  # its relevance unlifted (`selectivity`)


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
    selective: float = 0.0  # how far relevance told the groups apart (`selectivity`)
    tests: int = 0  # relevance tests spent (dynamic selection)
    trace: list[str] = field(default_factory=list)  # how dynamic selection went


@dataclass(frozen=True)
class Bar:
    """The best relevance and the best single sentence's nearness seen so far, and how
    far below that sentence a group's nearest one may be (`peak_margin`)."""

    relevance: float
    peak: float
    margin: float = PEAK_MARGIN

    @staticmethod
    def of(scored: list[Scored], before: Bar | None = None, margin: float | None = None) -> Bar:
        rel = max([s.relevance for s in scored] + ([before.relevance] if before else []))
        peak = max([s.peak for s in scored] + ([before.peak] if before else []))
        if margin is None:
            margin = before.margin if before else PEAK_MARGIN
        return Bar(rel, peak, margin)


def near_best(s: Scored, bar: Bar, focus: float) -> bool:
    """Whether a focused question keeps group `s`: its relevance is near the best one's,
    or it holds a sentence nearly as near the question as the best sentence of all (a
    question whose closest matches are spread over many groups, "how often is AI
    discussed?", is answered from all of them, not from the one whose centroid wins;
    how near is `peak_margin`)."""
    return (focus * (bar.relevance - s.relevance) <= RELEVANCE_MARGIN
            or s.peak >= bar.peak - bar.margin)


def peak_margin(sentences: SentenceIndex, q: np.ndarray) -> float:
    """How far below the best sentence a group's nearest sentence may be for a focused
    question to keep it: `PEAK_MARGIN`, or the wider `SPREAD_MARGIN` when the question's
    matches are spread over the collection: the median document's nearest sentence is
    within `SPREAD_MARGIN` of the best document's. Measured with all-MiniLM-L6-v2 on ten
    podcast episodes: the best document leads the median one by 0.00-0.19 on the paper's
    twenty collection-wide questions, and by 0.28-0.41 on twelve factual ones (one
    episode holds each answer). Needs `SPREAD_DOCUMENTS` documents: with fewer, a median
    says nothing. Read from the nearness before any lift (`plain_similarity`), as the
    groups' peaks it is compared with are."""
    if len(sentences) == 0:
        return PEAK_MARGIN
    docs, codes = np.unique(np.asarray(sentences.document, dtype=object), return_inverse=True)
    if len(docs) < SPREAD_DOCUMENTS:
        return PEAK_MARGIN
    best = np.full(len(docs), -np.inf, dtype=np.float32)
    np.maximum.at(best, codes, sentences.plain_similarity(q).astype(np.float32))
    spread = float(best.max()) - float(np.median(best)) <= SPREAD_MARGIN
    return SPREAD_MARGIN if spread else PEAK_MARGIN


def focus_of(peak: float) -> float:
    """0 (the question is about the whole collection) .. 1 (relevance decides)."""
    return float(np.clip((peak - FOCUS_LOW) / (FOCUS_HIGH - FOCUS_LOW), 0.0, 1.0))


def selectivity(scored: list[Scored]) -> float:
    """0 .. 1: how far a question tells the groups apart though no sentence may match it closely:
    the mean relevance of its three most relevant groups above the median group's
    (`SELECTIVE_LOW` to `SELECTIVE_HIGH`), where there are `SELECTIVE_GROUPS` or more.
    "Which documents are about music or film?" over 24 Wikipedia articles (the first of
    Re-DocRED's dev set) has no sentence near it (focus 0), so the heaviest groups answered
    it, a trade agreement and Casanova's lover first; its three best groups (the film, the
    album, the songwriter) lead the median by 0.22. Measured with all-MiniLM-L6-v2 on the
    question as answered (lexical fuse), without the lifts of a question asking for a name
    or an amount, as focus is (`Scored.plain`; lifted, a "which" question's groups could
    lead by the lift alone): "which organisations are described?" 0.13, "which politicians
    appear?" 0.15, "which people are athletes, and what did they win?" 0.18; the podcast's
    "Do any guests frequently mention specific companies or startups ...?" 0.19, "Which
    areas of technology development ...?" 0.27. Such a question's groups and their sentences
    are ranked by relevance that much (`choose_themes`), and a document the answer does not
    cite yet counts for less where its group says little of what is asked. A question asking
    only of the whole collection ("What are the main themes?") is not measured
    (`language.whole`): its frame words lead too (over the podcasts "What are the main
    themes?" by 0.20, a guest's talk of science fiction's themes first)."""
    if len(scored) < SELECTIVE_GROUPS:
        return 0.0
    rel = np.sort(np.array([s.plain for s in scored], dtype=np.float64))[::-1]
    lead = float(settled(float(rel[:3].mean()) - float(np.median(rel))))
    return float(np.clip((lead - SELECTIVE_LOW) / (SELECTIVE_HIGH - SELECTIVE_LOW), 0.0, 1.0))


def score_groups(groups: list[Group], sentences: SentenceIndex, q: np.ndarray) -> list[Scored]:
    out = []
    for g in groups:
        if len(g.rows) == 0:
            continue
        sims = sentences.similarity(q, g.rows)
        plain = sentences.plain_similarity(q, g.rows)  # (unlifted: focus, selectivity)
        centroid = sentences.centroid(g.rows)
        qn = q / max(float(np.linalg.norm(q)), 1e-12)
        near = float(centroid @ qn)
        out.append(Scored(g, _relevance(near, sims), float(np.max(plain)), centroid, sims,
                          _relevance(near, plain)))
    return out


def _relevance(centroid_nearness: float, sims: np.ndarray) -> float:
    """A group's relevance: the question's nearness to its centroid and the mean nearness
    of its two nearest sentences, averaged."""
    return float(settled(0.5 * centroid_nearness + 0.5 * float(np.sort(sims)[::-1][:2].mean())))


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
    margin: float = PEAK_MARGIN,
    heading_words: Callable[[Group], int] = lambda g: word_count(g.title),
    whole: bool = False,
) -> Selection:
    """Themes for the answer, best first, with their sentences (`margin`: the question's
    `peak_margin`; `whole`: the question asks of the whole collection, `language.whole`,
    so neither focus nor selectivity is measured: both are 0)."""
    if not scored:
        return Selection([], 0.0, 0)
    if whole:
        focus = 0.0
    if focus is None:
        focus = focus_of(max(s.peak for s in scored))
    selective = 0.0 if whole else selectivity(scored)
    ranks = max(focus, selective)  # how much relevance ranks groups and their sentences
    rel = _norm([s.relevance for s in scored])
    top_weight = max(s.group.weight for s in scored) or 1.0
    base = [ranks * r + (1 - ranks) * s.group.weight / top_weight for r, s in zip(rel, scored)]
    bar = Bar.of(scored, margin=margin)
    pool = [i for i, s in enumerate(scored) if near_best(s, bar, focus)]
    chosen: list[int] = []
    themes: list[Theme] = []
    covered: set[str] = set()
    used_rows: set[int] = set()
    texts: list[str] = []
    words = 0
    ranked: dict[int, list[tuple[float, int]]] = {}

    def ranking(i: int) -> list[tuple[float, int]]:
        if i not in ranked:
            ranked[i] = _rank_sentences(scored[i], sentences, ranks)
        return ranked[i]

    def pick(i: int, after: int | None = None) -> int | None:
        return _pick_sentence(ranking(i), sentences, ranks, covered, used_rows, texts, after)

    def take(theme: Theme, row: int) -> None:
        theme.rows.append(row)
        used_rows.add(row)
        covered.add(sentences.document[row])
        texts.append(sentences.text(row))

    # first one sentence per theme, as many themes as fit (breadth: the corpus's themes)
    while pool and len(themes) < max_themes:
        firsts = {i: pick(i) for i in pool}

        def gain(i: int, firsts: dict[int, int | None] = firsts) -> float:
            s, row = scored[i], firsts[i]
            bonus = COVERAGE_BONUS if sentences.document[row] not in covered else 0.0
            bonus *= 1 - selective * (1 - rel[i])  # (a document with nothing to say of it)
            like = max((float(s.centroid @ scored[j].centroid) for j in chosen), default=0.0)
            return base[i] + bonus - REDUNDANCY_PENALTY * max(0.0, like - 0.5)

        # a group has nothing to show when it holds no sentence left, or, where no sentence
        # answers the question closely (focus below one half), when its best one says
        # nothing (`_says_nothing`): the podcast's community of two names whose one
        # sentence is "Mickey Goldberg and Michael Shadlen." was a topic of the answer on
        # companies and startups (focus 0.29). A close question may be answered so ("Who
        # were his collaborators?")
        pool = [i for i in pool if firsts[i] is not None
                and not (focus < 0.5 and _says_nothing(sentences, firsts[i]))]
        if not pool:
            break
        best = max(pool, key=lambda i: (settled(gain(i)), -i))
        pool.remove(best)
        s, row = scored[best], firsts[best]
        cost = heading_words(s.group) + word_count(sentences.quoted(row))  # as shown
        if words + cost > max_words and themes:
            break
        words += cost
        chosen.append(best)
        themes.append(Theme(s.group, [], s.relevance))
        take(themes[-1], row)
    # then more sentences under each, in order, while the budget lasts (depth)
    for _ in range(quotes_per_theme - 1):
        for i, theme in zip(chosen, themes):
            more = pick(i, after=theme.rows[0])
            if more is None:
                continue
            cost = word_count(sentences.quoted(more))
            if words + cost <= max_words:
                words += cost
                take(theme, more)
    return Selection(themes, focus, len(scored), selective)


def _says_nothing(sentences: SentenceIndex, row: int) -> bool:
    """Whether the sentence is a formula or only names something, past a speaker's label
    (`garbles.names_only`): a group whose best sentence is one says nothing that a
    collection-wide answer could show of it."""
    return bool(sentences.formulaic()[row]) or garbles.names_only(unlabelled(sentences.text(row)))


def _rank_sentences(s: Scored, sentences: SentenceIndex, focus: float) -> list[tuple[float, int]]:
    """The group's sentences of four words or more, best first, with their scores: near the
    question (focused) or about the group (collection-wide: central to it, naming its key
    members, standing alone as a statement, not a formula the documents all say)."""
    rows = s.group.rows
    central = sentences.matrix[rows] @ s.centroid if len(rows) else np.zeros(0)
    near = _norm(s.sims.tolist())
    cent = _norm(central.tolist())
    about = _norm(sentences.aboutness(rows, s.group.members).tolist())
    best: dict[int, float] = {}
    for k, r in enumerate(rows.tolist()):
        # a question a transcript's guest answers is said by the answer, in its place
        r = _answer(sentences, r)
        text = sentences.text(r)
        if word_count(unlabelled(text)) < 4:  # a speaker's label says nothing of the group
            continue
        quality = standalone(text, long=30)  # a theme line should be short
        if opens_with_pronoun(text):  # says of whom only beside the sentence before it
            quality *= PRONOUN_WEIGHT
        if _says_nothing(sentences, r):  # a greeting the documents all say, a list of names
            quality *= FORMULA_WEIGHT
        score = focus * near[k] + (1 - focus) * (0.3 * cent[k] + 0.7 * about[k]) * quality
        best[r] = max(score, best.get(r, score))
    return sorted(((sc, r) for r, sc in best.items()), key=lambda x: (-settled(x[0]), x[1]))


def _subjects(text: str) -> frozenset[str]:
    """What a sentence speaks of, its speaker's label aside: its content words
    (`line_checks.said_of`) but the fillers of speech (`_FILLERS`), and the words it
    writes in capitals ("AI")."""
    text = unlabelled(text)
    return (said_of(text) - _FILLERS) | frozenset(w.lower() for w in _CAPITALS.findall(text))


_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")
# words of speech that say nothing of its topic, by their first five letters as `said_of`
# gives them: "KEVIN SCOTT: So, you mean like the dogs from the Pixar film Up?" is not
# answered by "CHRISTINA WARREN: Yes, yes, yes, the small mailman smells like chocolate."
_FILLERS = frozenset(w[:5] for w in """like yeah yes mean know think really sort kind just okay
well actually thing things stuff guess right""".split())


def _answer(sentences: SentenceIndex, row: int) -> int:
    """The row, or where it is a question another speaker answers in the turn after it
    (`SentenceIndex.reply`), that turn's sentence nearest the question among those that say
    something of what it asks: four words of their own, not asking, not a formula, and a
    word of the question's (`_subjects`; not "I'm blanking on his name, but yeah, that's
    absolutely true.", nor the co-host's "Okay, so, I think that we need to wrap up for
    today." after a question of the host's). Of the podcast's ten quoted answers' 116
    lines, 8 were the hosts' questions ("KEVIN SCOTT: So, speaking of this big change in the
    industry, what are the big changes that you've seen ... at Pixar over your tenure
    there?") where what is said of the topic is the guest's reply ("DANIELLE FEINBERG:
    Well, I think at Pixar, a lot of it's about the technology and continuing to push it and
    see what you can do."); 1 is now, a long one the co-host follows with that sign-off."""
    asked = _subjects(sentences.text(row))
    turn = [r for r in sentences.reply(row)
            if word_count(unlabelled(sentences.text(r))) >= 4 and not asks(sentences.text(r))
            and not _says_nothing(sentences, r) and _subjects(sentences.text(r)) & asked]
    if not turn:
        return row
    near = (sentences.matrix[turn] @ sentences.matrix[row]).tolist()
    near[0] += REPLY_FIRST  # the turn's first words answer, unless a later sentence is nearer
    score = [n * standalone(sentences.text(r), long=30) for r, n in zip(turn, near)]
    return turn[max(range(len(turn)), key=lambda k: (settled(score[k]), -k))]


def _pick_sentence(ranked: list[tuple[float, int]], sentences: SentenceIndex, focus: float,
                   covered: set[str], used: set[int], taken: list[str],
                   after: int | None = None) -> int | None:
    """The group's best sentence not said already: of its 40 best unused ones, the top
    score with a bonus for a document the answer does not cite yet (larger for a
    collection-wide question). `after`: the theme's first sentence; a further one must
    score within 0.5 of it."""
    score_of = dict((r, sc) for sc, r in ranked) if after is not None else {}
    floor = score_of[after] - 0.5 if after in score_of else None
    best = None
    seen = 0
    for sc, r in ranked:
        if r in used:
            continue
        seen += 1
        if seen > 40:
            break
        text = sentences.text(r)
        if any(near_duplicate(text, t) for t in taken):
            continue
        bonus = (UNCITED_SENTENCE_BONUS + 0.1 * (1 - focus)) if sentences.document[r] not in covered else 0.0
        if best is None or sc + bonus > best[0]:
            best = (sc + bonus, r, sc)
    if best is None or (floor is not None and best[2] < floor):
        return None
    return best[1]


def report_rows(group: Group, sentences: SentenceIndex, count: int, max_words: int) -> list[int]:
    """A group's own evidence, the same whatever is asked: its `count` sentences most about
    it (central to it, naming its key members, standing alone: `_rank_sentences` at focus
    0), a sentence of a document not yet among them first, no two alike, within
    `max_words`; after the first, while a name its heading says is said by none of them,
    the best of those naming it (`_title_members`), as the build's extractive reports cover
    their members (`stages.findings.pick`). Carol's "Tiny Tim, Bob Cratchit and Christmas
    Day" was written from four sentences of Bob and Tiny Tim, and its topic named no
    Christmas Day. A written report of the group is written from these (`written.py`), so
    every question that reaches the group reads the one report, written once."""
    if not len(group.rows):
        return []
    own = Scored(group, 0.0, 0.0, sentences.centroid(group.rows),
                 np.zeros(len(group.rows), dtype=np.float32))
    ranked = _rank_sentences(own, sentences, 0.0)
    titled = _title_members(group)
    rows: list[int] = []
    texts: list[str] = []
    covered: set[str] = set()
    words = 0
    while len(rows) < count:
        said = {n for r in rows for n in sentences.entities[r]}
        unsaid = [m for m in titled if m not in said] if rows else []  # (the first: the best)
        row = None
        for name in unsaid:
            naming = [(sc, r) for sc, r in ranked if name in sentences.entities[r]]
            if (row := _pick_sentence(naming, sentences, 0.0, covered, set(rows), texts)) is not None:
                break
        if row is None:
            row = _pick_sentence(ranked, sentences, 0.0, covered, set(rows), texts)
        if row is None or (rows and words + word_count(sentences.text(row)) > max_words):
            break
        rows.append(row)
        texts.append(sentences.text(row))
        covered.add(sentences.document[row])
        words += word_count(texts[-1])
    return rows


def _title_members(group: Group) -> list[str]:
    """The members a group's heading says, in its order (a community's report title: its
    most connected names, `stages.findings.title_of`; a thread's hub and member)."""
    found = []
    for m in group.members or ():
        hit = re.search(rf"(?<!\w){re.escape(m)}(?!\w)", group.title)
        if hit:
            found.append((hit.start(), m))
    return [m for _, m in sorted(found)]


def as_reports(selection: Selection, sentences: SentenceIndex, count: int,
               max_words: int) -> Selection:
    """The selection with each theme's sentences its own evidence (`report_rows`) in place
    of those chosen for the question: a collection-wide question's topics written as the
    groups' reports. A theme whose evidence is mostly an earlier one's (a community and its
    parent) is left out: it would be written twice."""
    themes: list[Theme] = []
    seen: set[int] = set()
    for t in selection.themes:
        rows = report_rows(t.group, sentences, count, max_words) or t.rows
        if 2 * len(seen.intersection(rows)) > len(rows):
            continue
        seen.update(rows)
        themes.append(Theme(t.group, rows, t.relevance))
    return replace(selection, themes=themes)


# --- dynamic community selection --------------------------------------------------------

RelevanceTest = Callable[[list[Scored], Bar, float], list[bool]]


def embedding_test() -> RelevanceTest:
    """Relevant when near the best seen so far (`near_best`, as if fully focused), or
    always when the question is about the whole collection (focus below one half)."""

    def test(groups: list[Scored], bar: Bar, focus: float) -> list[bool]:
        if focus < 0.5:
            return [True] * len(groups)
        return [near_best(g, bar, 1.0) for g in groups]

    return test


def select_dynamic(
    roots: list[Group],
    children: Callable[[Group], list[Group]],
    sentences: SentenceIndex,
    q: np.ndarray,
    test: RelevanceTest,
    *,
    budget: int,
    splits: Callable[[Group], bool] = lambda g: False,
    focus: float | None = None,
) -> tuple[list[Scored], int, list[str], float]:
    """microsoft/graphrag's dynamic community selection: test the root communities, then
    descend into the most relevant (or, for a collection-wide question, the heaviest) of
    the relevant ones, replacing a community by its relevant sub-communities, until the
    budget of tests is spent. Returns the communities to answer from, tests spent, a
    trace, and the focus (`focus`, where given, is the question's, not measured: 0 for one
    asking of the whole collection, `language.whole`)."""
    frontier = score_groups(roots, sentences, q)
    tests = len(frontier)
    if not frontier:
        return [], 0, [], 0.0
    if focus is None:
        focus = focus_of(max(s.peak for s in frontier))
    bar = Bar.of(frontier, margin=peak_margin(sentences, q))
    keep = test(frontier, bar, focus)
    trace = [f"root: {sum(keep)} of {len(frontier)} relevant (focus {focus:.2f})"]
    frontier = [s for s, k in zip(frontier, keep) if k] or frontier
    done: set[str] = set()
    while tests < budget:
        open_ = [s for s in frontier
                 if (s.group.children or splits(s.group)) and s.group.key not in done]
        if not open_:
            break
        rank = (lambda s: s.relevance) if focus >= 0.5 else (lambda s: s.group.weight)
        parent = max(open_, key=lambda s: (rank(s), s.group.key))
        done.add(parent.group.key)
        subs = score_groups(children(parent.group), sentences, q)
        if tests + len(subs) > budget:
            break
        tests += len(subs)
        bar = Bar.of(subs, bar)
        relevant = [s for s, k in zip(subs, test(subs, bar, focus)) if k]
        if len(relevant) > 1 or (relevant and relevant[0].group.key != parent.group.key):
            frontier = [s for s in frontier if s is not parent] + relevant
            trace.append(f"{parent.group.title}: {len(relevant)} of {len(subs)} sub-communities relevant")
    return frontier, tests, trace, focus
