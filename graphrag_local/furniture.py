"""Page furniture: the running headers, footers and page numbers that text converted from
pages repeats on every page. They are layout, not text. Left in, they cut sentences in two
("... qualified to Behind the Tech Kevin Scott Podcast EP-12: Bill Coughran: Human-Centered
AI 15 do when ...") and turn into entities ("Behind"). This module finds and removes
them, so they never reach chunks, sentences, entities or answers. `readers.read_pdf` calls
`strip_pages` on each PDF's pages. `stages/load.py` calls `strip_pages` on plain text that
has form feeds (one per page, as pdftotext writes them) and `strip_text` on plain text and
Markdown. Pure functions on strings: no I/O.

A line's *key* is the line with each run of digits read as "#" and white space squashed,
so a page number ("8", "Page 3 of 7") or a head that carries one ("Annual Report - 8")
is the same line on every page.

With pages (`strip_pages`): a key is furniture when it is one of the first or last
EDGE_LINES (3) non-empty lines on at least MIN_PAGES (3) pages, and on at least half of
the pages that have text (rounded down); when most of those pages have it on one line
only, as a running head is printed once a page (rows of a table or of a form repeat on a
page, with only their numbers changing); and when it has a letter in it or is a page
number (a line of numbers alone is data). Three lines are enough for a header, a title
line and a number, the podcast PDFs' running head. Three pages, because two pages can
share a line by chance, such as a title and its continuation page. Half the pages,
because a running head is often left off the title page, and books alternate two heads
on left and right pages, each on half of them. Furniture is taken off the edges of a
page only. A line is removed only if every line between it and the top or bottom of the
page is furniture too, so a line repeated in the middle of a page stays. Where that
would leave more than half of the pages empty, the pages are a template (short pages
whose lines differ only in their numbers) and their lines are the text: nothing is
removed.

Without pages (`strip_text`), where and how a line repeats is all there is to go on.
Repetition alone is not enough. In the 60 *Behind the Tech* transcripts "[MUSIC]" comes
up to 28 times in 484 lines, more often than the Ep-12 header (22 in 823 lines), and a
poem's refrain or a play's stage direction repeats just as regularly. What a page
header has and they lack is a page number next to it, counting up from page to page.
So a *candidate* is a short line: at most SHORT_LINE (100) characters, with a letter in
it, not ending as a sentence or a label does (. ! ? … : ;), and found as a whole line at
least MIN_REPEATS (3) times. A candidate is furniture when at least half of its
occurrences have a page-number line next to them, and those numbers count up, one or
two at a time, more often than not. "Next to" means at most EDGE_LINES - 1 (2) lines
away, with only blank lines, other candidates or page numbers between, so a header, a
title line and a number count. Furniture is removed wherever it is a whole line,
together with the page numbers next to it. Lines such as "Page 3" or "3 of 7" need no
header: one that repeats MIN_REPEATS times with numbers that count up is furniture by
itself. Nothing is removed where that would be more than half of the text's lines.
Dialogue ("KEVIN SCOTT: Yeah." ends as a sentence), speaker labels ("KEVIN SCOTT:"),
refrains, stage directions and a heading written twice all stay, and so does a
countdown ("Ready / 3 / 2 / 1"), whose numbers do not count up.

Where a line was removed, the lines around it are joined as the text would have run on.
A removed block that sat between two paragraphs leaves one blank line, unless the line
before it breaks off mid-sentence (it does not end as a sentence or a label does): then
the lines join with one line break, which reads as a space (`joint`). A heading at the
foot of a page runs into the next page's first sentence, as it already does into the
line under it on one page.

What it deliberately does not do: find headers in plain text without page numbers (with
nothing on the page to go by, they cannot be told from a refrain); remove bare numbers
without a header (they may be data); read CSV rows (records, not pages); Roman-numeral
page numbers (front matter); running heads that change with each chapter and so never
cover half the pages. A heading split over two lines, a word and then a number that
counts up ("Chapter" / "3"), repeated three times or more, looks like a page header and
is removed; so does a label above a number in a table read one cell a line ("Year" /
"2021"), if the tables come a year apart. Furniture that shares a line with text,
footnotes, columns, hyphenation and marginal notes are layout analysis, and this module
has no layout to read, only lines. Nor does it look across documents: a transcript cut
into parts of a page or so each has too few repeats in any one part.
"""

from __future__ import annotations

import re
from collections import Counter

EDGE_LINES = 3  # lines at the top and at the bottom of a page where furniture can be
MIN_PAGES = 3  # a line on fewer pages than this is never furniture
MIN_REPEATS = 3  # nor a line of plain text repeated fewer times than this
SHORT_LINE = 100  # characters; a longer line of plain text is prose

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
_ENDS = re.compile(r"[.!?…:;。！？][\"'”’»)\]]*$")  # a sentence's or a label's end
_NUMBER = r"[-–—(\[]?\s*\d{1,4}\s*[-–—)\]]?"
_BARE_PAGE = re.compile(_NUMBER)  # "8", "- 8 -", "(8)"
_OF = r"\s*(?:of|/)\s*\d{1,4}"
_WORDY_PAGE = re.compile(  # "Page 8", "p. 8", "Page 8 of 20", "8 of 20", "8 / 20"
    rf"(?:page|pg\.?|p\.)\s*{_NUMBER}(?:{_OF})?|\d{{1,4}}{_OF}", re.IGNORECASE
)


def key(line: str) -> str:
    """The line as it repeats from page to page: digit runs as "#", spaces squashed."""
    return _SPACE.sub(" ", _DIGITS.sub("#", line)).strip()


def is_page_number(line: str) -> bool:
    line = line.strip()
    return bool(_BARE_PAGE.fullmatch(line) or _WORDY_PAGE.fullmatch(line))


def joint(before: str, after: str) -> str:
    """What goes between two pieces of text that a page break or a removed block parted:
    one line break where the first breaks off mid-sentence (it does not end as a sentence
    or a label does), else a blank line."""
    before, after = before[-400:].rstrip(), after[:400].lstrip()  # a long text: its ends
    return "\n" if before and after and not _ENDS.search(before) else "\n\n"


def strip_pages(pages: list[str]) -> tuple[list[str], list[str]]:
    """The pages without their furniture (the rule is in the module docstring), and the
    lines removed (as written, in page order). Pages without furniture come back as
    they were."""
    split = [page.split("\n") for page in pages]
    counts: Counter[str] = Counter()  # pages with the key at an edge
    once: Counter[str] = Counter()  # pages with the key on one line only
    with_text = 0
    for lines in split:
        found = [i for i, line in enumerate(lines) if line.strip()]
        if found:
            with_text += 1
            counts.update({key(lines[i]) for i in found[:EDGE_LINES] + found[-EDGE_LINES:]})
            once.update(k for k, n in Counter(key(lines[i]) for i in found).items() if n == 1)
    need = max(MIN_PAGES, with_text // 2)
    furniture = {
        k for k, n in counts.items()
        if n >= need and 2 * once[k] > n
        and (any(ch.isalpha() for ch in k) or is_page_number(k.replace("#", "0")))
    }  # fmt: skip
    if not furniture:
        return list(pages), []
    out: list[str] = []
    removed: list[str] = []
    emptied = 0
    for page, lines in zip(pages, split):
        found = [i for i, line in enumerate(lines) if line.strip()]
        drop: set[int] = set()
        for edge in (found[:EDGE_LINES], found[::-1][:EDGE_LINES]):
            for i in edge:
                if key(lines[i]) not in furniture:
                    break
                drop.add(i)
        out.append(_without(lines, drop) if drop else page)
        removed += [lines[i].strip() for i in sorted(drop)]
        emptied += bool(found) and len(drop) == len(found)
    if 2 * emptied > with_text:  # pages made from a template: the lines are the text
        return list(pages), []
    return out, removed


def join_pages(pages: list[str]) -> str:
    """Pages as one text, each joined to the one before by `joint`; empty pages left out."""
    text = ""
    for page in pages:
        page = page.strip("\n")
        if page.strip():
            text += (joint(text, page) if text else "") + page
    return text


def strip_text(text: str) -> tuple[str, list[str]]:
    """The text without its furniture (the rule is in the module docstring), and the lines
    removed (as written, in order). Text without furniture comes back as it was."""
    lines = text.split("\n")
    keys = [key(line) for line in lines]
    counts = Counter(k for k in keys if k)
    number = [is_page_number(line) for line in lines]
    candidate = [
        not number[i] and counts[k] >= MIN_REPEATS and len(k) <= SHORT_LINE
        and any(ch.isalpha() for ch in k) and not _ENDS.search(k)
        for i, k in enumerate(keys)
    ]  # fmt: skip
    blocks: list[list[int]] = []  # runs of candidate and page-number lines, blanks skipped
    run: list[int] = []
    for i, line in enumerate([*lines, "end"]):
        if i < len(lines) and (candidate[i] or number[i]):
            run.append(i)
        elif line.strip() and run:
            blocks.append(run)
            run = []
    pages: dict[str, list[int]] = {}  # a candidate's key -> the page numbers next to it
    for block in blocks:
        for q, i in enumerate(block):
            near = [j for j in _around(block, q) if number[j]]
            if candidate[i] and near:
                nearest = min((abs(j - i), j) for j in near)[1]
                pages.setdefault(keys[i], []).append(_value(lines[nearest]))
    furniture = {k for k, v in pages.items() if 2 * len(v) >= counts[k] and _counting(v)}
    drop = {i for i, k in enumerate(keys) if k in furniture}
    for block in blocks:
        for q, i in enumerate(block):
            if number[i] and any(keys[j] in furniture for j in _around(block, q)):
                drop.add(i)
    for k, n in counts.items():  # "Page 3 of 7" on its own
        if n >= MIN_REPEATS and _WORDY_PAGE.fullmatch(k.replace("#", "0")):
            at = [i for i, other in enumerate(keys) if other == k]
            if _counting([_value(lines[i]) for i in at]):
                drop.update(at)
    if not drop or 2 * len(drop) > sum(1 for k in keys if k):  # most of it: the text
        return text, []
    return _without(lines, drop), [lines[i].strip() for i in sorted(drop)]


def _around(block: list[int], q: int) -> list[int]:
    """The lines of `block` near its q-th, the furthest EDGE_LINES - 1 away, as a header,
    a title line and a page number are."""
    return block[max(0, q - EDGE_LINES + 1) : q + EDGE_LINES]


def _value(line: str) -> int:
    return int(_DIGITS.search(line).group())


def _counting(numbers: list[int]) -> bool:
    """Whether the numbers count up one or two at a time (a page number on every page,
    or on every other page) more often than not: with a page left out or misread here and
    there, as page numbers do."""
    steps = [b - a for a, b in zip(numbers, numbers[1:])]
    return 2 * sum(step in (1, 2) for step in steps) > len(steps)


def _without(lines: list[str], drop: set[int]) -> str:
    """`lines` joined without those in `drop`; the text around each removed run (with
    the blank lines next to it) is joined by `joint`, and a run at either end goes with
    the blank lines next to it."""
    kept: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if i not in drop and lines[i].strip():
            kept.append(lines[i])
            i += 1
            continue
        j = i
        while j < n and (j in drop or not lines[j].strip()):
            j += 1
        if not any(k in drop for k in range(i, j)):
            kept += lines[i:j]  # blank lines only: as they were
        elif 0 < i and j < n:
            blank = any(k not in drop for k in range(i, j))
            if blank and joint(lines[i - 1], lines[j]) == "\n\n":
                kept.append("")
        i = j
    return "\n".join(kept)
