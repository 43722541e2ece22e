"""The air gap, for every command: each `graphrag-local` command (build, status, show,
query with every method, chat, export in every format, models, config, init, doctor and
every `eval` step) runs in-process on the shared sample-corpus index (the `e2e` fixture)
with Python's network disabled, on tiny inputs, and must succeed without one network
attempt. The same run checks that what the commands wrote (the real LanceDB index,
exports, the graph page, eval run folders) is private with a umask of 022."""

import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from conftest import ROOT, no_network
from typer.testing import CliRunner

from graphrag_local.browse import KINDS
from graphrag_local.cli import app
from graphrag_local.export import FORMATS
from graphrag_local.private import loose_modes
from graphrag_local.query import METHODS

pytestmark = pytest.mark.e2e
SAMPLES = ROOT / "samples"
# one Re-DocRED-shaped document about the sample corpus's world
GOLD = [{
    "title": "Aldren Water Trust",
    "sents": [["Mara", "Quill", "founded", "the", "Aldren", "Water", "Trust", "in", "Port",
               "Aldren", "."],
              ["Tobias", "Renn", "is", "its", "chief", "engineer", "."]],
    "vertexSet": [
        [{"name": "Mara Quill", "type": "PER", "sent_id": 0, "pos": [0, 2]}],
        [{"name": "Aldren Water Trust", "type": "ORG", "sent_id": 0, "pos": [4, 7]}],
        [{"name": "Port Aldren", "type": "LOC", "sent_id": 0, "pos": [8, 10]}],
        [{"name": "Tobias Renn", "type": "PER", "sent_id": 1, "pos": [0, 2]}],
    ],
    "labels": [{"h": 0, "t": 1, "r": "P112", "evidence": [0]},
               {"h": 3, "t": 1, "r": "P108", "evidence": [1]}],
}]


def commands(e2e, base: Path) -> list[tuple[str, list[str], str]]:
    """(name, arguments, piped input) of every command, in an order where each finds
    what it needs."""
    index = str(e2e["index"])
    copy = str(base / "index-copy")  # the rebuild goes to a copy: other tests read the index
    entity = sorted(e["name"] for e in e2e["tables"]["entities"])[0]
    gold = base / "gold.json"
    gold.write_text(json.dumps(GOLD))
    facts = base / "facts.jsonl"
    facts.write_text((SAMPLES / "facts.jsonl").read_text().splitlines()[0] + "\n")
    text = base / "text.txt"  # two sentences: one short extraction reply
    text.write_text(" ".join(" ".join(s) for s in GOLD[0]["sents"]) + "\n")
    config = base / "airgap.toml"  # a small budget of relevance tests for global search
    config.write_text("[query]\nselection_tests = 6\n")
    small = ["--config", str(config)]
    runs = base / "runs"
    cmds = [
        ("build --dry-run", ["build", str(e2e["docs"]), "--index", copy, "--dry-run"], ""),
        ("build (rerun)", ["build", str(e2e["docs"]), "--index", copy, "--json"], ""),
        ("status", ["status", "--index", index], ""),
        ("status --json", ["status", "--index", index, "--json"], ""),
        ("show entities NAME", ["show", "entities", entity, "--index", index], ""),
        ("show graph --out", ["show", "graph", "--index", index, "--out",
                              str(base / "graph" / "graph.html")], ""),
        ("chat (piped)", ["chat", "--method", "local", "--index", index, *small],
         "Who is Mara Quill?\n/method basic\nWhat did she found?\n/quit\n"),
        ("models", ["models"], ""),
        ("models --json", ["models", "--json"], ""),
        ("models add", ["models", "add", "mine", str(_default_gguf())], ""),
        ("config", ["config"], ""),
        ("init", ["init", str(base / "project"), "--prompts"], ""),
        ("doctor", ["doctor", "--json", index], ""),
        ("eval questions", ["eval", "questions", "--description", "a town's water and its "
                            "people", "--n", "1", "--out", str(runs / "questions.jsonl")], ""),
        ("eval answer", ["eval", "answer", str(SAMPLES / "questions.jsonl"), "--index", index,
                         "--conditions", "C0,basic", "--limit", "1", *small, "--out",
                         str(runs / "answers")], ""),
        ("eval judge", ["eval", "judge", str(runs / "answers"), "--criteria", "directness",
                        "--out", str(runs / "judge")], ""),
        ("eval extraction", ["eval", "extraction", str(gold), "--limit", "1", "--gleanings",
                             "0", "--out", str(runs / "extraction")], ""),
        ("eval facts", ["eval", "facts", str(facts), "--index", index, "--methods", "basic",
                        "--out", str(runs / "facts")], ""),
        ("eval coverage", ["eval", "coverage", str(SAMPLES / "questions.jsonl"), "--index", index,
                           "--limit", "1", "--out", str(runs / "coverage")], ""),
        ("eval relevance", ["eval", "relevance", str(facts), "--index", index, "--out",
                            str(runs / "relevance")], ""),
        ("eval faithfulness", ["eval", "faithfulness", index, "--out",
                               str(runs / "faithfulness")], ""),
        ("eval chunking", ["eval", "chunking", str(text), "--tokens", "60", "--sizes", "60",
                           "--gleanings", "0", "--out", str(runs / "chunking")], ""),
        ("eval report", ["eval", "report", *(str(runs / r) for r in (
            "answers", "judge", "extraction", "facts", "faithfulness", "chunking")),
            "--out", str(runs / "report" / "evaluation.md")], ""),
    ]
    cmds[4:4] = [(f"show {kind}", ["show", kind, "--index", index], "")
                 for kind in KINDS if kind != "graph"]
    cmds[4:4] = [(f"query --method {m}", ["query", "Who founded the Aldren Water Trust?",
                                          "--method", m, "--index", index, "--json", *small], "")
                 for m in METHODS]
    cmds[4:4] = [(f"export --format {f}", ["export", index, "--format", f, "--out",
                                           str(base / "exports" / f)], "")
                 for f in FORMATS]
    return cmds


def _default_gguf() -> Path:
    from graphrag_local.models import presets

    return presets.require(presets.get_preset(None))


@pytest.fixture(scope="module")
def ran(e2e, tmp_path_factory):
    base = tmp_path_factory.mktemp("airgap")
    shutil.copytree(e2e["index"], base / "index-copy")
    mp = pytest.MonkeyPatch()
    mp.chdir(base)  # nothing lands in the repository; no project config is picked up
    mp.setenv("GRAPHRAG_LOCAL_HOME", str(base / "home"))  # `models add` writes here
    old_umask = os.umask(0o022)
    runner = CliRunner()
    results = {}
    try:
        with no_network() as attempts:
            for name, args, piped in commands(e2e, base):
                started = time.perf_counter()
                result = runner.invoke(app, args, input=piped or None)
                results[name] = {"result": result, "seconds": time.perf_counter() - started,
                                 "attempts": list(attempts)}
            help_text = runner.invoke(app, ["query", "--help"]).output
    finally:
        os.umask(old_umask)
        mp.undo()
    yield {"base": base, "results": results, "attempts": attempts, "query_help": help_text}


def test_no_command_tried_the_network(ran):
    assert ran["attempts"] == []
    assert len(ran["results"]) >= 30


def test_every_command_succeeds_offline(ran):
    failed = {name: (r["result"].exit_code, r["result"].output[-1500:],
                     repr(r["result"].exception))
              for name, r in ran["results"].items() if r["result"].exit_code != 0}
    assert not failed, failed


def test_every_query_method_of_the_help_was_run(ran):
    help_text = " ".join(ran["query_help"].split())
    for method in METHODS:
        assert method in help_text
        assert json.loads(ran["results"][f"query --method {method}"]["result"].stdout)["answer"]


def test_commands_did_their_work(ran):
    base, r = ran["base"], ran["results"]
    assert json.loads(r["build (rerun)"]["result"].stdout)["llm_calls"] == 0
    chat = r["chat (piped)"]["result"].output
    assert chat.count("you>") == 4 and chat.count("LLM calls") == 2 and "method: basic" in chat
    assert json.loads(r["doctor"]["result"].stdout)["status"] in ("ok", "warn")
    assert (base / "graph" / "graph.html").read_text().startswith("<!DOCTYPE html>")
    for fmt in FORMATS:
        assert any((base / "exports" / fmt).iterdir())
    runs = base / "runs"
    for name in ("answers/answers.jsonl", "judge/winrates.json", "extraction/extraction.json",
                 "facts/facts.json", "faithfulness/faithfulness.json", "chunking/chunking.json",
                 "report/evaluation.md"):
        assert (runs / name).is_file(), name


def test_what_the_commands_wrote_is_private(ran, e2e):
    """The session index (api.build, real model and embedder), the CLI rebuild, exports,
    the graph page and eval run folders: folders 0700, files 0600, under a umask of 022."""
    base = ran["base"]
    roots = [e2e["index"], base / "index-copy", base / "graph", base / "runs",
             *(base / "exports" / f for f in FORMATS)]
    for root in roots:
        assert not loose_modes(root), (root, loose_modes(root)[:5])
        for p in [root, *root.rglob("*")]:
            mode = p.lstat().st_mode
            assert stat.S_IMODE(mode) == (0o700 if stat.S_ISDIR(mode) else 0o600), p
    assert (base / "home" / "config" / "models.toml").is_file()
    assert stat.S_IMODE((base / "home" / "config").stat().st_mode) == 0o700


def test_the_run_stays_quick(ran, capsys):
    """The seconds of the slow commands (shown with -s); the bound is loose because the
    machine may be shared."""
    slow = {n: round(r["seconds"], 1) for n, r in ran["results"].items() if r["seconds"] > 2}
    total = sum(r["seconds"] for r in ran["results"].values())
    with capsys.disabled():
        print(f"\nair-gap run: {total:.0f} s; slow commands: {slow}")
    assert total < 600, slow  # about 2 minutes on an idle 2-core machine
