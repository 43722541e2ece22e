"""Entity-extraction quality check on Re-DocRED gold data.

Usage (from the repository root):

    .venv/bin/python scripts/eval_extraction.py --limit 12
    .venv/bin/python scripts/eval_extraction.py --limit 2 --models smollm2-135m
    .venv/bin/python scripts/eval_extraction.py --models gemma3-270m --names free --json
    .venv/bin/python scripts/eval_extraction.py --limit 20 --seed 7   # seeded sample

Each document of the sample (the first N documents of the file, or with --seed a seeded
random sample of N) becomes one chunk, and `extract_chunk` runs on it once per model,
with the default settings' extraction options, max_gleanings=1 and grounding off. The
first round's records are rebuilt from the first raw reply, so one run gives both the
"gleaning 0" and "gleaning 1" results; grounding (`stages.ground.ground`) is then applied
to each, giving four rows per model.

Scoring: predicted entity names are normalised (`stages.ground.normalise`) and kept once
per document. A name is correct when it equals the normalised name of any mention of any
gold entity; a gold entity (vertexSet entry) is found when any of its mentions' names was
predicted. Precision, recall and F1 are micro-averaged over documents. "R PER/ORG/LOC" is
recall over the gold entities of the kinds the default entity types cover (Re-DocRED
also labels TIME, NUM and MISC, which the default extraction types do not ask for).

Seconds per doc: for gleaning 0 the time of the first extraction call(s) (retries
included); for gleaning 1 the whole extract_chunk call. LLM calls likewise.
GRAPHRAG_LOCAL_THREADS sets the model's CPU threads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from graphrag_local.eval.extraction import (
    Score,
    first_round_records,
    gold_doc,
    load_docred,
    select,
)
from graphrag_local.models.presets import get_preset, require
from graphrag_local.pipeline import extract_options
from graphrag_local.prompts import load_prompts
from graphrag_local.schema import Chunk
from graphrag_local.settings import Settings
from graphrag_local.stages.extract import extract_chunk
from graphrag_local.stages.ground import ground

DEFAULT_DATA = "../shared/data/re_docred/dev_revised.json"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def evaluate_model(name: str, golds, settings: Settings, names_override: str | None,
                   verbose: bool) -> tuple[list[dict], dict]:
    from graphrag_local.models.llama import LlamaChatModel

    preset = get_preset(name)
    path = require(preset)
    started = time.perf_counter()
    model = LlamaChatModel(preset=preset, path=path, seed=settings.seed)
    load_s = time.perf_counter() - started
    log(f"[{name}] loaded {path.name} in {load_s:.1f}s (n_ctx={model.n_ctx}, "
        f"gpu_layers={model.n_gpu_layers})")
    prompts = load_prompts()
    opts = replace(extract_options(settings, preset), max_gleanings=1, grounding=False)
    if names_override:
        opts = replace(opts, names=names_override)

    # (gleaning, grounding) -> Score
    scores = {(g, gr): Score() for g in (0, 1) for gr in (False, True)}
    info = {"model": name, "names": opts.names, "load_seconds": round(load_s, 2),
            "gleanings_done": 0, "first_round_not_subset": 0,
            "errors": []}
    try:
        for gold in golds:
            chunk = Chunk(
                id=f"docred-{gold.index}", document_id=f"docred-{gold.index}",
                path=gold.title, index=0, start_token=0, end_token=0,
                n_tokens=model.count_tokens(gold.text), text=gold.text,
            )
            before = len(model.calls)
            t0 = time.perf_counter()
            error = ""
            result = None
            try:
                result = extract_chunk(model, prompts, chunk, opts, key=chunk.id)
            except Exception as exc:  # noqa: BLE001 - a crash is a finding, keep going
                error = f"{type(exc).__name__}: {exc}"
            wall = time.perf_counter() - t0
            calls = model.calls[before:]
            first_calls = [c for c in calls if c.purpose == "extract"]
            first_s = sum(c.seconds for c in first_calls)

            rounds: dict[int, tuple[list, list]] = {0: ([], []), 1: ([], [])}
            if result is not None and result.status != "ok":
                error = f"status={result.status}: {result.error}"
            if result is not None and result.status == "ok":
                first = first_round_records(result.raw_replies[0], chunk.id)
                if first is None:
                    error = "first raw reply is not JSON although the round succeeded"
                else:
                    rounds[0] = first
                rounds[1] = (list(result.entities), list(result.relationships))
                info["gleanings_done"] += result.gleanings
                have = {e.name for e in result.entities}
                if any(e.name not in have for e in rounds[0][0]):
                    info["first_round_not_subset"] += 1
            if error:
                info["errors"].append({"doc": gold.index, "error": error})
                log(f"[{name}] doc {gold.index}: {error}")

            line = []
            for g in (0, 1):
                ents, rels = rounds[g]
                grounded = ground(gold.text, ents, rels, enabled=True).entities
                for gr, kept in ((False, ents), (True, grounded)):
                    s = scores[(g, gr)]
                    s.add(gold, [e.name for e in kept])
                    s.failures += bool(error)
                    s.llm_calls += len(first_calls) if g == 0 else len(calls)
                    s.seconds += first_s if g == 0 else wall
                line.append(f"g{g}:{len(ents)}/{len(grounded)}")
            log(f"[{name}] doc {gold.index} ({len(gold.text)} chars, {chunk.n_tokens} tok): "
                f"{wall:.1f}s, {len(calls)} calls, entities {' '.join(line)} (raw/grounded)")
            log("    calls: " + "; ".join(
                f"{c.purpose} {c.prompt_tokens}p/{c.reused_tokens}r/{c.completion_tokens}c "
                f"{c.seconds:.1f}s {c.finish_reason}" for c in calls))
            if verbose and result is not None:
                for i, raw in enumerate(result.raw_replies):
                    log(f"    reply {i}: {raw}")
    finally:
        model.close()

    rows = []
    for (g, gr), s in scores.items():
        rows.append({"model": name, "names": opts.names, "gleaning": g,
                     "grounding": "on" if gr else "off", **s.row()})
    return rows, info


def markdown(rows: list[dict]) -> str:
    cols = [("model", "model"), ("names", "names"), ("gleaning", "gleaning"),
            ("grounding", "grounding"), ("precision", "P"), ("recall", "R"), ("f1", "F1"),
            ("recall_per_org_loc", "R PER/ORG/LOC"), ("entities_per_doc", "ents/doc"),
            ("seconds_per_doc", "s/doc"), ("llm_calls_per_doc", "LLM calls/doc"),
            ("failures", "failed docs")]
    out = ["| " + " | ".join(h for _, h in cols) + " |",
           "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        cells = []
        for k, _ in cols:
            v = r[k]
            cells.append(f"{v:.3f}" if k in ("precision", "recall", "f1",
                                              "recall_per_org_loc") else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="?", default=DEFAULT_DATA,
                    help=f"Re-DocRED JSON file (default {DEFAULT_DATA})")
    ap.add_argument("--limit", type=int, default=12, help="documents to evaluate (default 12)")
    ap.add_argument("--seed", type=int, default=None,
                    help="evaluate a seeded random sample instead of the first N documents")
    ap.add_argument("--models", default="smollm2-135m,gemma3-270m",
                    help="comma-separated model presets (default smollm2-135m,gemma3-270m)")
    ap.add_argument("--names", choices=("spans", "free"), default=None,
                    help="override the preset's extraction names mode")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--verbose", action="store_true", help="log every raw reply")
    args = ap.parse_args(argv)

    docs = load_docred(Path(args.data))
    indices = select(docs, args.limit, args.seed)
    golds = [gold_doc(docs, i) for i in indices]
    sample = (f"first {len(indices)} documents" if args.seed is None
              else f"seeded sample of {len(indices)} documents (seed {args.seed})")
    log(f"{args.data}: {len(docs)} documents; evaluating the {sample}: {indices}")

    settings = Settings()
    started = time.perf_counter()
    rows: list[dict] = []
    infos: list[dict] = []
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        r, info = evaluate_model(name, golds, settings, args.names, args.verbose)
        rows += r
        infos.append(info)
        log(markdown(r))  # partial results, in case a long run is cut short
    wall = time.perf_counter() - started

    if args.json:
        print(json.dumps({"data": args.data, "sample": sample, "documents": indices,
                          "wall_seconds": round(wall, 1), "rows": rows, "models": infos},
                         indent=2))
    else:
        print(f"Re-DocRED entity extraction, {sample} of {args.data}; wall {wall:.0f}s\n")
        print(markdown(rows))
        print()
        for info in infos:
            print(f"- {info['model']} (names={info['names']}): load {info['load_seconds']}s, "
                  f"glean rounds run {info['gleanings_done']}, "
                  f"first round not a subset of final: {info['first_round_not_subset']}, "
                  f"errors {len(info['errors'])}")
            for e in info["errors"]:
                print(f"  - doc {e['doc']}: {e['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
