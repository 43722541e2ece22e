"""Written answers over extractive evidence (issue 30): the extractive methods choose the
sentences of the documents that answer a question (`extractive.py`, `themes.py`,
`drift.py`); a writer model (a preset that can write, `query --writer`) is given them
numbered and writes the answer in its own words. A grammar makes every line it writes end
with numbers it was given ("- ... [2][5]"), and each written sentence is checked against
the sentences it cites before anyone sees it (`line_checks.verdict`: one of them must say all it
says, the question's words not given): an unsupported one is dropped, and the answer says
how many were. A themed answer (global, ts, to a question about more than one thing:
`FOCUSED`) is written a topic at a time, each call given only that topic's evidence and
asked what it tells, under a heading the writer words (shown as `headings.shown` allows,
else the community's own title), beside it the topic's entities that its shown sentences
name (`_Checker.headline`); a topic where no written line stands quotes its best sentence,
marked so (or one it was written from that its heading stands on: `quoted_numbers`); a
topic whose heading so shown is only names is headed again from what it shows (`retitle`). A
line the check drops stays dropped: rewritten once from what it cited and checked again,
14 of 36 rewrites that passed the check were supported (first drafts that pass: 49 of
50), so none is (`docs/eval_runs/writer_rewrite_labels.jsonl`).

The topics' requests are decoded together (`complete_many`: the batched decoder reads the
weights once a step for all of them), then each reply is checked line by line in topic
order and each topic shown whole while the answer stays within its words (`max_words`);
a plain answer (basic, local) streams each line once it has passed the check. Each reply is kept in the index
(`written_cache`, by writer, prompt and grammar: `replies.request_key`): the same request later,
the same question again or another whose search chooses a topic's same evidence, reads it
back instead of writing (LazyGraphRAG's way: only what a question reaches is written, once).
A collection-wide question's topics are its communities' reports (`REPORTED`): each written
from its community's own evidence, the same for every question (`replies.topic_request` numbers a
topic's evidence from 1 and gives it its own budget, so its request is the same wherever it
stands), and `build --write-reports` writes them all up front (`query.Session.write_reports`).

Each line is checked as the reply streams (`checked.py`: its verdict, the writer's own
unlikely tokens, a retold sentence); this module shows the checked answer: each topic's
heading, the names beside it, its kept lines or its quote.

What it deliberately does not do: choose or rank evidence, rewrite a dropped sentence,
or let the writer cite what it was not given (the grammar has no other numbers)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping

from .. import support
from ..language.messages import QUOTED, dropped_note, question_language, said
from ..language.scripts import CJK
from ..models import ChatModel, OnText, Request
from ..prompts import Prompts
from ..sentences import squash
from . import headings
from .checked import Evidence, LineChecker, Written, recased
from .line_checks import asked_about
from .replies import (
    ReplyCache,
    decoded,
    renumbered,
    request,
    request_key,
    reread_reply,
    topic_request,
    unlikely_again,
)
from .retitling import title_replies, worded_titles

# a question this focused (`themes.focus_of` at its top: a sentence of the documents is as
# near it as to a question that sentence answers; every question of samples/facts.jsonl
# and samples/carol_facts.jsonl, and basic's, local's and drift's always) is about one
# thing: it gets a short answer (`LEAD_LINES`), written from its best sentences whatever
# their topic, over the quoted answer, the sentences it rests on (`extractive._written`).
# Written alone, the 1.5B's answers to samples/carol_facts.jsonl held the asked fact less
# often than the quotes: a topic at a time, drift 6 of 12 against 9 ("Old Marley was as
# dead as a door nail" for "How long has Marley been dead?"); as one answer from the best
# sentences, global 4 against 8, drift 5 against 9. Below the top, broad questions: the
# paper's podcast questions measure 0.2-0.96 ("What recurring topics do tech leaders
# emphasize in their discussions?" 0.96), and are written topic by topic
FOCUSED = 1.0
LEAD_LINES = 3  # a focused answer's written sentences at most
# a question less focused than this is about the collection as a whole ("What are the
# main themes?" 0.03-0.31): its topics are written as their groups' reports, from evidence
# that does not depend on the question (`themes.report_rows`), so that every such question
# reads them back. Between the two ("Which guests discuss diversity and inclusion in
# tech?" 0.73, "Who and what troubles the people in these stories?" 0.51) a topic is
# written from the sentences chosen for the question: from reports, six of ten podcast
# questions (focus 0.2-0.73) got nearly the same ten topics
REPORTED = 0.4
REPORT_WORDS = 120  # a written report's evidence, words at most (`themes.report_rows`)
NAMES_SHOWN = 3  # entities named beside a topic's heading at most
QUOTED_LINES = 1  # sentences a topic where nothing written stood quotes (`quoted_numbers`)
PLAIN_LAYOUT = "- Write one to {n} sentences."


class _Checker(LineChecker):
    """A themed answer's checked reply as shown: each topic's heading, the names beside it,
    its kept lines or its quote."""

    def section_text(self, section: int) -> str:
        """A themed answer's section as shown: its heading and kept lines, or, where none
        stood, its evidence quoted."""
        _heading, lines = self.written.sections[section]
        kept = [w for w in lines if w.ok]
        if not kept:
            return self.quoted(section) if section < len(self.groups) else ""
        out = [self.headline(section, [c for w in kept for c in w.cites])]
        out += [f"- {self.attributed(w.text, w.cites)} [{', '.join(self.refs(w.cites))}]"
                for w in kept]
        return "\n".join(out) + "\n"

    def quoted(self, section: int) -> str:
        """A topic where nothing written stood: its best sentence, or the one the writer's
        heading stands on (`quoted_numbers`), quoted, under that heading or else its
        community's title."""
        shown = self.quoted_numbers(section)
        lines = [self.headline(section, shown, f" ({said(QUOTED, self.language)})")]
        lines += [f"- {self.evidence[n - 1].shown} [{', '.join(self.refs((n,)))}]"
                  for n in shown]
        return "\n".join(lines) + "\n"

    def headline(self, section: int, shown: list[int], mark: str = "") -> str:
        """A topic's heading line: the writer's heading, then the entities of the topic
        that the sentences it shows name (`NAMES_SHOWN`, most connected first, by name
        where a sentence says an alias: "Jacob Marley" for "Marley"): the writer names
        the topic, the graph says whom it is about."""
        heading = recased(self.heading_of(section), self.cased)  # "DIO GONZALEZ as a Mentor"
        names = self.topic_names(section, shown)
        folded = squash(heading).casefold()
        if not names or all(n.casefold() in folded for n in names):
            return f"**{heading}**{mark}"
        return f"**{heading}**{mark} · *{_listed(names)}*"

    def topic_names(self, section: int, shown: list[int]) -> list[str]:
        """The entities of a topic that the sentences it shows (`shown`: cited by its kept
        lines, or quoted) name, `NAMES_SHOWN` at most: a community's members, most
        connected first; for a document, any entity, in the order they are said."""
        if self.named_in is None or section >= len(self.groups):
            return []
        g = self.groups[section]
        said = list(dict.fromkeys(n for c in shown
                                  for n in self.named_in(self.evidence[c - 1].text)))
        ranked = self.group_names[g] if g < len(self.group_names) else None
        if ranked is None:
            return said[:NAMES_SHOWN]
        return [n for n in ranked if n in said][:NAMES_SHOWN]

    def heading_of(self, section: int) -> str:
        """The writer's heading as `headings.shown` shows it over what its section cites
        and its topic's title (the index's entity names it says must be said there:
        "Halvard", not "Infrastructure"); else the title of the topic its first kept line
        cites. A topic shown quoted keeps the writer's heading only where the quoted
        sentences say the names it says (its title not given: a reader sees only the
        quote) and, in English, half its content words (`headings.fits`), else is headed
        by the topic's entities the quote names, else its title.
        On the podcast's ten written answers 9 of 57 quoted topics had a heading naming
        what their quote does not ("Bitcoin's Importance in Venezuela" over a sentence on
        ICO treasuries, "Anita Borg Institute and Grace Hopper" over one naming only Grace
        Hopper); now none does. Which sentence is quoted is decided as before, with the
        title given (`quoted_numbers`): decided without it, the quotes chosen for their
        heading were longer and the ten answers cited 8.2 episodes, not 8.4."""
        if section in self.retitled:
            return self.retitled[section]
        heading, lines = self.written.sections[section]
        cited = [self.evidence[c - 1] for w in lines if w.ok for c in w.cites]
        quoted = not cited and section < len(self.groups)
        numbers = self.quoted_numbers(section) if quoted else []
        if quoted:  # what is shown
            cited = [self.evidence[n - 1] for n in numbers]
        shown = self._shown_heading(section, cited, quoted)
        if shown:
            return shown
        if quoted and (names := self.topic_names(section, numbers)):
            return _listed(names)
        return self.group_titles[cited[0].group] if cited and self.group_titles else heading

    def only_names(self, heading: str) -> bool:
        """Whether a heading is only the index's entity names (`headings.only_names`)."""
        return bool(heading) and headings.only_names(heading, self.names)

    def shows(self, section: int) -> str:
        """What a topic shows a reader: its kept lines, or, where none stood, its quote."""
        kept = [w.text for w in self.written.sections[section][1] if w.ok]
        if kept:
            return " ".join(kept)
        return " ".join(self.evidence[n - 1].text for n in self.quoted_numbers(section))

    def _shown_heading(self, section: int, cited: list[Evidence], quoted: bool = False) -> str:
        """The writer's heading of `section` as `headings.shown` shows it over `cited`, or
        "". The topic's own title (its key entities' names) is given too, unless the topic
        is `quoted`: "Bitcoin Story" heads the Bitcoin community's topic whether or not its
        kept lines say "Bitcoin"."""
        heading = self.written.sections[section][0]
        if not heading or not cited:
            return ""
        title = (self.group_titles[self.groups[section]]
                 if section < len(self.groups) and not quoted else "")
        earlier = {h.lower() for h, _ls in self.written.sections[:section]}
        given = " ".join(e.shown if quoted else e.text for e in cited) + " " + title + " " + self.question
        shown = headings.shown(heading, given, self.question, self.name_words, earlier)
        # nor one saying a transcript's speaker is what their own line says of another,
        # as a line may not: "DIO GONZALEZ as a Mentor and Advocate ..." of "DIO GONZALEZ:
        # And she's also a mentor ..."
        if shown and support.speaker_as_doer(shown, [e.text for e in cited], heading=True):
            return ""
        if shown and quoted and self.language == "en":  # not a reading of its other sentences
            shown = headings.fitting(shown, " ".join(e.shown for e in cited), self.question)
        return shown

    def quoted_numbers(self, section: int) -> list[int]:
        """What a topic where nothing written stood quotes: its first evidence sentence
        (its best, a document the topics before did not bring first: `themes.report_rows`);
        but where the writer's heading does not stand on it (`headings.shown`: a name it
        says is not said there) and does on a sentence one of the topic's lines was written
        from (a line's first citation: a bound line is made of its words), that one. In
        Carol's themes the 1.5B headed a topic "Christmas and Abstinence Principle" and
        wrote one line from "A merry Christmas and a happy New Year!" (the topic's first)
        and one from "... but lived upon the Total-Abstinence Principle ever afterwards
        ...", both dropped: quoting the first, the answer headed it with the community's
        names ("Christmas Eves, Future and Evil Spirit"). Only where it saves the heading,
        so as not to trade a document the answer would cite for a heading (quoting the
        writer's first sentence always, the podcast's ten answers cited 8.5 episodes, not
        8.8)."""
        group = self.groups[section] if section < len(self.groups) else None
        own = [n for n, e in enumerate(self.evidence, 1) if e.group == group]
        best = own[:QUOTED_LINES]
        if not best or self._shown_heading(section, [self.evidence[n - 1] for n in best]):
            return best
        for w in self.written.sections[section][1]:
            if w.cites and w.cites[0] in own and self._shown_heading(
                    section, [self.evidence[w.cites[0] - 1]]):
                return [w.cites[0]]
        return best


def _listed(names: list[str]) -> str:
    """Names in a list of no language ("and" would be English in a French answer)."""
    return ("、" if CJK.search("".join(names)) else ", ").join(names)


def write(model: ChatModel, prompts: Prompts, question: str, evidence: list[Evidence],
          group_titles: list[str], *, max_tokens: int, on_text: OnText | None = None,
          max_sections: int = 6, max_lines: int = 8,
          name_words: frozenset[str] = frozenset(), bound: bool = True,
          cache: ReplyCache | None = None, max_words: int = 400,
          languages: frozenset[str] = frozenset(),
          group_names: list[tuple[str, ...] | None] = (),
          named_in: Callable[[str], list[str]] | None = None,
          cased: Mapping[str, str] | None = None,
          names: re.Pattern[str] | None = None,
          on_topic: bool = False) -> tuple[Written, _Checker]:
    """The writer's answer over `evidence`, every line checked. A themed answer
    (`group_titles` given) is written a topic at a time: a heading and lines that cite
    only that topic's evidence (a small model given all topics at once wrote one "Main
    Themes" section citing the first sentences). Returns the checked answer and its
    reader (for the render and the timing)."""
    checker = _Checker(evidence, group_titles, question, on_text, name_words, bound,
                       group_names, named_in, cased=cased,
                       language=question_language(question, languages) if languages else "en",
                       names=names)
    if on_topic and not group_titles:
        checker.asked = asked_about(question, [e.text for e in evidence])
    if group_titles:
        groups = sorted({e.group for e in evidence})[:max_sections]
        topics = [[i for i, e in enumerate(evidence, 1) if e.group == g] for g in groups]
        # a topic asked what its evidence tells: asked the user's "main themes?" itself,
        # the 1.5B wrote "Main Themes" and readings of the story no sentence states
        requests = [topic_request(prompts, [evidence[n - 1].text for n in numbers], bound,
                                  languages) for numbers in topics]
    else:
        texts = [e.text for e in evidence]
        requests = [request(prompts, texts, question, PLAIN_LAYOUT.format(n=max_lines),
                             False, max_lines, max_tokens, bound, languages)]
    if not group_titles:  # one reply: each line streamed as soon as it is written and checked
        _streamed(model, requests[0], cache, checker, texts)
        return checker.written, checker
    # the topics are decoded together (the batched decoder reads the weights once a step for
    # all of them); each reply is then read line by line, checked, and streamed in order
    given = [[evidence[n - 1].text for n in numbers] for numbers in topics]
    replies = [renumbered(reply, numbers)  # the topic's own numbers, back to the answer's
               for reply, numbers in zip(_replies(model, requests, cache, checker, given),
                                         topics)]
    stream, checker.on_text = on_text, None  # a section is shown whole, once it fits
    shown = 0  # words shown
    for k, reply in enumerate(replies):
        checker.written.sections.append(("", []))  # a section per topic, even an empty one
        checker.groups.append(groups[k])
        checker.repeats = 0
        checker(reply if reply.endswith("\n") else reply + "\n")
        checker.buffer = ""
        words = len(re.findall(r"\w+", checker.section_text(k)))
        if shown and shown + words > max_words:  # the answer's length: later topics rank lower
            _, lines = checker.written.sections.pop()
            checker.groups.pop()
            checker.written.kept -= sum(w.ok for w in lines)
            checker.written.dropped -= sum(not w.ok for w in lines)
            checker.written.left_out = len(topics) - k
            break
        shown += words
    # (the answer's words were counted with the headings before: one worded again is two to
    # six words, for a list of names of about as many)
    retitle(model, [checker], cache, languages)
    for k in range(len(checker.groups)):
        if checker.first_line_at is None:
            checker.first_line_at = time.perf_counter()
        if stream is not None:
            stream(("\n" if k else "") + checker.section_text(k))
    checker.on_text = stream
    return checker.written, checker


def retitle(model: ChatModel, checkers: list[_Checker], cache: ReplyCache | None,
            languages: frozenset[str] = frozenset()) -> None:
    """Each topic (of each checked answer or report: `checkers`) whose heading is only
    names (`_Checker.only_names`) headed again where the writer, given what the topic
    shows (`_Checker.shows`), words a heading of it that stands (`retitling.title_of`); the
    requests of all the checkers decoded together (`title_replies`)."""
    todo = [[k for k in range(len(c.groups)) if c.only_names(c.heading_of(k))] for c in checkers]
    texts = [[c.shows(k) for k in ks] for c, ks in zip(checkers, todo)]
    replies = iter(title_replies(model, [t for ts in texts for t in ts], cache, languages))
    for checker, ks, ts in zip(checkers, todo, texts):
        titles = [checker.heading_of(j) for j in range(len(checker.groups))]
        worded = worded_titles(titles, ks, ts, [next(replies) for _ in ks], checker.question,
                               checker.name_words, checker.only_names, checker.names)
        checker.retitled.update(worded)
        checker.written.retitled += len(worded)


def _replies(model: ChatModel, requests: list[Request], cache: ReplyCache | None,
             checker: _Checker, sources: list[list[str]]) -> list[str]:
    """The writer's replies: those cached read back, the others decoded together (the
    batched decoder reads the weights once a step for all of them) and cached. At
    temperature 0 a reply is a function of its request, so a cached one is what the
    writer would write again."""
    keys = [request_key(model, r) for r in requests] if cache is not None else []
    replies: list[str | None] = [cache.get(k) for k in keys] if cache is not None else [
        None] * len(requests)
    todo = [i for i, r in enumerate(replies) if r is None]
    checker.cached = len(requests) - len(todo)
    if todo:
        for i, text in zip(todo, decoded(model, [requests[i] for i in todo],
                                         [sources[i] for i in todo])):
            replies[i] = text
        if cache is not None:
            cache.put({keys[i]: replies[i] for i in todo}, {keys[i]: sources[i] for i in todo})
    return [r or "" for r in replies]


def _streamed(model: ChatModel, request: Request, cache: ReplyCache | None,
              checker: _Checker, sources: list[str]) -> None:
    """One reply read by `checker` as the writer writes it (or read back from the cache)."""
    key = request_key(model, request) if cache is not None else ""
    text = cache.get(key) if cache is not None else None
    if text is not None:
        checker.cached = 1
        checker(text)
    else:  # each line read again as it comes (a cached one carries its count), once
        counted: dict[tuple[str, str], int] = {}

        def count(line: str, source: str) -> int:
            if (line, source) not in counted:
                counted[line, source] = unlikely_again(model, line, source)
            return counted[line, source]

        checker.reread = count
        text = model.complete(request.messages, grammar=request.grammar,
                              max_tokens=request.max_tokens, purpose=request.purpose,
                              on_text=checker, avoid=request.avoid)
        checker.reread = None
        if cache is not None:
            cache.put({key: reread_reply(model, text, sources, count)}, {key: sources})
    if checker.buffer.strip():  # a last line cut by max_tokens: checked like the others
        checker.line(checker.buffer)
    checker.buffer = ""


def topic_checker(reply: str, evidence: list[Evidence], title: str,
                  name_words: frozenset[str] = frozenset(), bound: bool = True,
                  cased: Mapping[str, str] | None = None,
                  names: re.Pattern[str] | None = None) -> _Checker:
    """A topic's reply checked alone, as one topic of an answer."""
    checker = _Checker(evidence, [title], "", None, name_words, bound, cased=cased,
                       names=names)
    checker.written.sections.append(("", []))
    checker.groups.append(0)
    checker(reply if reply.endswith("\n") else reply + "\n")
    return checker


def read_topic(reply: str, evidence: list[Evidence], title: str,
               name_words: frozenset[str] = frozenset(), bound: bool = True,
               cased: Mapping[str, str] | None = None) -> dict:
    """A topic's cached reply read as an answer reads it (a written report, for `show
    reports --writer`): the heading shown (the writer's, or `title` where it fails), the
    lines the check kept with their refs, and how many it dropped."""
    checker = topic_checker(reply, evidence, title, name_words, bound, cased)
    kept = [w for w in checker.written.sections[0][1] if w.ok]
    return {"title": checker.heading_of(0), "dropped": checker.written.dropped,
            "lines": [{"text": w.text, "refs": checker.refs(w.cites)} for w in kept]}


def render(checker: _Checker) -> str:
    """The checked answer as markdown: headings, then each kept sentence with the
    citations of the evidence it cites; a last line says how many were dropped."""
    written, out = checker.written, []
    written.topics_quoted = written.headings_replaced = 0  # counted here, as shown
    for i, (heading, lines) in enumerate(written.sections):
        kept = [w for w in lines if w.ok]
        if i < len(checker.groups):  # a themed answer's topic, written or quoted
            if kept:
                written.headings_replaced += bool(heading) and checker.heading_of(i) != heading
            else:
                written.topics_quoted += 1
            out.append(("\n" if out else "") + checker.section_text(i).rstrip("\n"))
        else:
            out += [f"- {checker.attributed(w.text, w.cites)} [{', '.join(checker.refs(w.cites))}]"
                    for w in kept]
    if written.dropped:
        out.append("")
        out.append(dropped_note(written.dropped, checker.language))
    return "\n".join(out).strip()
