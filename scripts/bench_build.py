"""Build throughput benchmark: index the first N tokens of a text file and print where
the time goes.

    .venv/bin/python scripts/bench_build.py ../shared/data/christmas_carol/a_christmas_carol.txt --tokens 8000

Prints wall time per stage, LLM calls, prompt tokens evaluated vs reused from the KV
cache, generated tokens, corpus tokens per second, peak memory, and the raw llama.cpp
prompt and generation speeds measured in the same process, with the ratio of ideal LLM
time (evaluated / prompt speed + generated / generation speed) to actual time."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path


def raw_speeds(preset_name: str | None) -> dict:
    """llama.cpp's own prompt and generation speed on this machine, no grammar, no cache."""
    from graphrag_local.llm import LlamaChatModel
    from graphrag_local.presets import get_preset, require

    preset = get_preset(preset_name)
    model = LlamaChatModel(preset=preset, path=require(preset))
    llm = model._llm
    words = ("the quick brown fox jumps over the lazy dog " * 80).encode()
    prompt = llm.tokenize(words)[:512]
    llm.reset()
    t = time.perf_counter()
    llm.eval(prompt)
    prompt_s = time.perf_counter() - t
    gen = 128
    t = time.perf_counter()
    n = 0
    for _token in llm.generate(prompt, temp=0.0, reset=False):
        n += 1
        if n >= gen:
            break
    gen_s = time.perf_counter() - t
    model.close()
    return {"prompt_tok_s": round(len(prompt) / prompt_s, 1), "gen_tok_s": round(n / gen_s, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("text_file", type=Path)
    ap.add_argument("--tokens", type=int, default=8000, help="first N cl100k tokens of the file")
    ap.add_argument("--model", default=None, help="model preset (default: models.toml default)")
    ap.add_argument("--index", type=Path, default=None, help="index folder (default: a temp dir)")
    ap.add_argument("--config", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from graphrag_local import api
    from graphrag_local.tokenizer import corpus_encoding

    enc = corpus_encoding()
    text = args.text_file.read_text(encoding="utf-8", errors="replace")
    tokens = enc.encode(text)[: args.tokens]
    work = Path(tempfile.mkdtemp(prefix="bench_build_"))
    docs = work / "docs"
    docs.mkdir()
    (docs / (args.text_file.stem + ".txt")).write_text(enc.decode(tokens), encoding="utf-8")
    index = args.index or work / "index"

    started = time.perf_counter()
    summary = api.build(docs, index, config=args.config, model=args.model)
    wall = time.perf_counter() - started
    speeds = raw_speeds(args.model)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    evaluated = summary["tokens_in"]
    generated = summary["tokens_out"]
    ideal = evaluated / speeds["prompt_tok_s"] + generated / speeds["gen_tok_s"]
    result = {
        "file": str(args.text_file),
        "corpus_tokens": len(tokens),
        "model": summary["model"],
        "chunks": summary["chunks"],
        "entities": summary["entities"],
        "relationships": summary["relationships"],
        "communities": summary["communities"],
        "reports": summary["reports"],
        "failures": summary["failures"],
        "wall_seconds": round(wall, 1),
        "stage_seconds": summary["stage_seconds"],
        "llm_calls": summary["llm_calls"],
        "llm_calls_by_stage": summary["llm_calls_by_stage"],
        "prompt_tokens_total": summary["prompt_tokens"],
        "prompt_tokens_evaluated": evaluated,
        "prompt_tokens_reused": summary["reused_prompt_tokens"],
        "generated_tokens": generated,
        "llm_seconds": summary["llm_seconds"],
        "corpus_tokens_per_second": round(len(tokens) / wall, 1),
        "peak_memory_mb": round(peak_mb),
        "raw_prompt_tok_s": speeds["prompt_tok_s"],
        "raw_gen_tok_s": speeds["gen_tok_s"],
        "ideal_llm_seconds": round(ideal, 1),
        "ideal_over_llm_time": round(ideal / summary["llm_seconds"], 3) if summary["llm_seconds"] else None,
        "ideal_over_wall_time": round(ideal / wall, 3),
        "index": str(index),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    sys.exit(main())
