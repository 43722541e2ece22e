"""Stage 5: keep only what the chunk supports. An entity whose normalised name does not
occur in the chunk text is dropped, and so is a relationship whose endpoints are not
grounded entities of that chunk, and a claim whose subject, object or quote is not.
Tiny models hallucinate; this keeps their graphs honest."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

from ..language.english import I_CONTRACTED, KIN, NUMBERED
from ..language.scripts import UNSPACED, script_language
from ..schema import ClaimRecord, EntityRecord, RelationshipRecord

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_EDGE = re.compile(r" |" + UNSPACED.pattern)  # what a spaced-script word may touch


def normalise(name: str) -> str:
    """Case-, whitespace- and punctuation-insensitive key of a name."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _NON_WORD.sub(" ", text).strip()


@dataclass(frozen=True)
class Grounded:
    entities: tuple[EntityRecord, ...]
    relationships: tuple[RelationshipRecord, ...]
    claims: tuple[ClaimRecord, ...]
    dropped_entities: int
    dropped_relationships: int
    dropped_claims: int


def occurs(name: str, normalised_text: str) -> bool:
    """`name` occurs in the (normalised) text as whole words; a name in a script written
    without spaces (Chinese, Japanese, Thai) occurs anywhere inside the text."""
    return contains(normalised_text, normalise(name))


def contains(normalised_text: str, key: str) -> bool:
    """Normalised `key` is in `normalised_text`: as whole words, or, for a key in an
    unspaced script, as a substring."""
    return bool(key) and find_key(normalised_text, key) != -1


def find_key(normalised_text: str, key: str, start: int = 0) -> int:
    """Where normalised `key` first occurs in `normalised_text` from `start`, -1 if nowhere:
    anywhere for a key in an unspaced script; else as whole words, between spaces, the
    text's ends or characters of an unspaced script ("ibm" in "ibmと協議": Latin names
    inside Japanese or Chinese text have no spaces around them)."""
    if UNSPACED.search(key):
        return normalised_text.find(key, start)
    at = normalised_text.find(key, start)
    while at != -1:
        end = at + len(key)
        if (at == 0 or _EDGE.match(normalised_text, at - 1)) and (
                end == len(normalised_text) or _EDGE.match(normalised_text, end)):
            return at
        at = normalised_text.find(key, at + 1)
    return -1


def ground(
    text: str,
    entities: list[EntityRecord],
    relationships: list[RelationshipRecord],
    claims: list[ClaimRecord] = (),
    *,
    enabled: bool = True,
) -> Grounded:
    """Filter records to those supported by `text`. With enabled=False only structural
    checks apply (endpoints must be extracted entities; no self-loops)."""
    norm_text = normalise(text)
    kept_entities = [e for e in entities if not enabled or occurs(e.name, norm_text)]
    names = {normalise(e.name) for e in kept_entities}
    kept_rels = [
        r
        for r in relationships
        if normalise(r.source) in names
        and normalise(r.target) in names
        and normalise(r.source) != normalise(r.target)
    ]
    kept_claims = [
        c
        for c in claims
        if normalise(c.subject) in names
        and (c.object == "NONE" or normalise(c.object) in names)
        and (not enabled or occurs(c.source_text, norm_text))
    ]
    return Grounded(
        tuple(kept_entities),
        tuple(kept_rels),
        tuple(kept_claims),
        len(entities) - len(kept_entities),
        len(relationships) - len(kept_rels),
        len(claims) - len(kept_claims),
    )


# a word: letters, with inner apostrophes, dots, ampersands and single hyphens ("--" is a dash)
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’.&]|-(?!-))*|\d[\w.-]*", re.UNICODE)
_SENTENCE_OPENERS = ".!?:\n#\"*-'‘“(_[«»„—–"
_CONNECTORS = {"of", "de", "del", "da", "van", "von", "der", "du", "la", "le", "&"}
# "for" joins a name after a word that heads an institution's name ("Institute for
# Advanced Study", "Centre for Policy Studies"), and no other ("left Google for Microsoft")
_FOR_HEADS = {"institute", "center", "centre", "society", "council", "foundation",
              "committee", "association", "ministry", "office", "agency", "commission", "fund",
              "alliance", "coalition", "league", "campaign", "network", "school", "college",
              "academy", "museum", "trust", "department", "secretary", "board", "bureau",
              "partnership", "initiative", "organisation", "organization", "union"}


def _joins(word: str) -> bool:
    """A connector inside a name: "of", "van", ..., or "for" (let into a run only after
    an institution's head word)."""
    return word.lower() in _CONNECTORS or word == "for"


_LEADING_STOP = {
    "The", "A", "An", "In", "On", "At", "By", "For", "From", "To", "After", "Before", "When",
    "While", "During", "This", "That", "These", "Those", "Its", "His", "Her", "Their", "Our",
    "Mr", "Mrs", "Ms", "Dr", "Mr.", "Mrs.", "Ms.", "Dr.", "But", "And", "Or", "If", "As",
    "With", "Without", "Since", "Until", "Under", "Over", "Every", "Each", "Some", "Many",
    "Most", "All", "No", "Not", "It", "He", "She", "They", "We", "I", "You", "There", "Here",
    "Then", "However", "Later", "Meanwhile", "Today", "Yesterday", "Now", "Also", "Still", "Yet",
    "So", "Although", "Because", "Once", "Both", "Several", "Other", "Another", "Such", "Where",
    "Who", "What", "Which", "Why", "How", "Despite", "Through", "Throughout", "Among", "Between",
    "Against", "Within", "Across", "Along", "Around", "Near", "Like", "Unlike", "Last", "Next",
    "First", "Earlier", "One", "Two", "Three", "Four", "Five", "Ten", "My", "Your",
    "I'll", "I'm", "I've", "I'd", "I’ll", "I’m", "I’ve", "I’d",
    # a question's or a reply's first word, never a name's ("Was I ...?", "Can I ...")
    "Was", "Were", "Is", "Are", "Am", "Can", "Could", "Would", "Should", "Shall", "Does",
    "Did", "Has", "Have", "Had", "Maybe", "Perhaps", "Yes", "Yeah", "Oh", "Okay", "Let",
    "Actually", "Just", "Hey", "Hi", "Hello", "Thanks",  # "Hey Andrew, look at this."
}


def candidate_names(text: str, max_words: int = 6, limit: int = 200,
                    language: str = "") -> tuple[str, ...]:
    """Proper-noun spans of `text`: runs of capitalised words (with inner connectors such
    as "of"), possessives and trailing dots removed, a leading stop word trimmed, and a
    person named by whose kin they are (a possessive and a noun of `english.KIN`:
    "Scrooge's niece"); in
    Chinese and Japanese (`language`, else told by the script), the segmenter's proper
    nouns (`language/names.py`).

    With `extract.names = "spans"` entity names are restricted to these spans by the
    grammar, so a tiny model can only name things that are in the chunk; the extractive
    and fast methods take their entities from them."""
    return _candidates(text, max_words, language)[0][:limit]


def name_language(text: str, language: str = "") -> str:
    """The language whose name rules read `text`: the document's, else what its script
    says ("zh", "ja"), else "" (capital letters)."""
    return language or script_language(text)


def _candidates(text: str, max_words: int, language: str):
    language = name_language(text, language)
    if language in ("zh", "ja"):
        from ..language.names import cjk_candidates

        return cjk_candidates(text, language)
    sure, doubtful = _spans(text, max_words, english=language in ("", "en"))
    if language == "de":  # every noun is capitalised: runs are cut at common nouns
        from ..language.german import name_pieces

        sure = tuple(dict.fromkeys(p for s in sure for p in name_pieces(s)))
    return sure, doubtful


def doubtful_names(text: str, max_words: int = 6, limit: int = 100,
                   language: str = "") -> tuple[str, ...]:
    """Spans that are names less often than not: the pieces of a run joined by a
    connector ("England" in "Bank of England") and one-word spans only ever seen at a
    sentence start ("Farmers ..."). A model decides about them (the gleaning round);
    measured on Re-DocRED, about one in five is a gold entity."""
    sure, doubtful = _candidates(text, max_words, language)
    have = {normalise(n) for n in sure}
    return tuple(n for n in doubtful if normalise(n) not in have)[:limit]


def _strip_trailing(word: str) -> str:
    """The word without what ends it but is no part of a name ("Quill's", "Co.", "Renn-"),
    read from the end once (a regex, or stripping one at a time, is quadratic on a word
    holding a run of ten thousand dots)."""
    end = len(word)
    while end:
        if word[end - 1] in "'’.-":
            end -= 1
        elif word[end - 1] == "s" and end > 1 and word[end - 2] in "'’":
            end -= 2
        else:
            break
    return word[:end]


def _shouted(span: str) -> bool:
    """A run of two or more words in capitals ("STAVE ONE", "LIST OF ILLUSTRATIONS") is a
    heading more often than a name."""
    words = span.split()
    return len(words) > 1 and all(w.isupper() or w.lower() in _CONNECTORS for w in words)


# titles written with a dot that belong to the name after them ("Mrs. Cratchit")
_TITLE_ABBREV = {"Mr.", "Mrs.", "Ms.", "Dr.", "St.", "Prof.", "Rev.", "Capt.", "Col.", "Gen.",
                 "Lt.", "Sgt.", "Mme.", "Mlle.", "Messrs.", "Sr.", "Jr."}
_TITLES = {"Mr", "Mrs", "Ms", "Dr", "Mr.", "Mrs.", "Ms.", "Dr."}
# a heading or a contents line: letters mostly in capitals, or text then a page number
_CONTENTS = re.compile(r"\S.*?(?:\.{2,}|\s{2,}|\t)\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*$", re.I)


def heading_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of the lines that are headings, title-page lines or contents lines:
    kept as document structure, not mined for names ("STAVE ONE", "ADVENTURE I. A
    SCANDAL IN BOHEMIA", "Marley's Ghost ....... 3")."""
    out = []
    at = 0
    for line in text.split("\n"):
        if len(line) <= 200:  # a heading is short; a long line is prose (or hostile)
            letters = [ch for ch in line if ch.isalpha()]
            upper = sum(ch.isupper() for ch in letters)
            if (len(letters) >= 2 and upper >= 0.8 * len(letters)) or _CONTENTS.match(line.strip()):
                out.append((at, at + len(line)))
        at += len(line) + 1
    return out


# a line at least this long that ends with no punctuation, in text with one line break
# between its lines, is a paragraph wrapped at a fixed width (plain-text books, mail,
# filings), so the break is a space: "the Project Gutenberg Literary\nArchive Foundation"
WRAPPED_LINE = 50
# and the line after it is at most this much longer (a ragged right edge: a line is short
# of the width by less than a word). A line after it much longer is a paragraph or a
# transcript's turn on a line of its own, so the break ends a name, as in the podcast's
# "let's chat with Reid\nComing up next, Reid Hoffman. Reid is ..." ("Reid Coming", a
# second full name that "Reid" could be, kept it from joining Reid Hoffman)
WRAP_SLACK = 25


def _soft_wrap(text: str, gap: str, start: int) -> bool:
    """Whether `gap` (the text between two words, the second at `start`) is a line
    break inside a wrapped paragraph: one newline, only spaces around it, after a line
    of WRAPPED_LINE characters or more, the line after it no longer by more than
    WRAP_SLACK. Short lines (contents, verse, addresses), a longer line after (a paragraph
    or a transcript's turn a line) and blank lines still end a name."""
    if gap.count("\n") != 1 or gap.strip(" \t\n"):
        return False
    return _line_before(text, gap, start) >= WRAPPED_LINE and not _longer_after(text, gap, start)


def _line_before(text: str, gap: str, start: int) -> int:
    """The length of the line a `gap` with a line break in it (before `start`) ends."""
    end = start - len(gap) + gap.index("\n")
    return end - (text.rfind("\n", 0, end) + 1)


def _longer_after(text: str, gap: str, start: int) -> bool:
    """Whether the line after a line break (it starts at `start`) is longer than the one
    before it by more than WRAP_SLACK: no fixed width wraps them."""
    after = text.find("\n", start)
    after = len(text) if after < 0 else after
    return after - start > _line_before(text, gap, start) + WRAP_SLACK


def _pronoun(words: list[tuple[str, int]], i: int, run: list[str], text: str) -> bool:
    """Whether English word `i` is the pronoun "I" (contracted, or followed by a lower-case
    word that is no connector, and not after a word that numbers: "World War I ended"), so
    it ends a run of capitalised words: the podcast's "London I" ("in London I think"),
    "Purdue I'm", "Google Brain Team I"."""
    word, start = words[i]
    if word in I_CONTRACTED:
        return True
    if word != "I" or i + 1 >= len(words) or (run and run[-1] in NUMBERED):
        return False
    after, at = words[i + 1]
    return text[start + 1:at] == " " and after[:1].islower() and not _joins(after)


def _spelled(run: list[str], seps: list[str]) -> str:
    """A run of words as a name: one space between them, but a slash or an ampersand the
    text has between two of its words kept ("Real I/O", "Procter & Gamble"; they were
    "Real I O" and "Procter Gamble")."""
    out = run[0] if run else ""
    for word, sep in zip(run[1:], seps[1:]):
        mark = sep.strip()
        if mark == "&" and sep != mark:
            glue = " & "  # "Procter & Gamble"
        elif mark in ("/", "&"):
            glue = mark  # "I/O"
        else:
            glue = " "
        out += glue + word
    return out


def _spans(text: str, max_words: int,
           english: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    skip = heading_lines(text)
    starts = [a for a, _ in skip]

    def in_heading(at: int) -> bool:
        i = bisect_right(starts, at) - 1
        return i >= 0 and at < skip[i][1]

    words = [(m.group(0), m.start()) for m in _WORD.finditer(text) if not in_heading(m.start())]
    spans: dict[str, int] = {}
    pieces: dict[str, int] = {}
    run: list[str] = []
    seps: list[str] = []  # the text between each word of the run and the one before it
    run_at_sentence_start = [False]
    mid_sentence: set[str] = set()  # one-word spans seen somewhere other than a sentence start
    kin_after = [""]  # the kin noun after the run being read, with its possessive

    def flush() -> None:
        if len(run) == 1 and not run_at_sentence_start[0]:
            mid_sentence.add(run[0])
        while run and _joins(run[-1]):
            run.pop()
            seps.pop()
        while run and run[0] in _LEADING_STOP and not (run[0] in _TITLES and len(run) == 2):
            run.pop(0)  # "The Trust" -> "Trust", "Dr. Elena Voss" -> "Elena Voss"; "Mrs. Cratchit" stays
            seps.pop(0)
        if run:
            _add(_spelled(run[:max_words], seps), spans)
            if kin_after[0]:  # "Scrooge" + "'s nephew": a person known by whose kin
                _add(_spelled(run[:max_words - 1], seps) + kin_after[0], spans)
            # and each piece between connectors ("Bank of England" -> "England")
            piece: list[str] = []
            for w in run + ["of"]:
                if _joins(w):
                    if piece and len(piece) < len(run):
                        _add(" ".join(piece[:max_words]), pieces)
                    piece = []
                else:
                    piece.append(w)
        kin_after[0] = ""
        run.clear()
        seps.clear()

    for i, (word, start) in enumerate(words):
        clean = _strip_trailing(word)
        gap = text[words[i - 1][1] + len(words[i - 1][0]) : start] if i else ""
        breaks = any(ch in gap for ch in ".,;:!?()[]\"\n_'‘’“”") or "--" in gap
        if run and breaks and not _soft_wrap(text, gap, start):
            flush()
        if english and _pronoun(words, i, run, text):
            flush()
            continue
        if clean[:1].isupper():
            if not run:
                k = start  # the white space before the word is text[k:start]
                while k and text[k - 1].isspace():
                    k -= 1
                before = text[k - 1] if k else ""
                run_at_sentence_start[0] = (
                    not before or before in _SENTENCE_OPENERS
                    or text.count("\n", k, start) >= 2  # a new paragraph
                    or ("\n" in text[k:start] and before in ",;")
                    or ("\n" in text[k:start] and _longer_after(text, text[k:start], start))
                )
            run.append(clean)
            seps.append(gap)
        elif run and (word.lower() in _CONNECTORS
                      or word == "for" and run[-1].lower() in _FOR_HEADS):
            run.append(word)
            seps.append(gap)
        else:
            flush()
        if (word.endswith((".", "'s", "’s")) and not re.fullmatch(r"[A-Z][a-z]?\.", word)
                and word not in _TITLE_ABBREV):
            if run and word.endswith(("'s", "’s")) and i + 1 < len(words):
                kin, kin_at = words[i + 1]
                kin = _strip_trailing(kin)
                gap = text[start + len(word):kin_at]
                if kin in KIN and (gap == " " or _soft_wrap(text, gap, kin_at)):
                    kin_after[0] = word[-2:] + " " + kin  # "Scrooge" + "'s nephew"
            flush()
    flush()
    # a one-word span only ever seen at a sentence start ("Farmers ...", "Then ...") is
    # more likely a common word than a name; so is a piece never seen on its own
    sure = [s for s in spans if (" " in s or s in mid_sentence) and not _shouted(s)]
    doubtful = [s for s in spans if s not in sure] + [p for p in pieces if p not in spans]
    order = {s: text.find(s) for s in doubtful}
    return tuple(sure), tuple(sorted(doubtful, key=lambda s: (order[s], s)))


_DATE_LIKE = re.compile(
    r"^((January|February|March|April|May|June|July|August|September|October|November|"
    r"December|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?)( \d{1,4})*|[\d.,-]+)$"
)


def _add(span: str, spans: dict[str, int]) -> None:
    span = span.strip(" .'’-")
    if len(span) >= 2 and span not in _LEADING_STOP and not _DATE_LIKE.match(span):
        spans[span] = spans.get(span, 0) + 1
