"""Pairwise LLM-as-judge, as in the paper: for every pair of conditions, every question
both answered and every criterion, the judge sees the two answers in both orders (to
cancel position bias) and replies A, B or TIE under a grammar. Per pair and criterion:
the win rate (a tie counts half), a bootstrap 95% interval over questions, and the judge's
consistency (how often the two orders agree). A judge near 50% consistency is noise, and
the tables say so rather than report a win rate as a finding."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

from ..models import ChatModel
from ..prompts import Prompts
from ..search.common import truncate_tokens

CRITERIA = {
    "comprehensiveness": "How much detail does the answer provide to cover all aspects and "
    "details of the question?",
    "diversity": "How varied and rich is the answer in providing different perspectives and "
    "insights on the question?",
    "empowerment": "How well does the answer help the reader understand and make informed "
    "judgements about the topic?",
    "directness": "How specifically and clearly does the answer address the question?",
}
VERDICT_GRAMMAR = 'root ::= "A" | "B" | "TIE"'
JUDGMENTS = "judgments.jsonl"
NOISE_CONSISTENCY = 0.6  # below this share of agreeing orders, a judge's verdicts are noise


@dataclass(frozen=True)
class Trial:
    """One judge call: `first` is shown as answer A, `second` as B."""

    question_id: str
    criterion: str
    first: str
    second: str

    @property
    def key(self) -> str:
        return f"{self.question_id}|{self.criterion}|{self.first}|{self.second}"


def schedule(answers: list[dict], criteria: list[str]) -> list[Trial]:
    """Every (question, pair of conditions, criterion), in both orders. Conditions keep
    their first-seen order; a question counts only where both conditions answered it."""
    conditions = list(dict.fromkeys(a["condition"] for a in answers))
    have = {(a["question_id"], a["condition"]) for a in answers}
    questions = list(dict.fromkeys(a["question_id"] for a in answers))
    trials = []
    for x, y in combinations(conditions, 2):
        for q in questions:
            if (q, x) in have and (q, y) in have:
                for c in criteria:
                    trials += [Trial(q, c, x, y), Trial(q, c, y, x)]
    return trials


def preferred(trial: Trial, verdict: str) -> str:
    """The condition a verdict prefers, or "TIE"."""
    return {"A": trial.first, "B": trial.second}.get(verdict, "TIE")


def run_judge(
    model: ChatModel,
    prompts: Prompts,
    answers: list[dict],
    out_dir: Path,
    criteria: list[str] | None = None,
    answer_tokens: int = 0,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> list[dict]:
    """Judge every scheduled trial not judged yet (judgments.jsonl resumes a run)."""
    criteria = criteria or list(CRITERIA)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / JUDGMENTS
    done = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
                done[d["key"]] = d
            except (ValueError, KeyError):
                continue
    by = {(a["question_id"], a["condition"]): a for a in answers}
    trials = schedule(answers, criteria)
    if not answer_tokens:  # two answers, the prompt and the verdict within n_ctx
        answer_tokens = max(100, (model.n_ctx - 400) // 2)
    todo = [t for t in trials if t.key not in done]
    with path.open("a", encoding="utf-8") as f:
        for i, t in enumerate(todo):
            progress(i, len(todo))
            a, b = by[(t.question_id, t.first)], by[(t.question_id, t.second)]
            prompt = prompts.render(
                "eval_judge", criterion=t.criterion, definition=CRITERIA[t.criterion],
                question=a["question"],
                answer_a=truncate_tokens(a["answer"], answer_tokens, model.count_tokens),
                answer_b=truncate_tokens(b["answer"], answer_tokens, model.count_tokens),
            )
            verdict = model.complete([{"role": "user", "content": prompt}],
                                     grammar=VERDICT_GRAMMAR, max_tokens=3, purpose="judge").strip()
            row = {**asdict(t), "key": t.key, "verdict": verdict, "preferred": preferred(t, verdict)}
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[t.key] = row
        progress(len(todo), len(todo))
    return [done[t.key] for t in trials]


def pair_scores(judgments: list[dict], x: str, y: str, criterion: str) -> dict[str, list[str]]:
    """question -> the two preferences (x, y or TIE) of its two orders."""
    out: dict[str, list[str]] = {}
    for j in judgments:
        if j["criterion"] == criterion and {j["first"], j["second"]} == {x, y}:
            out.setdefault(j["question_id"], []).append(j["preferred"])
    return out


def score_of(prefs: list[str], x: str) -> float:
    """x's score on one question: the mean over its orders of 1 (x preferred), 0.5 (tie)
    or 0 (the other preferred)."""
    return sum(1.0 if p == x else 0.5 if p == "TIE" else 0.0 for p in prefs) / len(prefs)


def bootstrap_ci(values: list[float], seed: int = 0, rounds: int = 2000) -> tuple[float, float]:
    """95% percentile interval of the mean, resampling questions (seeded)."""
    if not values:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(rounds))
    return (means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1])


def win_rates(judgments: list[dict], seed: int = 0) -> list[dict]:
    """One row per (criterion, pair of conditions): x's win rate over y and the rest."""
    conditions = list(dict.fromkeys(c for j in judgments for c in (j["first"], j["second"])))
    order = {c: i for i, c in enumerate(conditions)}
    pairs = sorted({tuple(sorted((j["first"], j["second"]), key=order.get)) for j in judgments},
                   key=lambda p: (order[p[0]], order[p[1]]))
    criteria = list(dict.fromkeys(j["criterion"] for j in judgments))
    rows = []
    for criterion in criteria:
        for x, y in pairs:
            per_q = pair_scores(judgments, x, y, criterion)
            if not per_q:
                continue
            scores = [score_of(p, x) for p in per_q.values()]
            both = [p for p in per_q.values() if len(p) == 2]
            lo, hi = bootstrap_ci(scores, seed)
            verdicts = [j for j in judgments if j["criterion"] == criterion
                        and {j["first"], j["second"]} == {x, y}]
            rows.append({
                "criterion": criterion, "x": x, "y": y, "questions": len(scores),
                "win_rate": round(sum(scores) / len(scores), 3),
                "ci_low": round(lo, 3), "ci_high": round(hi, 3),
                "x_wins": sum(s > 0.5 for s in scores), "y_wins": sum(s < 0.5 for s in scores),
                "ties": sum(s == 0.5 for s in scores),
                "consistency": round(sum(p[0] == p[1] for p in both) / len(both), 3) if both else None,
                "answer_a_rate": round(sum(j["verdict"] == "A" for j in verdicts) / len(verdicts), 3),
            })
    return rows


def judge_verdict(rows: list[dict]) -> str:
    """One sentence on whether the judge's verdicts mean anything."""
    cons = [r["consistency"] for r in rows if r["consistency"] is not None]
    if not cons:
        return "No pair was judged in both orders."
    mean = sum(cons) / len(cons)
    a_rate = sum(r["answer_a_rate"] for r in rows) / len(rows)
    if mean < NOISE_CONSISTENCY:
        return (f"The judge is noise: its two orders agree on {mean:.0%} of questions (chance "
                f"is about 33-50%) and it picks answer A {a_rate:.0%} of the time; these win "
                "rates say nothing about the conditions. Use a larger judge model (--judge).")
    return (f"The judge is consistent on {mean:.0%} of questions across the two orders "
            f"(picks answer A {a_rate:.0%} of the time).")


def markdown_table(rows: list[dict]) -> str:
    head = ("| criterion | X | Y | questions | X win rate | 95% CI | X wins / Y wins / ties "
            "| order consistency | answer A chosen |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        cons = "–" if r["consistency"] is None else f"{r['consistency']:.0%}"
        lines.append(
            f"| {r['criterion']} | {r['x']} | {r['y']} | {r['questions']} | {r['win_rate']:.0%} "
            f"| {r['ci_low']:.0%}–{r['ci_high']:.0%} | {r['x_wins']} / {r['y_wins']} / {r['ties']} "
            f"| {cons} | {r['answer_a_rate']:.0%} |"
        )
    return "\n".join(lines)


def heatmap(rows: list[dict], path: Path) -> Path | None:
    """The paper's win-rate figure: per criterion, row condition's win rate over column
    condition. Returns None (no picture) when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    criteria = list(dict.fromkeys(r["criterion"] for r in rows))
    conds = list(dict.fromkeys(c for r in rows for c in (r["x"], r["y"])))
    idx = {c: i for i, c in enumerate(conds)}
    fig, axes = plt.subplots(1, len(criteria), figsize=(3.2 * len(criteria) + 0.6, 3.4), squeeze=False)
    for ax, criterion in zip(axes[0], criteria):
        grid = [[float("nan")] * len(conds) for _ in conds]
        for r in (r for r in rows if r["criterion"] == criterion):
            grid[idx[r["x"]]][idx[r["y"]]] = 100 * r["win_rate"]
            grid[idx[r["y"]]][idx[r["x"]]] = 100 * (1 - r["win_rate"])
        ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100)
        for i in range(len(conds)):
            for j in range(len(conds)):
                if grid[i][j] == grid[i][j]:  # not NaN
                    ax.text(j, i, f"{grid[i][j]:.0f}", ha="center", va="center", fontsize=9)
        ax.set_xticks(range(len(conds)), conds)
        ax.set_yticks(range(len(conds)), conds)
        ax.set_title(criterion.capitalize(), fontsize=10)
    fig.suptitle("Win rate (%) of row condition over column condition", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
