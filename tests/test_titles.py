"""A theme headed by a document's title where one says what it is (`search/titles.py`)."""

from dataclasses import replace

import pytest
from test_themes import group, index

from graphrag_local.schema import Document
from graphrag_local.search.titles import Titles, _names, read_titles, topic_title

pytestmark = pytest.mark.fast

SENTENCES = [
    ("d1", ("Lantern Festival", "Lena"), 0, "Lena has directed the Lantern Festival since 2019."),
    ("d1", ("Lena",), 0, "Lena paints the lanterns in the old studio by the quay."),
    ("d2", ("Halvard Company", "Jonas"), 1, "Jonas owns the Halvard Company and its ships."),
    ("d3", ("Jackals", "Lion"), 2, "The Lion chased the two little Jackals up the hill."),
    ("d3", ("Lion",), 2, "The Lion roared so loud that the whole jungle shook."),
    ("d4", ("Fezziwig",), 3, "Fezziwig danced with Mrs. Fezziwig at the ball."),
    ("d4", ("Mouse",), 4, "The Mouse ran home to the hedge at the end of the field."),
    ("d3", ("Mouse",), 4, "The Mouse hid in the grass while the Lion went by."),
]
TITLED = {"d1": "The Lantern Festival", "d2": "The Halvard Company",
          "d3": "The Little Jackals and the Lion", "d4": "Stave Two"}


def titles(by_document: dict[str, str]) -> Titles:
    return read_titles([Document(d, f"{d}.txt", t, "", "utf-8") for d, t in by_document.items()])


TITLES = titles(TITLED)


def test_a_member_that_is_a_documents_title_heads_its_theme_once():
    s = index(SENTENCES)
    taken: set[str] = set()
    festival = group(s, "c1", ("Lantern Festival", "Lena"), 1.0)
    assert topic_title(festival, s, TITLES, taken) == "The Lantern Festival"
    assert topic_title(festival, s, TITLES, taken) is None  # a title heads one theme
    both = group(s, "c2", ("Lantern Festival", "Halvard Company", "Jonas"), 1.0)
    assert topic_title(both, s, TITLES, set()) == "The Halvard Company and the Lantern Festival"


def test_a_theme_mostly_of_one_document_is_headed_by_its_title_if_it_names_a_member():
    s = index(SENTENCES)
    assert topic_title(group(s, "c3", ("Jackals", "Lion"), 1.0), s, TITLES, set()) == (
        "The Little Jackals and the Lion")
    # Carol's staves: a title that shares no word with the theme does not head it
    assert topic_title(group(s, "c4", ("Fezziwig",), 1.0), s, TITLES, set()) is None
    # half in one document, half in another: no one document's theme
    assert topic_title(group(s, "c5", ("Mouse",), 1.0), s, TITLES, set()) is None
    # the one titled document of a collection says nothing of a theme within it
    only = titles({"d3": TITLED["d3"]})
    assert topic_title(group(s, "c3", ("Jackals", "Lion"), 1.0), s, only, set()) is None


def test_a_title_made_from_a_file_name_is_no_title():
    docs = [Document("a", "stories/04_jackals.txt", "04_jackals", "", "utf-8"),
            Document("b", "b.md", "The Lantern Festival", "", "utf-8")]
    assert read_titles(docs).by_document == {"b": "The Lantern Festival"}


def test_only_a_key_member_that_is_a_title_heads_its_theme():
    """The sample's "Aldren Water Trust" is a lesser member of the community of "Millbrook,
    River Aldren and River Aldren Restoration Project": not what it is about."""
    s = index(SENTENCES + [
        ("d1", ("Ann",), 5, "Ann walked along the river to the harbour every morning."),
        ("d3", ("Bo",), 5, "Bo mended the nets on the beach before the storm came."),
        ("d4", ("Cy",), 5, "Cy counted the lanterns twice and found one of them missing.")])
    crowd = group(s, "c6", ("Ann", "Bo", "Cy", "Halvard Company"), 1.0)  # degrees 5, 3, 2, 1
    assert topic_title(crowd, s, TITLES, set()) is None
    key = group(s, "c7", ("Ann", "Halvard Company"), 1.0)
    assert topic_title(key, s, TITLES, set()) == "The Halvard Company"
    # the key members are those the report's title names, where it names any
    titled = replace(crowd, title="Ann, Bo and Cy (+1 more)")
    assert topic_title(titled, s, TITLES, set()) is None
    titled = replace(crowd, title="Ann, Halvard Company and Cy (+1 more)")
    assert topic_title(titled, s, TITLES, set()) == "The Halvard Company"
    assert _names("Saltmarsh Arts Collective and Lena", "Lena")
    assert not _names("Saltmarsh Arts Collective and Lena", "Art")  # a whole name
