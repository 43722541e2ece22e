"""Crash soak: build a folder with the real model, killing the build with SIGKILL at N
random points, resuming after each, then compare with an uninterrupted build.

    .venv/bin/python scripts/soak_kill.py samples/corpus --kills 10 --seed 1

Every build runs in a subprocess. A clean build first records the progress events of each
stage (a chunk extracted, an embedding batch saved, a table written, ...). Each kill point
is one of those events or a stage's start, drawn at random; the points are taken in
pipeline order, so each resume gets further. Some are exact (the build kills itself
there: GRAPHRAG_LOCAL_KILL_AT="stage:n", see `pipeline._kill_at`); the others, half by
default (--late-share), are late (this script kills the build 0 to 1.5 s after it reports
the event: mid LLM call, mid LanceDB commit, mid table write); a late kill misses when
the build finishes first. After the last kill the build runs once more to the end.
Prints the tally: kills,
resumes, whether every output table equals the clean build's row for row (vectors
included), and how much finished work was redone (prompts asked more often than in the
clean build, duplicate keys in the work tables). Exit status 0 when equal and nothing
was redone.

Each build is a new process with its own random PYTHONHASHSEED, as a user's would be:
nothing in a build may depend on the order of a set of strings (`--hash-seed N` pins it
to look for such a dependence).

Work lost to a kill: a unit of the chat model's work is committed as it completes, so
none; cheaper units (an embedder batch, a fast-method extraction) are committed about
once a second, so a kill can cost up to a second of those. They are not counted as
redone (they were never stored), and no key is stored twice."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

CHILD = """
import json, sys
from pathlib import Path
from graphrag_local import api

def progress(stage, done, total):
    print("P", stage, done, total, flush=True)

summary = api.build(Path(sys.argv[1]), Path(sys.argv[2]), progress=progress)
print("S", json.dumps(summary), flush=True)
"""


def run(docs: Path, index: Path, log: Path, exact: str = "",
        late: tuple[str, int, float] | None = None, hash_seed: str = "random") -> dict:
    """One build in a subprocess; `exact`: "stage:n" for the kill hook; `late`: (stage, n,
    delay) to kill it `delay` s after it reports n units of stage. Returns its events,
    return code, summary and seconds."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHRAG_LOCAL_KILL_AT",
                                                             "PYTHONHASHSEED")}
    if hash_seed != "random":
        env["PYTHONHASHSEED"] = hash_seed
    if exact:
        env["GRAPHRAG_LOCAL_KILL_AT"] = exact
    started = time.perf_counter()
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(docs), str(index)], env=env,
                                stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1)
        events, summary, timer = [], {}, None
        for line in proc.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "P":
                stage, done, total = rest.split(" ")
                events.append((stage, int(done), int(total)))
                if late and timer is None and stage == late[0] and int(done) >= late[1]:
                    timer = threading.Timer(late[2], proc.kill)
                    timer.start()
            elif kind == "S":
                summary = json.loads(rest)
        code = proc.wait()
        if timer is not None:
            timer.cancel()
    if code not in (0, -9):
        sys.exit(f"build failed with status {code}; see {log}:\n{log.read_text()[-3000:]}")
    return {"events": events, "code": code, "summary": summary,
            "seconds": round(time.perf_counter() - started, 1)}


def kill_points(events: list, n: int, rng: random.Random, late_share: float = 0.5
                ) -> list[tuple[str, int, float]]:
    """n points (stage, units, delay), in pipeline order; delay 0 = exact."""
    from graphrag_local.pipeline import STAGES

    order = [name for name, _ in STAGES]
    candidates = sorted({(s, 0) for s in order} | {(s, d) for s, d, _ in events if d > 0},
                        key=lambda p: (order.index(p[0]), p[1]))
    picks = sorted((rng.choice(candidates) for _ in range(n)),
                   key=lambda p: (order.index(p[0]), p[1]))
    out = []
    for stage, units in picks:
        late = units > 0 and rng.random() < late_share  # a late kill follows an event
        out.append((stage, units, round(rng.uniform(0.0, 1.5), 2) if late else 0.0))
    return out


def tables(index: Path) -> dict:
    from graphrag_local.schema import OUTPUT_TABLES
    from graphrag_local.store import Store

    store = Store(index)
    return {t: sorted(store.read(t), key=lambda r: json.dumps(r, sort_keys=True))
            for t in OUTPUT_TABLES}


def redone(clean: Path, killed: Path) -> dict:
    from graphrag_local.store import Store

    a, b = Store(clean), Store(killed)
    asked_clean = Counter(r["prompt_hash"] for r in a.read("llm_calls", ["prompt_hash"]))
    asked_killed = Counter(r["prompt_hash"] for r in b.read("llm_calls", ["prompt_hash"]))
    dupes = {}
    for table in ("extractions", "summaries", "report_cache", "embedding_cache"):
        keys = Counter(r["key"] for r in b.read(table, ["key"]))
        dupes[table] = sum(n - 1 for n in keys.values())
    return {
        "prompts_asked_more_often": sum((asked_killed - asked_clean).values()),
        "prompts_not_logged": sum((asked_clean - asked_killed).values()),  # cut between save and log
        "duplicate_work_rows": dupes,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("docs", type=Path, help="folder of documents")
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, help="folder for the indexes (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the indexes")
    ap.add_argument("--late-share", type=float, default=0.5,
                    help="share of the kill points that are late (0 to 1)")
    ap.add_argument("--hash-seed", default="random",
                    help='PYTHONHASHSEED of the builds (default: each its own, "random")')
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="soak_kill_"))
    work.mkdir(parents=True, exist_ok=True)
    clean, killed = work / "clean", work / "killed"
    for path in (clean, killed):
        shutil.rmtree(path, ignore_errors=True)
    rng = random.Random(args.seed)
    try:
        seed = args.hash_seed
        first = run(args.docs, clean, work / "clean.log", hash_seed=seed)
        print(f"clean build: {first['seconds']} s, {len(first['events'])} progress events",
              flush=True)
        points = kill_points(first["events"], args.kills, rng, args.late_share)
        log = []
        for i, (stage, units, delay) in enumerate(points, 1):
            point = f"{stage}:{units}"
            r = run(args.docs, killed, work / "run.log", hash_seed=seed,
                    **({"late": (stage, units, delay)} if delay else {"exact": point}))
            died = r["code"] == -9
            log.append({"point": point, "late_s": delay, "killed": died, "seconds": r["seconds"]})
            print(f"run {i:2}: {point:<14} {'+' + str(delay) + ' s' if delay else 'exact':>8}  "
                  f"{'killed' if died else 'finished first'}  {r['seconds']} s", flush=True)
        final = run(args.docs, killed, work / "final.log", hash_seed=seed)
        equal = tables(clean) == tables(killed)
        if not equal:
            a, b = tables(clean), tables(killed)
            diff = [t for t in a if a[t] != b[t]]
        work_redone = redone(clean, killed)
        kills = sum(r["killed"] for r in log)
        tally = {
            "kills": kills,
            "resumes": kills,  # each kill was followed by a build on the same index
            "late_misses": sum(not r["killed"] for r in log),
            "final_resumed": final["summary"].get("resumed"),
            "tables_equal": "yes" if equal else f"no ({', '.join(diff)})",
            "work_redone": work_redone["prompts_asked_more_often"]
            + sum(work_redone["duplicate_work_rows"].values()),
            "details": work_redone,
        }
        print(json.dumps(tally, indent=2))
        sys.exit(0 if equal and tally["work_redone"] == 0 else 1)
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
