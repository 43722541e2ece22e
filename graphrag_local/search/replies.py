"""What a writer model is asked, and what it replied, kept (issue 30; `written.py` reads
the replies). A request numbers its evidence from 1 and asks for lines that end with those
numbers, under a grammar; a topic's request (`topic_request`) is its evidence alone,
numbered from 1 wherever it stands in an answer and with its own budget, so that the same
evidence is the same request in any answer and in `build --write-reports`.

With `writer_bound` (the default) a line may use only the words of the evidence it was
given (and function words), by grammar (`bound.py`): the writer chooses which, in
what order, and what to leave out. On Carol's themes the 1.5B's kept share went from 12 of
16 sentences (free words) to 17 of 20, and its verbatim copies from 12 of 12 to 10 of 17
(docs/writer.md); each line is now made of one given sentence's words (`bound.py`), its clauses
ending on a word that can end them (Carol's themes 15 of 20 kept, not 13). And a line
may not repeat `COPY_WORDS` words in a row of its evidence's longer sentences (more than
`COPY_SHORT` words: a short one it may say as it is), nor `LOOP_WORDS` of its own (the
decoder's copy guard, `models/copying.py`): it is written, not quoted, and does not
loop.

Replies are kept in the index (`written_cache`, `ReplyCache`) by writer, prompt, grammar,
budget and guard (`request_key`): the same request later, from the same question again or
another whose search chooses a topic's same evidence, reads the reply back instead of
writing (LazyGraphRAG's way: only what a question reaches is written, once). A kept reply
carries, for each line, the count of its tokens the writer gives under `REREAD_P` when it
reads the line again beside the sentence it cites first (`reread_reply`, `REREAD_MARK`),
so a cached answer is checked without the writer (`checked.REREAD_TOKENS`).

What it deliberately does not do: decide whether a line stands (`line_checks.py`,
`written.py`), or choose the evidence."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from typing import Protocol

from ..language.scripts import CJK
from ..models import Avoid, ChatModel, Request
from ..models.protocol import UNLIKELY_MARK, Sampling
from ..prompts import Prompts
from ..sentences import squash
from .bound import bound_grammar

THEMED_LAYOUT = (
    "- The evidence is one topic of the answer. First write a heading on its own line: \"## \" "
    "and three to eight words that name the theme of this topic in plain words (not a list of "
    "names). Then write one or two short sentences, each shorter than the evidence it cites "
    "(at most 20 words), that say what the evidence tells: who does or says what. Keep your "
    "reading of it for the heading; the sentences state only what the evidence states.")
# without the user's question: given it, the 1.5B headed most topics with it ("Main Themes
# of These Stories"). A topic's writing so depends on its evidence alone, and a later
# question whose search chooses the same evidence reads it from the cache.
TOPIC_QUESTION = "What does this evidence tell? (It is one topic of a longer answer.)"
TOPIC_LINES = 2  # written sentences per topic at most
TOPIC_TOKENS = 128  # a topic's reply, tokens at most (a heading and two lines take 60-90)
# a written line may not repeat this many words in a row of its evidence (`models/copying.py`):
# it is written, not quoted. On Carol's themes the 1.5B's verbatim lines (80% or more of a
# line one run of a source) went from 10 of 19 to 3 of 17, its lines' errors unchanged; at 6
# words, 2 of 17, but it joined what its evidence keeps apart ("The Phantom's hood and the
# woman with the heavy bundle slunk into the same shop")
COPY_WORDS = 8
# ... of a sentence longer than this many words: a shorter one it may say as it is ("The
# Greywater Fishing Cooperative opposes the dredging plan."). Kept from its eighth word,
# with only the sentence's words to say it in (`bound.py`), the 1.5B could not say such a
# sentence at all and garbled it ("... opposes the dredging of the main Although the
# Greywater is a fishing cooperative"): on the sample corpus, where most sentences are
# short, "Who opposes the dredging of Aldren Harbour?" kept none of its 3 lines, then all
# 3, and its themes 2 of 8, then 4 of 8; Carol's themes 6 of 20, then 7 of 20 (3 of 7
# written lines copies, 1 of 6 before)
COPY_SHORT = 12
# nor say a run of this many words twice (the guard's loop rule): bound to one sentence's
# words, the 1.5B ran out of things to say and looped ("Scrooge's niece indignantly said,
# Scrooge's niece indignantly said"); kept from it, it ends the line or says another thing
LOOP_WORDS = 3
SENTENCE_CHARS = 240  # a written sentence's characters at most (the grammar's bound)
UNLIKELY = re.compile(re.escape(UNLIKELY_MARK) + r"(\d+(?:,\d+)*)$")  # `decode.annotated`
# a line read again by the writer beside the sentence it cites first, asked only to say
# what that sentence tells: the count of its tokens (but its first) the writer then gives
# under `REREAD_P` is kept with the reply (what it decides: `checked.REREAD_TOKENS`)
REREAD_PROMPT = "Say what this sentence tells, shorter and in your own words:\n{source}"
REREAD_P = 0.01
REREAD_MARK = " ≈"
REREAD = re.compile(re.escape(REREAD_MARK) + r"(\d+)$")
LINE = re.compile(r"^- (?P<text>.+?)(?P<cites>(?: ?\[\d+\])+)\s*$")
CITE = re.compile(r"\[(\d+)\]")
_RUN = re.compile(r"\w+")  # a word as the copy guard counts them (`models/copying.py`)


def grammar(ids: list[int], themed: bool, max_lines: int) -> str:
    """GBNF: lines that each end with one to three of `ids` in brackets, under one "## "
    heading when `themed` (a topic is written in a call of its own)."""
    rules = [
        f"id ::= {' | '.join(chr(34) + str(i) + chr(34) for i in sorted(ids, reverse=True))}",
        'cite ::= "[" id "]"',
        # one sentence a line: no full stop inside it but after a title ("Mrs."),
        # SENTENCE_CHARS at most
        'abbr ::= ("Mr" | "Mrs" | "Ms" | "Dr" | "St") "."',
        r'char ::= [^\n\[\].!?。！？] | abbr',
        # a sentence ends as its language ends one: "." or "。"
        # not opening with a digit: the evidence's own numbering copied ("1: Scrooge ...")
        rf'text ::= [^\n\[\]#.!?。！？0-9-] char{{15,{SENTENCE_CHARS}}} [.!?。！？]',
        'line ::= "- " text " " cite cite? cite? "\\n"',
    ]
    if themed:
        rules += [
            r'title ::= [^\n\[\]#-] [^\n\[\]#.]{0,80}',
            f'root ::= "## " title "\\n" line{{1,{max_lines}}}',
        ]
    else:
        rules.append(f"root ::= line{{1,{max_lines}}}")
    return "\n".join(rules) + "\n"


def request(prompts: Prompts, texts: list[str], put: str, layout: str, themed: bool,
             lines: int, budget: int, bound: bool,
             languages: frozenset[str] = frozenset()) -> Request:
    """The writer's request over `texts`, numbered from 1: the prompt and its grammar
    (`languages`: the index's, see `bound_grammar`)."""
    numbers = list(range(1, len(texts) + 1))
    prompt = prompts.render("write_answer", layout=layout, question=put,
                            evidence="\n".join(f"[{n}] {t}" for n, t in zip(numbers, texts)))
    if bound:
        rules = bound_grammar(texts, numbers, themed, lines, bool(CJK.search(" ".join(texts))),
                              languages=languages)
    else:
        rules = grammar(numbers, themed, lines)
    long = guarded(texts)
    avoid = None if CJK.search(" ".join(texts)) or not COPY_WORDS else Avoid(
        long, COPY_WORDS, LOOP_WORDS, tuple(t for t in texts if t not in long))
    return Request([{"role": "user", "content": prompt}], rules, budget, "write", avoid,
                   mark_unlikely=True)


def guarded(texts: list[str]) -> tuple[str, ...]:
    """The evidence a written line may not copy `COPY_WORDS` words of: its sentences of more
    than `COPY_SHORT` words (`\\w+` runs, as the copy guard counts them). A run a short one
    says is free though a long one says it too (`Avoid.free`: "Elena Voss is the mayor of
    Port Aldren." beside "Elena Voss is the mayor of Port Aldren and the leader of ...")."""
    return tuple(t for t in texts if len(_RUN.findall(t)) > COPY_SHORT)


def topic_request(prompts: Prompts, texts: list[str], bound: bool = True,
                  languages: frozenset[str] = frozenset()) -> Request:
    """A topic's request: its evidence alone, numbered from 1 whatever its place in the
    answer, and a budget of its own, so that the same evidence is the same request in any
    answer (and in `build --write-reports`), and its reply is read from the cache."""
    return request(prompts, texts, TOPIC_QUESTION, THEMED_LAYOUT, True, TOPIC_LINES,
                    TOPIC_TOKENS, bound, languages)


def unlikely_again(model: ChatModel, text: str, source: str) -> int:
    """How many tokens of a written line (but its first) the writer gives under
    `REREAD_P` when it reads the line again as what it would say of `source`."""
    reread = getattr(model, "reread", None)  # (a server's model cannot say: none)
    if not callable(reread):
        return 0
    log_p = reread([{"role": "user", "content": REREAD_PROMPT.format(source=source)}], text)
    return sum(lp < math.log(REREAD_P) for lp in log_p[1:])


def decoded(model: ChatModel, requests: list[Request], sources: list[list[str]]) -> list[str]:
    """The writer's replies to `requests`, decoded together, each line read again beside
    its source (`reread_reply`; `sources`: each request's evidence, numbered from 1): what
    `written_cache` keeps."""
    return [reread_reply(model, text, given)
            for text, given in zip(model.complete_many(requests), sources)]


def reread_reply(model: ChatModel, reply: str, sources: list[str],
                 count: Callable[[str, str], int] | None = None) -> str:
    """`reply` with each written line's count of tokens the writer gives under `REREAD_P`
    read again beside the source it cites first (`REREAD_MARK`), where the writer can
    say (`reread`) and the line is not Chinese or Japanese. `count`: what counts them
    (`unlikely_again`, or one that remembers the lines a streamed reply's checker read)."""
    if not callable(getattr(model, "reread", None)):
        return reply
    count = count or (lambda line, source: unlikely_again(model, line, source))
    out = []
    for raw in reply.split("\n"):
        line = raw.rstrip()
        marks = UNLIKELY.search(line)
        body = line[:marks.start()] if marks else line
        m = LINE.match(body.strip())
        cites = [int(x) for x in CITE.findall(m.group("cites"))] if m else []
        if m and cites and 1 <= cites[0] <= len(sources) and not CJK.search(body):
            low = count(squash(m.group("text")), sources[cites[0] - 1])
            raw = line + f"{REREAD_MARK}{low}"
        out.append(raw)
    return "\n".join(out)


def renumbered(reply: str, numbers: list[int]) -> str:
    """A topic's reply with its citations [1].. turned into the answer's `numbers`."""
    def one(m: re.Match) -> str:
        k = int(m.group(1))
        return f"[{numbers[k - 1]}]" if 1 <= k <= len(numbers) else m.group(0)

    cites = (r"\[(\d+)\](?=(?: ?\[\d+\])*(?:" + re.escape(UNLIKELY_MARK) + r"[\d,]+)?(?:"
             + re.escape(REREAD_MARK) + r"\d+)?\s*$)")
    return "\n".join(re.sub(cites, one, line) for line in reply.split("\n"))


CACHE_VERSION = 7  # raised when what decodes a request changes (`models/decode.py`,
# `models/copying.py`: 5, a name that would finish a run is not begun; 3 and 4 were guards
# not kept; 6, a reply marks its unlikely tokens; 7, and its lines read again: `REREAD_MARK`)


class ReplyCache(Protocol):
    """What a writer wrote before, by request key (the index's `written_cache` table)."""

    def get(self, key: str) -> str | None: ...

    def put(self, rows: dict[str, str], sources: dict[str, list[str]] | None = None) -> None:
        """Keep replies by key, each with the texts of the evidence it was written from."""


def request_key(model: ChatModel, request: Request) -> str:
    """The writer (its name, weights' size and sampling where it is not greedy), the
    prompt, the grammar and the budget: a cached reply is reused only for the very same
    request to the very same writer."""
    path = getattr(model, "path", None)
    size = path.stat().st_size if path is not None and path.exists() else 0
    avoid = request.avoid and ([request.avoid.words, request.avoid.texts] + (
        [request.avoid.repeats] if request.avoid.repeats else []) + (
        [request.avoid.free] if request.avoid.free else []))
    sampling = _sampling_key(getattr(model, "sampling", None))
    text = json.dumps([CACHE_VERSION, model.name, size, request.messages, request.grammar,
                       request.max_tokens] + ([avoid] if avoid else [])
                      + ([sampling] if sampling else []), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sampling_key(sampling: Sampling | None) -> list | None:
    """What of a writer's sampling decides its reply, where it is not the greedy default
    (temperature 0, no repeat penalty: then none, and the keys of replies cached before
    stay as they were): a preset's `repeat_penalty` or `temperature` changed in
    models.toml reads no reply written with the old values."""
    if sampling is None or (sampling.temperature <= 0 and sampling.repeat_penalty == 1.0):
        return None
    if sampling.temperature <= 0:  # greedy: top-k, top-p and the seed decide nothing
        return [0.0, sampling.repeat_penalty]
    return [sampling.temperature, sampling.repeat_penalty, sampling.top_k, sampling.top_p,
            sampling.seed]
