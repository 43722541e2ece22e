"""The evaluation harness's logic with scripted fakes: question dedup and loading, pair
scheduling and order swapping, win-rate, interval and tie arithmetic, judge consistency,
extraction precision/recall matching, and the report. The real model runs the whole
chain in test_e2e_eval."""

import json

import pytest
from fakes import FakeChatModel

from graphrag_local.errors import ConfigError, InputError
from graphrag_local.eval.answers import parse_conditions
from graphrag_local.eval.extraction import GoldDoc, Score
from graphrag_local.eval.judge import (
    Trial,
    bootstrap_ci,
    judge_verdict,
    preferred,
    run_judge,
    schedule,
    score_of,
    win_rates,
)
from graphrag_local.eval.questions import dedupe, generate_questions, load_questions, question_id
from graphrag_local.eval.report import build_report, context_table
from graphrag_local.prompts import load_prompts

PROMPTS = load_prompts()


def test_dedupe_drops_exact_and_near_duplicates_and_gives_stable_ids():
    items = [{"question": "What are the main themes?"},
             {"question": "what are the MAIN themes"},
             {"question": "What are the main themes of the corpus?"},
             {"question": "Who funds the river project?"}]
    kept = dedupe(items)
    assert [k["question"] for k in kept] == ["What are the main themes?",
                                             "What are the main themes of the corpus?",
                                             "Who funds the river project?"]
    assert kept[0]["id"] == dedupe([items[0]])[0]["id"]
    assert len(dedupe(items, threshold=0.6)) == 2


def test_generate_questions_walks_personas_tasks_questions():
    def reply(messages, grammar, purpose):
        if purpose == "eval_personas":
            return json.dumps({"users": [{"role": "Journalist", "wants": "stories"},
                                         {"role": "Historian", "wants": "the past"}]})
        if purpose == "eval_tasks":
            return json.dumps({"tasks": ["Find the main conflicts"]})
        persona = messages[0]["content"].split("A user of it: ")[1].split(":")[0]
        return json.dumps({"questions": [f"How do {persona}s see the town", "What are the themes?"]})

    model = FakeChatModel(default=reply)
    qs = generate_questions(model, PROMPTS, "Town records.", personas=2, tasks=1, questions=2)
    assert [q["question"] for q in qs] == ["How do Journalists see the town?",
                                           "What are the themes?", "How do Historians see the town?"]
    assert qs[0]["persona"].startswith("Journalist") and qs[0]["task"] == "Find the main conflicts"
    assert [a["purpose"] for a in model.asked] == ["eval_personas", "eval_tasks", "eval_questions",
                                                   "eval_tasks", "eval_questions"]


def test_load_questions_from_csv_and_jsonl(tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text("\ufeffquestion_text,question_id\nWhat is it?,a1\nWhat is it?,a2\nWho?,b\n")
    assert [(q["id"], q["question"]) for q in load_questions(csv)] == [("a1", "What is it?"), ("b", "Who?")]
    jl = tmp_path / "q.jsonl"
    jl.write_text('{"question": "One?"}\n\n{"question": "Two?", "id": "x"}\n')
    assert [q["question"] for q in load_questions(jl)] == ["One?", "Two?"]
    bad = tmp_path / "bad.csv"
    bad.write_text("text\nhello\n")
    with pytest.raises(InputError, match="bad.csv: no 'question'"):
        load_questions(bad)
    (tmp_path / "broken.jsonl").write_text('{"question": "ok?"}\n{oops\n')
    with pytest.raises(InputError, match="broken.jsonl:2"):
        load_questions(tmp_path / "broken.jsonl")


def test_parse_conditions():
    assert parse_conditions("C0,c1,SS,ts,local", [0, 1]) == [
        ("C0", "global", "0"), ("C1", "global", "1"), ("basic", "basic", None),
        ("ts", "ts", None), ("local", "local", None)]
    with pytest.raises(ConfigError, match="no reports at level 3"):
        parse_conditions("C3", [0, 1])
    with pytest.raises(ConfigError, match="unknown condition"):
        parse_conditions("vibes", [0])
    with pytest.raises(ConfigError, match="distinct"):
        parse_conditions("basic,SS", [0])


def _answers(conds=("C0", "basic", "ts"), questions=("q1", "q2")):
    return [{"question_id": q, "question": f"{q}?", "condition": c, "answer": f"{c} says {q}",
             "context_tokens": 100 * (i + 1), "llm_calls": 2, "seconds": 1.0, "no_answer": False}
            for i, c in enumerate(conds) for q in questions]


def test_schedule_pairs_each_question_in_both_orders():
    trials = schedule(_answers(), ["comprehensiveness", "directness"])
    assert len(trials) == 3 * 2 * 2 * 2  # pairs x questions x criteria x orders
    keys = {(t.question_id, t.criterion, t.first, t.second) for t in trials}
    for t in trials:
        assert (t.question_id, t.criterion, t.second, t.first) in keys
    # a question one condition did not answer is not judged for its pairs
    partial = [a for a in _answers() if not (a["condition"] == "ts" and a["question_id"] == "q2")]
    assert not any(t.question_id == "q2" and "ts" in (t.first, t.second)
                   for t in schedule(partial, ["diversity"]))


def test_preferred_maps_position_to_condition():
    t = Trial("q", "diversity", "C0", "basic")
    assert preferred(t, "A") == "C0" and preferred(t, "B") == "basic" and preferred(t, "TIE") == "TIE"


def test_scores_ties_and_win_rates():
    assert score_of(["C0", "C0"], "C0") == 1.0
    assert score_of(["C0", "basic"], "C0") == 0.5  # orders disagree: no winner
    assert score_of(["C0", "TIE"], "C0") == 0.75
    assert score_of(["TIE", "TIE"], "C0") == 0.5

    def j(q, first, second, verdict):
        t = Trial(q, "diversity", first, second)
        return {"question_id": q, "criterion": "diversity", "first": first, "second": second,
                "verdict": verdict, "preferred": preferred(t, verdict)}

    judgments = [j("q1", "C0", "basic", "A"), j("q1", "basic", "C0", "B"),  # C0 twice
                 j("q2", "C0", "basic", "A"), j("q2", "basic", "C0", "A"),  # split: tie
                 j("q3", "C0", "basic", "TIE"), j("q3", "basic", "C0", "A")]  # basic 0.75
    (row,) = win_rates(judgments)
    assert (row["x"], row["y"], row["questions"]) == ("C0", "basic", 3)
    assert row["win_rate"] == pytest.approx((1 + 0.5 + 0.25) / 3, abs=1e-3)
    assert (row["x_wins"], row["y_wins"], row["ties"]) == (1, 1, 1)
    assert row["consistency"] == pytest.approx(1 / 3, abs=1e-3)
    assert row["answer_a_rate"] == pytest.approx(4 / 6, abs=1e-3)
    assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
    assert "noise" in judge_verdict([row])


def test_bootstrap_interval_is_seeded_and_narrows_with_agreement():
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)
    mixed = [1.0, 0.0] * 10
    lo, hi = bootstrap_ci(mixed, seed=3)
    assert (lo, hi) == bootstrap_ci(mixed, seed=3) and lo < 0.5 < hi


def test_run_judge_swaps_orders_constrains_verdicts_and_resumes(tmp_path):
    answers = _answers(conds=("C0", "basic"), questions=("q1",))

    def reply(messages, grammar, purpose):
        text = messages[0]["content"]
        a = text.split("-Answer A-")[1]
        return "A" if "C0 says" in a.split("-Answer B-")[0] else "B"  # always prefers C0

    model = FakeChatModel(default=reply)
    rows = run_judge(model, PROMPTS, answers, tmp_path, ["comprehensiveness", "directness"])
    assert len(rows) == 4 and all(r["preferred"] == "C0" for r in rows)
    assert all(a["grammar"] == 'root ::= "A" | "B" | "TIE"' for a in model.asked)
    assert {r["verdict"] for r in rows} == {"A", "B"}  # C0 was shown in both positions
    (rate,) = [r for r in win_rates(rows) if r["criterion"] == "directness"]
    assert rate["win_rate"] == 1.0 and rate["consistency"] == 1.0
    again = FakeChatModel()  # nothing queued: any call would fail
    assert run_judge(again, PROMPTS, answers, tmp_path, ["comprehensiveness", "directness"]) == rows


def test_extraction_scoring_matches_any_mention_and_related_pairs():
    gold = GoldDoc(0, "t", "text", (frozenset({"ann lee", "ann"}), frozenset({"bob"}),
                                    frozenset({"york"})), ("PER", "PER", "LOC"),
                   frozenset({frozenset({0, 2})}))
    s = Score()
    s.add(gold, ["Ann", "ANN LEE", "Zed"])
    assert (s.predicted, s.correct, s.found, s.gold) == (3, 2, 1, 3)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(1 / 3)
    s.add_relationships(gold, [("York", "Ann"), ("Ann", "Bob"), ("ann", "York")])
    assert (s.rel_predicted, s.rel_correct, s.rel_found, s.rel_gold) == (2, 1, 1, 1)


def test_report_gathers_tables_commands_and_figures(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in _answers()))
    (run / "meta.json").write_text(json.dumps({"title": "Sample run", "command": "graphrag-local eval answer x"}))
    (run / "winrates.json").write_text(json.dumps([{
        "criterion": "diversity", "x": "C0", "y": "ts", "questions": 2, "win_rate": 0.75,
        "ci_low": 0.5, "ci_high": 1.0, "x_wins": 1, "y_wins": 0, "ties": 1, "consistency": 1.0,
        "answer_a_rate": 0.5}]))
    (run / "winrates.png").write_bytes(b"png")
    text = build_report([run], tmp_path / "docs" / "evaluation.md")
    assert "## Sample run" in text and "graphrag-local eval answer x" in text
    assert "| C0 | 2 | 100 | 33% |" in text  # Table 3: C0 uses a third of TS's tokens
    assert "| diversity | C0 | ts | 2 | 75% |" in text and "](../run/winrates.png)" in text
    assert (tmp_path / "docs" / "evaluation.md").read_text() == text
    assert "| ts | 2 | 300 | 100% |" in context_table(_answers())


def test_questions_without_ids_get_content_hash_ids(tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text("question\nWhat is A?\nWho is B?\n")
    jl = tmp_path / "q.jsonl"
    jl.write_text('{"question": "What is A?"}\n{"question_text": "Who is B?", "id": ""}\n')
    from_csv, from_jsonl = load_questions(csv), load_questions(jl)
    assert [q["id"] for q in from_csv] == [question_id("What is A?"), question_id("Who is B?")]
    assert [q["id"] for q in from_csv] == [q["id"] for q in from_jsonl]
    assert len({q["id"] for q in from_csv}) == 2
    assert list(from_csv[0]) == ["id", "question"]
    (tmp_path / "num.jsonl").write_text('{"question": "One?", "id": 0}\n{"question": "Two?", "id": 1}\n')
    assert [q["id"] for q in load_questions(tmp_path / "num.jsonl")] == ["0", "1"]
    (tmp_path / "twice.csv").write_text("id,question\nx,One?\nx,Two?\n")
    with pytest.raises(InputError, match="question id 'x'"):
        load_questions(tmp_path / "twice.csv")


def test_judge_scores_every_csv_question(tmp_path, monkeypatch):
    """Regression: CSV questions without an id all had the id "", so the judge merged them
    and scored one question instead of two."""
    from typer.testing import CliRunner

    from graphrag_local.cli import app
    from graphrag_local.eval import commands

    csv = tmp_path / "q.csv"
    csv.write_text("question\nWhat is A?\nWho is B?\n")
    answers = tmp_path / "answers"
    answers.mkdir()
    rows = [{"question_id": q["id"], "question": q["question"], "condition": c,
             "answer": f"{c} on {q['question']}", "context_tokens": 10, "llm_calls": 1,
             "seconds": 1.0, "no_answer": False}
            for c in ("C0", "basic") for q in load_questions(csv)]
    (answers / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    judge = FakeChatModel(default=lambda messages, grammar, purpose: "A")
    monkeypatch.setattr(commands, "_model", lambda *a, **k: (judge, None))
    result = CliRunner().invoke(app, ["eval", "judge", str(answers), "--out", str(tmp_path / "j"),
                                      "--criteria", "diversity"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads((tmp_path / "j" / "winrates.json").read_text())
    assert row["questions"] == 2 and len(judge.asked) == 4


def test_answers_without_question_ids_get_them_when_read(tmp_path):
    from graphrag_local.eval.answers import read_answers

    rows = [{"question_id": "", "question": q, "condition": "C0", "answer": "x"}
            for q in ("What is A?", "Who is B?")]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"cut')
    got = read_answers(tmp_path)
    assert [a["question_id"] for a in got] == [question_id("What is A?"), question_id("Who is B?")]


def test_answering_resumes_after_an_interruption(tmp_path):

    from graphrag_local.eval.answers import answer_questions, read_answers
    from graphrag_local.search.common import SearchResult

    asked = []

    class Session:
        model_name = "fake"

        def __init__(self, stop_after=None):
            self.stop_after = stop_after

        def ask(self, question, method, level):
            if self.stop_after is not None and len(asked) >= self.stop_after:
                raise KeyboardInterrupt
            asked.append((question, method))
            return SearchResult(question, method, f"{method}: {question}")

    qs = load_questions(_write(tmp_path / "q.csv", "question\nOne?\nTwo?\nThree?\n"))
    conds = parse_conditions("basic,local", [0])
    with pytest.raises(KeyboardInterrupt):
        answer_questions(Session(stop_after=4), qs, conds, tmp_path / "run")
    assert len(read_answers(tmp_path / "run")) == 4
    rows = answer_questions(Session(), qs, conds, tmp_path / "run")
    assert len(rows) == 6 and len(asked) == 6  # only the two missing ones were asked again
    assert len({(r["question_id"], r["condition"]) for r in rows}) == 6


def _write(path, text):
    path.write_text(text)
    return path


def test_coverage_statements_are_quoted_lines_or_sentences_with_their_refs():
    from graphrag_local.eval.coverage import statements

    themed = ("**Millbrook and River Aldren** [R2]\n"
              "- Tobias Renn designed new earth banks for the river. [S1]\n"
              "- A line without a source here.\n")
    assert statements(themed) == [("Tobias Renn designed new earth banks for the river.", True),
                                  ("A line without a source here.", False)]
    prose = "The Trust was founded in 1998 [S1]. It restored the marsh in a year."
    assert [c for _, c in statements(prose)] == [True, False]


def test_coverage_verbatim_share_ignores_case_spacing_and_punctuation():
    from graphrag_local.eval.coverage import verbatim_share
    from graphrag_local.stages.ground import normalise

    corpus = normalise("Tobias Renn designed new  earth banks.\nThe vote was held in May.")
    assert verbatim_share(["tobias renn designed new earth banks", "The vote was held in May."],
                          corpus) == 1.0
    assert verbatim_share(["The vote was held in June."], corpus) == 0.0
    assert verbatim_share([], corpus) is None


def test_mention_clustering_scores_merges_and_lists_the_wrong_ones():
    gold = GoldDoc(0, "t", "text", (frozenset({"ann lee", "ann"}), frozenset({"bob lee"}),
                                     frozenset({"cy"})), ("PER", "PER", "PER"))
    s = Score()
    # one right merge (ann lee + ann), one wrong (bob lee joined to them), cy alone
    s.add(gold, [], clusters=[{"Ann Lee", "Ann", "Bob Lee"}, {"Cy"}])
    assert s.merged_pairs == 3 and s.merged_right == 1
    assert sorted(map(sorted, s.wrong_merges)) == [["ann", "bob lee"], ["ann lee", "bob lee"]]
    p, r, _ = s.bcubed
    assert p == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1) / 4) and r == 1.0
    assert sorted(map(sorted, s.row()["wrong_merges"])) == [["ann", "bob lee"], ["ann lee", "bob lee"]]


def test_a_gold_set_without_coreference_does_not_score_mention_clustering():
    """An NER set lists '長岡半太郎' and '半太郎' (one man) as two names: joining them is
    right, and the gold cannot say so, so clustering is not scored (None, printed as such)."""
    gold = GoldDoc(0, "t", "text", (frozenset({"長岡半太郎"}), frozenset({"半太郎"})),
                   ("PER", "PER"), coreference=False)
    s = Score()
    s.add(gold, [], clusters=[{"長岡半太郎", "半太郎"}])
    row = s.row()
    assert row["correct"] == 1 and row["gold_found"] == 2
    assert row["clustering_b3_f1"] is None and row["merged_pairs"] is None
    assert row["wrong_merges"] == []
