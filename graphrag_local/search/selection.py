"""Which communities a global question is answered from: those of one level, or those
that dynamic community selection reaches from the root (`themes.select_dynamic`), and the
relevance test it uses: the embedder's (nearness, see `themes.py`) or the model's YES or
NO under a grammar. Which test a preset gets is measured, not assumed (`eval
relevance`): the embedded presets' YES/NO is at chance there, so they use the embedder;
abstractive presets (3B-8B models) use the model."""

from __future__ import annotations

import numpy as np

from ..models import ChatModel
from ..prompts import Prompts
from .common import IndexData
from .evidence import SentenceIndex
from .extractive import community_groups, threads
from .themes import Bar, Group, RelevanceTest, Scored, embedding_test, score_groups, select_dynamic

YES_NO = (" YES", " NO")


def report_text(data: IndexData, community_id: str, max_chars: int = 1200) -> str:
    r = data.report_by_community[community_id.split("#")[0]]  # a thread: its community's
    return r.full_content[:max_chars]


def model_test(model: ChatModel, prompts: Prompts, question: str, data: IndexData,
               bias: float = 0.0) -> RelevanceTest:
    """The model decides: YES or NO per community report (`bias` favours YES)."""

    def test(groups: list[Scored], bar: Bar, focus: float) -> list[bool]:
        asks = [prompts.render("community_relevance", question=question,
                               report=report_text(data, g.group.key)).rstrip() for g in groups]
        picks = model.choose(asks, YES_NO, bias=(bias, 0.0), purpose="relevance") if asks else []
        return [p == 0 for p in picks]

    return test


def level_groups(data: IndexData, sentences: SentenceIndex, level: int) -> list[Group]:
    ids = [r.id for r in data.reports if r.level == level]
    return community_groups(data, sentences, ids)


def select_communities(
    data: IndexData, sentences: SentenceIndex, q: np.ndarray, level: int | None, *,
    test: RelevanceTest | None, budget: int, max_members: int = 10**9,
    whole: bool = False,
) -> tuple[list[Scored], int, list[str], float | None]:
    """The communities to answer from, scored: a level's (`level` given) or those dynamic
    selection reaches (`level` None), a community larger than `max_members` that the build
    could not split reached through its threads (`extractive.threads`); `whole`: the
    question asks of the whole collection (`language.whole`: focus 0, not measured).
    Returns (scored, tests spent, trace, focus or None)."""
    if level is not None:
        return score_groups(level_groups(data, sentences, level), sentences, q), 0, [], None
    roots = level_groups(data, sentences, min(data.levels))

    def children(g: Group) -> list[Group]:
        subs = community_groups(data, sentences, list(g.children))
        if all(s.members == g.members for s in subs):  # none, or itself carried down
            return threads(g, sentences, max_members) or subs
        return subs

    return select_dynamic(roots, children, sentences, q, test or embedding_test(),
                          budget=budget, splits=lambda g: len(g.members or ()) > max_members,
                          focus=0.0 if whole else None)
