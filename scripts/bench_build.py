"""Build throughput benchmark: index the first N tokens of a text file and print where
the time goes.

    .venv/bin/python scripts/bench_build.py ../shared/data/christmas_carol/a_christmas_carol.txt --tokens 8000
    .venv/bin/python scripts/bench_build.py TEXT --tokens 8000 --content abstractive --parallel 1,8
    .venv/bin/python scripts/bench_build.py samples/corpus        # a folder: all of it
    .venv/bin/python scripts/bench_build.py /tmp/line/one_line.txt --tokens 0 --method fast \
        --embedder hash                   # memory on 10 MB on one line (scripts/hostile_line.py)

Prints wall time per stage, LLM calls, prompt tokens evaluated vs reused from the KV
cache, generated and forced tokens, corpus tokens per second, peak memory (RSS) in all and
after each stage, and llama.cpp's raw speeds measured the way its own llama-bench does
(pp512: one batch of 512 prompt tokens; tg128: 128 single-token decodes; no sampling), with the efficiency ideal / actual,
where ideal = evaluated / pp + generated / tg. With several `--parallel` values the build
runs once per value, each on a fresh index, and the time saved per stage is printed."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path


def raw_speeds(preset_name: str | None) -> dict:
    """llama.cpp's own prompt and generation speed on this machine (llama-bench's pp512
    and tg128): decodes only, no sampling, no grammar, no cache reuse."""
    from graphrag_local.models.decode import Job
    from graphrag_local.models.llama import LlamaChatModel
    from graphrag_local.models.presets import get_preset, require

    preset = get_preset(preset_name)
    model = LlamaChatModel(preset=preset, path=require(preset))
    llm, d = model._llm, model._decoder
    words = ("the quick brown fox jumps over the lazy dog " * 80).encode()
    prompt = llm.tokenize(words)[:512]
    job = Job(prompt, None, 1, [])
    clear = model._llama_cpp.llama_memory_seq_rm

    def pp() -> float:
        clear(d.mem, -1, 0, -1)
        t = time.perf_counter()
        d._decode([(job, prompt, 0)])
        return time.perf_counter() - t

    def tg() -> float:
        clear(d.mem, -1, 0, -1)
        t = time.perf_counter()
        for i in range(128):
            d._decode([(job, [prompt[i % 50]], i)])
        return time.perf_counter() - t

    pp(), tg()  # warm-up, as llama-bench does; then the median of 3 repetitions
    prompt_s = sorted(pp() for _ in range(3))[1]
    gen_s = sorted(tg() for _ in range(3))[1]
    model.close()
    return {"prompt_tok_s": round(len(prompt) / prompt_s, 1), "gen_tok_s": round(128 / gen_s, 1)}


class HashEmbedder:
    """`--embedder hash`: MiniLM's shape (384 float32 dims, unit rows) at no compute cost,
    to measure the pipeline's own memory and time on inputs MiniLM would take an hour on.
    Its vectors mean nothing: never query such an index."""

    name, dim = "hash (benchmark only)", 384

    def __init__(self, batch_size: int = 32):
        pass

    def embed(self, texts):
        import hashlib

        import numpy as np

        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_once(docs: Path, index: Path, args, parallel: int | None) -> tuple[dict, float, float]:
    from graphrag_local import api

    config = args.config
    if parallel is not None or args.content:
        config = index.parent / f"bench_{parallel}.toml"
        lines = [f'content = "{args.content}"'] if args.content else []
        lines += [f"parallel = {parallel}"] if parallel is not None else []
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stages: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        stages[stage] = round(peak_mb())  # the peak so far, once the stage's last unit is done

    started = time.perf_counter()
    summary = api.build(docs, index, config=config, model=args.model, method=args.method,
                        progress=progress)
    wall = time.perf_counter() - started
    summary["peak_mb_by_stage"] = stages
    return summary, wall, peak_mb()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("text_file", type=Path)
    ap.add_argument("--tokens", type=int, default=8000, help="first N cl100k tokens of the file")
    ap.add_argument("--model", default=None, help="model preset (default: models.toml default)")
    ap.add_argument("--method", default=None, help="standard or fast")
    ap.add_argument("--content", default="", help="extractive or abstractive (default: the preset's)")
    ap.add_argument("--parallel", default="", help="comma list: build once per value and compare")
    ap.add_argument("--index", type=Path, default=None, help="index folder (default: a temp dir)")
    ap.add_argument("--config", type=Path, default=None)
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "hash"],
                    help="hash: no MiniLM (memory and time of the pipeline itself)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.embedder == "hash":
        import graphrag_local.models.embed

        graphrag_local.models.embed.MiniLMEmbedder = HashEmbedder
    start_mb = peak_mb()

    from graphrag_local.tokenizer import corpus_encoding

    enc = corpus_encoding()
    work = Path(tempfile.mkdtemp(prefix="bench_build_"))
    if args.text_file.is_dir():  # a folder of documents, built as it is
        docs = args.text_file
        tokens = [t for p in sorted(docs.rglob("*")) if p.is_file()
                  for t in enc.encode(p.read_text(encoding="utf-8", errors="replace"))]
        text = ""
    else:
        text = args.text_file.read_text(encoding="utf-8", errors="replace")
        tokens = enc.encode(text, disallowed_special=())
        if args.tokens:  # 0: all of it, byte for byte
            tokens = tokens[: args.tokens]
            text = enc.decode(tokens)
        docs = work / "docs"
        docs.mkdir()
        (docs / (args.text_file.stem + ".txt")).write_text(text, encoding="utf-8")
    n_tokens = len(tokens)
    del tokens, text  # the benchmark's own copy is not the build's memory

    levels = [int(x) for x in args.parallel.split(",") if x.strip()] or [None]
    runs = []
    for p in levels:
        index = args.index if (args.index and len(levels) == 1) else work / f"index_{p}"
        summary, wall, peak = build_once(docs, index, args, p)
        runs.append((p, index, summary, wall, peak))
    speeds = raw_speeds(args.model)

    results = []
    for _p, index, summary, wall, peak in runs:
        evaluated, generated = summary["tokens_in"], summary["tokens_out"]
        ideal = evaluated / speeds["prompt_tok_s"] + generated / speeds["gen_tok_s"]
        results.append({
            "parallel": summary["parallel"],
            "file": str(args.text_file),
            "corpus_tokens": n_tokens,
            "model": summary["model"],
            "method": summary["method"],
            "content": summary["content"],
            "chunks": summary["chunks"],
            "entities": summary["entities"],
            "relationships": summary["relationships"],
            "communities": summary["communities"],
            "reports": summary["reports"],
            "failures": summary["failures"],
            "faithful_verbatim_share": summary["faithfulness"]["verbatim_share"],
            "wall_seconds": round(wall, 1),
            "stage_seconds": summary["stage_seconds"],
            "llm_calls": summary["llm_calls"],
            "llm_calls_by_stage": summary["llm_calls_by_stage"],
            "prompt_tokens_total": summary["prompt_tokens"],
            "prompt_tokens_evaluated": evaluated,
            "prompt_tokens_reused": summary["reused_prompt_tokens"],
            "generated_tokens": generated,
            "forced_tokens": summary["forced_tokens"],
            "llm_seconds": summary["llm_seconds"],
            "corpus_tokens_per_second": round(n_tokens / wall, 1),
            "embedder": args.embedder,
            "peak_memory_mb": round(peak),
            "memory_before_build_mb": round(start_mb),
            "peak_memory_mb_after_stage": summary["peak_mb_by_stage"],
            "raw_prompt_tok_s (pp512)": speeds["prompt_tok_s"],
            "raw_gen_tok_s (tg128)": speeds["gen_tok_s"],
            "ideal_llm_seconds": round(ideal, 1),
            "efficiency (ideal / llm time)": round(ideal / summary["llm_seconds"], 3)
            if summary["llm_seconds"] else None,
            "index": str(index),
        })
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
        return
    for r in results:
        width = max(len(k) for k in r)
        print()
        for key, value in r.items():
            print(f"{key:<{width}}  {value}")
    if len(results) > 1:
        base = results[0]
        print(f"\ntime saved per stage against parallel {base['parallel']}:")
        for r in results[1:]:
            saved = {k: round(base["stage_seconds"][k] - v, 1) for k, v in r["stage_seconds"].items()}
            print(f"  parallel {r['parallel']}: " + ", ".join(f"{k} {v:+.1f} s" for k, v in saved.items())
                  + f"; wall {base['wall_seconds'] - r['wall_seconds']:+.1f} s")


if __name__ == "__main__":
    sys.exit(main())
