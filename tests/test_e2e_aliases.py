"""One entity, one node, on real text with the real embedded model: samples/family (a
short story written for this project) names one woman "Ada Lindqvist", "Dr. Lindqvist"
and "Ada", and three people of one family "Tom Moss", "Ellen Moss" and "Mrs. Moss"."""

from pathlib import Path

import pytest
from conftest import ROOT, no_network

from graphrag_local import api

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    index = tmp_path_factory.mktemp("family") / "index"
    with no_network():
        summary = api.build(ROOT / "samples" / "family", index)
    return {"index": index, "summary": summary,
            "entities": {e["name"]: e for e in api.show(index, "entities")["entities"]}}


def test_a_titled_surname_and_a_given_name_join_the_full_name(family):
    ents = family["entities"]
    assert "Ada Lindqvist" in ents
    assert {"Dr Lindqvist", "Ada"} <= set(ents["Ada Lindqvist"]["aliases"])
    assert not {"Dr Lindqvist", "Ada"} & set(ents)  # no node of their own
    assert "Tom" in ents["Tom Moss"]["aliases"]


def test_people_who_share_a_surname_stay_apart(family):
    ents = family["entities"]
    assert {"Tom Moss", "Ellen Moss", "Mrs Moss"} <= set(ents)
    assert "Mrs Moss" not in ents["Tom Moss"]["aliases"] + ents["Ellen Moss"]["aliases"]


def test_an_alias_finds_its_entity(family):
    shown = api.show(family["index"], "entities", "dr lindqvist")["entity"]
    assert shown["name"] == "Ada Lindqvist"
    assert {a["name"] for a in shown["aliases"]} >= {"Dr Lindqvist", "Ada"}
    assert all(a["mentions"] >= 1 for a in shown["aliases"])


def test_local_search_answers_a_question_that_uses_an_alias(family):
    session = api.open_session(family["index"])
    try:
        result = session.ask("Where did Dr. Lindqvist work before?", method="local")
    finally:
        session.close()
    assert "Bergen" in result.answer
    assert any(c.kind == "entity" and c.title == "Ada Lindqvist" for c in result.citations)
    assert Path(family["index"]).is_dir()
