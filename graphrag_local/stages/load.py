"""Read documents from a folder. Text files (.txt, .md, .csv) are decoded as UTF-8, else
with a detected encoding; PDF, DOCX and HTML files are read by `readers.py` into text with
their pages or sections kept for citations ("report.pdf p. 12"). Binary, empty, scanned,
encrypted, corrupt and unreadable files are skipped with a warning that names them and
says why; the build goes on. Identical files are kept once (content-hash ids).

Hostile folders are read, not trusted: hidden files and folders are left out; links to
folders are not followed (a link to its own parent would loop) and broken or looping
links, pipes and devices are skipped by name; a folder that cannot be listed or a file
that vanishes between listing and reading is a warning, not a failed build. NUL bytes
in an otherwise-text file, control characters, bidi overrides and zero-width characters
are removed from the text (`readers.clean_text`), with a warning saying how many.

Running headers, footers and page numbers of text that came from pages (a transcript
saved from a PDF) are removed from plain text and Markdown before sentences, sections
and titles are read (`furniture.py`; form feeds, where present, mark the pages). CSV
rows are records, not pages: they are left as they are."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

from ..errors import InputError
from ..furniture import MIN_PAGES, join_pages, strip_pages, strip_text
from ..readers import READERS, UnreadableDocument, clean_text, read_file
from ..schema import Document, content_id

_BINARY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f]")  # unlike tab and line breaks, not text
TEXT_KINDS = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".csv": "csv"}


def load_documents(
    folder: Path, extensions: tuple[str, ...], csv_text_column: str
) -> tuple[list[Document], list[str]]:
    """All usable documents under `folder` (recursively), and warnings about the rest."""
    if not folder.exists():
        raise InputError(f"documents folder not found: {folder}")
    if not folder.is_dir():
        raise InputError(f"not a folder: {folder}")
    paths, warnings = list_files(folder)
    seen: dict[str, str] = {}
    docs: list[Document] = []
    exts = tuple(e.lower() for e in extensions)
    for path in paths:
        rel = path.relative_to(folder).as_posix()
        if path.suffix.lower() not in exts:
            warnings.append(f"{rel}: skipped (not one of {', '.join(exts)})")
            continue
        try:
            doc, removed = read_document(path, rel, csv_text_column)
        except InputError as exc:
            warnings.append(f"{rel}: skipped ({exc})")
            continue
        if doc.id in seen:
            warnings.append(f"{rel}: skipped (identical to {seen[doc.id]})")
            continue
        if removed:
            warnings.append(f"{rel}: {removed} control, zero-width or bidi characters removed")
        seen[doc.id] = rel
        docs.append(doc)
    if not docs:
        raise InputError(
            f"no usable documents in {folder} (looked for {', '.join(exts)} files)"
            + (f"; {len(warnings)} skipped: " + "; ".join(warnings[:5]) if warnings else "")
        )
    return docs, warnings


def list_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The regular files under `folder` (links to files followed), sorted, hidden ones
    left out; and a warning naming everything else that was found and not listed. A
    loop, not recursion: a folder nested a thousand deep is listed too."""
    warnings: list[str] = []
    files: list[Path] = []
    todo = [folder]
    while todo:
        here = todo.pop()
        try:
            with os.scandir(here) as entries:
                found = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError as exc:
            warnings.append(f"{_rel(here, folder)}/: skipped (cannot list the folder: "
                            f"{exc.strerror or exc})")
            continue
        for name, is_folder in found:
            path = here / name
            if name.startswith("."):
                continue
            if is_folder:
                todo.append(path)
            elif path.is_file():
                files.append(path)
            elif path.is_dir():
                warnings.append(f"{_rel(path, folder)}: skipped (a link to a folder; links to "
                                "folders are not followed)")
            elif path.is_symlink():
                warnings.append(f"{_rel(path, folder)}: skipped (a broken or looping link)")
            elif path.exists():
                warnings.append(f"{_rel(path, folder)}: skipped (not a regular file)")
            else:
                warnings.append(f"{_rel(path, folder)}: skipped (vanished before it was read)")
    return sorted(files), sorted(warnings)


def _rel(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()


def read_document(path: Path, rel: str, csv_text_column: str) -> tuple[Document, int]:
    """One document and how many invisible characters were removed from it, or an
    InputError saying why it cannot be used."""
    suffix = path.suffix.lower()
    if suffix in READERS:
        try:
            r = read_file(path)
        except UnreadableDocument as exc:
            raise InputError(str(exc)) from None
        if not r.text.strip():
            raise InputError("no text")
        sections = tuple((x.start, x.end, x.label) for x in r.sections)
        return Document(content_id(r.text), rel, r.title or path.stem, r.text, "utf-8", r.kind,
                        sections), 0
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("vanished before it was read") from None
    except OSError as exc:
        raise InputError(f"unreadable: {exc.strerror or exc}") from None
    text, encoding, problem = decode(data)
    if problem:
        raise InputError(problem)
    kind = TEXT_KINDS.get(suffix, "text")
    pages, removed = [], 0
    for page in text.split("\f"):  # pdftotext ends each page with a form feed
        page, n = clean_text(page)
        pages.append(page)
        removed += n
    if kind == "csv":
        text = _csv_text("\n".join(pages), csv_text_column)
    else:
        text = _without_furniture(pages)
    if not text.strip():
        raise InputError("empty")
    sections = markdown_sections(text) if kind == "markdown" else ()
    title = _title(path, text) if kind != "csv" else path.stem  # a CSV's first row is a record
    return Document(content_id(text), rel, title, text, encoding, kind, sections), removed


def _without_furniture(pages: list[str]) -> str:
    """The text of `pages` (one page unless form feeds parted it) without its running
    headers, footers and page numbers (`furniture.py`): found by page where there are
    pages enough, else by how whole lines repeat. Before sections and titles are read,
    so their offsets hold."""
    if len(pages) >= MIN_PAGES:
        stripped, removed = strip_pages(pages)
        if removed:
            return strip_text(join_pages(stripped))[0]
    return strip_text("\n".join(pages))[0]


def markdown_sections(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sections of a markdown text by its headings (labelled "§ Heading"), tiling it."""
    starts = [(m.start(), "§ " + m.group(1).strip()[:60]) for m in
              re.finditer(r"^#{1,6}[ \t]+(.+)$", text, re.MULTILINE)]
    if not starts:
        return ()
    if starts[0][0] > 0:
        starts.insert(0, (0, ""))
    ends = [s for s, _ in starts[1:]] + [len(text)]
    return tuple((s, e, label) for (s, label), e in zip(starts, ends))


def _utf16_without_bom(data: bytes) -> tuple[str, str, str] | None:
    """UTF-16 text saved without a byte-order mark (some Windows tools do): most
    characters of Latin-script text then have a NUL as one byte of two, always the same
    one. Read as such when that holds and the result is printable text; else None."""
    sample = data[:65536]
    if len(data) % 2 or len(sample) < 4 or sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if max(even, odd) < 0.3 * half or min(even, odd) > 0.05 * half:
        return None
    encoding = "utf-16-le" if odd > even else "utf-16-be"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return None
    return (text, encoding, "") if _printable_share(text) >= 0.95 else None


def _printable_share(text: str) -> float:
    return sum(ch.isprintable() or ch in "\n\r\t" for ch in text) / max(1, len(text))


def decode(data: bytes) -> tuple[str, str, str]:
    """(text, encoding, problem). problem is "" when the bytes are usable text. NUL bytes
    in what is otherwise UTF-8 text (fewer than one byte in ten) do not make it binary:
    they stay in the text, for `clean_text` to remove and count."""
    if not data.strip():
        return "", "", "empty"
    utf16 = _utf16_without_bom(data)
    if utf16:
        return utf16
    if b"\x00" in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return "", "", "binary file"
        controls = len(_BINARY_CONTROLS.findall(text))  # NUL among them
        return ("", "", "binary file") if controls * 10 > len(text) else (text, "utf-8", "")
    try:
        return data.decode("utf-8-sig"), "utf-8", ""
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        return "", "", "not text in any known encoding"
    text = str(best)
    if _printable_share(text) < 0.95:
        return "", "", f"binary file (undecodable as text; best guess {best.encoding})"
    return text, best.encoding, ""


def _csv_text(text: str, column: str) -> str:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or column not in reader.fieldnames:
        raise InputError(
            f"CSV has no '{column}' column (columns: {', '.join(reader.fieldnames or [])}; "
            "set input.csv_text_column)"
        )
    return "\n\n".join(row[column].strip() for row in reader if (row.get(column) or "").strip())


TITLE_WORDS = 12  # a first line of at most this many words can be a document's title
TITLE_CHARS = 120  # ... and of at most this many characters (not a run of one long word)
_NOT_A_TITLE_END = re.compile(r"[.!?,;:…]['\"’”»)\]]*$")
_ROMAN = re.compile(r"^(?=[IVXL])(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})\.?$")  # a chapter's I-LXXXIX


def _title(path: Path, text: str) -> str:
    """A text document's title: its first Markdown heading ("# The Lantern Festival") in
    its first five lines, else its first line when that line reads as a title (at most
    `TITLE_WORDS` words, not ending as a sentence or a clause does, a blank line after
    it, at most `TITLE_CHARS` long: "The Millbrook Flood", Project Gutenberg's "THE
    LITTLE JACKALS AND THE LION", shown as "The Little Jackals and the Lion"), else the
    file's name without its extension."""
    for line in text.split("\n", 5)[:5]:  # (not the whole text split into lines)
        if line.startswith("#"):
            return line.lstrip("#").strip() or path.stem
    first, after = (text.lstrip().split("\n", 2) + ["", ""])[:2]
    line = " ".join(first.split())
    if (after.strip() or not any(c.isalpha() for c in line) or not line[0].isalnum()
            or len(line.split()) > TITLE_WORDS or len(line) > TITLE_CHARS
            or _NOT_A_TITLE_END.search(line)):
        return path.stem
    return _recased(line)


def _recased(title: str) -> str:
    """A title written in capitals, in title case ("STAVE ONE" -> "Stave One"; "THE STORY
    OF EPAMINONDAS AND HIS AUNTIE" -> "The Story of Epaminondas and His Auntie"; Roman
    numerals stay: "CHAPTER IV"). Any other title as written."""
    if any(c.islower() for c in title) or sum(c.isupper() for c in title) < 2:
        return title
    words = []
    for i, word in enumerate(title.split()):
        if _ROMAN.match(word) and (i or len(title.split()) == 1):
            words.append(word)
        elif i and word.lower() in SMALL_TITLE_WORDS:
            words.append(word.lower())
        else:  # each part of a hyphenated word: "HALF-CHICK" -> "Half-Chick"
            words.append("-".join(w[:1] + w[1:].lower() for w in word.split("-")))
    return " ".join(words)


# English words a title in title case writes in lower case (not its first word)
SMALL_TITLE_WORDS = frozenset(
    "a an the and or but nor of in on at to for from by with as".split())
