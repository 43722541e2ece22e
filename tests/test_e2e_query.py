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
def test_each_method_answers_with_sentences_of_the_documents_and_their_sources(answers, e2e, method):
    result, streamed = answers[method]
    assert result.answer.strip() and not result.no_answer
    assert "".join(streamed).strip().startswith(result.answer[:20])  # it was shown as it came
    assert result.citations
    ids = index_ids(e2e)
    for c in result.citations:
        assert c.id in ids[c.kind], c
    chunks = {c["id"]: c for c in e2e["tables"]["chunks"]}
    for c in (c for c in result.citations if c.kind == "chunk"):
        assert c.title == chunks[c.id]["path"] and "chunk " in c.detail
    corpus = " ".join(" ".join(c["text"].split()) for c in chunks.values())
    refs = {c.ref for c in result.citations}
    for line in result.answer.splitlines():  # every answer sentence quoted, with its source
        sentence, cited = line.removeprefix("- ").rsplit(" [", 1)
        assert sentence in corpus and set(cited.rstrip("]").split(", ")) <= refs
    assert result.timings["first_token_seconds"] <= result.timings["total_seconds"]
    assert answers["network_attempts"] == []


def test_global_search_scores_the_findings_of_one_level_with_the_model(answers):
    result, _ = answers["global"]
    assert [c.purpose for c in result.calls] == ["map"] and result.map_calls == 1
    assert result.calls[0].completion_tokens >= 2  # one choice per digit, per finding
    assert result.level is not None
    reports = [c for c in result.citations if c.kind == "report"]
    assert reports and all(c.detail == f"level {result.level}" for c in reports)


def test_local_answers_from_the_sentences_around_the_nearest_entities(answers):
    result, _ = answers["local"]
    kinds = {c.kind for c in result.citations}
    assert {"entity", "chunk"} <= kinds
    assert result.calls == []  # local and basic quote; the model is not asked


def test_factual_questions_are_answered_with_the_right_names(e2e):
    """samples/facts.jsonl (gold answers written for the sample corpus): basic and local
    search quote the sentence that names the answer."""
    from pathlib import Path

    from graphrag_local.eval.facts import load_facts, score_facts

    facts = load_facts(Path(__file__).parent.parent / "samples" / "facts.jsonl")
    session = api.open_session(e2e["index"])
    try:
        with no_network() as attempts:
            result = score_facts(session, facts, ["basic", "local"])
    finally:
        session.close()
    accuracy = {m["method"]: m["accuracy"] for m in result["methods"]}
    assert accuracy["basic"] >= 0.8 and accuracy["local"] >= 0.7, accuracy
    assert attempts == []


def test_query_json_from_the_installed_executable_offline(e2e):
    out = subprocess.run(
        _offline([str(EXE), "query", "Who designed the new earth banks?", "--method", "basic",
                  "--index", str(e2e["index"]), "--json"]),
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["method"] == "basic" and "Tobias Renn designed new earth banks" in data["answer"]
    assert data["llm_calls"] == 0 and data["timings"]["total_seconds"] > 0
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
