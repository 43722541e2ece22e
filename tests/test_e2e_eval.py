"""The evaluation chain with the real embedded model over the shared sample-corpus index
(the `e2e` fixture), through the installed executable and offline: eval questions ->
eval answer (two conditions, two questions) -> eval judge -> eval report."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_e2e import _offline

pytestmark = pytest.mark.e2e
EXE = Path(sys.executable).parent / "graphrag-local"


def cli(*args):
    out = subprocess.run(_offline([str(EXE), *map(str, args)]), capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def run(e2e, tmp_path_factory):
    base = tmp_path_factory.mktemp("eval")
    index = e2e["index"]
    cli("eval", "questions", "--index", index, "--personas", "1", "--tasks", "1",
        "--questions", "2", "--out", base / "questions.jsonl")
    cli("eval", "answer", base / "questions.jsonl", "--index", index, "--conditions", "C0,basic",
        "--out", base / "answers")
    judged = cli("eval", "judge", base / "answers", "--out", base / "judge")
    cli("eval", "report", base / "judge", "--out", base / "docs" / "evaluation.md")
    return {"base": base, "judge_stdout": judged.stdout}


def test_questions_are_generated_and_deduplicated(run):
    rows = [json.loads(x) for x in (run["base"] / "questions.jsonl").read_text().splitlines()]
    assert 1 <= len(rows) <= 2
    assert all(r["question"].endswith("?") and r["id"] and r["persona"] and r["task"] for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)


def test_every_question_is_answered_under_both_conditions(run):
    questions = (run["base"] / "questions.jsonl").read_text().splitlines()
    answers = [json.loads(x) for x in (run["base"] / "answers" / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == 2 * len(questions)
    assert {a["condition"] for a in answers} == {"C0", "basic"}
    assert all(a["answer"].strip() for a in answers)
    # extractive answers quote the documents: global search by theme (a report's title,
    # its sentences), basic search the nearest sentences; neither asks the model
    assert all(a["llm_calls"] == 0 for a in answers)
    assert all(any(ref.startswith("R") for ref in a["citations"]) for a in answers
               if a["condition"] == "C0")
    assert all(a["level"] == 0 for a in answers if a["condition"] == "C0")


def test_judge_writes_both_orders_win_rates_and_a_png(run):
    judge = run["base"] / "judge"
    judgments = [json.loads(x) for x in (judge / "judgments.jsonl").read_text().splitlines()]
    n_questions = len((run["base"] / "questions.jsonl").read_text().splitlines())
    assert len(judgments) == n_questions * 4 * 2  # questions x criteria x both orders
    assert {j["verdict"] for j in judgments} <= {"A", "B", "TIE"}
    rows = json.loads((judge / "winrates.json").read_text())
    assert {r["criterion"] for r in rows} == {"comprehensiveness", "diversity", "empowerment", "directness"}
    assert all(0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1 for r in rows)
    assert (judge / "winrates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "win rate" in run["judge_stdout"]


def test_report_has_the_tables_the_picture_and_the_commands(run):
    text = (run["base"] / "docs" / "evaluation.md").read_text()
    assert "Table 3" in text and "| C0 |" in text and "| basic |" in text
    assert "Head-to-head win rates" in text and "winrates.png" in text
    assert "graphrag-local eval judge" in text
