import io
import re
import textwrap
import zipfile

import docx
import pytest
from conftest import no_network
from pypdf import PdfWriter
from reportlab.pdfgen import canvas

from graphrag_local.readers import READERS, ReadResult, UnreadableDocument, read_file


def make_pdf(path, pages, title=None):
    """One PDF page per list of lines; an empty list draws only a rectangle (a 'scan')."""
    c = canvas.Canvas(str(path))
    if title:
        c.setTitle(title)
    for lines in pages:
        if not lines:
            c.rect(100, 100, 300, 400, fill=1)
        for i, line in enumerate(lines):
            c.drawString(72, 720 - 16 * i, line)
        c.showPage()
    c.save()
    return path


def assert_tiles(result: ReadResult):
    """Sections cover the text in order, without gaps or overlaps."""
    assert result.sections[0].start == 0
    assert result.sections[-1].end == len(result.text)
    for a, b in zip(result.sections, result.sections[1:]):
        assert a.end == b.start and a.start < a.end


def section_text(result: ReadResult, label: str) -> str:
    (section,) = [s for s in result.sections if s.label == label]
    return result.text[section.start : section.end]


PAGES = [
    ["Page one is about the harbour.", "It opened in 1850."],
    ["Page two is about the lighthouse."],
    ["Page three is about the festival."],
]


def test_pdf_one_section_per_page(tmp_path):
    result = read_file(make_pdf(tmp_path / "doc.pdf", PAGES, title="Port Aldren"))
    assert result.kind == "pdf"
    assert result.title == "Port Aldren"
    assert [s.label for s in result.sections] == ["p. 1", "p. 2", "p. 3"]
    assert_tiles(result)
    assert (
        section_text(result, "p. 1").strip() == "Page one is about the harbour.\nIt opened in 1850."
    )
    assert section_text(result, "p. 2").strip() == "Page two is about the lighthouse."
    assert section_text(result, "p. 3") == "Page three is about the festival."
    offset = result.text.index("festival")
    assert [s.label for s in result.sections if s.start <= offset < s.end] == ["p. 3"]
    assert read_file(tmp_path / "doc.pdf") == result  # deterministic


REPORT_HEAD = "Annual Report of the Aldren Water Trust 2023"
PLACES = """Millbrook Harrow Fenwick Oakridge Thornbury Linden Calder Ashby Wrenfield Dunmore
    Eastleigh Brampton Coldwater Redhill Marston Kelby Saltmarsh Underwood""".split()
WORKS = ["wells", "pumps", "pipes", "tanks", "weirs", "sluices", "culverts"]
PEOPLE = ["village council", "farmers", "school board", "millers", "parish"]
REPORT = [
    f"In {place} the trust repaired {k + 2} {WORKS[k % 7]} and the {PEOPLE[k % 5]} agreed "
    f"to share the cost of the {WORKS[(k + 3) % 7]} with the {place} {PEOPLE[(k + 2) % 5]}."
    for k, place in enumerate(PLACES)
]


def make_report_pdf(path, footer: str, lines_per_page: int = 6):
    """A report whose pages have a running head at the top and a page number at the
    bottom, and whose sentences run on from one page to the next."""
    lines = textwrap.wrap(" ".join(REPORT), 70)
    n_pages = -(-len(lines) // lines_per_page)
    c = canvas.Canvas(str(path))
    for n in range(1, n_pages + 1):
        c.drawString(72, 800, REPORT_HEAD)
        for i, line in enumerate(lines[(n - 1) * lines_per_page : n * lines_per_page]):
            c.drawString(72, 740 - 16 * i, line)
        c.drawString(280, 40, footer.format(n=n, of=n_pages))
        c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("footer", ["Page {n} of {of}", "{n}", "- {n} -"])
def test_pdf_running_head_and_page_numbers_are_not_text(tmp_path, footer):
    from graphrag_local.stages.chunk import chunk_documents, chunk_sentences
    from graphrag_local.stages.load import read_document
    from graphrag_local.tokenizer import corpus_encoding

    path = make_report_pdf(tmp_path / "report.pdf", footer)
    doc, _ = read_document(path, "report.pdf", "text")
    assert " ".join(doc.text.split()) == " ".join(REPORT)  # the body, all of it, and only it
    assert [label for _, _, label in doc.sections] == [f"p. {n}" for n in range(1, 7)]
    chunks = chunk_documents([doc], corpus_encoding(), 150, 50)  # overlap > a sentence
    sentences = chunk_sentences([doc], chunks)
    assert len(chunks) > 3
    for piece in [c.text for c in chunks] + [s.text for s in sentences]:
        assert "Annual" not in piece and "Page" not in piece
        assert not re.search(r"(?m)^\W*\d+\W*$", piece)  # no line that is only a number
    # every sentence whole, five of them run on across a page break
    assert sorted({" ".join(s.text.split()) for s in sentences}) == sorted(REPORT)
    by_id = {c.id: c for c in chunks}

    def page_of(sentence):
        chunk = by_id[sentence.chunk_id]
        return doc.label_at(chunk.start_char + sentence.start, chunk.start_char + sentence.end)

    pages = {s.text.split()[1]: page_of(s) for s in sentences}  # "In Wrenfield ..."
    assert pages["Wrenfield"] == "p. 3"  # lines 13-18 of 36 hold it whole
    assert pages["Millbrook"] == "p. 1" and pages["Oakridge"] == "pp. 1-2"


@pytest.mark.parametrize("title, shown", [
    ("Microsoft Word - Budget 2023.docx", "Budget 2023"), ("Untitled", ""),
    ("Harbour report.pdf", "Harbour report"), ("Port Aldren", "Port Aldren")])
def test_a_pdfs_title_is_what_names_the_document(tmp_path, title, shown):
    """Global answers can be headed by a document's title (`search/titles.py`): a PDF
    printer's frame around the file it printed is not part of it."""
    assert read_file(make_pdf(tmp_path / "doc.pdf", PAGES, title=title)).title == shown


def test_pdf_pages_without_text_are_skipped(tmp_path):
    result = read_file(make_pdf(tmp_path / "doc.PDF", [PAGES[0], [], PAGES[2]]))
    assert [s.label for s in result.sections] == ["p. 1", "p. 3"]
    assert result.title == ""


def test_pdf_without_text_layer_is_refused_as_a_scan(tmp_path):
    with pytest.raises(UnreadableDocument, match=r"scanned PDF without a text layer .* 2 pages"):
        read_file(make_pdf(tmp_path / "scan.pdf", [[], []]))


def test_pdf_with_a_password_is_refused(tmp_path):
    writer = PdfWriter(clone_from=make_pdf(tmp_path / "plain.pdf", PAGES))
    writer.encrypt("secret")
    writer.write(tmp_path / "locked.pdf")
    with pytest.raises(UnreadableDocument, match=r"^encrypted PDF$"):
        read_file(tmp_path / "locked.pdf")


def test_pdf_encrypted_with_an_empty_user_password_is_read(tmp_path):
    writer = PdfWriter(clone_from=make_pdf(tmp_path / "plain.pdf", PAGES))
    writer.encrypt("", owner_password="owner")  # permissions only, as many real PDFs
    writer.write(tmp_path / "restricted.pdf")
    assert len(read_file(tmp_path / "restricted.pdf").sections) == 3


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda data: data[: len(data) // 2], r"^truncated PDF \(.+\)$"),
        (lambda data: data[:40] + b"\x00garbage" * 50 + b"\n%%EOF\n", r"^corrupt PDF \(.+\)$"),
        (lambda data: b"<html>not a pdf</html>", r"^not a PDF"),
        (lambda data: b"", r"^empty file$"),
    ],
)
def test_damaged_pdf_is_refused_with_the_problem(tmp_path, damage, message):
    data = make_pdf(tmp_path / "good.pdf", PAGES).read_bytes()
    (tmp_path / "bad.pdf").write_bytes(damage(data))
    with pytest.raises(UnreadableDocument, match=message):
        read_file(tmp_path / "bad.pdf")


def make_docx(path):
    document = docx.Document()
    document.core_properties.title = "Harbour report"
    document.add_paragraph("A note before any heading.")
    document.add_heading("Introduction", level=1)
    document.add_paragraph("The harbour   opened\tin 1850.")
    document.add_heading("Ships and " + "very " * 20 + "long cargo", level=2)
    table = document.add_table(rows=2, cols=3)
    for r, row in enumerate([["Ship", "Tons", "Year"], ["Aurora", "1200", "1901"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("After the table.")
    document.save(path)
    return path


def test_docx_sections_follow_headings(tmp_path):
    result = read_file(make_docx(tmp_path / "report.docx"))
    assert result.kind == "docx"
    assert result.title == "Harbour report"
    labels = [s.label for s in result.sections]
    assert labels[:2] == ["", "§ Introduction"]
    assert labels[2].startswith("§ Ships and very") and len(labels[2]) <= 62  # "§ " + 60
    assert_tiles(result)
    assert section_text(result, "").strip() == "A note before any heading."
    assert section_text(result, "§ Introduction") == (
        "Introduction\n\nThe harbour opened in 1850.\n\n"
    )
    ships = section_text(result, labels[2])
    assert "Ship | Tons | Year\nAurora | 1200 | 1901\n\nAfter the table." in ships


def test_docx_without_headings_is_one_section(tmp_path):
    document = docx.Document()
    document.add_paragraph("First paragraph.")
    document.add_paragraph("Second paragraph.")
    document.save(tmp_path / "plain.docx")
    result = read_file(tmp_path / "plain.docx")
    assert result.text == "First paragraph.\n\nSecond paragraph."
    assert [(s.start, s.end, s.label) for s in result.sections] == [(0, len(result.text), "")]
    assert result.title == ""


def zip_bytes(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "data, message",
    [
        (bytes(range(256)) * 8, r"^corrupt DOCX \(not a zip file\)$"),
        (zip_bytes({"[Content_Types].xml": "<Types/>"}), r"no word/document\.xml"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512, r"password-protected DOCX"),
    ],
)
def test_corrupt_docx_is_refused(tmp_path, data, message):
    (tmp_path / "bad.docx").write_bytes(data)
    with pytest.raises(UnreadableDocument, match=message):
        read_file(tmp_path / "bad.docx")


def test_docx_with_broken_xml_is_refused(tmp_path):
    with zipfile.ZipFile(make_docx(tmp_path / "good.docx")) as zf:
        files = {name: zf.read(name) for name in zf.namelist()}
    files["word/document.xml"] = b"<w:document broken"
    (tmp_path / "bad.docx").write_bytes(zip_bytes(files))
    with pytest.raises(UnreadableDocument, match=r"^corrupt DOCX \(.+\)$"):
        read_file(tmp_path / "bad.docx")


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Port Aldren &amp; the Lanterns</title>
<style>body { color: red }</style>
<script>var secret = "SCRIPT TEXT";</script>
<link rel="stylesheet" href="https://example.com/site.css"></head>
<body>
<header><a href="/">Home</a> Site banner</header>
<nav><ul><li>Menu one</li><li>Menu two</li></ul></nav>
<main>
<h1>Lantern   Festival</h1>
<p>The festival is held
   every autumn in <b>Port</b> Aldren.</p>
<p>Second paragraph.<br>With a line break.</p>
<div hidden>Hidden text</div><span aria-hidden="true">ICON</span>
<img src="https://example.com/lantern.png" alt="a lantern">
<h2>History</h2>
<ul><li>Founded 1850</li><li>Revived 1990</li></ul>
<table><tr><th>Year</th><th>Visitors</th></tr><tr><td>2020</td><td>5000</td></tr></table>
<p>Unclosed paragraph
<p>Another one
<noscript>Enable JavaScript</noscript>
</main>
<aside>Related links</aside>
<footer>Copyright 2024</footer>
<script>document.write("MORE SCRIPT")</script>
</body></html>
"""


def test_html_keeps_only_the_main_text(tmp_path):
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    with no_network() as attempts:
        result = read_file(tmp_path / "page.html")
    assert attempts == []
    assert result.kind == "html"
    assert result.title == "Port Aldren & the Lanterns"
    assert result.text == (
        "Lantern Festival\n\n"
        "The festival is held every autumn in Port Aldren.\n\n"
        "Second paragraph.\nWith a line break.\n\n"
        "History\n\n"
        "Founded 1850\nRevived 1990\n\n"
        "Year | Visitors\n2020 | 5000\n\n"
        "Unclosed paragraph\n\n"
        "Another one"
    )
    for dropped in ("SCRIPT", "color", "Menu", "banner", "Hidden", "ICON", "Related", "Copyright"):
        assert dropped not in result.text
    assert [s.label for s in result.sections] == ["§ Lantern Festival", "§ History"]
    assert_tiles(result)
    assert section_text(result, "§ History").startswith("History\n\nFounded 1850")


def test_html_without_main_drops_navigation_and_titles_from_first_heading(tmp_path):
    page = """<body><nav>Menu</nav><p>Intro before headings.</p>
    <div style="display: none">Invisible</div><h2>Only heading</h2><div>Body <em>text</em>.</div>
    <footer>Footer</footer></body>"""
    (tmp_path / "page.htm").write_text(page, encoding="utf-8")
    result = read_file(tmp_path / "page.htm")
    assert result.text == "Intro before headings.\n\nOnly heading\n\nBody text."
    assert [s.label for s in result.sections] == ["", "§ Only heading"]
    assert result.title == "Only heading"


def test_html_prefers_articles_and_keeps_their_headers(tmp_path):
    page = """<body><header>Site</header><div>Teaser</div>
    <article><header><h1>First post</h1></header><p>One.</p></article>
    <article><h1>Second post</h1><p>Two.</p><footer>Posted Monday</footer></article></body>"""
    (tmp_path / "blog.html").write_text(page, encoding="utf-8")
    result = read_file(tmp_path / "blog.html")
    assert result.text == "First post\n\nOne.\n\nSecond post\n\nTwo.\n\nPosted Monday"
    assert [s.label for s in result.sections] == ["§ First post", "§ Second post"]


def test_html_in_cp1252_is_decoded_by_its_meta_charset(tmp_path):
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        "<title>Café</title></head><body><p>Zoë’s café – naïve “déjà vu”</p></body></html>"
    )
    (tmp_path / "old.html").write_bytes(page.encode("cp1252"))
    result = read_file(tmp_path / "old.html")
    assert result.text == "Zoë’s café – naïve “déjà vu”"
    assert result.title == "Café"


def test_html_bom_wins_over_a_wrong_meta_charset(tmp_path):
    page = '<meta charset="iso-8859-1"><p>Grüße aus Köln</p>'
    (tmp_path / "bom.html").write_bytes(b"\xef\xbb\xbf" + page.encode("utf-8"))
    assert read_file(tmp_path / "bom.html").text == "Grüße aus Köln"


def test_dispatch_by_suffix(tmp_path):
    assert sorted(READERS) == [".docx", ".htm", ".html", ".pdf"]
    (tmp_path / "notes.odt").write_bytes(b"PK")
    with pytest.raises(UnreadableDocument, match="not a PDF, DOCX or HTML file"):
        read_file(tmp_path / "notes.odt")
    with pytest.raises(UnreadableDocument, match="cannot open the file"):
        read_file(tmp_path / "missing.pdf")


def test_pdf_needing_a_missing_aes_library_says_so(tmp_path, monkeypatch):
    from pypdf import PageObject
    from pypdf.errors import DependencyError

    def needs_cryptography(self, *args, **kwargs):
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(PageObject, "extract_text", needs_cryptography)
    with pytest.raises(UnreadableDocument, match=r"^encrypted PDF \(AES; .*'cryptography'\)$"):
        read_file(make_pdf(tmp_path / "aes.pdf", PAGES))


def test_malformed_html_is_read_or_refused_never_crashes(tmp_path):
    (tmp_path / "odd.html").write_text("<p>before</p><![bogus section <p>after</p>")
    try:  # Python 3.11's html.parser raises here; later versions read on
        result = read_file(tmp_path / "odd.html")
    except UnreadableDocument as exc:
        assert str(exc).startswith("malformed HTML (")
    else:
        assert result.text.startswith("before")


def test_section_labels_of_offsets_and_ranges():
    from graphrag_local.schema import Document

    pages = tuple((i * 100, (i + 1) * 100, f"p. {i + 1}") for i in range(5000))
    doc = Document("d", "big.pdf", "t", "", "utf-8", "pdf", pages)
    assert doc.label_at(0) == "p. 1" and doc.label_at(99) == "p. 1" and doc.label_at(100) == "p. 2"
    assert doc.label_at(250, 320) == "pp. 3-4" and doc.label_at(250, 300) == "p. 3"
    assert doc.label_at(499_950, 500_000) == "p. 5000" and doc.label_at(500_000) == ""
    gaps = Document("d", "a.md", "t", "", "utf-8", "markdown",
                    ((0, 10, "§ One"), (20, 30, "§ Two")))
    assert gaps.label_at(15) == "" and gaps.label_at(5, 25) == "§ One"
    assert gaps.label_at(25) == "§ Two" and Document("d", "x", "t", "", "utf-8").label_at(3) == ""
