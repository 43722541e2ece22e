"""Search logic with a scripted fake model: packing, seeded shuffling, score filtering
and ordering, citations, the loop guard, and the session's errors. The real model
answers in test_e2e."""

import json
import re
from pathlib import Path

import pytest
from conftest import copy_corpus
from fakes import FakeChatModel, HashEmbedder
from test_pipeline import make_build, scripted

from graphrag_local.errors import ConfigError, IndexStateError, InputError
from graphrag_local.pipeline import run_build
from graphrag_local.prompts import load_prompts
from graphrag_local.query import Session, load_index_data, result_dict
from graphrag_local.schema import Chunk, Community, CommunityReport, Entity, Relationship
from graphrag_local.search.basic_search import basic_context
from graphrag_local.search.common import (
    Citation,
    IndexData,
    LoopGuard,
    Report,
    history_block,
    mark_cited,
    pack_batches,
    take_within,
)
from graphrag_local.search.global_search import (
    Point,
    global_search,
    rank_points,
    report_units,
    shuffled,
)
from graphrag_local.search.local_search import local_context
from graphrag_local.settings import QuerySettings, Settings
from graphrag_local.store import Store

PROMPTS = load_prompts()


def words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize(
    "sizes,budget,expected",
    [
        ([3, 3, 3], 8, [[0, 1], [2]]),
        ([3, 3, 3], 100, [[0, 1, 2]]),
        ([20, 2, 2], 8, [[0], [1, 2]]),  # too big alone: a batch of its own
        ([], 8, []),
    ],
)
def test_pack_batches_keeps_order_within_budget(sizes, budget, expected):
    texts = [" ".join(["w"] * n) for n in sizes]
    assert pack_batches(texts, budget, words) == expected


def test_take_within_stops_at_the_first_that_does_not_fit():
    assert take_within(["a b", "c d e", "f"], 6, words) == 1
    assert take_within(["a", "b"], 100, words) == 2


def test_shuffle_is_seeded_and_a_permutation():
    units = report_units([_report(i) for i in range(1, 21)])
    a, b, c = shuffled(units, 7), shuffled(units, 7), shuffled(units, 8)
    assert [u.ref for u in a] == [u.ref for u in b]
    assert [u.ref for u in a] != [u.ref for u in c]
    assert sorted(u.ref for u in a) == sorted(u.ref for u in units)


def test_rank_points_drops_zero_and_sorts_by_score_stably():
    pts = [Point("a", 40, ("R1",), 0), Point("b", 0, ("R2",), 0), Point("c", 90, ("R3",), 1),
           Point("d", 40, ("R4",), 1)]
    assert [p.description for p in rank_points(pts)] == ["c", "a", "d"]


def test_rank_points_merges_repeated_points_keeping_the_best_score():
    pts = [Point("Same thing.", 60, ("R1",), 0), Point("same thing", 90, ("R2",), 1),
           Point("Other.", 70, ("R3",), 1)]
    ranked = rank_points(pts)
    assert [(p.score, p.sources) for p in ranked] == [(90, ("R2", "R1")), (70, ("R3",))]


def test_mark_cited_flags_named_refs_and_unknown_ones():
    cites = [Citation("report", "R1", "x", "T"), Citation("chunk", "S2", "y", "f.md")]
    marked, unknown = mark_cited("Yes [R1]. Also [R9] and S12.", cites)
    assert [c.cited for c in marked] == [True, False]
    assert unknown == ["R9", "S12"]


def test_loop_guard_cuts_a_repeating_answer_and_passes_others():
    seen = []
    guard = LoopGuard(window=20, forward=seen.append)
    line = "The river floods the village every year. "
    stopped = any(guard(piece + " ") for piece in (line * 5).split(" "))
    assert stopped and guard.looped
    assert guard.answer().count("floods the village") == 1
    ok = LoopGuard(window=20)
    assert not any(ok(w + " ") for w in "one two three four five six seven eight nine ten".split())
    assert ok.answer().endswith("ten")


def test_history_block_keeps_the_newest_turns():
    hist = [("q1", "a1"), ("q2", "a2"), ("q3", "a3")]
    text = history_block(hist, 2, 100, words)
    assert "q1" not in text and "q2" in text and "q3" in text
    assert history_block([], 2, 100, words) == ""


# --- global search with a scripted model ---------------------------------------------------


def _report(i: int, level: int = 0, words_n: int = 30) -> Report:
    body = " ".join(f"word{i}" for _ in range(words_n))
    record = CommunityReport(f"c{i}", f"c{i}", level, "k", "ok", "", title=f"Title {i}",
                             summary=body, rating=5.0)
    return Report(f"R{i}", record, ("A",))


def _data(reports, entities=(), rels=(), chunks=(), communities=()) -> IndexData:
    return IndexData(
        entities={e.name: e for e in entities}, relationships=list(rels), claims=[],
        chunks={c.id: c for c in chunks}, reports=list(reports), communities=list(communities),
    )


def map_replies(scores_by_ref):
    """A map step that scores each report the test chose, citing the first in its batch."""
    def reply(messages, grammar, purpose):
        if purpose == "map":
            data = messages[0]["content"].split("-Real data-")[1]
            refs = [r for r in scores_by_ref if f"[{r}]" in data]
            pts = [{"description": f"point from {r}", "score": scores_by_ref[r], "sources": [r]}
                   for r in refs] or [{"description": "nothing", "score": 0, "sources": ["R1"]}]
            return json.dumps({"points": pts})
        assert purpose == "reduce"
        return "Combined answer [R2] and [R7]."
    return reply


def test_global_search_maps_reduces_and_cites_only_kept_points():
    reports = [_report(i) for i in range(1, 7)]
    model = FakeChatModel(n_ctx=1400, default=map_replies({"R1": 0, "R2": 80, "R3": 30, "R5": 55}))
    q = QuerySettings(context_tokens=120)
    res = global_search(model, PROMPTS, "What happened?", _level(_data(reports), 0), 0, settings=q, seed=1)
    purposes = [a["purpose"] for a in model.asked]
    assert purposes.count("map") == res.map_calls >= 2 and purposes[-1] == "reduce"
    reduce_prompt = model.asked[-1]["messages"][0]["content"]
    order = [reduce_prompt.index(f"point from R{i}") for i in (2, 5, 3)]
    assert order == sorted(order) and "point from R1" not in reduce_prompt
    assert [c.ref for c in res.citations] == ["R2", "R5", "R3"]
    assert [c.score for c in res.citations] == [80, 55, 30]
    assert [c.cited for c in res.citations] == [True, False, False]
    assert res.unknown_refs == ["R7"] and not res.no_answer
    assert res.context_tokens > 0 and len(res.context) == res.map_calls + 1


def test_map_calls_share_their_prompt_prefix():
    reports = [_report(i) for i in range(1, 7)]
    model = FakeChatModel(n_ctx=1400, default=map_replies({"R2": 50}))
    global_search(model, PROMPTS, "Q?", _level(_data(reports), 0), 0,
                  settings=QuerySettings(context_tokens=120), seed=1)
    maps = [a["messages"][0]["content"] for a in model.asked if a["purpose"] == "map"]
    prefix = maps[0].split("-Real data-")[0] + "-Real data-\nQuestion: Q?\nData:\n"
    assert len(maps) >= 2 and all(m.startswith(prefix) for m in maps)
    for a in (a for a in model.asked if a["purpose"] == "map"):  # sources: only this batch's
        given = set(re.findall(r"\[(R\d+)\]", a["messages"][0]["content"].split("-Real data-")[1]))
        allowed = set(re.findall(r'\\"(R\d+)\\"', a["grammar"]))
        assert given and allowed == given


def test_all_zero_scores_say_nothing_relevant_without_a_reduce_call():
    model = FakeChatModel(default=map_replies({"R1": 0, "R2": 0}))
    res = global_search(model, PROMPTS, "Unrelated?", _level(_data([_report(1), _report(2)]), 0), 0,
                        settings=QuerySettings(), seed=1)
    assert res.no_answer and "nothing relevant" in res.answer
    assert [a["purpose"] for a in model.asked] == ["map"] and res.citations == []


def test_malformed_map_reply_is_retried_then_skipped():
    model = FakeChatModel(replies=["not json", "{\"points\": 3}"])
    res = global_search(model, PROMPTS, "Q?", _level(_data([_report(1)]), 0), 0,
                        settings=QuerySettings(), seed=1)
    assert res.failed_calls == 1 and res.no_answer and "malformed" in res.answer
    assert "scored 0" not in res.answer


def test_only_the_given_reports_are_mapped():
    reports = [_report(1, 0), _report(2, 1), _report(3, 1)]
    model = FakeChatModel(default=map_replies({"R2": 10, "R3": 10}))
    res = global_search(model, PROMPTS, "Q?", _level(_data(reports), 1), 1, settings=QuerySettings(), seed=1)
    data = model.asked[0]["messages"][0]["content"]
    assert "[R1]" not in data and "[R2]" in data and res.level == 1


def _level(data, level):
    return [r for r in data.reports if r.level == level]


# --- local and basic context ------------------------------------------------------------------


def _chunk(i, text):
    return Chunk(f"k{i}", "d", f"doc{i}.md", 0, 0, 10, 10, text)


def test_local_context_has_entities_relationships_reports_and_chunks_within_budget():
    ents = [Entity(f"e{i}", n, "PERSON", f"{n} is someone.", (f"k{i}",), 1)
            for i, n in enumerate(["Ann", "Bob", "Cy"], 1)]
    rels = [Relationship("r1", "Ann", "Bob", "Ann knows Bob", 1.0, 5, 1, ("k1",)),
            Relationship("r2", "Cy", "Zed", "Cy and Zed", 0.5, 5, 1, ("k3",))]
    chunks = [_chunk(i, " ".join(["text"] * 50)) for i in (1, 2, 3)]
    comm = Community("c1", 0, "", (), ("Ann", "Bob"), ("r1",))
    report = Report("R1", CommunityReport("c1", "c1", 0, "k", "ok", "", title="Ann and Bob",
                                          summary="They meet.", rating=5.0), ("Ann", "Bob"))
    data = _data([report], ents, rels, chunks, [comm])
    hits = [(ents[0], 0.9), (ents[1], 0.8)]
    text, cites = local_context(hits, data, 400, QuerySettings(), words)
    assert words(text) <= 400
    for part in ("-Entities-", "[E1] Ann", "-Relationships-", "Ann -> Bob", "-Reports-",
                 "[R1] Ann and Bob", "-Sources-", "[S1] (doc1.md, chunk 1)"):
        assert part in text
    assert "Cy" not in text.split("-Sources-")[0]
    assert {(c.kind, c.ref) for c in cites} >= {("entity", "E1"), ("report", "R1"), ("chunk", "S1")}
    small, _ = local_context(hits, data, 60, QuerySettings(), words)
    assert words(small) <= 60


def test_basic_context_keeps_similarity_order_and_budget():
    chunks = [_chunk(i, " ".join([f"t{i}"] * 60)) for i in (1, 2, 3)]
    data = _data([], chunks=chunks)
    text, cites = basic_context([(chunks[2], 0.9), (chunks[0], 0.5), (chunks[1], 0.1)], data, 150, words)
    assert [c.ref for c in cites] == ["S3", "S1"] and words(text) <= 150
    assert cites[0].title == "doc3.md" and cites[0].detail.startswith("chunk 1")


# --- sessions on a fake-built index ----------------------------------------------------------


@pytest.fixture(scope="module")
def fake_index(tmp_path_factory):
    base = tmp_path_factory.mktemp("fakeidx")
    docs = copy_corpus(base / "docs")
    run_build(make_build(docs, base / "idx", FakeChatModel(default=scripted)))
    return base / "idx"


def cite_first(messages, grammar, purpose):
    """Map: one point from the first data item; answers: cite the first source."""
    if purpose == "map":
        first = re.search(r"\[([RS]\d+)\]", messages[0]["content"].split("-Real data-")[1]).group(1)
        return json.dumps({"points": [{"description": "d", "score": 50, "sources": [first]}]})
    if purpose.startswith("drift"):
        follow = ["Who leads the Aldren Water Trust?"] if purpose == "drift_primer" else []
        return json.dumps({"answer": "The Trust protects the river.", "score": 60,
                           "follow_ups": follow})
    return "An answer [S1]."


def session(index, model=None, settings=None):
    model = model or FakeChatModel(default=cite_first)
    return Session(index, settings or Settings(), PROMPTS, lambda: model, HashEmbedder)


def test_every_method_answers_with_citations_that_exist_in_the_index(fake_index):
    s = session(fake_index)
    data = load_index_data(Store(fake_index))
    ids = {"report": {r.id for r in data.reports}, "entity": {e.id for e in data.entities.values()},
           "chunk": set(data.chunks)}
    for method in ("global", "local", "basic", "ts", "drift"):
        res = s.ask("Who runs the Aldren Water Trust?", method=method)
        assert res.answer and res.citations, method
        assert all(c.id in ids[c.kind] for c in res.citations), method
        d = json.loads(json.dumps(result_dict(res, "fake")))
        assert d["method"] == method and d["llm_calls"] == len(res.calls) >= 1
    drift = [c.purpose for c in res.calls]  # primer, one follow-up (a local search), reduce
    assert drift[0] == "drift_primer" and "drift_followup" in drift and drift[-1] == "reduce"
    assert "The Trust protects the river." in res.context[-1]


def test_session_errors_are_clear(fake_index, tmp_path):
    s = session(fake_index)
    with pytest.raises(InputError, match="empty"):
        s.ask("   ")
    with pytest.raises(ConfigError, match="unknown method"):
        s.ask("Q?", method="magic")
    with pytest.raises(ConfigError, match="levels: 0"):
        s.ask("Q?", level="7")
    with pytest.raises(IndexStateError, match="no index"):
        session(tmp_path / "missing")


def test_unfinished_index_and_other_embedder_are_refused(fake_index, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(fake_index, copy)
    store = Store(copy)
    manifest = store.read_manifest()
    store.write_manifest({**manifest, "complete": False})
    with pytest.raises(IndexStateError, match="unfinished"):
        session(copy)
    store.write_manifest({**manifest, "embedder": "some-other-model"})
    with pytest.raises(IndexStateError, match="some-other-model"):
        session(copy)


def test_auto_level_is_dynamic_selection_and_a_number_must_have_reports():
    reports = [_report(1, 0, 20)] + [_report(i, 1, 600) for i in range(2, 12)]
    s = object.__new__(Session)
    s.data, s.settings, s.index_dir = _data(reports), Settings(), Path("x")
    assert s.resolve_level("auto") is None  # dynamic community selection from the root
    assert s.resolve_level("0") == 0 and s.resolve_level(1) == 1
    with pytest.raises(ConfigError, match="levels: 0, 1"):
        s.resolve_level("3")

def test_a_person_known_by_whose_clerk_they_are_is_named_the_other_way_round():
    people = [Entity("e1", "Ebenezer Scrooge", "PERSON", "", (), aliases=(("Scrooge", 40),)),
              Entity("e2", "Scrooge's clerk", "PERSON", "", ()),
              Entity("e3", "Bob Cratchit", "PERSON", "", ())]
    data = _data([], entities=people)
    assert data.named_in("Who is the clerk to Ebenezer Scrooge?") == ["Scrooge's clerk"]
    assert data.named_in("What did the clerk of Scrooge earn?") == ["Scrooge's clerk"]
    assert data.named_in("Who is Scrooge's clerk?") == ["Scrooge's clerk"]
    assert data.named_in("Did the clerk thank Ebenezer Scrooge?") == ["Ebenezer Scrooge"]
    assert data.named_in("Who is the friend of Bob Cratchit?") == ["Bob Cratchit"]
