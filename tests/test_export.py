"""Export: graphrag parquet tables with the reference index's exact schema, GraphML that
round-trips through networkx, and CSV for spreadsheets and Neo4j. Built from small real
indexes made with the fake model: an extractive one, and an abstractive one with claims,
both with small communities so that there are two levels."""

import csv
import json
from pathlib import Path

import networkx as nx
import pyarrow.parquet as pq
import pytest
from conftest import copy_corpus
from fakes import FakeChatModel
from test_extractive import scripted_choices
from test_pipeline import make_build, scripted

from graphrag_local.errors import ConfigError, IndexStateError
from graphrag_local.export import FORMATS, export_index
from graphrag_local.pipeline import run_build
from graphrag_local.schema import Entity
from graphrag_local.search.common import IndexData
from graphrag_local.settings import ExtractSettings, GraphSettings, Settings
from graphrag_local.store import Store

REFERENCE = Path("/work/shared/data/christmas_carol/graphrag_reference")
GRAPHRAG_TABLES = ("entities", "relationships", "communities", "community_reports",
                   "text_units", "documents")


def with_claims(messages, grammar, purpose):
    """`scripted`, plus one claim per chunk about the first entity the prompt lists."""
    if purpose != "claims":
        return scripted(messages, grammar, purpose)
    listed = messages[0]["content"].split("-Real data-")[1].split("Entities:")[1]
    name = listed.split("\nText:")[0].split(",")[0].strip()
    claim = {"subject": name, "object": "NONE", "type": "FACT", "status": "TRUE",
             "description": f"{name} is named.", "source_text": name,
             "start_date": "NONE", "end_date": "NONE"}
    return json.dumps({"claims": [claim]})


@pytest.fixture(scope="module", params=["extractive", "abstractive-claims"])
def index(request, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp(request.param)
    graph = GraphSettings(max_cluster_size=3)  # small communities: a second level
    if request.param == "extractive":
        settings = Settings(content="extractive", graph=graph)
        model = FakeChatModel(chooser=scripted_choices)
    else:
        settings = Settings(content="abstractive", graph=graph,
                            extract=ExtractSettings(names="free", claims=True))
        model = FakeChatModel(default=with_claims)
    summary = run_build(make_build(copy_corpus(base / "docs"), base / "idx", model,
                                   settings=settings))
    store = Store(base / "idx")
    tables = {t: store.read(t, [c for c in store.columns(t) if c != "vector"])
              for t in ("documents", "chunks", "entities", "relationships", "claims",
                        "communities", "community_reports")}
    return {"dir": base / "idx", "summary": summary, "tables": tables}


def test_fixture_indexes_have_levels_and_reports(index, request):
    s = index["summary"]
    assert len(s["communities_per_level"]) >= 2 and s["reports"] >= 1
    assert s["entities"] and s["relationships"]
    assert s["claims"] if "claims" in request.node.callspec.id else True


def test_graphrag_tables_match_the_reference_schema(index, tmp_path):
    if not REFERENCE.is_dir():
        pytest.skip(f"no graphrag reference index at {REFERENCE}")
    result = export_index(index["dir"], "graphrag", tmp_path / "out")
    ours = {Path(f).stem: pq.read_table(f) for f in result["files"]}
    reference = {p.stem: pq.read_schema(p) for p in REFERENCE.glob("*.parquet")}
    assert set(ours) == set(reference) == set(GRAPHRAG_TABLES)
    for name, table in ours.items():
        assert table.schema.names == reference[name].names, name
        assert table.schema.types == reference[name].types, name

    t = index["tables"]
    ok_reports = [r for r in t["community_reports"] if r["status"] == "ok"]
    expected = {"entities": len(t["entities"]), "relationships": len(t["relationships"]),
                "communities": len(t["communities"]), "community_reports": len(ok_reports),
                "text_units": len(t["chunks"]), "documents": len(t["documents"])}
    assert {name: table.num_rows for name, table in ours.items()} == expected
    assert result["counts"] == expected and result["format"] == "graphrag"

    rows = {name: table.to_pylist() for name, table in ours.items()}
    titles = {e["title"] for e in rows["entities"]}
    assert all(r["source"] in titles and r["target"] in titles for r in rows["relationships"])
    communities = {c["community"]: c for c in rows["communities"]}
    assert sorted(communities) == list(range(len(communities)))
    for c in communities.values():
        parent = communities.get(c["parent"], {"level": -1})  # -1: the root level's parent
        assert (c["parent"] == -1) == (c["level"] == 0) and parent["level"] == c["level"] - 1
        assert all(communities[child]["parent"] == c["community"] for child in c["children"])
        assert c["size"] == len(c["entity_ids"])
    for r in rows["community_reports"]:
        c = communities[r["community"]]
        assert (r["level"], r["parent"], r["children"]) == (c["level"], c["parent"], c["children"])
        assert json.loads(r["full_content_json"])["title"] == r["title"]
        assert [f["summary"] for f in r["findings"]] == [
            f["summary"] for f in json.loads(r["full_content_json"])["findings"]]

    entity_ids = {e["id"] for e in rows["entities"]}
    unit_ids = {u["id"] for u in rows["text_units"]}
    assert all(set(c["entity_ids"]) <= entity_ids for c in rows["communities"])
    assert all(set(e["text_unit_ids"]) <= unit_ids for e in rows["entities"])
    assert sorted(x for u in rows["text_units"] for x in u["covariate_ids"]) == sorted(
        c["id"] for c in t["claims"])
    assert sorted(x for d in rows["documents"] for x in d["text_unit_ids"]) == sorted(unit_ids)
    texts = {d["id"]: d["text"] for d in t["documents"]}
    assert all(d["text"] == texts[d["id"]] and d["raw_data"] is None for d in rows["documents"])


def test_graphml_round_trips_through_networkx(index, tmp_path):
    result = export_index(index["dir"], "graphml", tmp_path / "out")
    assert [Path(f).name for f in result["files"]] == ["graph.graphml"]
    graph = nx.read_graphml(result["files"][0])
    t = index["tables"]
    assert set(graph.nodes) == {e["name"] for e in t["entities"]}
    assert {frozenset(e) for e in graph.edges} == {
        frozenset((r["source"], r["target"])) for r in t["relationships"]}
    assert result["counts"] == {"nodes": len(t["entities"]), "edges": len(t["relationships"])}

    levels = sorted({c["level"] for c in t["communities"]})
    community = {(name, c["level"]): c["id"] for c in t["communities"] for name in c["entities"]}
    for e in t["entities"]:
        aliases = ", ".join(a for a, _ in json.loads(e["aliases_json"]))
        expected = {"type": e["type"], "aliases": aliases, "description": e["description"],
                    "degree": e["degree"]}
        expected |= {f"community_L{lv}": community.get((e["name"], lv), "") for lv in levels}
        assert graph.nodes[e["name"]] == expected
    for r in t["relationships"]:
        assert graph.edges[r["source"], r["target"]] == {
            "description": r["description"], "weight": r["weight"], "count": r["count"]}


def test_graphml_drops_characters_xml_cannot_hold(tmp_path):
    from graphrag_local import export

    data = IndexData(entities={"A\x0cB": Entity("e1", "A\x0cB", "PERSON", "x\x00y\tz", (),
                                                aliases=(("A\x01", 2),))},
                     relationships=[], claims=[], chunks={}, reports=[], communities=[])
    files, _ = export._write_graphml(data, tmp_path / "g.graphml")
    assert dict(nx.read_graphml(files[0]).nodes(data=True)) == {
        "AB": {"type": "PERSON", "aliases": "A", "description": "xy\tz", "degree": 0}}


def test_csv_loads_with_the_csv_module(index, tmp_path):
    result = export_index(index["dir"], "csv", tmp_path / "out")

    def read(name: str) -> tuple[list[str], list[dict]]:
        with (tmp_path / "out" / name).open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            return list(reader.fieldnames or []), list(reader)

    t = index["tables"]
    levels = [f"community_L{lv}" for lv in sorted({c["level"] for c in t["communities"]})]
    header, nodes = read("nodes.csv")
    assert header == ["id", "name", "type", "aliases", "description", "degree", *levels]
    assert {n["name"]: n["description"] for n in nodes} == {
        e["name"]: e["description"] for e in t["entities"]}
    header, edges = read("edges.csv")
    assert header == ["source", "target", "description", "weight", "count"]
    names = {n["name"] for n in nodes}
    assert len(edges) == len(t["relationships"])
    assert all(e["source"] in names and e["target"] in names for e in edges)
    header, communities = read("communities.csv")
    assert header == ["id", "level", "parent", "size", "title", "summary"]
    ids = {c["id"] for c in communities}
    assert len(communities) == len(t["communities"])
    assert all(c["parent"] in ids or (c["parent"] == "" and c["level"] == "0") for c in communities)
    assert all(n[col] in ids | {""} for n in nodes for col in levels)
    assert result["counts"] == {"nodes": len(nodes), "edges": len(edges),
                                "communities": len(communities)}


def test_unknown_format_is_a_config_error(index, tmp_path):
    with pytest.raises(ConfigError, match="graphml"):
        export_index(index["dir"], "gexf", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_index_is_an_index_state_error(fmt, tmp_path):
    with pytest.raises(IndexStateError):
        export_index(tmp_path / "nowhere", fmt, tmp_path / "out")
    assert not (tmp_path / "out").exists()
