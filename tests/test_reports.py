import json

from fakes import FakeChatModel

from graphrag_local.prompts import load_prompts
from graphrag_local.schema import Claim, CommunityReport, Entity, Relationship
from graphrag_local.stages.communities import Cluster
from graphrag_local.stages.reports import Elements, build_context, pack_elements, write_report


def count(text):
    return len(text.split())


def elements():
    names = ["A", "B", "C", "D", "E", "F"]
    ents = {n: Entity(n, n, "PERSON", f"{n} is a person " + "word " * 8, ("c",)) for n in names}
    rels = [
        Relationship("r1", "A", "B", "A knows B", 1.0, 5, 1, ("c",)),
        Relationship("r2", "A", "C", "A knows C", 1.0, 5, 1, ("c",)),
        Relationship("r3", "D", "E", "D knows E", 1.0, 5, 1, ("c",)),
        Relationship("r4", "E", "F", "E knows F", 1.0, 5, 1, ("c",)),
        Relationship("r5", "A", "D", "A knows D", 1.0, 5, 1, ("c",)),
    ]
    degree = {"A": 3, "B": 1, "C": 1, "D": 2, "E": 2, "F": 1}
    claims = {"A": [Claim("k1", "A", "NONE", "FACT", "TRUE", "A won a prize", "q", "NONE", "NONE", "c")]}
    return Elements(ents, rels, claims, degree)


def test_leaf_packing_orders_edges_by_combined_degree_and_adds_claims():
    ents, rels, claims, used, complete = pack_elements(tuple("ABCDEF"), elements(), count, 10_000)
    assert complete
    assert rels[0] == "A -- D: A knows D"  # degree 3 + 2 is the highest
    assert ents[0].startswith("A (PERSON)") and ents[1].startswith("D (PERSON)")
    assert claims == ["A [FACT, TRUE]: A won a prize"]
    assert used == sum(count(x) + 2 for x in ents + rels + claims)


def test_packing_stops_at_the_budget():
    ents, rels, claims, used, complete = pack_elements(tuple("ABCDEF"), elements(), count, 40)
    assert not complete and used <= 40


def report(cid, title):
    return CommunityReport(cid, cid, 1, "k", "ok", "", title=title, summary="short summary")


def test_parent_uses_elements_when_they_fit():
    parent = Cluster("p", 0, "", tuple("ABCDEF"), ("x", "y"))
    kids = [Cluster("x", 1, "p", tuple("ABC")), Cluster("y", 1, "p", tuple("DEF"))]
    ctx = build_context(parent, kids, {"x": report("x", "X"), "y": report("y", "Y")}, elements(), count, 10_000)
    assert ctx.substituted == ()
    assert "Sub-community reports" not in ctx.text and "A knows D" in ctx.text


def test_parent_substitutes_largest_sub_community_reports_until_it_fits():
    el = elements()
    parent = Cluster("p", 0, "", tuple("ABCDEF"), ("x", "y"))
    kids = [Cluster("x", 1, "p", tuple("ABC")), Cluster("y", 1, "p", tuple("DEF"))]
    full = pack_elements(parent.members, el, count, 10_000)[3]
    x_size = pack_elements(tuple("ABC"), el, count, 10_000)[3]
    y_size = pack_elements(tuple("DEF"), el, count, 10_000)[3]
    larger = "x" if x_size >= y_size else "y"
    budget = full - min(x_size, y_size) // 2  # too small for all elements, enough for one swap
    ctx = build_context(parent, kids, {"x": report("x", "X"), "y": report("y", "Y")}, el, count, budget)
    assert ctx.substituted == (larger,)
    assert "Sub-community reports" in ctx.text
    assert ("# X" in ctx.text) == (larger == "x")


def test_failed_sub_reports_are_never_substituted():
    parent = Cluster("p", 0, "", tuple("ABCDEF"), ("x",))
    kids = [Cluster("x", 1, "p", tuple("ABC"))]
    failed = CommunityReport("x", "x", 1, "k", "failed", "bad json")
    ctx = build_context(parent, kids, {"x": failed}, elements(), count, 30)
    assert ctx.substituted == ()


def test_write_report_validates_and_records_failure():
    good = {"title": "T", "summary": "S", "rating": 7, "rating_explanation": "R",
            "findings": [{"summary": "f", "explanation": "e"}]}
    cluster = Cluster("c1", 0, "", ("A", "B"))
    ctx = build_context(cluster, [], {}, elements(), count, 1000)
    model = FakeChatModel([json.dumps(good)])
    r = write_report(model, load_prompts(), cluster, ctx, "key", max_findings=8,
                     max_summary_chars=400, max_finding_chars=240)
    assert r.status == "ok" and r.rating == 7 and r.findings[0].summary == "f"
    assert "# T" in r.full_content
    model = FakeChatModel(['{"title": "T"', '{"oops": 1}'])
    r = write_report(model, load_prompts(), cluster, ctx, "key", max_findings=8,
                     max_summary_chars=400, max_finding_chars=240)
    assert r.status == "failed" and r.error and len(model.calls) == 2
