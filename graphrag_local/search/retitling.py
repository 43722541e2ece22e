"""A topic's heading worded again by the writer (issue 30): where a heading as shown is
only names (`headings.only_names`), the writer is given what the topic shows and words a
heading of it from its words (`bound.title_grammar`); the heading stands where
`headings.shown` shows it and it is neither only names nor garbled (`title_of`). The
requests are decoded together and kept like the topics' replies (`replies.request_key`).

What it deliberately does not do: choose which topics are headed again (`written.retitle`
does, from the checked answer)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..language.detect import detect_language
from ..language.scripts import CJK
from ..models import ChatModel, Request
from ..sentences import squash
from . import headings
from .bound import clause_word, title_grammar
from .replies import UNLIKELY, ReplyCache, request_key

# a topic whose heading as shown is only names (`headings.only_names`: the writer's failed
# the check and its community's title or the entities its quote names stood in, or the
# writer named only names) is headed again (`retitle`): the writer, given what the topic
# shows (its kept lines, or its quote), words a heading of it from its words (`bound.
# title_grammar`); shown where `headings.shown` shows it and it is not only names itself
RETITLE_PROMPT = ("Write a short heading, two to six words, that names what this text is "
                  "about: its subject, not a list of names.\n\n{text}")
RETITLE_TOKENS = 24
# Of the 15 such headings of the podcast's ten written answers, 8 were worded again; the 5
# the writer gave a word under 1% (the grammar kept it from its own) read garbled ("Feynman
# and Gell-Mann at the Learn", "Commodore 64 in Like These Commodity"), and are refused

# a title reply cut back before its first token the writer gave under 1% (`title_of`):
# not one at the reply's third character ("## " and its first word's leading space, as
# the 1.5B's tokens run: there the heading's first word was kept from the writer). Of
# the podcast's ten answers, "Grace Hopper Portrait Session with Met" (the grammar took
# "Met" of "we met at Grace Hopper") stands as "Grace Hopper Portrait Session", over a
# topic headed "Grace Hopper"
CUT_BACK = 2
# a title reply that does not stand as a whole stands as far as its words do (`title_of`):
# its longest opening of at least this many words that passes every test. The writer's
# words, in its order, only fewer: of the podcast's ten answers, "Artificial Intelligence
# Papers by PHD Degrees" (joined apart) stands as "Artificial Intelligence Papers", "Virtual
# Reality TV Promise and Promise" (a word twice) as "Virtual Reality", where the topics were
# headed by their communities' names ("Internet, PhD and UCLA")
PREFIX_WORDS = 2


def worded_titles(titles: list[str], todo: list[int], texts: list[str],
                  replies: list[str | None], question: str, name_words: frozenset[str],
                  only_names: Callable[[str], bool], names: re.Pattern[str] | None = None
                  ) -> dict[int, str]:
    """Of one answer's headings (`titles`), those of `todo` (each showing its text of
    `texts`) worded again from their title replies where the wording stands (`title_of`),
    each held apart from the answer's other headings as worded so far."""
    worded: dict[int, str] = {}
    for k, text, reply in zip(todo, texts, replies):
        others = {(worded.get(j) or t).lower() for j, t in enumerate(titles) if j != k}
        if reply is not None and (heading := title_of(reply, text, question, name_words,
                                                      others, only_names, names)):
            worded[k] = heading
    return worded


def title_replies(model: ChatModel, texts: list[str], cache: ReplyCache | None,
                  languages: frozenset[str] = frozenset()) -> list[str | None]:
    """The writer's title reply to each text (`title_request`: a heading of two to six of
    its words), None for a text it is not asked (none, or in Chinese or Japanese, which
    the title grammar does not read); the requests decoded together and cached like the
    topics' replies."""
    requests = [title_request(text, languages) if text and not CJK.search(text) else None
                for text in texts]
    todo = [i for i, r in enumerate(requests) if r is not None]
    keys = {i: request_key(model, requests[i]) for i in todo} if cache is not None else {}
    replies: dict[int, str | None] = {i: cache.get(keys[i]) if cache is not None else None
                                      for i in todo}
    missing = [i for i in todo if replies[i] is None]
    if missing:
        for i, text in zip(missing, model.complete_many([requests[i] for i in missing])):
            replies[i] = text or ""
        if cache is not None:
            cache.put({keys[i]: replies[i] for i in missing},
                      {keys[i]: [texts[i]] for i in missing})
    return [replies.get(i) for i in range(len(texts))]


def title_of(reply: str, text: str, question: str, name_words: frozenset[str],
             others: set[str], only_names: Callable[[str], bool],
             names: re.Pattern[str] | None = None) -> str:
    """The heading a title reply gives what shows `text`, or "" where it does not stand:
    not shown (`headings.shown`: another heading of its answer, the question's words),
    only names, a word said twice ("Christina Warren colleague of the Colleague", but in
    a phrase `text` says: `headings.says_twice`), ending
    on a modifier (`headings.ends_inside`), running two words together the other way round
    from `text` (`headings.runs_backwards`: "Fox and Red Hen Catch"), joining by a
    preposition two words no one sentence of `text` says together (`headings.joins_apart`:
    "Artificial Intelligence Papers by UCLA"), stating a word `text` says only after a
    modal (`headings.unrealised`: "Jonas Halvard Dredged Aldren Harbour" of "... must be
    dredged"), cutting a name of `names` `text` says (`headings.cuts_name`: "... Where the
    Ghost" of "... the Ghost of Christmas Present"), or holding a token
    the writer gave under 1%. The writer's words stand as far as they do: before its
    first such token (`CUT_BACK`; none where its first word was one), and, where the whole
    does not stand, its longest opening of `PREFIX_WORDS` words or more that does."""
    reply = reply.strip()
    marks = UNLIKELY.search(reply)  # its tokens the writer gave under 1%, after "## "
    offsets = [int(o) for o in marks.group(1).split(",")] if marks else []
    if marks:
        reply = reply[:marks.start()]
    low = [o for o in offsets if o > CUT_BACK]  # (those of "## " aside)
    if low:  # the writer's own words end where the grammar first kept it from them
        if CUT_BACK in offsets:  # (its first word was the grammar's: none are)
            return ""
        first = min(low)
        cut = reply[:first]
        if first < len(reply) and not reply[first].isspace():  # inside a word: before it
            cut = cut[:cut.rfind(" ")]
        reply = cut
    words = reply.removeprefix("## ").split()
    for end in range(len(words), PREFIX_WORDS - 1, -1):  # as far as the writer's words stand
        heading = _standing(" ".join(words[:end]), text, question, name_words, others,
                            only_names, names)
        if len(heading.split()) >= PREFIX_WORDS:  # ("Corner of the" shows "Corner")
            return heading
    return ""


def _standing(reply: str, text: str, question: str, name_words: frozenset[str],
              others: set[str], only_names: Callable[[str], bool],
              names: re.Pattern[str] | None = None) -> str:
    """A title reply's heading where it passes every test of `title_of` but the writer's
    unlikely tokens, else ""."""
    heading = headings.trimmed(squash(reply.removeprefix("## ")))
    heading = headings.shown(heading, text, question, name_words, others)
    if (not heading or only_names(heading) or headings.says_twice(heading, text)
            or headings.ends_inside(heading, text) or headings.runs_backwards(heading, text)
            or headings.joins_apart(heading, text) or headings.unrealised(heading, text)
            or headings.cuts_name(heading, text, names)
            or any(clause_word(w) for w in heading.split())):  # ("There's the Corner")
        return ""
    return heading[:1].upper() + heading[1:]  # a heading opens on a capital ("cunning ...")


def title_request(text: str, languages: frozenset[str] = frozenset()) -> Request | None:
    """A topic's heading worded again from what it shows (`retitle`), in its words (None
    where it has no content word)."""
    foreign = bool(languages) and languages != {"en"} and detect_language(text) != "en"
    rules = title_grammar(text, foreign)
    if not rules:
        return None
    return Request([{"role": "user", "content": RETITLE_PROMPT.format(text=text)}], rules,
                   RETITLE_TOKENS, "title", mark_unlikely=True)
