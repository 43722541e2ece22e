"""Questions answered by the real embedded model over the shared sample-corpus index
(the `e2e` fixture): each method in one library session (the model loaded once), the
`query --json` and piped `chat` commands of the installed executable, offline."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import no_network
from test_e2e import _offline

from graphrag_local import api

pytestmark = pytest.mark.e2e
EXE = Path(sys.executable).parent / "graphrag-local"


def index_ids(e2e) -> dict[str, set[str]]:
    t = e2e["tables"]
    return {
        "report": {r["id"] for r in t["community_reports"] if r["status"] == "ok"},
        "entity": {e["id"] for e in t["entities"]},
        "chunk": {c["id"] for c in t["chunks"]},
    }


@pytest.fixture(scope="module")
def answers(e2e):
    questions = {
        "global": "What are the main themes of these documents?",
        "local": "Who is Mara Quill?",
        "basic": "What happened in the Millbrook Flood?",
    }
    session = api.open_session(e2e["index"])
    out = {}
    try:
        with no_network() as attempts:
            for method, q in questions.items():
                streamed = []
                out[method] = (session.ask(q, method=method, on_text=streamed.append), streamed)
        out["network_attempts"] = attempts
        out["models_loaded"] = 1 if session._model is not None else 0
    finally:
        session.close()
    return out


@pytest.mark.parametrize("method", ["global", "local", "basic"])
def test_each_method_answers_with_citations_that_exist_in_the_index(answers, e2e, method):
    result, streamed = answers[method]
    assert result.answer.strip() and not result.no_answer
    assert "".join(streamed).strip().startswith(result.answer[:20])  # it was streamed
    assert result.citations
    ids = index_ids(e2e)
    for c in result.citations:
        assert c.id in ids[c.kind], c
    chunks = {c["id"]: c for c in e2e["tables"]["chunks"]}
    for c in (c for c in result.citations if c.kind == "chunk"):
        assert c.title == chunks[c.id]["path"] and c.detail.startswith("chunk ")
    assert result.calls and all(c.completion_tokens > 0 for c in result.calls)
    assert result.timings["first_token_seconds"] <= result.timings["total_seconds"]
    assert answers["network_attempts"] == []


def test_global_search_maps_reports_of_one_level_then_reduces(answers):
    result, _ = answers["global"]
    purposes = [c.purpose for c in result.calls]
    assert purposes.count("map") == result.map_calls >= 1 and purposes[-1] == "reduce"
    assert result.level is not None and all(c.kind == "report" for c in result.citations)
    assert all(c.detail == f"level {result.level}" for c in result.citations)


def test_local_context_draws_on_entities_reports_and_chunks(answers):
    result, _ = answers["local"]
    kinds = {c.kind for c in result.citations}
    assert {"entity", "chunk"} <= kinds
    assert "-Entities-" in result.context[0] and "-Sources-" in result.context[0]


def test_query_json_from_the_installed_executable_offline(e2e):
    out = subprocess.run(
        _offline([str(EXE), "query", "Who designed the new earth banks?", "--method", "basic",
                  "--index", str(e2e["index"]), "--json"]),
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["method"] == "basic" and data["answer"].strip()
    assert data["llm_calls"] == 1 and data["prompt_tokens"] > data["context_tokens"] > 0
    assert {c["id"] for c in data["citations"]} <= index_ids(e2e)["chunk"]


def test_chat_answers_two_piped_turns_and_quits(e2e):
    script = "Who is Elena Voss?\n/method basic\nWhat did she announce?\n/sources\n/quit\n"
    out = subprocess.run(
        _offline([str(EXE), "chat", "--method", "local", "--index", str(e2e["index"])]),
        input=script, capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.count("you>") == 5
    turns = out.stdout.split("you>")
    assert turns[1].strip().count("\n") >= 1 and turns[3].strip().count("\n") >= 1  # answers
    assert "method: basic" in out.stdout and "sources" in out.stdout
    assert out.stderr.count("LLM calls") == 2 and "local" in out.stderr and "basic" in out.stderr
    assert "Traceback" not in out.stderr
