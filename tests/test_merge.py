from fakes import FakeChatModel

from graphrag_local.prompts import load_prompts
from graphrag_local.schema import EntityRecord, RelationshipRecord
from graphrag_local.stages.merge import (
    merge_entities,
    merge_relationships,
    pack_by_tokens,
    summarize,
)


def test_entities_merge_by_normalised_name_with_majority_type():
    recs = [
        EntityRecord("Mara Quill", "PERSON", "leads the trust", "c1"),
        EntityRecord("mara quill", "PERSON", "a hydrologist", "c2"),
        EntityRecord("MARA QUILL", "ORGANIZATION", "leads the trust", "c3"),
        EntityRecord("Port Aldren", "LOCATION", "a town", "c1"),
    ]
    merged = merge_entities(recs)
    assert [m.key for m in merged] == ["mara quill", "port aldren"]
    mara = merged[0]
    assert mara.type == "PERSON"
    assert mara.descriptions == ("leads the trust", "a hydrologist")
    assert mara.chunk_ids == ("c1", "c2", "c3")


def test_relationships_merge_by_unordered_pair_and_count():
    ents = merge_entities(
        [EntityRecord("A Corp", "ORGANIZATION", "x", "c"), EntityRecord("B Town", "LOCATION", "y", "c")]
    )
    rels = merge_relationships(
        [
            RelationshipRecord("A Corp", "B Town", "based in", 8, "c1"),
            RelationshipRecord("b town", "a corp", "hosts", 4, "c2"),
            RelationshipRecord("A Corp", "Nowhere", "dangling", 4, "c2"),
        ],
        ents,
    )
    assert len(rels) == 1
    r = rels[0]
    assert (r.source, r.target, r.count, r.strength) == ("A Corp", "B Town", 2, 6.0)
    assert r.descriptions == ("based in", "hosts")


def test_single_description_needs_no_llm_call():
    model = FakeChatModel()
    out = summarize(model, load_prompts(), "X", ("only one",), max_input_tokens=100, max_output_chars=200)
    assert out == "only one" and model.calls == []


def test_summary_call_gets_all_descriptions():
    model = FakeChatModel(["Mara Quill leads the trust and is a hydrologist."])
    out = summarize(model, load_prompts(), "Mara Quill", ("leads the trust", "a hydrologist"),
                    max_input_tokens=500, max_output_chars=200)
    assert out.startswith("Mara Quill leads")
    prompt = model.asked[0]["messages"][0]["content"]
    assert "- leads the trust" in prompt and "- a hydrologist" in prompt
    assert model.asked[0]["grammar"].startswith("root ::=")


def test_descriptions_over_budget_are_folded_in_batches():
    descriptions = tuple(f"description number {i} " + "x" * 40 for i in range(6))
    model = FakeChatModel(default=lambda m, g, p: "partial summary")
    summarize(model, load_prompts(), "E", descriptions, max_input_tokens=30, max_output_chars=100)
    # every description reached some call, and the final call summarised partial summaries
    seen = " ".join(a["messages"][0]["content"] for a in model.asked)
    assert all(d in seen for d in descriptions)
    assert "- partial summary" in model.asked[-1]["messages"][0]["content"]
    assert len(model.asked) >= 3


def test_pack_by_tokens():
    batches = pack_by_tokens(["a" * 8, "b" * 8, "c" * 8], lambda t: len(t) // 4, 8)
    assert batches == [["a" * 8, "b" * 8], ["c" * 8]]
