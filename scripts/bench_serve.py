"""Serve benchmark: how fast `graphrag-local serve` answers, how a one-shot `query`
compares, and how the server holds up under concurrent clients.

    .venv/bin/python scripts/bench_serve.py INDEX                 # starts a server on it
    .venv/bin/python scripts/bench_serve.py --url http://127.0.0.1:8765 --pid 1234 [INDEX]

1. Through the server: each method's question asked `--runs` times (after one warm-up)
   at POST /query; median, p95 and max seconds.
2. One-shot: `graphrag-local query --local --method M` as a fresh process, `--oneshot-runs`
   times per method (needs INDEX; 0 skips); median and p95 wall seconds.
3. Load: `--clients` concurrent clients each sending `--requests` questions one after
   another, the methods in turn. A 429 or 503 (the documented refusals, with
   Retry-After) is counted and retried after the time it names, at most 3 times, as the
   `openai` client does. Prints the statuses seen, p50/p95/p99 seconds of the answered
   requests (from first send, retries included) and the server's peak RSS (VmHWM from
   /proc; psutil's RSS sampled where /proc has none).

4. `--rebuild DOCS` (needs INDEX, no --url): the server runs on a copy of INDEX, and
   while the load runs, `graphrag-local build DOCS` rebuilds that copy (give DOCS that
   differ from the index's documents: one added or removed). The clients keep asking
   until the build has finished and then `--requests` more each. Every answer is
   compared with the answer the old build gave (asked before) and the one the new build
   gives (asked after): each must be one of the two, and none a 5xx.

Nothing here changes INDEX; a server it starts is stopped at the end."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from tempfile import TemporaryDirectory

EXE = Path(sys.executable).parent / "graphrag-local"
QUESTIONS = {
    "basic": "Who is the chief engineer of the Aldren Water Trust?",
    "local": "Who is Mara Quill?",
    "global": "What are the main themes of these documents?",
    "drift": "Why did the Aldren Water Trust oppose the dredging?",
    "ts": "What are the main themes of these documents?",
}
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(url: str, body: dict, token: str = "", timeout: float = 300) -> tuple[int, dict, float]:
    """(status, JSON reply, Retry-After seconds or 0)."""
    req = urllib.request.Request(url + "/query", data=json.dumps(body).encode("utf-8"),
                                 headers={"Content-Type": "application/json"}, method="POST")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with _OPENER.open(req, timeout=timeout) as r:
            return r.status, json.loads(r.read()), 0.0
    except urllib.error.HTTPError as exc:
        try:
            data = json.loads(exc.read())
        except ValueError:
            data = {}
        return exc.code, data, float(exc.headers.get("Retry-After") or 0)
    except OSError as exc:
        return 0, {"error": {"message": str(exc)}}, 0.0


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))] if xs else float("nan")


def summary(xs: list[float]) -> dict:
    return {"n": len(xs), "median_s": round(statistics.median(xs), 3) if xs else None,
            "p95_s": round(percentile(xs, 95), 3), "max_s": round(max(xs), 3) if xs else None}


class Rss:
    """The server's peak resident memory in MB: VmHWM from /proc, else psutil sampled."""

    def __init__(self, pid: int | None):
        self.pid, self.sampled = pid, 0.0
        self._stop = threading.Event()
        self._proc = None
        if pid and not Path(f"/proc/{pid}/status").is_file():
            try:
                import psutil

                self._proc = psutil.Process(pid)
                threading.Thread(target=self._sample, daemon=True).start()
            except (ImportError, OSError):
                pass

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.sampled = max(self.sampled, self._proc.memory_info().rss / 2**20)
            except Exception:  # noqa: BLE001 - the process is gone: keep the last figure
                return

    def peak_mb(self) -> float | None:
        if not self.pid:
            return None
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
        except OSError:
            pass
        return round(self.sampled, 1) if self.sampled else None

    def current_mb(self) -> float | None:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
        except (OSError, TypeError):
            pass
        return None


def start_server(index: Path, log: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(EXE), "serve", "--index", str(index), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=log.open("w"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"serve exited ({proc.returncode}):\n{log.read_text()[-2000:]}")
        try:
            with _OPENER.open(url + "/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    sys.exit("serve did not answer /health in 300 s")


def through_server(url: str, methods: list[str], runs: int, token: str) -> dict:
    out = {}
    for m in methods:
        body = {"question": QUESTIONS[m], "method": m}
        status, data, _ = post(url, body, token)  # warm-up: loads what the method needs
        if status != 200:
            sys.exit(f"{m}: HTTP {status}: {data}")
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            status, data, _ = post(url, body, token)
            times.append(time.perf_counter() - t)
            assert status == 200, (m, status, data)
        out[m] = summary(times) | {"llm_calls": data.get("llm_calls")}
    return out


def one_shot(index: Path, methods: list[str], runs: int) -> dict:
    out = {}
    for m in methods:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            r = subprocess.run([str(EXE), "query", "--local", "--index", str(index), "--method", m,
                                "--json", QUESTIONS[m]], capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if r.returncode != 0:
                sys.exit(f"one-shot {m} failed:\n{r.stderr[-2000:]}")
        out[m] = summary(times)
    return out


def load_run(url: str, methods: list[str], clients: int, requests: int, token: str,
             until: threading.Event | None = None, answers: list | None = None) -> dict:
    """Each client sends `requests` questions one after another (and, with `until`, goes
    on until it is set and then sends `requests` more); `answers` collects (method,
    answer text) of each answered one."""
    statuses: Counter = Counter()
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def one_client(i: int) -> None:
        j, stop_at = 0, (requests if until is None else None)
        while True:
            if stop_at is None and until.is_set():
                stop_at = j + requests
            if stop_at is not None and j >= stop_at:
                break
            m = methods[(i + j) % len(methods)]
            j += 1
            started = time.perf_counter()
            for _attempt in range(4):
                status, data, retry_after = post(url, {"question": QUESTIONS[m], "method": m}, token)
                with lock:
                    statuses[status] += 1
                if status in (429, 503) and _attempt < 3:
                    time.sleep(retry_after or 1)
                    continue
                break
            with lock:
                if status == 200:
                    latencies.append(time.perf_counter() - started)
                    if answers is not None:
                        answers.append((m, data.get("answer", "")))
                else:
                    failures.append(f"{status} {m}: {data.get('error', data)}"[:200])

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one_client, range(clients)))
    wall = time.perf_counter() - t
    return {"clients": clients, "requests_each": requests, "wall_s": round(wall, 2),
            "answered": len(latencies), "failed": len(failures),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "p50_s": round(percentile(latencies, 50), 3), "p95_s": round(percentile(latencies, 95), 3),
            "p99_s": round(percentile(latencies, 99), 3),
            "answers_per_s": round(len(latencies) / wall, 1), "failures": failures[:10]}


def answers_now(url: str, methods: list[str], token: str) -> dict[str, str]:
    out = {}
    for m in methods:
        status, data, _ = post(url, {"question": QUESTIONS[m], "method": m}, token)
        if status != 200:
            sys.exit(f"{m}: HTTP {status}: {data}")
        out[m] = data.get("answer", "")
    return out


def rebuild_under_load(url: str, index: Path, docs: Path, methods: list[str], clients: int,
                       requests: int, token: str, log: Path) -> dict:
    """A load run while DOCS are built into the served index: which build each answer
    came from."""
    old = answers_now(url, methods, token)
    done = threading.Event()
    build: dict = {}

    def run_build() -> None:
        t = time.perf_counter()
        with log.open("w") as f:
            r = subprocess.run([str(EXE), "build", str(docs), "--index", str(index)],
                               stdout=f, stderr=subprocess.STDOUT)
        build.update(rc=r.returncode, seconds=round(time.perf_counter() - t, 1))
        done.set()

    got: list[tuple[str, str]] = []
    builder = threading.Thread(target=run_build)
    builder.start()
    load = load_run(url, methods, clients, requests, token, until=done, answers=got)
    builder.join()
    if build["rc"] != 0:
        sys.exit(f"the rebuild failed (rc {build['rc']}):\n{log.read_text()[-2000:]}")
    new = answers_now(url, methods, token)
    seen = Counter("old" if a == old[m] else "new" if a == new[m] else "neither"
                   for m, a in got)
    return {"build_seconds": build["seconds"], "load": load, "answers_from": dict(seen),
            "methods_whose_answer_changed": [m for m in methods if old[m] != new[m]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path, nargs="?", help="the index (needed without --url, and "
                    "for the one-shot runs)")
    ap.add_argument("--url", default="", help="a running server instead of starting one")
    ap.add_argument("--pid", type=int, default=0, help="with --url: the server's pid, for its RSS")
    ap.add_argument("--token-env", default="GRAPHRAG_LOCAL_TOKEN")
    ap.add_argument("--methods", default="basic,local,global,drift")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--oneshot-runs", type=int, default=10)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=5)
    ap.add_argument("--rebuild", type=Path, default=None, metavar="DOCS",
                    help="rebuild a copy of INDEX from DOCS during a second load run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.url and not args.index:
        ap.error("give INDEX (a server is started on it) or --url")
    if args.rebuild and (args.url or not args.index):
        ap.error("--rebuild needs INDEX and starts its own server on a copy of it")
    methods = args.methods.split(",")
    token = os.environ.get(args.token_env, "") if args.url else ""

    proc, url, pid = None, args.url, args.pid
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_serve.{os.getpid()}.log"
    scratch = TemporaryDirectory(prefix="bench_serve.")
    served = args.index
    if args.rebuild:
        served = Path(scratch.name) / "index"
        shutil.copytree(args.index, served)
    if not url:
        t = time.perf_counter()
        proc, url = start_server(served, log)
        pid = proc.pid
        print(f"server {url} (pid {pid}) answering in {time.perf_counter() - t:.1f} s; log {log}",
              file=sys.stderr)
    rss = Rss(pid or None)
    report: dict = {"url": url}
    try:
        report["server"] = through_server(url, methods, args.runs, token)
        report["rss_mb_after_warm_up"] = rss.current_mb()
        report["load"] = load_run(url, methods, args.clients, args.requests, token)
        report["rss_mb_after_load"] = rss.current_mb()
        if args.rebuild:
            report["rebuild"] = rebuild_under_load(
                url, served, args.rebuild, methods, args.clients, args.requests, token,
                log.with_suffix(".build.log"))
        report["peak_rss_mb"] = rss.peak_mb()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        scratch.cleanup()
    if args.index and args.oneshot_runs:
        report["one_shot"] = one_shot(args.index, methods, args.oneshot_runs)

    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"through the server ({args.runs} runs each, after a warm-up), seconds:")
    for m, s in report["server"].items():
        print(f"  {m:7} median {s['median_s']:.3f}  p95 {s['p95_s']:.3f}  max {s['max_s']:.3f}"
              f"  (LLM calls {s['llm_calls']})")
    for m, s in report.get("one_shot", {}).items():
        print(f"one-shot {m:7} median {s['median_s']:.2f}  p95 {s['p95_s']:.2f}  ({s['n']} runs)")
    ld = report["load"]
    print(f"load: {ld['clients']} clients x {ld['requests_each']} requests in {ld['wall_s']} s: "
          f"{ld['answered']} answered, {ld['failed']} failed; statuses {ld['statuses']}")
    print(f"  p50 {ld['p50_s']} s  p95 {ld['p95_s']} s  p99 {ld['p99_s']} s  "
          f"({ld['answers_per_s']} answers/s)")
    for f in ld["failures"]:
        print(f"  failed: {f}")
    if "rebuild" in report:
        rb, ld = report["rebuild"], report["rebuild"]["load"]
        print(f"rebuild under load: build {rb['build_seconds']} s; {ld['answered']} answered, "
              f"{ld['failed']} failed; statuses {ld['statuses']}; answers from the old build "
              f"{rb['answers_from'].get('old', 0)}, the new {rb['answers_from'].get('new', 0)}, "
              f"neither {rb['answers_from'].get('neither', 0)}; answer changed by the "
              f"rebuild: {', '.join(rb['methods_whose_answer_changed']) or 'none'}")
        for f in ld["failures"]:
            print(f"  failed: {f}")
    print(f"server RSS: {report['rss_mb_after_warm_up']} MB warm, {report['rss_mb_after_load']} MB "
          f"after the load run, peak {report['peak_rss_mb']} MB")


if __name__ == "__main__":
    main()
