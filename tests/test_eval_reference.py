"""`eval reference`'s yardstick: a microsoft/graphrag index's largest level-0 communities,
their key entities (the three of highest degree), and which of them an answer names
(issue 30's Carol criterion), on a hand-made parquet index."""

import pytest

from graphrag_local.errors import InputError
from graphrag_local.eval.reference import load_reference, themes_named


def write_reference(folder):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    entities = [("e1", "EBENEZER SCROOGE", 9), ("e2", "JACOB MARLEY", 5), ("e3", "SCROOGE'S ROOM", 2),
                ("e4", "CHAIN", 1), ("e5", "BOB CRATCHIT", 7), ("e6", "TINY TIM", 6),
                ("e7", "CITY", 3)]
    pq.write_table(pa.Table.from_pylist([{"id": i, "title": t, "degree": d} for i, t, d in entities]),
                   folder / "entities.parquet")
    communities = [(0, 0, ["e1", "e2", "e3", "e4"]), (1, 0, ["e5", "e6"]), (2, 0, ["e7"]),
                   (3, 1, ["e1", "e2", "e3", "e4", "e5", "e6", "e7"])]
    pq.write_table(pa.Table.from_pylist([{"community": c, "level": lv, "entity_ids": ids}
                                         for c, lv, ids in communities]),
                   folder / "communities.parquet")
    reports = [(0, "Scrooge and Marley", "Ebenezer Scrooge meets the ghost of Jacob Marley."),
               (1, "The Cratchits", "Bob Cratchit and Tiny Tim keep Christmas."),
               (2, "The City", "Business in the City."), (3, "Everything", "All of it.")]
    pq.write_table(pa.Table.from_pylist([{"community": c, "title": t, "summary": s}
                                         for c, t, s in reports]),
                   folder / "community_reports.parquet")


def test_the_largest_level_0_communities_and_which_an_answer_names(tmp_path):
    write_reference(tmp_path / "ref")
    ref = load_reference(tmp_path / "ref")
    assert [c.community for c in ref] == [0, 1, 2]  # level 0 only, largest first
    assert ref[0].key_entities == ("EBENEZER SCROOGE", "JACOB MARLEY", "SCROOGE'S ROOM")
    assert ref[0].summary_entities == ("EBENEZER SCROOGE", "JACOB MARLEY")
    # named by a key entity, case and punctuation aside; "Marley" alone is not "Jacob Marley"
    answer = ("**Scrooge's perception of Marley** · *Ebenezer Scrooge, Jacob Marley*\n"
              "- Bob trembled. [S1]")
    result = themes_named(ref, answer, top=3)
    assert result["named"] == 1 and result["of"] == 3
    assert result["communities"][0]["named_by"] == ["EBENEZER SCROOGE", "JACOB MARLEY"]
    assert themes_named(ref, "Marley and Bob.", top=2)["named"] == 0
    assert themes_named(ref, "tiny tim, in the city", top=3)["named"] == 2


def test_a_folder_that_is_not_a_graphrag_output_is_named_in_the_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="empty: not a microsoft/graphrag output folder"):
        load_reference(tmp_path / "empty")


def test_an_answers_lines_are_counted_citing_and_its_written_ones_copied_or_not():
    """Issue 30's Carol figures from one command: every line cites; a written line that is
    80% or more one run of a chunk it cites is a copy; a quoted topic's lines and a focused
    answer's quotes are not written ones."""
    from graphrag_local.eval.reference import lines

    chunks = {"S1": "Mr. and Mrs. Fezziwig took their stations, one on either side the door.",
              "S2": "Joe went down on his knees for the greater convenience of opening it."}
    answer = ("**Old Fezziwig's Christmas Wishes**\n"
              "- Mr. and Mrs. Fezziwig took their stations, one on either side. [S1, R14]\n"
              "- The Fezziwigs stood by the door to greet everyone. [S1]\n\n"
              "**Joe's Behavior** (quoted)\n"
              "- Joe went down on his knees for the greater convenience of opening it. [S2]\n"
              "- a line that cites nothing\n\n"
              "*Quoted from the documents:*\n\n"
              "**Joe**\n- Joe went down on his knees. [S2]")
    assert lines(answer, chunks) == {"lines": 5, "citing": 4, "written": 2, "copies": 1}
