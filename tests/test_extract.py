import json

from fakes import FakeChatModel

from graphrag_local.prompts import load_prompts
from graphrag_local.schema import Chunk
from graphrag_local.stages.extract import ExtractOptions, extract_chunk

TEXT = "Mara Quill leads the Aldren Water Trust. Tobias Renn works with Mara Quill in Port Aldren."
CHUNK = Chunk("c1", "d1", "doc.txt", 0, 0, 20, 20, TEXT)


def opts(**kw):
    base = dict(entity_types=("PERSON", "ORGANIZATION", "LOCATION"), max_gleanings=1,
                max_entities=10, max_relationships=10, max_name_chars=40,
                max_description_chars=100, names="spans", grounding=True, claims=False,
                max_claims=4, claim_types=("FACT",))
    base.update(kw)
    return ExtractOptions(**base)


def reply(entities, relationships=()):
    return json.dumps({
        "entities": [{"name": n, "type": t, "description": f"{n} desc"} for n, t in entities],
        "relationships": [{"source": s, "target": t, "description": "related", "strength": 5}
                          for s, t in relationships],
    })


def rels(pairs):
    return json.dumps({"relationships": [
        {"source": s, "target": t, "description": "related", "strength": 5} for s, t in pairs]})


def test_gleaning_yes_adds_new_records_without_losing_old_ones():
    model = FakeChatModel([
        reply([("Mara Quill", "PERSON"), ("Aldren Water Trust", "ORGANIZATION")]),
        "YES",
        reply([("Tobias Renn", "PERSON")]),
        rels([("Mara Quill", "Aldren Water Trust"), ("Tobias Renn", "Mara Quill")]),
    ])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(), "k")
    assert r.status == "ok" and r.gleanings == 1
    assert [e.name for e in r.entities] == ["Mara Quill", "Aldren Water Trust", "Tobias Renn"]
    assert len(r.relationships) >= 2 and r.dropped_relationships == 0
    purposes = [a["purpose"] for a in model.asked]
    assert purposes == ["extract", "glean_check", "glean", "relationships"]
    # relationship endpoints are exactly the extracted entities, by grammar
    rel_grammar = model.asked[3]["grammar"]
    name_rule = next(x for x in rel_grammar.splitlines() if x.startswith("name ::="))
    assert name_rule.count("|") == 2 and "Tobias Renn" in name_rule and "Port Aldren" not in name_rule
    check = model.asked[1]
    assert check["grammar"] == 'root ::= "YES" | "NO"'
    # same conversation: the check sees the first reply; the glean prompt is the paper's
    assert check["messages"][1]["role"] == "assistant"
    assert "MANY entities were missed" in model.asked[2]["messages"][-1]["content"]
    # the glean grammar offers as entities only names not yet extracted
    lines = model.asked[2]["grammar"].splitlines()
    ent_rules = "\n".join(line for line in lines if line.startswith("ent"))
    assert "Tobias Renn" in ent_rules and "Mara Quill" not in ent_rules


def test_gleaning_no_stops():
    model = FakeChatModel([reply([("Mara Quill", "PERSON")]), "NO"])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(), "k")
    assert r.gleanings == 0 and len(model.calls) == 2


def test_invalid_reply_is_retried_once_then_recorded_as_failed():
    model = FakeChatModel(["{not json", '{"entities": 3}'])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(), "k")
    assert r.status == "failed" and "invalid" in r.error
    assert [a["purpose"] for a in model.asked] == ["extract", "extract"]


def test_retry_can_succeed():
    model = FakeChatModel(["{not json", reply([("Mara Quill", "PERSON")]), "NO"])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(), "k")
    assert r.status == "ok" and [e.name for e in r.entities] == ["Mara Quill"]


def test_bad_glean_keeps_first_round():
    model = FakeChatModel([reply([("Mara Quill", "PERSON")]), "YES", "junk", "junk"])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(), "k")
    assert r.status == "ok" and [e.name for e in r.entities] == ["Mara Quill"]


def test_free_names_are_grounded_after_the_fact():
    model = FakeChatModel([
        reply([("Mara Quill", "PERSON"), ("Ana Ruiz", "PERSON")], [("Ana Ruiz", "Mara Quill")]),
    ])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(names="free", max_gleanings=0), "k")
    assert [e.name for e in r.entities] == ["Mara Quill"]
    assert r.dropped_entities == 1 and r.dropped_relationships == 1


def test_claims_are_extracted_when_enabled():
    claims = {"claims": [{"subject": "Mara Quill", "object": "Aldren Water Trust", "type": "FACT",
                          "status": "TRUE", "description": "She leads it.",
                          "source_text": "Mara Quill leads the Aldren Water Trust",
                          "start_date": "NONE", "end_date": "NONE"}]}
    model = FakeChatModel([
        reply([("Mara Quill", "PERSON"), ("Aldren Water Trust", "ORGANIZATION")]),
        rels([]),
        json.dumps(claims),
    ])
    r = extract_chunk(model, load_prompts(), CHUNK, opts(max_gleanings=0, claims=True), "k")
    assert len(r.claims) == 1 and r.claims[0].subject == "Mara Quill"
    assert "Mara Quill" in model.asked[2]["messages"][0]["content"]


def test_sentence_links_relate_entities_named_together():
    from graphrag_local.schema import EntityRecord, RelationshipRecord
    from graphrag_local.stages.extract import sentence_links

    text = "Mara Quill leads the Aldren Water Trust. Tobias Renn lives in Port Aldren.\nNothing here."
    ents = [EntityRecord(n, "PERSON", "d", "c") for n in
            ("Mara Quill", "Aldren Water Trust", "Tobias Renn", "Port Aldren")]
    existing = [RelationshipRecord("Port Aldren", "Tobias Renn", "model said so", 7, "c")]
    links = sentence_links(text, ents, existing, "c", 100)
    assert [(r.source, r.target, r.description) for r in links] == [
        ("Mara Quill", "Aldren Water Trust", "Mara Quill leads the Aldren Water Trust.")
    ]
    assert sentence_links(text, ents, [], "c", 20)[0].description.endswith("…")
