"""Query benchmark: answer questions with each search method over a built index, in one
session (the model loaded once, as in `chat`), and print what each cost.

    .venv/bin/python scripts/bench_query.py graphrag_index
    .venv/bin/python scripts/bench_query.py graphrag_index --methods global,basic --level 0 \\
        --question "What are the main themes?" --question "Who funds the restoration?"

For each method: wall time, time to first answer token, retrieval time (embedding the
question and searching), map time, LLM calls (map calls for the map-reduce methods),
context tokens given, prompt tokens (and how many were reused from the KV cache),
generated tokens; then the one-time model and embedder load times and peak memory."""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

QUESTIONS = [
    "What are the main themes of these documents?",
    "Who are the key people and organisations, and how are they connected?",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("--methods", default="global,local,basic,ts,drift")
    ap.add_argument("--level", default=None, help='global search level (number or "auto")')
    ap.add_argument("--question", action="append", default=None, help="repeatable")
    ap.add_argument("--model", default=None)
    ap.add_argument("--config", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from graphrag_local import api
    from graphrag_local.query import result_dict

    session = api.open_session(args.index, config=args.config, model=args.model)
    t = time.perf_counter()
    model = session.model
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    session.embedder.embed(["warm up"])
    embedder_s = time.perf_counter() - t
    questions = args.question or QUESTIONS
    rows = []
    for method in args.methods.split(","):
        for q in questions:
            started = time.perf_counter()
            r = session.ask(q, method=method, level=args.level)
            d = result_dict(r, model.name)
            d["wall_seconds"] = round(time.perf_counter() - started, 2)
            rows.append(d)
    session.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    summary = []
    for method in args.methods.split(","):
        rs = [r for r in rows if r["method"] == method]
        first = [r["timings"].get("first_token_seconds") for r in rs]
        first = [x for x in first if x is not None]
        summary.append({
            "method": method,
            "level": rs[0]["level"],
            "questions": len(rs),
            "wall_s": round(statistics.mean(r["wall_seconds"] for r in rs), 2),
            "first_token_s": round(statistics.mean(first), 2) if first else None,
            "retrieval_s": round(statistics.mean(r["timings"].get("retrieval_seconds", 0) for r in rs), 2),
            "map_s": round(statistics.mean(r["timings"].get("map_seconds", 0) for r in rs), 2),
            "llm_calls": round(statistics.mean(r["llm_calls"] for r in rs), 1),
            "map_calls": round(statistics.mean(r["map_calls"] for r in rs), 1),
            "context_tokens": round(statistics.mean(r["context_tokens"] for r in rs)),
            "prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in rs)),
            "reused_tokens": round(statistics.mean(r["reused_prompt_tokens"] for r in rs)),
            "generated_tokens": round(statistics.mean(r["completion_tokens"] for r in rs)),
            "no_answer": sum(r["no_answer"] for r in rs),
        })
    result = {"index": str(args.index), "model": model.name, "n_ctx": model.n_ctx,
              "model_load_s": round(load_s, 2), "embedder_load_s": round(embedder_s, 2),
              "peak_memory_mb": round(peak_mb),
              "per_method_mean": summary, "answers": rows}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    print(f"index {args.index} · model {model.name} (n_ctx {model.n_ctx}) · model load "
          f"{load_s:.2f} s · embedder load {embedder_s:.2f} s · peak memory {peak_mb:.0f} MB · "
          f"{len(questions)} question(s), means (loads excluded):")
    cols = list(summary[0])
    widths = [max(len(c), *(len(str(s[c])) for s in summary)) for c in cols]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for s in summary:
        print("  ".join(str(s[c]).rjust(w) for c, w in zip(cols, widths)))


if __name__ == "__main__":
    sys.exit(main())
