"""Read PDF, DOCX and HTML files into plain text with provenance for citations.

`read_file(path)` returns the document's text (paragraphs separated by a blank line) and
`Section`s that tile it in order, each with a short label: "p. 12" for a PDF page, the
nearest heading ("§ Introduction") for DOCX and HTML. Any offset into the text falls in
exactly one section, so a chunk's start offset names its page or heading.

A PDF's running headers, footers and page numbers are page furniture, not text: they are
taken off each page before the pages are put together (`furniture.strip_pages`: a line at
the top or bottom of at least half of the pages), so citations still name the page. Pages
are joined by a blank line, except where a page breaks off mid-sentence (its text does
not end as a sentence does): then by one line break, so a sentence that runs on to the
next page reads as one (`furniture.joint`).

What it deliberately does not do: OCR (a PDF without a text layer is refused, with a
message saying so), layout analysis (PDF columns, hyphenation, footnotes, and furniture
that is not a line of its own come as pypdf gives them), DOCX headers, footers,
footnotes, comments, text boxes, content controls and tracked changes, and anything on
the network: HTML is parsed with the standard library and nothing it links to is
fetched. Every failure is an `UnreadableDocument` whose message a user can act on; no
library exception escapes.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from .furniture import joint, strip_pages

LABEL_CHARS = 60
MIN_CHARS_PER_PAGE = 16  # fewer visible characters than this per page on average: a scan
# Characters that are not seen but change what a text says to a program or how it shows:
# C0 and C1 controls but tab and newline (NUL too), soft hyphens, zero-width spaces and
# joiners, bidi marks, embeddings, overrides and isolates (the "Trojan Source" trick:
# U+202E shows a name reversed), a BOM inside the text, and Unicode tag characters
# (invisible ASCII, a known way to hide instructions for a model). ZWJ and ZWNJ stay:
# scripts and emoji need them. Right-to-left letters are text and stay, of course.
INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f]"
)
LINE_BREAKS = str.maketrans({"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x85": "\n",
                             "\u2028": "\n", "\u2029": "\n\n"})
PLACEHOLDER_TITLES = {"untitled", "untitled document", "no title"}  # what PDF writers fill in


@dataclass(frozen=True)
class Section:
    start: int  # character offset into ReadResult.text (inclusive)
    end: int  # character offset (exclusive)
    label: str  # "p. 12", "§ Heading", or "" before the first heading


@dataclass(frozen=True)
class ReadResult:
    text: str
    sections: tuple[Section, ...]
    title: str
    kind: str  # "pdf" | "docx" | "html"


class UnreadableDocument(Exception):
    """The file cannot be read; str(exc) says why in a few words a user understands."""


def read_file(path: Path) -> ReadResult:
    """Read one PDF, DOCX or HTML file, chosen by its suffix."""
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise UnreadableDocument(f"not a PDF, DOCX or HTML file ({path.suffix or 'no suffix'})")
    return reader(path)


def clean_text(text: str) -> tuple[str, int]:
    """Line breaks as "\\n" (CRLF, CR, form feed, Unicode separators), and the `INVISIBLE`
    characters removed; with how many were removed."""
    return INVISIBLE.subn("", text.replace("\r\n", "\n").translate(LINE_BREAKS))


def _assemble(blocks: list[tuple[str, str | None]], kind: str, title: str,
              run_on: bool = False) -> ReadResult:
    """Join (text, label) blocks with blank lines (with `run_on`, by `furniture.joint`: one
    line break where a block breaks off mid-sentence); a label that is not None starts a
    section there, and sections run up to the next one so that together they tile the text."""
    text, starts = "", []
    for block, label in blocks:
        block = clean_text(block)[0]
        if not block:
            continue
        if text:
            text += joint(text, block) if run_on else "\n\n"
        if label is not None or not starts:
            starts.append((len(text), label or ""))
        text += block
    bounds = [s for s, _ in starts[1:]] + [len(text)]
    sections = tuple(Section(s, e, lab) for (s, lab), e in zip(starts, bounds))
    return ReadResult(text, sections, title, kind)


def _clean(text: str) -> str:
    """'\\n' line endings, no trailing spaces, at most one blank line in a row."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _heading_label(text: str) -> str:
    text = _one_line(text)
    if len(text) > LABEL_CHARS:
        text = text[: LABEL_CHARS - 1].rstrip() + "…"
    return f"§ {text}"


def _read_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(f"cannot open the file ({exc.strerror or exc})") from exc
    if not data.strip():
        raise UnreadableDocument("empty file")
    return data


# --- PDF ------------------------------------------------------------------------------


def read_pdf(path: Path) -> ReadResult:
    """One section per page with text, labelled "p. N" (1-based), without page furniture."""
    from pypdf.errors import DependencyError

    data = _read_bytes(path)
    if b"%PDF-" not in data[:1024]:
        raise UnreadableDocument("not a PDF (no %PDF header)")
    log = logging.getLogger("pypdf")
    level = log.level
    log.setLevel(logging.CRITICAL)  # it logs damage it recovers from; we raise or go on
    try:
        pages, title = _pdf_pages(data)
    except UnreadableDocument:
        raise
    except DependencyError as exc:  # AES, even with an empty password
        raise UnreadableDocument("encrypted PDF (AES; reading it needs 'cryptography')") from exc
    except Exception as exc:  # pypdf raises many kinds of exception on malformed files
        problem = "corrupt PDF" if b"%%EOF" in data[-2048:] else "truncated PDF"
        raise UnreadableDocument(f"{problem} ({_first_line(exc)})") from exc
    finally:
        log.setLevel(level)
    if not pages:
        raise UnreadableDocument("PDF without pages")
    if sum(len("".join(p.split())) for p in pages) < MIN_CHARS_PER_PAGE * len(pages):
        raise UnreadableDocument(
            f"scanned PDF without a text layer (no text on any of its {len(pages)} pages); "
            "run OCR first"
        )
    pages = strip_pages(pages)[0]
    return _assemble([(p, f"p. {n}") for n, p in enumerate(pages, 1)], "pdf", title, run_on=True)


def _pdf_pages(data: bytes) -> tuple[list[str], str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise UnreadableDocument("encrypted PDF")
    pages = [_clean(page.extract_text() or "") for page in reader.pages]
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:  # a broken info dictionary: the title is optional
        title = None
    return pages, _metadata_title(title if isinstance(title, str) else "")


# what a PDF printer writes into the title it was given: "Microsoft Word - Budget 2023.docx"
_PRINTED_FROM = re.compile(r"^Microsoft (?:Word|Excel|PowerPoint) - ", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(?:docx?|xlsx?|pptx?|odt|rtf|txt|pdf)$", re.IGNORECASE)


def _metadata_title(title: str) -> str:
    """A PDF's title as it names the document: no placeholder ("Untitled"), no printer's
    frame around the file name it printed ("Microsoft Word - Budget 2023.docx" ->
    "Budget 2023")."""
    title = _FILE_NAME.sub("", _PRINTED_FROM.sub("", _one_line(title))).strip()
    return "" if title.lower() in PLACEHOLDER_TITLES else title


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:120] if lines else type(exc).__name__


# --- DOCX -----------------------------------------------------------------------------

HEADING_STYLE = re.compile(r"(heading [1-9]|title)", re.IGNORECASE)


def read_docx(path: Path) -> ReadResult:
    """Body paragraphs and table rows in order; each heading starts a section."""
    data = _read_bytes(path)
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise UnreadableDocument("password-protected DOCX or an old .doc file (not a zip)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnreadableDocument("corrupt DOCX (not a zip file)") from exc
    if "word/document.xml" not in names:
        raise UnreadableDocument("corrupt DOCX (no word/document.xml)")
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        blocks = [_docx_block(item) for item in document.iter_inner_content()]
        title = _one_line(document.core_properties.title or "")
    except Exception as exc:  # damaged zip members, XML or package structure
        raise UnreadableDocument(f"corrupt DOCX ({_first_line(exc)})") from exc
    return _assemble(blocks, "docx", title)


def _docx_block(item) -> tuple[str, str | None]:
    from docx.table import Table

    if isinstance(item, Table):
        rows = []
        for row in item.rows:
            cells = row.cells  # a merged cell comes once per grid column it spans
            cells = [c for i, c in enumerate(cells) if not i or c._tc is not cells[i - 1]._tc]
            texts = [_one_line(c.text) for c in cells]
            if any(texts):
                rows.append(" | ".join(texts))
        return "\n".join(rows), None
    text = _clean("\n".join(_one_line(line) for line in item.text.split("\n")))
    return text, (_heading_label(text) if text and _is_heading(item) else None)


def _is_heading(paragraph) -> bool:
    style = paragraph.style
    for _ in range(10):  # a custom style based on "Heading 2" is a heading too
        if style is None:
            return False
        if style.name and HEADING_STYLE.fullmatch(style.name):
            return True
        style = style.base_style
    return False


# --- HTML -----------------------------------------------------------------------------

SKIP = set("""script style noscript template svg math nav aside form iframe object canvas
    button select""".split())  # fmt: skip
SKIP_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search"}
VOID = set("area base br col embed hr img input link meta source track wbr".split())
BLOCK = set("""address article aside blockquote body caption dd details dialog div dl dt fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section
    summary table tr ul""".split())  # fmt: skip
LINE = {"br", "li", "tr", "dt", "dd"}  # end a line; the rest of BLOCK end a paragraph
IMPLIED_END = {"p": BLOCK, "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}, "tr": {"tr"},
               "td": {"td", "th", "tr"}, "th": {"td", "th", "tr"}}  # fmt: skip
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
META_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)|<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)""",
    re.IGNORECASE,
)
WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin1", "latin-1", "us-ascii", "ascii"}


def read_html(path: Path) -> ReadResult:
    """The page's main text: <main>, else its <article>s, else the body without navigation."""
    parser = _TextParser()
    try:
        parser.feed(_decode_html(_read_bytes(path)))
        parser.close()
    except Exception as exc:  # html.parser is lenient; this is only a safety net
        raise UnreadableDocument(f"malformed HTML ({_first_line(exc)})") from exc
    parser.end_block()
    found = [s for s in ("main", "article") if any(s in scopes for _, _, scopes in parser.blocks)]
    kept = [(t, h) for t, h, scopes in parser.blocks if not found or found[0] in scopes]
    blocks = [(t, _heading_label(t) if h else None) for t, h in kept]
    headings = [t for t, h in kept if h]
    title = next((_one_line(t) for t in parser.titles + headings if t.strip()), "")
    return _assemble(blocks, "html", title)


def _decode_html(data: bytes) -> str:
    """BOM, else the declared charset, else UTF-8, else a detected encoding."""
    if data.startswith(codecs.BOM_UTF8):
        return data.decode("utf-8-sig", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    match = META_CHARSET.search(data[:4096])
    if match:
        name = (match.group(1) or match.group(2)).decode("ascii").lower()
        if name in WINDOWS_1252_ALIASES:
            name = "cp1252"  # as browsers do (WHATWG Encoding standard)
        elif name.startswith("utf-16"):
            name = "utf-8"  # bytes that carry a readable <meta> are not UTF-16
        try:
            return data.decode(codecs.lookup(name).name)
        except (LookupError, UnicodeDecodeError):
            pass  # unknown or wrong declaration: decode as if none were given
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
        return str(best) if best is not None else data.decode("utf-8", errors="replace")


class _TextParser(HTMLParser):
    """Collects (text, is_heading, scopes) blocks; scopes holds "main" and/or "article".

    Block elements end a paragraph; <br>, <li>, <tr> end a line; table cells are joined
    with " | ". Skipped subtrees (navigation, scripts, hidden elements) give nothing.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, bool, frozenset[str]]] = []
        self.titles: list[str] = []  # text of each <title>; the page's is the first
        self.stack: list[tuple[str, str]] = []  # (tag, the counter it raised or "")
        self.count = dict.fromkeys(("skip", "main", "article", "heading", "pre", "title"), 0)
        self.line: list[str] = []
        self.lines: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        while self.stack and tag in IMPLIED_END.get(self.stack[-1][0], ()):
            self._pop()
        self._break(tag)
        if tag in VOID:
            return
        counter = self._counter(tag, {k: v or "" for k, v in attrs})
        if counter == "title":
            self.titles.append("")
        self.stack.append((tag, counter))
        if counter:
            self.count[counter] += 1
        if tag in {"td", "th"} and "".join(self.line).strip():
            self.line.append(" | ")

    def _counter(self, tag: str, attrs: dict[str, str]) -> str:
        role = attrs.get("role", "").lower()
        banner = tag in {"header", "footer"} and not (self.count["main"] or self.count["article"])
        if (tag in SKIP or role in SKIP_ROLES or banner or "hidden" in attrs
                or attrs.get("aria-hidden", "").lower() == "true"
                or HIDDEN_STYLE.search(attrs.get("style", ""))):  # fmt: skip
            return "skip"
        if tag == "main" or role == "main":
            return "main"
        if tag in {"article", "pre", "title"}:
            return tag
        return "heading" if tag in {"h1", "h2", "h3", "h4", "h5", "h6"} else ""

    def handle_endtag(self, tag: str) -> None:
        if any(t == tag for t, _ in self.stack):
            while self._pop() != tag:
                pass
        self._break(tag)

    def handle_data(self, data: str) -> None:
        if self.count["title"]:
            if not self.count["skip"]:
                self.titles[-1] += data
        elif self.count["skip"]:
            return
        elif self.count["pre"]:
            first, *rest = data.split("\n")
            self.line.append(first)
            for part in rest:
                self._end_line()
                self.line.append(part)
        else:
            self.line.append(data)

    def _pop(self) -> str:
        tag, counter = self.stack.pop()
        if counter in {"heading", "main", "article"}:
            self.end_block()  # while the block still counts as heading / in main
        if counter:
            self.count[counter] -= 1
        return tag

    def _break(self, tag: str) -> None:
        if tag in LINE:
            self._end_line()
        elif tag in BLOCK:
            self.end_block()

    def _end_line(self) -> None:
        line = _one_line("".join(self.line))
        if line:
            self.lines.append(line)
        self.line = []

    def end_block(self) -> None:
        self._end_line()
        if self.lines:
            scopes = frozenset(s for s in ("main", "article") if self.count[s])
            self.blocks.append(("\n".join(self.lines), bool(self.count["heading"]), scopes))
        self.lines = []


READERS: dict[str, Callable[[Path], ReadResult]] = {
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".html": read_html,
    ".htm": read_html,
}
