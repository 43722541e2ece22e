"""Batched decoding benchmark: the same independent requests decoded one after the other
(parallel 1) and as parallel sequences in one llama.cpp context, in one process.

    .venv/bin/python scripts/bench_batch.py ../shared/data/christmas_carol/a_christmas_carol.txt
    .venv/bin/python scripts/bench_batch.py TEXT --parallel 4,8 --requests 8 --max-tokens 150

Two workloads, both made from the text's first chunks: free-text summaries (generation
bound, like the element summaries of an abstractive build) and JSON community reports
under their grammar (like the reports stage). For each: seconds, aggregate generated tokens
per second (forced tokens included: they are part of the reply), the ratio to parallel 1,
forced tokens, and how many replies are identical to the sequential ones. Where a reply
differs, the script finds the first differing token and prints the gap between the two
best logits there in the sequential run: a near-tie that floating-point sums taken in
another order (a batch goes through other kernels) tipped the other way. Then the raw
decoding speed of 1, 4 and 8 sequences (no sampling), the ceiling of what batching gives
on this machine."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path


def workloads(text: str, n: int, max_tokens: int):
    from graphrag_local.models import Request
    from graphrag_local.models.structured import _grammar_of, report_model

    paragraphs = [p.strip() for p in text.split("\n\n") if len(p.split()) > 40][:n]
    while len(paragraphs) < n:
        paragraphs.append(paragraphs[len(paragraphs) % max(1, len(paragraphs))])
    summaries = [Request([{"role": "user", "content": f"Summarise this passage:\n\n{p[:1200]}"}],
                         None, max_tokens, "summarize") for p in paragraphs]
    grammar = _grammar_of(report_model(3, 200, 120))
    reports = [Request([{"role": "user", "content": "Write a JSON report about this passage, "
                         f"with a title, a summary, a rating and findings:\n\n{p[:1200]}"}],
                       grammar, max_tokens, "report") for p in paragraphs]
    return {"free-text summaries": summaries, "JSON reports (grammar)": reports}


def run(model, requests):
    model.complete_many(requests[:2])  # warm: contexts made
    before = len(model.calls)
    started = time.perf_counter()
    replies = model.complete_many(requests)
    seconds = time.perf_counter() - started
    calls = model.calls[before:]
    tokens = sum(c.completion_tokens + c.forced_tokens for c in calls)
    return replies, seconds, tokens, sum(c.forced_tokens for c in calls)


def divergence_gap(model, request, seq_reply_tokens, other_tokens) -> tuple[int, float]:
    """Where two replies part, and the sequential run's top-2 logit gap at that point."""
    import numpy as np

    k = next((i for i, (a, b) in enumerate(zip(seq_reply_tokens, other_tokens)) if a != b),
             min(len(seq_reply_tokens), len(other_tokens)))
    prompt, _ = model._tokens(request.messages)
    tokens = prompt + seq_reply_tokens[:k]
    model._llm.reset()
    model._llm.eval(tokens)
    lib = model._llama_cpp
    logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(model._llm._ctx.ctx, -1),
                                   shape=(model._llm.n_vocab(),))
    top = np.sort(logits)[-2:]
    return k, float(top[1] - top[0])


def raw_decode(model, counts=(1, 4, 8)) -> dict:
    from graphrag_local.models.decode import Job

    out = {}
    with model._batch_decoder() as d:
        lib = model._llama_cpp
        toks = model._llm.tokenize(b"The quick brown fox jumps over the lazy dog. " * 10)
        jobs = [Job(toks, None, 1, []) for _ in range(max(counts))]
        lib.llama_memory_seq_rm(d.mem, -1, 0, -1)
        for i, j in enumerate(jobs):
            j.seq = i
        d._decode([(jobs[0], toks, 0)])
        for i in range(1, len(jobs)):
            lib.llama_memory_seq_cp(d.mem, 0, i, 0, len(toks))
        for n in counts:
            if n > model.parallel:
                continue
            started = time.perf_counter()
            for step in range(16):
                d._decode([(jobs[i], [toks[3]], len(toks) + step) for i in range(n)])
            seconds = (time.perf_counter() - started) / 16
            out[n] = round(n / seconds, 1)
            for i in range(n):
                lib.llama_memory_seq_rm(d.mem, i, len(toks), -1)
        d.cached = []
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("text_file", type=Path)
    ap.add_argument("--parallel", default="4,8")
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=150)
    ap.add_argument("--model", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from graphrag_local.models.llama import LlamaChatModel
    from graphrag_local.models.presets import get_preset, require

    preset = get_preset(args.model)
    text = args.text_file.read_text(encoding="utf-8", errors="replace")
    levels = [int(x) for x in args.parallel.split(",")]
    result = {"model": preset.name, "requests": args.requests, "max_tokens": args.max_tokens,
              "workloads": {}}
    sequential = LlamaChatModel(preset=replace(preset, parallel=1), path=require(preset))
    models = {p: LlamaChatModel(preset=replace(preset, parallel=p), path=require(preset))
              for p in levels}
    for name, requests in workloads(text, args.requests, args.max_tokens).items():
        seq, seq_s, seq_tok, seq_forced = run(sequential, requests)
        rows = [{"parallel": 1, "seconds": round(seq_s, 1), "tokens": seq_tok,
                 "tok_s": round(seq_tok / seq_s, 1), "ratio": 1.0, "forced": seq_forced,
                 "identical": f"{len(seq)}/{len(seq)}"}]
        for p, model in models.items():
            replies, s, tok, forced = run(model, requests)
            same = sum(a == b for a, b in zip(seq, replies))
            gaps = []
            for req, a, b in zip(requests, seq, replies):
                if a != b:
                    ta = sequential._llm.tokenize(a.encode(), add_bos=False, special=False)
                    tb = sequential._llm.tokenize(b.encode(), add_bos=False, special=False)
                    gaps.append(divergence_gap(sequential, req, ta, tb))
            rows.append({"parallel": p, "seconds": round(s, 1), "tokens": tok,
                         "tok_s": round(tok / s, 1), "ratio": round((tok / s) / (seq_tok / seq_s), 2),
                         "forced": forced, "identical": f"{same}/{len(seq)}",
                         "divergence": [{"at_token": k, "top2_logit_gap": round(g, 3)}
                                        for k, g in gaps]})
        result["workloads"][name] = rows
    result["raw_decode_tok_s"] = raw_decode(models[max(levels)])
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{preset.name}: {args.requests} requests of up to {args.max_tokens} tokens each")
    for name, rows in result["workloads"].items():
        print(f"\n{name}")
        print("parallel  seconds  tokens  tok/s  ratio  forced  identical  divergence (token: top-2 gap)")
        for r in rows:
            div = ", ".join(f"{d['at_token']}: {d['top2_logit_gap']}" for d in r.get("divergence", []))
            print(f"{r['parallel']:>8}  {r['seconds']:>7}  {r['tokens']:>6}  {r['tok_s']:>5}  "
                  f"{r['ratio']:>5}  {r['forced']:>6}  {r['identical']:>9}  {div}")
    raw = result["raw_decode_tok_s"]
    print("\nraw decoding, tokens/s (no sampling): "
          + ", ".join(f"{n} sequence{'s' if n > 1 else ''}: {v}" for n, v in raw.items()))


if __name__ == "__main__":
    sys.exit(main())
