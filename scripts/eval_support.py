"""The support check (graphrag_local/support.py) against sentences a writer wrote, labelled
by reading each beside the sentences it cites: does what it cites say everything it says?

    .venv/bin/python scripts/eval_support.py [LABELS.jsonl] [--judge PRESET] [--reread PRESET]

LABELS (default docs/eval_runs/writer_support_labels.jsonl): one object a line with
"sentence", "cited" (the cited sentences), "question" and "supported" (the label), and
"bound": false for a line written without the bound grammar (its word limit's cut test
does not apply).
docs/eval_runs/writer_rewrite_labels.jsonl holds 36 rewrites of lines the check had
dropped, each written once more from what the line cited, that passed the check (with the
first wording, why it was dropped, and a note on each): the check's precision on them is
why a dropped line is not rewritten.
Prints, for the support check (all cited sentences together) and for what answers use
(`line_checks.verdict`: no loop, garble or cut, and one cited sentence saying it all), how
many it kept and dropped of each label, its precision (kept sentences that are
supported) and recall (supported sentences it kept).
docs/eval_runs/writer_bound_labels.jsonl holds 91 lines the 1.5B wrote under the bound
grammar (Carol's themes, two questions on 12 stories, three on the podcast), each
labelled so, with a note on each false one. With --judge, the
same for a model asked YES/NO under a grammar, and for the check followed by that model
on the sentences the check drops for coverage only. With --reread (the writer that wrote
them, `qwen2.5-coder-1.5b`), the verdict and then the writer's reading of each line again
beside what it cites first, as answers drop (`checked.REREAD_TOKENS`)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from graphrag_local import support
from graphrag_local.search import checked, line_checks, replies

ROOT = Path(__file__).resolve().parents[1]
JUDGE = ("Check a statement against evidence taken from a document. Answer YES only if the "
         "evidence says everything the statement says: no fact, name, cause or opinion added, "
         "nobody swapped. Otherwise answer NO.\n\nEvidence:\n{evidence}\n\nStatement: {sentence}"
         "\n\nDoes the evidence say everything the statement says?")


def score(name: str, rows: list[dict], kept: list[bool]) -> None:
    tp = sum(k and r["supported"] for r, k in zip(rows, kept))
    fp = sum(k and not r["supported"] for r, k in zip(rows, kept))
    fn = sum(not k and r["supported"] for r, k in zip(rows, kept))
    tn = len(rows) - tp - fp - fn
    print(f"{name}: n {len(rows)}; kept {tp} supported + {fp} not; dropped {fn} supported + "
          f"{tn} not; precision {tp / max(1, tp + fp):.2f}, recall {tp / max(1, tp + fn):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("labels", nargs="?", type=Path,
                    default=ROOT / "docs" / "eval_runs" / "writer_support_labels.jsonl")
    ap.add_argument("--judge", help="a model preset to ask YES/NO as well")
    ap.add_argument("--reread", help="the writer preset that reads each line again "
                    "(`checked.REREAD_TOKENS`: what answers also drop)")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.labels.read_text(encoding="utf-8").splitlines()]
    verdicts = [support.check(r["sentence"], r["cited"], r["question"]) for r in rows]
    score("support check", rows, [v.ok for v in verdicts])
    # what answers use: not looping, garbled or cut, and one cited sentence saying it all
    answers = [line_checks.verdict(r["sentence"], r["cited"], r.get("bound", True))[0] for r in rows]
    score("line_checks.verdict (what answers use)", rows, answers)
    from graphrag_local import api

    if args.reread:  # and each line read again by the writer beside what it cites first
        model = api.open_chat_model(api.model_info(api.resolve_settings(None, args.reread)), 0)
        low = [replies.unlikely_again(model, r["sentence"], r["cited"][0]) for r in rows]
        score(f"line_checks.verdict, then read again by {args.reread}", rows,
              [ok and n < checked.REREAD_TOKENS for ok, n in zip(answers, low)])
    if not args.judge:
        return
    from graphrag_local.models.protocol import YES_NO_GRAMMAR

    model = api.open_chat_model(api.model_info(api.resolve_settings(None, args.judge)), 0)
    started, yes = time.perf_counter(), []
    for r in rows:
        prompt = JUDGE.format(evidence="\n".join(f"- {c}" for c in r["cited"]),
                              sentence=r["sentence"])
        reply = model.complete([{"role": "user", "content": prompt}], grammar=YES_NO_GRAMMAR,
                               max_tokens=2, purpose="judge")
        yes.append(reply.strip().startswith("YES"))
    score(f"{args.judge} YES/NO ({time.perf_counter() - started:.0f} s)", rows, yes)
    score("check, then YES/NO where it dropped for coverage", rows,
          [v.ok or (y and v.reason.startswith("coverage")) for v, y in zip(verdicts, yes)])


if __name__ == "__main__":
    main()
