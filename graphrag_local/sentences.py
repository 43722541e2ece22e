"""Sentences of a document, with their character offsets. In extractive mode every
statement the index stores is one of these (or a run of them), kept with the chunk it
came from and its offsets in that chunk, so it can always be found in the source.

Blocks are split at blank lines, at markdown headings and list items, and at a line a
speaker's label opens (a transcript's "KEVIN SCOTT: "); inside a block,
a sentence ends at . ! ? or … followed by a space and a capital of any script (Latin,
Cyrillic, Greek), a digit or a quote or dash, except after common abbreviations and
initials; and at the full-width ends 。！？ of Chinese and Japanese (with their closing
quotes), which need no space after them. Over-long sentences are cut at a clause
boundary (or a space) so a stored statement stays readable; a quote of such a piece shows
the whole sentence (`whole_sentence`). Deliberately simple: no language model, no language
detection."""

from __future__ import annotations

import re
from functools import lru_cache

from .language.scripts import CJK

MAX_CHARS = 320
# a piece of a sentence up to this long is quoted as the whole sentence (`whole_sentence`):
# cut at a clause, neither piece of Carol's "... that led him straight to Scrooge's
# clerk's; for there he went ...; and on the threshold of the door the Spirit smiled, and
# stopped to bless Bob Cratchit's dwelling ..." (417 characters) said whose clerk Bob
# Cratchit is, and the second was quoted beginning "and on the threshold"
LONG_CHARS = 640

# a line opening with a speaker's label in capitals starts a turn of a transcript, so a new
# sentence ("... there was this- \nANDREW NG: He's in a league of his own."): 124 of the
# podcast's 6,310 sentences ran on across two speakers' turns, and were read as the
# first speaker's (an "[MUSIC]" or the like may stand before the label)
_LABEL = r"[A-Z][A-Z.'’-]+(?: [A-Z][A-Z.'’-]+){0,3}"  # a speaker's label: "KEVIN SCOTT"
_CUE = r"(?:\[[A-Z ]+\][ \t]*)?"  # "[MUSIC] " before it
_TURN = _CUE + _LABEL + r":\s"
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:#|[-*•+] |\d+[.)] |" + _TURN + "))")
_SPEAKER = re.compile(_TURN + r"\s*")
# (?<!...): a match never starts inside a run of stops, so "......" is read once, not once
# per dot (quadratic on a line of ten million dots)
_END = re.compile(
    r"(?<![.!?…])[.!?…]+[\"'”’»«)\]]*(?=\s+[\"'“‘„«»(\[—–-]?\s?(\w))"  # then: is (\w) a capital?
    r"|[。！？]+[」』”’）)]*"  # Chinese and Japanese: always an end
)
_ABBREV = {
    "mr", "mrs", "ms", "dr", "st", "prof", "sr", "jr", "vs", "etc", "e.g", "i.e", "no",
    "co", "inc", "ltd", "gen", "col", "capt", "lt", "sgt", "rev", "mt", "ft", "fig",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
_CLAUSE = re.compile(r"[;:,]\s+|[；：，、]")


def whole_sentence(text: str, start: int, end: int, at_start: bool = True) -> tuple[int, int]:
    """The span of the whole sentence of `text` that the piece start..end was cut from
    (`MAX_CHARS`), if that sentence is at most `LONG_CHARS` long; else the piece's own.
    `at_start`: whether `text` begins where its document does (a chunk may begin inside
    a sentence: a span from its first character is then no whole sentence; nor is one
    running to its last character that does not end like a sentence)."""
    for a, b in _long_sentences(text):
        if a <= start and end <= b and (at_start or text[:a].strip()) and (
                text[b:].strip() or _STATEMENT_END.search(text[a:b])):
            return a, b
    return start, end


@lru_cache(maxsize=4096)
def _long_sentences(text: str) -> tuple[tuple[int, int], ...]:
    """The sentences of `text` (uncut) over `MAX_CHARS` and at most `LONG_CHARS` long."""
    return tuple((a, b) for a, b in split_sentences(text, len(text) + 1)
                 if MAX_CHARS < b - a <= LONG_CHARS)


def split_sentences(text: str, max_chars: int = MAX_CHARS) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of `text`, in order, whitespace trimmed."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BLOCK_BREAK.finditer(text):
        spans += _block(text, start, m.start(), max_chars)
        start = m.end()
    spans += _block(text, start, len(text), max_chars)
    return spans


def _block(text: str, lo: int, hi: int, max_chars: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = lo
    for m in _END.finditer(text, lo, hi):
        after = m.group(1)
        if after is not None and not (after.isupper() or after.isdigit()):
            continue  # ". and so", not a new sentence
        word = text[max(lo, m.start() - 12) : m.start()].split()
        last = word[-1].lower().lstrip("(\"'") if word else ""
        if text[m.start()] == "." and (last in _ABBREV or (len(last) == 1 and last.isalpha())):
            continue  # "Mr. Scrooge", "J. Smith"
        out += _trimmed(text, start, m.end(), max_chars)
        start = m.end()
    out += _trimmed(text, start, hi, max_chars)
    return out


# a relative path's "../" or "./" before a capital or a bracket is no part of the sentence
# it stands before: nine of the paper's ten podcast transcripts open "../ANDREW NG: With
# the rise of technology ...", quoted so in an answer, and the speaker unread
_STRAY = re.compile(r"(?:\.\.?/)+(?=[A-Z\[])")


def _trimmed(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """The span, whitespace trimmed; a span over `max_chars` is cut at the last clause
    boundary (else space) that keeps a piece in budget, piece by piece. Linear in the span,
    so a megabyte without a sentence end (one long line) costs no more than its length."""
    out: list[tuple[int, int]] = []
    while True:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if m := _STRAY.match(text, start, end):
            start = m.end()
        if end - start <= max_chars:
            if end - start >= 2 and any(ch.isalnum() for ch in text[start:end]):
                out.append((start, end))
            return out
        window = text[start : start + max_chars]
        cut = max((m.end() for m in _CLAUSE.finditer(window)), default=0)
        if cut < max_chars // 3:
            cut = window.rfind(" ") + 1 if " " in window[max_chars // 3 :] else max_chars
        out += _trimmed(text, start, start + cut, max_chars)  # fits: no further cut
        start += cut


_STATEMENT_END = re.compile(r"[.!?…。！？][\"'”’»)\]」』）]*$")


def is_statement(text: str) -> bool:
    """A full sentence (ends like one), not a heading, list label or fragment: only these
    are kept as evidence, so stored statements are always whole sentences."""
    text = text.strip()
    return not text.startswith("#") and bool(_STATEMENT_END.search(text))


def unlabelled(text: str) -> str:
    """A sentence without the speaker's label that opens it, if it opens with one
    ("[MUSIC] KEVIN SCOTT: Welcome ..." -> "Welcome ...")."""
    return _SPEAKER.sub("", text.lstrip(), count=1)


# a transcript's turn as it begins a line: its speaker's label (`_TURN`)
_TURN_LINE = re.compile(r"(?m)^[ \t]*" + _CUE + "(" + _LABEL + r"):\s")


def label_of(text: str) -> str:
    """The speaker's label a sentence opens with ("KEVIN SCOTT" of "KEVIN SCOTT: Today,
    I'm joined by ..."), or ""."""
    m = _TURN_LINE.match(text)
    return m.group(1) if m else ""


# any turn as it begins a line, also where the transcript gives it two speakers ("KEVIN
# SCOTT/DANIELLE FEINBERG: It's so easy ..."), a voice-over ("WENCES CASARES (VOICEOVER):")
# or a stray "../" ("../ANDREW NG: With the rise of technology ..."): all in the paper's
# podcast transcripts
_ANY_TURN_LINE = re.compile(r"(?m)^[ \t]*" + _CUE + r"(?:\.\./)?(" + _LABEL + "(?:/" + _LABEL
                            + r")*)(?: \([A-Z]+\))?:\s")


def last_speaker(text: str) -> str | None:
    """The label of the last transcript turn that begins a line of `text` ("KEVIN SCOTT"
    of "...\nKEVIN SCOTT: So, you grew up in Asia? And I'm ..."), or None. A turn of two
    speakers is theirs ("KEVIN SCOTT/DANIELLE FEINBERG"), not the turn's before it: Danielle
    Feinberg's "And with the Toy Story one, I think, ..., that sealed our dedication ..."
    (after such a turn) was shown as Kevin Scott's."""
    labels = [m.group(1) for m in _ANY_TURN_LINE.finditer(text)]
    return labels[-1] if labels else None


def opens_turn(text: str) -> bool:
    """Whether a sentence opens with a speaker's label ("KEVIN SCOTT: Hi everyone.")."""
    return _SPEAKER.match(text.lstrip()) is not None


def squash(text: str) -> str:
    """Whitespace collapsed: how a stored sentence is shown and compared."""
    return " ".join(text.split())


@lru_cache(maxsize=32768)
def words(text: str) -> frozenset[str]:
    """The lower-cased words of `text`. Cached: report writing and the faithfulness check
    compare each sentence with many others (a cache of 32,768 sets holds a few MB)."""
    return frozenset(w for w in "".join(ch.lower() if ch.isalnum() else " " for ch in text).split())


def near_duplicate(a: str, b: str, threshold: float = 0.8) -> bool:
    """Statement `a` adds nothing to `b`, already chosen: their word sets overlap by
    `threshold` or more, or `a` (four words or more) is all but contained in `b` ("Voss is
    the mayor." after "Voss is the mayor and leads the council."; not the other way
    round: the longer one says more)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return wa == wb
    shared = len(wa & wb)
    return shared / len(wa | wb) >= threshold or (len(wa) >= 4 and shared / len(wa) >= 0.9)


_OPENING_QUOTES = "'\"‘“«„「『"
_CLOSING = "'\"’”»」』"
# an utterance closed where the sentence ends ("... the ghost of Jacob Marley!'", Chinese
# "你姓赵么？”", Japanese "「なんじゃ」")
# (a Japanese quote needs no stop inside it; an apostrophe after a word is no quote:
# "the Cratchits'")
_UTTERED = re.compile(r"(?:[.!?,。！？，、][" + _CLOSING + "]|[」』])$")
# a quote closed after a comma, "!" or "?" and a lower-case word after it: an utterance
# and who said it ("Now, it wasn't,' cried Bob, ..."; "Eh?' said old Joe"; "», dit-il")
_ATTRIBUTED = re.compile(r"[,!?]['\"’”»“],?\s+(\w)")


def word_count(text: str) -> int:
    """Words in `text`: split at spaces, or, in Chinese and Japanese text, which has no
    spaces, the segmenter's words (`language.tokens`), so that a Japanese sentence is not
    one word."""
    if not CJK.search(text):
        return len(text.split())
    from .language.tokens import tokens

    return len(tokens(text))


def asks(text: str) -> bool:
    """Whether the sentence is a question (it ends with "?", or in Chinese and Japanese
    "？", a closing quote or bracket aside): 61 of the 767 sentences of 阿Q正传 end with
    "？" ("我怎么会有你这样的本家？"), none with "?"."""
    return text.rstrip(_CLOSING + ")）]").endswith(("?", "？"))


def standalone(text: str, long: int = 45) -> float:
    """How well a sentence stands alone as a statement about its subject, 0 to 1: a
    question, a quoted utterance (dialogue speaks for a character, not for the text) and
    a fragment of a few words stand less well than a plain statement of 8 to `long`
    words. An utterance begun in an earlier sentence shows by who said it ("Eh?' said old
    Joe, stopping in his work"), and an editor's note by its bracket ("[Illustration: ...")."""
    text = text.strip()
    n = word_count(text)
    score = 1.0
    if asks(text):
        score -= 0.5
    if (text[:1] in _OPENING_QUOTES or _UTTERED.search(text)
            or any(m.group(1).islower() for m in _ATTRIBUTED.finditer(text))):
        score -= 0.4
    if text[:1] == "[":
        score -= 0.4
    if n < 8:
        score -= 0.06 * (8 - n)
    if text[:1].islower() or not _STATEMENT_END.search(text):  # a piece of a longer sentence
        score -= 0.4
    if n > long:
        score -= min(0.6, (n - long) / 40)
    return max(0.05, score)


# a third person pronoun a sentence may open with, in the languages of the index's
# documents (English, French, German, Spanish, Russian): its subject is named in a
# sentence before it ("He left the room, and went upstairs ..." is Bob, whom the sentence
# does not name)
_PRONOUNS = frozenset("""he she they his her their him them il elle ils elles er sie ihr
ihre ihm ihn él ella ellos ellas он она они его её ее их""".split())


# a relative pronoun an English statement may open with: it goes on from the sentence
# before it ("Which many people say is the most secure Bitcoin wallet in the world." of
# Xapo, named in the question before it; "KEVIN SCOTT: Which is insane."): 17 of the
# podcast index's 6,434 sentences, 3 of Carol's 1,835 ("Which all the family re-echoed.")
_RELATIVES = frozenset("which whom whose".split())


def opens_with_pronoun(text: str) -> bool:
    """Whether the sentence's first word, after a speaker's label, is a third person
    pronoun (`_PRONOUNS`) or, in a sentence that does not ask, a relative one
    (`_RELATIVES`): read alone, it does not say of whom or what it speaks."""
    first = re.match(r"\W*(\w+)", unlabelled(text))
    if not first:
        return False
    word = first.group(1).lower()
    return word in _PRONOUNS or (word in _RELATIVES and not asks(text))
