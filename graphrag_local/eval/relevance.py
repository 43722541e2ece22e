"""How well a relevance test tells the communities that answer a question from the others,
for `graphrag-local eval relevance`: the area under the ROC curve (AUC; 0.5 is chance)
of each test's score on labelled (question, community) pairs.

Labels come from factual questions with gold answers: a community is relevant to a
question when its report (what the model's test reads) contains a gold answer. Tests:

- model: the preset's YES/NO (`search/selection.py`'s prompt and options), scored by the
  margin of YES over NO at the first token where they part, found by bisection on the
  bias that flips the choice (so any ChatModel, in-process or served, can be measured);
- embedding: the question's nearness to the community (`themes.score_groups`);
- graph: the community's weight (how much the corpus says about it), question-blind."""

from __future__ import annotations

import numpy as np

from ..search import themes
from ..search.selection import YES_NO, level_groups, report_text
from .facts import contains_gold


def auc(scores: list[float], labels: list[bool]) -> float | None:
    """Probability that a random relevant pair scores above a random irrelevant one
    (ties count half); None when either class is empty."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def yes_margin(model, prompt: str, lo: float = -30.0, hi: float = 30.0, steps: int = 12) -> float:
    """The model's margin of YES over NO (log-probability units at the first token where
    the options part): minus the bias on YES at which its choice flips, by bisection."""
    def picks_yes(bias: float) -> bool:
        return model.choose([prompt], YES_NO, bias=(bias, 0.0), purpose="relevance")[0] == 0

    if picks_yes(lo):
        return -lo
    if not picks_yes(hi):
        return -hi
    for _ in range(steps):
        mid = (lo + hi) / 2
        if picks_yes(mid):
            hi = mid
        else:
            lo = mid
    return -(lo + hi) / 2


def labelled_pairs(session, facts: list[dict], level: int) -> list[dict]:
    data = session.data
    groups = level_groups(data, session.sentences, level)
    pairs = []
    for f in facts:
        for g in groups:
            text = report_text(data, g.key)
            pairs.append({"question": f["question"], "community": g.key, "group": g,
                          "relevant": contains_gold(text, f["answers"])})
    return pairs


def measure(session, facts: list[dict], level: int = 0, with_model: bool = True,
            progress=lambda done, total: None) -> dict:
    pairs = labelled_pairs(session, facts, level)
    labels = [p["relevant"] for p in pairs]
    emb, weight, model_scores = [], [], []
    for i, p in enumerate(pairs):
        q = session.vector(p["question"])
        scored = themes.score_groups([p["group"]], session.sentences, q)
        emb.append(scored[0].relevance if scored else 0.0)
        weight.append(p["group"].weight)
        if with_model:
            prompt = session.prompts.render(
                "community_relevance", question=p["question"],
                report=report_text(session.data, p["community"])).rstrip()
            model_scores.append(yes_margin(session.model, prompt))
        progress(i + 1, len(pairs))
    result = {
        "pairs": len(pairs), "relevant": sum(labels), "questions": len(facts),
        "communities": len({p["community"] for p in pairs}), "level": level,
        "auc": {"embedding": _r(auc(emb, labels)), "graph": _r(auc(weight, labels))},
    }
    if with_model:
        result["auc"]["model"] = _r(auc(model_scores, labels))
        says_yes = [m > 0 for m in model_scores]
        result["model_says_yes"] = round(float(np.mean(says_yes)), 3) if says_yes else None
        result["model"] = session.model.name
    return result


def _r(x: float | None) -> float | None:
    return round(x, 3) if x is not None else None
