"""Read documents from a folder. Text files (.txt, .md, .csv) are decoded as UTF-8, else
with a detected encoding; PDF, DOCX and HTML files are read by `readers.py` into text with
their pages or sections kept for citations ("report.pdf p. 12"). Binary, empty, scanned,
encrypted, corrupt and unreadable files are skipped with a warning that names them and
says why; the build goes on. Identical files are kept once (content-hash ids)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from ..errors import InputError
from ..readers import READERS, UnreadableDocument, read_file
from ..schema import Document, content_id

TEXT_KINDS = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".csv": "csv"}


def load_documents(
    folder: Path, extensions: tuple[str, ...], csv_text_column: str
) -> tuple[list[Document], list[str]]:
    """All usable documents under `folder` (recursively), and warnings about the rest."""
    if not folder.exists():
        raise InputError(f"documents folder not found: {folder}")
    if not folder.is_dir():
        raise InputError(f"not a folder: {folder}")
    warnings: list[str] = []
    seen: dict[str, str] = {}
    docs: list[Document] = []
    exts = tuple(e.lower() for e in extensions)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.suffix.lower() not in exts:
            warnings.append(f"{rel}: skipped (not one of {', '.join(exts)})")
            continue
        try:
            doc = read_document(path, rel, csv_text_column)
        except InputError as exc:
            warnings.append(f"{rel}: skipped ({exc})")
            continue
        if doc.id in seen:
            warnings.append(f"{rel}: skipped (identical to {seen[doc.id]})")
            continue
        seen[doc.id] = rel
        docs.append(doc)
    if not docs:
        raise InputError(
            f"no usable documents in {folder} (looked for {', '.join(exts)} files)"
            + (f"; {len(warnings)} skipped: " + "; ".join(warnings[:5]) if warnings else "")
        )
    return docs, warnings


def read_document(path: Path, rel: str, csv_text_column: str) -> Document:
    """One document, or an InputError saying why it cannot be used."""
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
                        sections)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"unreadable: {exc.strerror or exc}") from None
    text, encoding, problem = decode(data)
    if problem:
        raise InputError(problem)
    kind = TEXT_KINDS.get(suffix, "text")
    if kind == "csv":
        text = _csv_text(text, csv_text_column)
    if not text.strip():
        raise InputError("empty")
    sections = markdown_sections(text) if kind == "markdown" else ()
    return Document(content_id(text), rel, _title(path, text), text, encoding, kind, sections)


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


def decode(data: bytes) -> tuple[str, str, str]:
    """(text, encoding, problem). problem is "" when the bytes are usable text."""
    if not data.strip():
        return "", "", "empty"
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "", "", "binary file"
    try:
        text = data.decode("utf-8-sig")
        return _normalise(text), "utf-8", ""
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        return "", "", "not text in any known encoding"
    text = str(best)
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in text) / max(1, len(text))
    if printable < 0.95:
        return "", "", f"binary file (undecodable as text; best guess {best.encoding})"
    return _normalise(text), best.encoding, ""


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _csv_text(text: str, column: str) -> str:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or column not in reader.fieldnames:
        raise InputError(
            f"CSV has no '{column}' column (columns: {', '.join(reader.fieldnames or [])}; "
            "set input.csv_text_column)"
        )
    return "\n\n".join(row[column].strip() for row in reader if (row.get(column) or "").strip())


def _title(path: Path, text: str) -> str:
    for line in text.splitlines()[:5]:
        if line.startswith("#"):
            return line.lstrip("#").strip() or path.stem
    return path.stem
