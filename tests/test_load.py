import pytest

from graphrag_local.errors import InputError
from graphrag_local.stages.load import load_documents

EXTS = (".txt", ".md", ".csv")


def test_reads_txt_md_csv_recursively(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("Alpha text.")
    (tmp_path / "sub" / "b.md").write_text("# Title B\nBeta text.")
    (tmp_path / "c.csv").write_text("id,text\n1,First row.\n2,Second row.\n")
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["a.txt", "c.csv", "sub/b.md"]
    assert docs[1].text == "First row.\n\nSecond row."
    assert docs[2].title == "Title B"
    assert warnings == []


def test_bad_files_are_skipped_with_warnings_naming_them(tmp_path):
    (tmp_path / "good.txt").write_text("Good text.")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02PNG\x00" * 50)
    (tmp_path / "copy.txt").write_text("Good text.")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / "nocol.csv").write_text("a,b\n1,2\n")
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["copy.txt"]  # good.txt is its duplicate
    text = "\n".join(warnings)
    for name in ("empty.txt", "binary.txt", "image.png", "nocol.csv"):
        assert name in text
    assert "identical to" in text


def test_non_utf8_text_is_decoded(tmp_path):
    text = "Café société: the naïve façade of Zoë's résumé, réservé à l'élite française. " * 5
    (tmp_path / "latin.txt").write_bytes(text.encode("cp1252"))
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert docs[0].text.startswith("Café société")
    assert docs[0].encoding != "utf-8"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-16"])
def test_utf16_is_read_with_or_without_a_byte_order_mark(tmp_path, encoding):
    text = "Mara Quill founded the Aldren Water Trust in 2015. Zoë's café, 東京.\n" * 20
    (tmp_path / "windows.txt").write_bytes(text.encode(encoding))  # "utf-16": with a BOM
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert warnings == [] and docs[0].text.startswith("Mara Quill founded")
    assert "東京" in docs[0].text and "\x00" not in docs[0].text


def test_binary_with_many_nuls_is_not_taken_for_utf16(tmp_path):
    (tmp_path / "table.txt").write_bytes(bytes([0, 7, 0, 200, 0, 3, 0, 17]) * 300)
    (tmp_path / "ok.txt").write_text("Some text.")
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    assert [d.path for d in docs] == ["ok.txt"] and "table.txt" in " ".join(warnings)


def test_folder_with_nothing_usable_is_an_error_naming_it(tmp_path):
    (tmp_path / "empty.txt").write_text("  ")
    with pytest.raises(InputError, match=str(tmp_path)):
        load_documents(tmp_path, EXTS, "text")


def test_missing_folder(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_documents(tmp_path / "nope", EXTS, "text")


def test_page_furniture_leaves_plain_text_but_not_csv_rows(tmp_path):
    pages = [f"Harbour Log\n{n}\nThe {w} ship came in and it\nunloaded grain." for n, w in
             enumerate(["first", "second", "third", "fourth"], 1)]
    (tmp_path / "log.txt").write_text("\n".join(pages))
    rows = "".join(f"{i},Harbour Log\n{i + 10},{n}\n" for i, n in enumerate(range(1, 5)))
    (tmp_path / "log.csv").write_text("id,text\n" + rows)
    docs, warnings = load_documents(tmp_path, EXTS, "text")
    text, rows_text = docs[1].text, docs[0].text
    assert docs[1].path == "log.txt" and "Harbour Log" not in text and "\n1\n" not in text
    assert text.startswith("The first ship came in and it\nunloaded grain.\nThe second ship")
    assert rows_text.count("Harbour Log") == 4  # CSV rows are records, not pages


def test_a_text_documents_first_line_is_its_title_when_it_reads_as_one(tmp_path):
    """A title line over a blank line (Project Gutenberg's "THE LITTLE JACKALS AND THE LION",
    in capitals, shown in title case); not a first line that is a sentence, one with no
    blank line after it, nor a CSV's first record."""
    (tmp_path / "a.txt").write_text("THE LITTLE JACKALS AND THE LION\n\n\nOnce upon a time.")
    (tmp_path / "b.txt").write_text("The Millbrook Flood\n\nThe river rose.")
    (tmp_path / "c.txt").write_text("The river rose in the night.\n\nIt fell.")
    (tmp_path / "d.txt").write_text("KEVIN SCOTT: Hi everyone\nWelcome to the show.")
    (tmp_path / "e.txt").write_text("CHAPTER IV\n\nIt rained.")
    (tmp_path / "g.txt").write_text("THE LITTLE HALF-CHICK\n\nOnce there was a hen.")
    (tmp_path / "h.txt").write_text("x" * 100_000 + "\n\nA line of one long word.")
    (tmp_path / "i.txt").write_text("\n\nTHE CIVIL MIX OF BOOK XIV\n\nIt began.")
    (tmp_path / "f.csv").write_text("text\nMeeting notes\nThe board met.\n")
    docs, _ = load_documents(tmp_path, EXTS, "text")
    assert [d.title for d in docs] == [
        "The Little Jackals and the Lion", "The Millbrook Flood", "c", "d", "Chapter IV", "f",
        "The Little Half-Chick", "h", "The Civil Mix of Book XIV"]  # words of Roman letters
