"""A theme's heading from the documents' own titles, where one says what the theme is.

A theme of a global answer is a community, headed by its report's title: its key
entities' names ("Halvard Shipping Company, Jonas Halvard and Priya Okafor"), a list, not
a topic. A document's title names its topic, so a theme is headed by one instead:

1. one of its key members (those its report's title names: the most related inside it)
   is what a document is titled: the theme is that document's topic ("The Halvard
   Shipping Company", the title of the sample's 03_halvard_shipping.md; two such members:
   both titles, "The Lantern Festival and the Harbour Dredging Vote"). Not a lesser
   member: the sample's "Aldren Water Trust" is in the community of "Millbrook, River
   Aldren and River Aldren Restoration Project", not what it is about;
2. else, two thirds or more of the community's sentences are one document's, and that
   document's title shares a word with a member's name: the theme is that document (a
   story's characters, "Jackal, Jackals and Lion", under "The Little Jackals and the
   Lion").

Only in a collection of two or more titled documents: a book's one title, or its first
line (Effi Briest's "Theodor Fontane", its author, also an entity of Effi's community),
says nothing of its themes.

A title counts only where it was read from the document (a Markdown heading, a first
line that reads as a title, a PDF's, a Word file's or a web page's: `stages/load.py`,
`readers.py`), not made from its file name, and heads one theme of an answer at most:
a later theme it would head keeps its names.

What it deliberately does not do: word a heading (the writer does that, `written.py`),
or head a theme by a title that shares no word with it (Carol's "Stave Two" over
Fezziwig's ball)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..language.messages import joined
from ..stages.ground import normalise
from ..support import FUNCTION_WORDS
from .evidence import SentenceIndex
from .themes import Group

MOSTLY = 2 / 3  # share of a community's sentences that makes it one document's theme
KEY_MEMBERS = 3  # key members of a group whose title names none: those of highest degree
TITLES_JOINED = 2  # members that are titles named in one heading at most
_ARTICLES = frozenset("the a an le la les l un une der die das ein eine el los las il lo "
                      "gli i una".split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True)
class Titles:
    """The titles read from the documents (not made from their file names), by document id
    and by core (`_core`: "lantern festival" for "The Lantern Festival")."""

    by_document: dict[str, str]
    by_core: dict[str, str]


def read_titles(documents) -> Titles:
    by_document = {d.id: d.title for d in documents
                   if d.title and d.title != PurePosixPath(d.path).stem}
    by_core: dict[str, str] = {}
    for _doc, title in sorted(by_document.items()):
        if _core(title):
            by_core.setdefault(_core(title), title)
    return Titles(by_document, by_core)


def _core(text: str) -> str:
    """A name or title without a leading article, normalised ("The Lantern Festival" ->
    "lantern festival")."""
    words = normalise(text).split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text))
            if len(w) > 2 and w not in FUNCTION_WORDS}


def _joined(titles: list[str], language: str) -> str:
    rest = [re.sub(r"^(The|A|An) ", lambda m: m.group(1).lower() + " ", t) for t in titles[1:]]
    return joined([titles[0]] + rest, language)


def _names(title: str, name: str) -> bool:
    """Whether a report's title names `name` (a whole name: not "Art" in "Arts")."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", title) is not None


def topic_title(group: Group, sentences: SentenceIndex, titles: Titles,
                taken: set[str]) -> str | None:
    """The heading `group` gets from the documents' titles (see above), or None; a title in
    `taken` (already heading a theme of this answer) is not used again, and one used is
    added to it."""
    members = sorted(group.members or (), key=lambda m: (-sentences.degree.get(m, 0), m))
    if not members or len(titles.by_document) < 2:  # one title says nothing of a theme
        return None
    key = [m for m in members if _names(group.title, m)] or members[:KEY_MEMBERS]
    named = [titles.by_core[_core(m)] for m in key if _core(m) in titles.by_core]
    named = [t for t in dict.fromkeys(named) if t not in taken][:TITLES_JOINED]
    if not named:
        docs = Counter(sentences.document[r] for r in group.rows.tolist())
        doc, count = min(docs.items(), key=lambda kv: (-kv[1], kv[0]), default=("", 0))
        title = titles.by_document.get(doc)
        if (title is None or title in taken or count < MOSTLY * sum(docs.values())
                or not _words(title) & set().union(*(_words(m) for m in members))):
            return None
        named = [title]
    taken.update(named)
    return _joined(named, sentences.language(group.rows))
