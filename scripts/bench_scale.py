"""How the build and the queries grow with the corpus: slices of the paper's podcast
transcripts (../shared/data/kevin_scott_podcasts), built and queried one by one.

    .venv/bin/python scripts/bench_scale.py --sizes 10000,100000,1000000 --methods fast
    .venv/bin/python scripts/bench_scale.py --sizes 10000,100000 --methods fast,standard \
        --project 1000000 --out /tmp/scale.json

A slice is the first N corpus tokens of the episodes in order (whole episodes, the last one
cut at a token). Each build runs in a child process, on a fresh index, and prints: seconds
per stage, corpus tokens/s, peak RSS, the index's size on disk, and the latency of each
query method on the result, measured after the index is open (median over the questions).
Then each stage's growth exponent between consecutive slices, log(t2/t1) / log(n2/n1):
1 is linear, 2 quadratic; above 1.2 is flagged. `--project N` extrapolates each stage
from the last two slices with its exponent.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTIONS = [
    "What are the main themes of these conversations?",
    "Who is Kevin Scott?",
    "What do the guests say about artificial intelligence?",
]
QUERY_METHODS = ("basic", "local", "global")
FLAG = 1.2


def slice_texts(docs: list[tuple[str, str]], size: int, encode, decode) -> list[tuple[str, str]]:
    """The first `size` tokens of `docs` (name, text) in order: whole documents, the last
    one cut at a token."""
    out, left = [], size
    for name, text in docs:
        if left <= 0:
            break
        tokens = encode(text)
        if len(tokens) > left:
            text = decode(tokens[:left])
        out.append((name, text))
        left -= min(left, len(tokens))
    return out


def exponent(n1: float, t1: float, n2: float, t2: float) -> float | None:
    """The growth exponent k of t = c * n**k between two points (None when undefined)."""
    if min(n1, n2, t1, t2) <= 0 or n1 == n2:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


def project(n1: float, t1: float, n2: float, t2: float, n: float) -> float | None:
    """t at size n, on the power law through the two points."""
    k = exponent(n1, t1, n2, t2)
    return None if k is None else t2 * (n / n2) ** k


def growth(runs: list[dict]) -> list[dict]:
    """Per stage (and the whole build), the exponent between consecutive slices."""
    out = []
    for a, b in zip(runs, runs[1:]):
        stages = sorted(set(a["stage_seconds"]) & set(b["stage_seconds"]))
        row = {"from": a["tokens"], "to": b["tokens"], "stages": {}}
        for s in [*stages, "wall"]:
            t1 = a["wall_seconds"] if s == "wall" else a["stage_seconds"][s]
            t2 = b["wall_seconds"] if s == "wall" else b["stage_seconds"][s]
            row["stages"][s] = exponent(a["tokens"], t1, b["tokens"], t2)
        out.append(row)
    return out


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def child(docs: Path, index: Path, method: str) -> dict:
    """One build and its queries, in this (child) process."""
    from graphrag_local import api

    started = time.perf_counter()
    summary = api.build(docs, index, method=method)
    wall = time.perf_counter() - started
    build_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    session = api.open_session(index)
    session.ask("warm up", method="basic")  # loads the embedder (and what basic needs)
    latency = {}
    for m in QUERY_METHODS:
        times = []
        for q in QUESTIONS:
            t = time.perf_counter()
            session.ask(q, method=m)
            times.append(time.perf_counter() - t)
        latency[m] = round(statistics.median(times), 3)
    session.close()
    return {
        "wall_seconds": round(wall, 2),
        "stage_seconds": {k: round(v, 3) for k, v in summary["stage_seconds"].items()},
        "entities": summary.get("entities"), "relationships": summary.get("relationships"),
        "communities": summary.get("communities"), "reports": summary.get("reports"),
        "peak_rss_mb": round(build_rss),
        "index_mb": round(dir_bytes(index) / 2**20, 1),
        "query_seconds": latency,
    }


def run_slice(docs: list[tuple[str, str]], tokens: int, method: str, work: Path) -> dict:
    folder = work / f"docs_{tokens}"
    if not folder.is_dir():
        folder.mkdir(parents=True)
        for name, text in docs:
            (folder / name).write_text(text, encoding="utf-8")
    index = work / f"index_{tokens}_{method}"
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(folder), str(index), method],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"build of {tokens} tokens ({method}) failed:\n{proc.stderr[-3000:]}")
    run = json.loads(proc.stdout.strip().splitlines()[-1])
    run.update(tokens=tokens, method=method, documents=len(docs),
               tokens_per_second=round(tokens / run["wall_seconds"], 1))
    return run


def table(runs: list[dict]) -> str:
    lines = []
    for r in runs:
        lines.append(f"\n{r['method']}, {r['tokens']:,} tokens ({r['documents']} documents): "
                     f"{r['wall_seconds']:.1f} s, {r['tokens_per_second']:,} tokens/s, "
                     f"peak RSS {r['peak_rss_mb']:,} MB, index {r['index_mb']} MB; "
                     f"{r['entities']} entities, {r['communities']} communities, "
                     f"{r['reports']} reports")
        lines.append("  stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in r["stage_seconds"].items()))
        lines.append("  queries after open (median s): "
                     + ", ".join(f"{k} {v:.3f}" for k, v in r["query_seconds"].items()))
    return "\n".join(lines)


def growth_table(rows: list[dict]) -> str:
    lines = []
    for g in rows:
        parts = []
        for s, k in g["stages"].items():
            mark = f"  <-- above {FLAG:.1f}" if k is not None and k > FLAG else ""
            parts.append(f"    {s:<12} {'n/a' if k is None else f'{k:.2f}'}{mark}")
        lines.append(f"\ngrowth exponent {g['from']:,} -> {g['to']:,} tokens:\n" + "\n".join(parts))
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        print(json.dumps(child(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])))
        return
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="corpus tokens per slice")
    ap.add_argument("--methods", default="fast", help="fast,standard")
    ap.add_argument("--project", type=int, default=None, help="extrapolate to N tokens")
    ap.add_argument("--work", type=Path, default=None, help="folder for slices and indexes")
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    args = ap.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from corpora import podcast_episodes

    from graphrag_local.tokenizer import corpus_encoding

    enc = corpus_encoding()
    episodes = [v for _, v in sorted(podcast_episodes().items())]
    total = sum(len(enc.encode(t)) for _, t in episodes)
    print(f"podcast corpus: {len(episodes)} episodes, {total:,} tokens")
    sizes = [min(int(s), total) for s in args.sizes.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_scale_"))
    report: dict = {"corpus_tokens": total, "runs": [], "growth": {}, "projection": {}}
    for method in args.methods.split(","):
        runs = []
        for size in sizes:
            docs = slice_texts(episodes, size, enc.encode, enc.decode)
            runs.append(run_slice(docs, size, method, work))
            print(table(runs[-1:]), flush=True)
        report["runs"] += runs
        report["growth"][method] = growth(runs)
        print(growth_table(report["growth"][method]))
        if runs[0]["tokens"] < 50_000:
            print("\nnote: under ~50,000 tokens a build is mostly fixed costs (loading the "
                  "embedder and the model), so exponents and projections from such slices "
                  "run low")
        if args.project and len(runs) >= 2:
            a, b = runs[-2], runs[-1]
            est = {s: project(a["tokens"], a["stage_seconds"][s], b["tokens"], b["stage_seconds"][s],
                              args.project) for s in b["stage_seconds"] if s in a["stage_seconds"]}
            est["wall"] = project(a["tokens"], a["wall_seconds"], b["tokens"], b["wall_seconds"],
                                  args.project)
            report["projection"][method] = {"tokens": args.project, "seconds": est}
            print(f"\nprojected {method} build of {args.project:,} tokens: "
                  + (f"{est['wall'] / 60:.1f} min" if est["wall"] else "n/a") + " ("
                  + ", ".join(f"{k} {v:.0f} s" for k, v in est.items() if v and k != "wall") + ")")
    print(f"\nslices and indexes in {work}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
