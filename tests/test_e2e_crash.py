"""Crash safety with the real model: a build running in a subprocess is killed with
SIGKILL at points spread over its stages (extraction, summaries, reports, embedding, the
table writes, and after the last table before the manifest), resumed each time, and must
end with tables equal, row for row, to an uninterrupted build's (vectors within
VECTOR_TOLERANCE: the resumed runs embed on another kernel path, conftest.KERNEL_VARIANT),
having asked the model no prompt more often than that build did. The kill points come
from the test hook GRAPHRAG_LOCAL_KILL_AT="stage:n" (see `pipeline._kill_at`);
`scripts/soak_kill.py` does the same at random points, many times.

Every build is a process of its own with its own random PYTHONHASHSEED, as a user's
builds are: equal tables also prove that nothing depends on the order of a set."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import KERNEL_VARIANT, assert_tables_agree, copy_corpus

from graphrag_local import api
from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.store import Store

pytestmark = pytest.mark.e2e

NAMES = ("01_water_trust.md", "02_millbrook_flood.txt", "03_halvard_shipping.md")
KILLS = ("extract:2", "summarize:0", "reports:1", "embed:1", "store:3", "store:8")
BUILD = ("import json, sys; from pathlib import Path; from graphrag_local import api; "
         "print(json.dumps(api.build(Path(sys.argv[1]), Path(sys.argv[2]), "
         "config=Path(sys.argv[3]))))")
# two chunks in flight: the first group (2 chunks) is saved, then the kill; the third
# chunk is the resumed build's. Embedding commits 16 batches at a time: batches of 2
# texts make several parts of these three documents, so "embed:1" is mid-stage
CONFIG = "[extract]\nin_flight = 2\n[embed]\nbatch_size = 2\n"


def start_build(docs: Path, index: Path, kill_at: str = "", variant=None) -> subprocess.Popen:
    """A build in a subprocess, killed at `kill_at` if given, on the kernel path
    `variant` if given (conftest.KERNEL_VARIANT)."""
    config = docs.parent / "graphrag-local.toml"
    config.write_text(CONFIG)
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRAPHRAG_LOCAL_KILL_AT", "PYTHONHASHSEED")}
    env.update(variant or {})
    if kill_at:
        env["GRAPHRAG_LOCAL_KILL_AT"] = kill_at
    return subprocess.Popen([sys.executable, "-c", BUILD, str(docs), str(index), str(config)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> tuple[int, int, dict]:
    """(pid, return code, summary) of a build started by `start_build`."""
    out, err = proc.communicate(timeout=600)
    if proc.returncode not in (0, -9):
        raise AssertionError(f"build failed ({proc.returncode}): {err[-3000:]}")
    return proc.pid, proc.returncode, json.loads(out) if proc.returncode == 0 else {}


def sorted_tables(index: Path) -> dict:
    store = Store(index)
    return {t: sorted(store.read(t), key=lambda r: json.dumps({**r, "vector": None}, sort_keys=True))
            for t in OUTPUT_TABLES}


def work_counts(index: Path) -> dict:
    store = Store(index)
    return {t: store.count(t) for t in ("extractions", "embedding_cache", "llm_calls")}


@pytest.fixture(scope="module")
def crash(tmp_path_factory):
    base = tmp_path_factory.mktemp("crash")
    docs = copy_corpus(base / "docs", NAMES)
    clean = start_build(docs, base / "clean")  # alongside the killed ones
    killed = base / "killed"
    runs = []
    for point in KILLS:
        pid, code, _ = finish(start_build(docs, killed, point, KERNEL_VARIANT))
        runs.append({"kill_at": point, "pid": pid, "code": code, "work": work_counts(killed),
                     "complete": Store(killed).read_manifest().get("complete")})
    _pid, code, final = finish(start_build(docs, killed, variant=KERNEL_VARIANT))
    assert code == 0
    _pid, code, clean_summary = finish(clean)
    assert code == 0
    return {
        "clean": base / "clean", "killed": killed, "runs": runs, "final": final,
        "clean_summary": clean_summary,
    }


def test_every_kill_point_was_reached_and_each_resume_went_further(crash):
    runs = crash["runs"]
    assert [r["code"] for r in runs] == [-9] * len(KILLS)
    chunks = crash["clean_summary"]["chunks"]
    work = {r["kill_at"]: r["work"] for r in runs}
    assert work["extract:2"]["extractions"] == 2 and work["extract:2"]["embedding_cache"] == 0
    assert work["summarize:0"]["extractions"] == chunks
    assert 0 < work["embed:1"]["embedding_cache"] < work["store:3"]["embedding_cache"]
    assert not any(r["complete"] for r in runs)  # nothing finished was ever claimed


def test_resumed_tables_equal_an_uninterrupted_build_row_for_row(crash):
    clean, killed = sorted_tables(crash["clean"]), sorted_tables(crash["killed"])
    assert all(clean[t] for t in ("chunks", "sentences", "entities", "community_reports"))
    for table in OUTPUT_TABLES:
        assert_tables_agree(killed[table], clean[table], table)


def test_no_finished_unit_of_work_was_done_twice(crash):
    clean, killed = Store(crash["clean"]), Store(crash["killed"])
    asked_clean = Counter(c["prompt_hash"] for c in clean.read("llm_calls"))
    asked_killed = Counter(c["prompt_hash"] for c in killed.read("llm_calls"))
    assert asked_killed - asked_clean == Counter()  # no prompt asked more often
    assert asked_killed == asked_clean  # kills at unit boundaries lose no finished unit
    assert len({c["build_id"] for c in killed.read("llm_calls")}) == 2  # extract:2, then the rest
    for table in ("extractions", "embedding_cache"):
        keys = [r["key"] for r in killed.read(table, ["key"])]
        assert len(keys) == len(set(keys)), table
    assert crash["final"]["llm_calls"] == 0


def test_the_build_after_a_kill_says_it_takes_over(crash):
    final, last_killed = crash["final"], crash["runs"][-1]
    assert final["resumed"] is True
    assert any(f"previous build did not finish (pid {last_killed['pid']}," in c
               for c in final["changes"])
    status = api.status(crash["killed"])
    assert status["complete"] and status["build_running"] is None
    assert not (crash["killed"] / ".build.running").exists()
