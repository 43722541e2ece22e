"""Real documents in, with the real model: a PDF (two pages), a DOCX (headings) and an HTML
page (navigation, scripts and a footer around the article), written here with the
libraries' own writers from the sample corpus, plus a scanned PDF and a corrupt DOCX. The
build reads all three, warns about the two broken files by name and goes on, and answers
cite the page or section a sentence came from."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_e2e import _offline

pytestmark = pytest.mark.e2e
EXE = Path(sys.executable).parent / "graphrag-local"
SAMPLE = Path(__file__).parent.parent / "samples" / "corpus"


def paragraphs(name: str) -> list[str]:
    text = (SAMPLE / name).read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n\n") if p.strip() and not p.startswith("#")]


def write_pdf(path: Path, pages: list[list[str]]) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for paras in pages:
        y = 760
        for para in paras:
            for line in textwrap.wrap(para, 90) or [""]:
                c.drawString(50, y, line)
                y -= 14
            y -= 10
        c.showPage()
    c.save()


def write_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("The Halvard Shipping Company", level=1)
    paras = paragraphs("03_halvard_shipping.md")
    for p in paras[:3]:
        d.add_paragraph(p)
    d.add_heading("The dredging dispute", level=2)
    for p in paras[3:]:
        d.add_paragraph(p)
    d.save(path)


def write_html(path: Path) -> None:
    body = "".join(f"<p>{p}</p>" for p in paragraphs("05_lantern_festival.md"))
    path.write_text(
        "<html><head><title>Lantern Festival</title><style>p{color:red}</style>"
        "<script>var tracker = 'SECRET-TRACKER';</script></head><body>"
        "<nav><a href='/'>Home</a> | <a href='/news'>Site navigation menu</a></nav>"
        f"<main><h1>The Lantern Festival</h1>{body}</main>"
        "<footer>Copyright footer text</footer></body></html>",
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("formats")
    docs = base / "docs"
    docs.mkdir()
    write_pdf(docs / "water_trust.pdf", [paragraphs("01_water_trust.md"),
                                          paragraphs("02_millbrook_flood.txt")])
    write_docx(docs / "shipping.docx")
    write_html(docs / "festival.html")
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(docs / "scan.pdf"))  # an image-only page: no text layer
    c.rect(100, 100, 300, 400, fill=1)
    c.showPage()
    c.save()
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip file")
    index = base / "index"
    out = subprocess.run(_offline([str(EXE), "build", str(docs), "--index", str(index), "--json"]),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return {"docs": docs, "index": index, "summary": json.loads(out.stdout)}


def test_pdf_docx_and_html_are_read_and_broken_files_are_named(built):
    from graphrag_local.store import Store

    s = built["summary"]
    assert s["documents"] == 3 and s["entities"] >= 8 and s["reports"] >= 1
    warnings = "\n".join(s["warnings"])
    assert "scan.pdf" in warnings and "scanned PDF" in warnings
    assert "broken.docx" in warnings
    docs = {d["path"]: d for d in Store(built["index"]).read("documents")}
    assert {d["kind"] for d in docs.values()} == {"pdf", "docx", "html"}
    html = docs["festival.html"]["text"]
    assert "Lena Castell" in html and "SECRET-TRACKER" not in html and "navigation" not in html
    labels = {label for d in docs.values() for _, _, label in json.loads(d["sections_json"])}
    assert {"p. 1", "p. 2", "§ The dredging dispute", "§ The Lantern Festival"} <= labels
    assert s["faithfulness"]["verbatim_share"] == 1.0


def test_answers_cite_the_page_a_sentence_came_from(built):
    out = subprocess.run(
        _offline([str(EXE), "query", "How many homes did the Millbrook Flood damage?",
                  "--method", "basic", "--index", str(built["index"]), "--json"]),
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert "forty homes" in data["answer"]
    pdf = [c for c in data["citations"] if c["title"] == "water_trust.pdf"]
    assert pdf and all(c["detail"].startswith("p") for c in pdf)  # "p. 2, chunk ..."
    shown = subprocess.run(
        _offline([str(EXE), "query", "How many homes did the Millbrook Flood damage?",
                  "--method", "basic", "--index", str(built["index"])]),
        capture_output=True, text=True,
    )
    assert "water_trust.pdf" in shown.stdout and "p. " in shown.stdout
