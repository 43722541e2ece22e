"""Extractive answers: the answer is the evidence, quoted. For the tiny presets (content
= "extractive") no search method lets the model write the answer; every line is a
sentence of the documents with its source:

- basic: the sentences nearest the question (the paper's SS baseline, made extractive);
- local: the sentences that name the entities nearest the question, nearest first;
- global: themes. The communities of a level (or those that dynamic community
  selection reaches from the root) are ranked for relevance and coverage of the corpus
  (`themes.py`); each chosen community is a heading, its report's title, with its one or
  two most relevant, most central sentences beneath, cited;
- ts: the same over the source texts: a document is a group;
- drift: see `drift.py`.

The 135M model's relevance judgements measure at chance (0-100 helpfulness scores: AUC
0.49 on samples/facts.jsonl; the YES/NO community test: see `eval relevance`), so
ranking here is by the embedder and the graph, not by the model. Optionally (`lead =
true` under `[query]`) the model writes one short lead sentence first, marked as its own
words, not the documents'."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..language.messages import (
    ALL_DROPPED,
    MORE,
    QUOTED_BELOW,
    joined,
    nothing_relevant,
    said,
)
from ..models import ChatModel, OnText
from ..prompts import Prompts
from ..schema import Entity, Source
from ..sentences import (
    is_statement,
    near_duplicate,
    opens_turn,
    squash,
    unlabelled,
    word_count,
    words,
)
from ..settings import QuerySettings
from ..support import FUNCTION_WORDS, in_first_person
from . import headings
from .common import Citation, IndexData, LoopGuard, SearchResult
from .evidence import SentenceIndex
from .themes import Group, Selection, Theme, focus_of
from .titles import read_titles, topic_title

LEAD_MARK = "(model's own words, not from the documents)"
NOTHING = "no sentence of the documents was chosen."


@dataclass(frozen=True)
class Quote:
    text: str  # a sentence of the documents, whitespace collapsed
    source: Source
    refs: tuple[str, ...]  # the citation refs it carries (chunk ref, and report ref)
    score: float  # what ranked it (similarity)
    # who says it, where it is a transcript's sentence in the first person that does not
    # open its turn (`IndexData.speaker`): "ANDREW NG" of "I was born in London, ..."
    speaker: str = ""

    @property
    def shown(self) -> str:
        """The sentence as an answer shows it: with its speaker's label where it has one,
        as the transcript writes a turn ("ANDREW NG: I was born in London, ...")."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


def choose_quotes(quotes: list[Quote], count: int) -> list[Quote]:
    """The first `count` quotes (already ranked), no two alike; a title or heading (`is_heading`)
    or a cry of a word or two (`SHORT_WORDS`) only after every other. Nearest "Why did the
    Aldren Water Trust oppose the dredging?", the sample's title line "The Harbour Dredging
    Vote" was quoted as basic's fifth sentence; nearest "Who is the clerk to Ebenezer
    Scrooge?", Carol's "Ebenezer!" was basic's first and "Christmas, Ebenezer!" its third."""
    chosen: list[Quote] = []
    for q in sorted(quotes, key=lambda q: is_heading(q.text) or short(q.text)):
        if len(chosen) == count:
            break
        if not any(near_duplicate(q.text, c.text) for c in chosen):
            chosen.append(q)
    return chosen


SHORT_WORDS = 3  # a quote of fewer words says nothing on its own ("Ebenezer!")
# a question this short tells nothing either: asked "Who is Scrooge's clerk?", local and
# basic quoted "'Is it?' said Scrooge." and "'What place is this?' asked Scrooge." second
# and fourth of five, near any short question
SHORT_QUESTION_WORDS = 8


def short(text: str) -> bool:
    """A cry of a word or two ("Ebenezer!", "Christmas, Ebenezer!") or a short question
    ("'Is it?' said Scrooge."): quoted last. A speaker's label is not what is said:
    "REID HOFFMAN: Lawyer." and "REID HOFFMAN: Always." (a reply, of one word) were local's
    first and fourth quotes for "What is the title of Reid Hoffman's most recent book?"."""
    n = word_count(unlabelled(text))
    return n < SHORT_WORDS or (n < SHORT_QUESTION_WORDS and "?" in text)


def is_heading(text: str) -> bool:
    """A title or heading: a few words (under 8) that do not end like a sentence. Not a
    long line that does not (Carol's "[Illustration: _Bob Cratchit went down a slide on
    Cornhill ..._]" answers "Where did Bob Cratchit go down a slide?")."""
    return not is_statement(text) and word_count(text) < 8


def render(quotes: list[Quote], lead: str = "") -> str:
    lines = [f"{LEAD_MARK} {lead}", ""] if lead else []
    lines += [f"- {q.shown} [{', '.join(q.refs)}]" for q in quotes]
    return "\n".join(lines)


def heading(title: str) -> str:
    """A theme's heading: its report's title without the "(+N more)" tail."""
    return MORE.sub("", title)


def render_themes(themes: list[tuple[str, str, list[Quote]]], lead: str = "",
                  beside: dict[int, str] | None = None) -> str:
    """(heading, its ref or "", quotes) per theme, as markdown; `beside`: by a theme's
    place, names shown in italics after its heading."""
    lines = [f"{LEAD_MARK} {lead}", ""] if lead else []
    for k, (title, ref, quotes) in enumerate(themes):
        names = (beside or {}).get(k)
        lines.append(f"**{title}**" + (f" · *{names}*" if names else "")
                     + (f" [{ref}]" if ref else ""))
        lines += [f"- {q.shown} [{', '.join(q.refs)}]" for q in quotes]
        lines.append("")
    return "\n".join(lines).rstrip()


def lead_sentence(model: ChatModel, prompts: Prompts, question: str, quotes: list[Quote],
                  max_tokens: int = 48) -> str:
    """One sentence in the model's own words, from the best quotes (marked as such)."""
    evidence = "\n".join(f"- {q.text}" for q in quotes[:3])
    prompt = prompts.render("answer_lead", evidence=evidence, question=question)
    guard = LoopGuard(window=30)
    model.complete([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                   purpose="lead", on_text=guard)
    text = squash(guard.answer())
    end = min((text.find(p) for p in ".!?" if p in text), default=-1)
    return text[: end + 1] if end >= 0 else text


def sentence_quote(data: IndexData, source: Source, score: float, extra: tuple[str, ...] = ()
                   ) -> Quote:
    """The sentence at `source` as a quote; a piece of a long sentence (cut at a clause
    where it was stored) is quoted whole (`sentences.whole_sentence`)."""
    text = data.quoted(source)
    return Quote(text, source, (*extra, data.chunk_ref[source.chunk_id]), score,
                 _speaker(data, source, text))


def _speaker(data: IndexData, source: Source, text: str) -> str:
    """Who says `text`, where it is a transcript's sentence in the first person and does
    not open its turn: read alone, "Without the role at LinkedIn, I wouldn't be sitting
    here as CTO of Microsoft." does not say who "I" is. "" otherwise."""
    if opens_turn(text) or not in_first_person(text):
        return ""
    return data.speaker(source)


def row_quote(sentences: SentenceIndex, data: IndexData, row: int, score: float,
              extra: tuple[str, ...] = ()) -> Quote:
    return sentence_quote(data, sentences.sources[row], score, extra)


@dataclass
class Answering:
    """What every extractive method needs besides its evidence."""

    question: str
    data: IndexData
    prompts: Prompts
    settings: QuerySettings
    lead: bool
    on_text: OnText | None
    started: float
    model: Callable[[], ChatModel]  # loaded only when the lead sentence is asked for
    # the writer model (`query --writer`): it writes the answer from the chosen quotes
    writer: Callable[[], ChatModel] | None = None
    written_cache: object = None  # what the writer wrote before (`replies.ReplyCache`)
    # the settings of the answer without a writer (a writer is given more evidence): what
    # a focused written answer quotes under its sentences is no longer than that answer
    quoted_settings: QuerySettings | None = None


def finish(method: str, a: Answering, quotes: list[Quote], *,
           themes: list[tuple[str, str, list[Quote]]] | None = None,
           extra_citations: list[Citation] = (), level: int | None = None,
           focus: float = 1.0, members: list[frozenset[str] | None] = ()) -> SearchResult:
    """The result: the chosen quotes (as a list, or under theme headings), their sources."""
    result = SearchResult(question=a.question, method=method, answer="", level=level)
    result.timings["retrieval_seconds"] = round(time.perf_counter() - a.started, 3)
    if quotes and a.writer is not None:
        return _written(method, a, quotes, themes, list(extra_citations), result, focus,
                        members)
    model = a.model() if a.lead else None
    calls_before = len(model.calls) if model is not None else 0
    if not quotes:
        result.no_answer = True
        result.answer = nothing_relevant(a.question, NOTHING, a.data.languages)
    else:
        text_lead = lead_sentence(model, a.prompts, a.question, quotes) if model else ""
        result.answer = render_themes(themes, text_lead) if themes else render(quotes, text_lead)
        result.context = [q.text for q in quotes]
        if a.on_text is not None:
            a.on_text(result.answer)
        result.timings["first_token_seconds"] = round(time.perf_counter() - a.started, 3)
        result.citations = quote_citations(quotes, a.data, list(extra_citations))
    if model is not None:
        result.calls = list(model.calls[calls_before:])
    result.timings["total_seconds"] = round(time.perf_counter() - a.started, 3)
    return result


def _written(method: str, a: Answering, quotes: list[Quote],
             themes: list[tuple[str, str, list[Quote]]] | None, extra: list[Citation],
             result: SearchResult, focus: float = 1.0,
             members: list[frozenset[str] | None] = ()) -> SearchResult:
    """The answer written by the writer model from the chosen quotes, each of its
    sentences checked against the quotes it cites (`written.py`). A question about one
    thing (`wr.FOCUSED`: basic, local and drift always) gets a short written answer over
    the quoted one, the sentences it rests on; a broader one, written topics (a topic
    where nothing written stood is quoted). Where the check keeps none of a short answer,
    the quotes are the answer, as without a writer, and it says so."""
    from . import written as wr

    # the focus of a question in another language is the English embedder's guess ("What
    # are the main themes?" in Spanish 0.90, in Russian 1.0): there, topics are written
    focused = not themes or (focus >= wr.FOCUSED and a.data.languages <= {"en"})
    # about one thing by its own measure (basic's, local's and drift's answers are short
    # whatever is asked; their quotes' scores are their nearness): its lines keep to it
    on_topic = focused and a.data.languages <= {"en"} and (
        focus if themes else focus_of(max((q.score for q in quotes), default=0.0))
    ) >= wr.FOCUSED
    # each quote with its topic's report ref, and the topic's place
    tagged = ([(q, i) for i, (_t, ref, qs) in enumerate(themes) for q in _with_report(qs, ref)]
              if themes else [(q, 0) for q in quotes])
    if focused:  # written from its best sentences whatever their topic
        blocks, below = _quoted_part(method, a.quoted_settings or a.settings, quotes, themes)
        ranked = sorted((q for q, _ in tagged), key=lambda q: -q.score)  # (stable)
        by_number = choose_quotes(ranked, a.settings.writer_quotes)
        evidence = [wr.Evidence(q.text, q.refs, speaker=q.speaker) for q in by_number]
        titles: list[str] = []
    else:
        by_number = [q for q, _ in tagged]
        evidence = [wr.Evidence(q.text, q.refs, i, q.speaker) for q, i in tagged]
        titles = [t for t, _r, _q in themes]
    extra = [replace(c, cited=False) for c in extra]  # cited only where a kept line cites
    writer = a.writer()
    before = len(writer.calls)
    started = time.perf_counter()
    out, checker = wr.write(writer, a.prompts, a.question, evidence, titles,
                            max_tokens=a.settings.writer_max_tokens, on_text=a.on_text,
                            max_sections=a.settings.themes, name_words=a.data.name_words,
                            bound=a.settings.writer_bound, cache=a.written_cache,
                            max_words=a.settings.writer_answer_words,
                            max_lines=wr.LEAD_LINES if focused else 8,
                            languages=a.data.languages,
                            group_names=_ranked_members(a.data, members),
                            named_in=a.data.named_in, cased=a.data.cased,
                            names=a.data.names_pattern, on_topic=on_topic)
    if focused:  # the quotes under it, a topic's heading worded where its title is names
        quoted, worded = _worded_quoted(a, writer, blocks, below)
    result.calls = list(writer.calls[before:])
    result.context = [f"[{i}] {e.text}" for i, e in enumerate(evidence, 1)]
    result.context_tokens = sum(c.prompt_tokens for c in result.calls)
    result.written = {"writer": writer.name, "kept": out.kept, "dropped": out.dropped,
                      "cached_topics": checker.cached,
                      "headings_replaced": 0, "quoted_below": focused,
                      # what the check dropped, and why (the JSON answer shows it)
                      "dropped_lines": [{"text": w.text, "cites": list(w.cites),
                                         "reason": w.reason}
                                        for _h, ls in out.sections for w in ls if not w.ok]}
    if focused:
        result.written["headings_retitled"] = worded
    below_mark = said(QUOTED_BELOW, checker.language)
    if out.kept == 0 and focused:  # nothing written stood: the quotes answer
        result.answer = quoted + "\n\n" + said(ALL_DROPPED, checker.language).format(
            n=out.dropped)
        result.citations = quote_citations(below, a.data, extra)
        if a.on_text is not None:
            a.on_text(result.answer)
    else:
        written = wr.render(checker)  # (a themed answer quotes each topic where none stood)
        if a.on_text is not None and out.dropped:  # the last line: how many were dropped
            a.on_text("\n" + written.rsplit("\n", 1)[-1] + "\n")
        cited = [by_number[n - 1] for n in out.cited(checker.quoted_numbers)]
        if focused:  # the short written answer, then what it rests on, under its topics'
            # titles: they name the entities the quotes are about (without them, Carol's
            # facts held by the answer fell from 8 of 12 to 7 in global, 9 to 7 in drift)
            result.answer = f"{written}\n\n{below_mark}\n\n{quoted}"
            if a.on_text is not None:  # after the last line streamed (it ends the line)
                a.on_text(f"\n{below_mark}\n\n{quoted}")
            cited += below
        else:
            result.answer = written
            result.written["headings_replaced"] = out.headings_replaced
            result.written["topics_quoted"] = out.topics_quoted
            result.written["headings_retitled"] = out.retitled
            result.written["topics_left_out"] = out.left_out
        result.citations = quote_citations(cited, a.data, extra)
    first = checker.first_line_at or time.perf_counter()
    result.timings["first_token_seconds"] = round(first - a.started, 3)
    calls = result.calls
    tokens, seconds = sum(c.completion_tokens for c in calls), sum(c.seconds for c in calls)
    result.timings["writer_seconds"] = round(time.perf_counter() - started, 3)
    result.timings["writer_tokens_per_second"] = round(tokens / seconds, 1) if seconds else 0.0
    result.timings["total_seconds"] = round(time.perf_counter() - a.started, 3)
    return result


def _worded_quoted(a: Answering, writer: ChatModel,
                   blocks: list[tuple[str, str, list[Quote]]] | None, quotes: list[Quote]
                   ) -> tuple[str, int]:
    """The quoted part of a focused written answer: its topics under their titles, but a
    title that is only names (a community's: "AI, Stanford and Neural Information
    Processing Symposium") headed by what the writer words of its quotes where that stands
    (`retitling.title_replies`, `retitling.title_of`), the title beside it in italics (the
    names a reader, and a fact, looks for: "**AI Hype and Discussions** · *AI, Stanford
    ...*"). Its text, and how many headings were worded."""
    from . import retitling as rt

    if blocks is None:
        return render(quotes), 0
    names = a.data.names_pattern
    todo = [k for k, (title, _r, _qs) in enumerate(blocks) if headings.only_names(title, names)]
    texts = [" ".join(q.text for q in blocks[k][2]) for k in todo]
    worded = rt.worded_titles([t for t, _r, _q in blocks], todo, texts,
                              rt.title_replies(writer, texts, a.written_cache, a.data.languages),
                              a.question, a.data.name_words,
                              lambda h: headings.only_names(h, names), names)
    return render_themes([(worded.get(k, title), ref, qs)
                          for k, (title, ref, qs) in enumerate(blocks)],
                         beside={k: blocks[k][0] for k in worded}), len(worded)


def _ranked_members(data: IndexData, members: list[frozenset[str] | None]
                    ) -> list[tuple[str, ...] | None]:
    """Each topic's entities, most connected first (None: a document's, any entity)."""
    def degree(n: str) -> int:
        return data.entities[n].degree if n in data.entities else 0

    return [None if m is None else tuple(sorted(m, key=lambda n: (-degree(n), n)))
            for m in members]


def _quoted_part(method: str, p: QuerySettings, quotes: list[Quote],
                 themes: list[tuple[str, str, list[Quote]]] | None
                 ) -> tuple[list[tuple[str, str, list[Quote]]] | None, list[Quote]]:
    """The quoted answer under a focused written one, about as long as it is without a
    writer (`p`): basic and local its first `quote_count` sentences, drift its nearest
    `drift_quotes`, global and ts each topic's first `theme_quotes` while `answer_words`
    last (the first topic always). Its topics (None: a list of quotes), and its quotes
    with their topics' refs."""
    if not themes:
        return None, quotes[:p.quote_count]
    if method == "drift":
        top = {id(q) for q in sorted(quotes, key=lambda q: -q.score)[:p.drift_quotes]}
        blocks = [(t, r, [q for q in qs if id(q) in top]) for t, r, qs in themes]
        blocks = [b for b in blocks if b[2]]
    else:
        blocks, words = [], 0
        for title, ref, qs in themes:
            qs = qs[:p.theme_quotes]
            n = word_count(title) + sum(word_count(q.text) for q in qs)
            if blocks and words + n > p.answer_words:
                break
            blocks.append((title, ref, qs))
            words += n
    return blocks, [q for _t, ref, qs in blocks for q in _with_report(qs, ref)]


def _with_report(quotes: list[Quote], ref: str) -> list[Quote]:
    """The quotes of a topic, each citing the topic's report too (`ref`, if it has one)."""
    return [replace(q, refs=(*q.refs, ref)) for q in quotes] if ref else list(quotes)


def quote_citations(chosen: list[Quote], data: IndexData, extra: list[Citation]) -> list[Citation]:
    """Every ref the quotes carry, each once, marked cited (the answer names them all),
    then the extra citations the answer does not name (context it was chosen from)."""
    by_ref = {c.ref: c for c in extra}
    out: dict[str, Citation] = {}
    for q in chosen:
        for ref in q.refs:
            if ref in out:
                continue
            if ref in by_ref:
                out[ref] = replace(by_ref[ref], cited=True)
            else:
                chunk = data.chunks[q.source.chunk_id]
                out[ref] = replace(data.chunk_citation(chunk, round(q.score, 3)), cited=True)
    out.update({c.ref: c for c in extra if c.ref not in out})
    return list(out.values())


# --- the methods --------------------------------------------------------------------------


def basic(a: Answering, hits: list[tuple[Source, float]]) -> SearchResult:
    """The nearest sentences, best first."""
    quotes = [sentence_quote(a.data, s, sim) for s, sim in hits if s.chunk_id in a.data.chunks]
    return finish("basic", a, choose_quotes(quotes, a.settings.quote_count))


# a sentence naming an entity the question names ranks as if this much nearer: asked "Who
# is Scrooge's clerk?", local quoted "'Is it?' said Scrooge." first (near any short
# question, and Scrooge is among the entities nearest it), and the one sentence that names
# the clerk not at all
NAMED_BONUS = 0.15


# the words of "who is", "tell me about" in the European languages of the index's
# documents (English ones are function words)
ASKING = frozenset("""tell describe wer was ist sind war qui que quoi qu est c ce sont était
quién quien qué es son era fue кто что такой такая такое такие это был была""".split())


def asks_about(question: str, entity: Entity) -> bool:
    """Whether `question` asks about `entity` as a whole: past its names (any it is
    called by) it says only function words ("Who is Jacob Marley?", "What is the Aldren
    Water Trust?", "Wer ist Effi?"), not what about it ("What did Elena Voss promise?").
    Not in Chinese or Japanese, whose words run together."""
    names = {w for n in (entity.name, *(a for a, _ in entity.aliases)) for w in words(n)}
    return not (words(question) - names - FUNCTION_WORDS - ASKING)


def local(a: Answering, sentences: SentenceIndex, q: np.ndarray, names: list[str],
          named: tuple[str, ...] = ()) -> SearchResult:
    """Every sentence of the chunks naming one of the entities nearest the question (their
    text units), nearest first; one naming an entity the question names (`named`) by
    `NAMED_BONUS` nearer. A question about one entity as a whole (`asks_about`) is
    answered from its description first: its sentences as the build ranked them (a
    statement whose subject it is first).
    Asked "Who is Jacob Marley?", the nearest were "'Old Jacob Marley, tell me more!"
    and "O Jacob Marley!"; his description opens "Old Marley was as dead as a
    door-nail."."""
    # the entities' text units (the paper's local context): every sentence of a chunk
    # naming one, not only the sentences that do ("... and published the first paper in
    # 2000." says "you" of Andrew Ng)
    rows = sentences.rows_in_chunks_of(sentences.rows_naming(names))
    sims = sentences.similarity(q, rows)
    if named and len(rows):
        asked = set(sentences.rows_naming(list(named)).tolist())
        sims = sims + NAMED_BONUS * np.fromiter((r in asked for r in rows.tolist()), np.float32,
                                                len(rows))
    order = np.argsort(-sims, kind="stable")
    if len(named) == 1 and asks_about(a.question, entity := a.data.entities[named[0]]):
        described = sentences.rows_of(entity.sources).tolist()
        first = {r: k for k, r in enumerate(described)}
        order = sorted(order.tolist(), key=lambda k: first.get(int(rows[k]), len(first)))
    quotes = [row_quote(sentences, a.data, int(rows[k]), float(sims[k])) for k in order[:200]]
    cites = [Citation("entity", f"E{i}", a.data.entities[n].id, n, a.data.entities[n].type)
             for i, n in enumerate(names, 1)]
    return finish("local", a, choose_quotes(quotes, a.settings.quote_count), extra_citations=cites)


def themed(method: str, a: Answering, sentences: SentenceIndex, selection: Selection,
           level: int | None = None) -> SearchResult:
    """An answer by theme: each group's heading (with its report's ref), its sentences. A
    community is headed by a document's title where one says what it is (`titles.py`),
    else by its report's title."""
    blocks: list[tuple[str, str, list[Quote]]] = []
    members: list[frozenset[str] | None] = []
    quotes: list[Quote] = []
    cites: list[Citation] = []
    read = read_titles(a.data.documents.values())
    taken: set[str] = set()
    for t in selection.themes:
        ref = t.group.citation.ref if t.group.citation is not None else ""
        mine = [row_quote(sentences, a.data, r, t.relevance) for r in t.rows]
        blocks.append((topic_title(t.group, sentences, read, taken) or heading(t.group.title),
                       ref, mine))
        members.append(t.group.members)
        quotes += mine
        if t.group.citation is not None:
            cites.append(replace(t.group.citation, score=round(t.relevance, 3), cited=True))
    result = finish(method, a, quotes, themes=blocks, extra_citations=cites, level=level,
                    focus=selection.focus, members=members)
    result.timings["focus"] = round(selection.focus, 3)
    result.timings["selective"] = round(selection.selective, 3)
    result.map_calls = 0
    return result


def community_groups(data: IndexData, sentences: SentenceIndex, ids: list[str]) -> list[Group]:
    """Communities (those with a report) as theme candidates: the sentences naming their
    members; weighted by the log of how many there are."""
    by_id = {c.id: c for c in data.communities}
    out = []
    for cid in ids:
        report = data.report_by_community.get(cid)
        c = by_id.get(cid)
        if report is None or c is None:
            continue
        rows = sentences.rows_naming(c.entities)
        children = tuple(k for k in c.children if k in data.report_by_community)
        out.append(Group(cid, report.title, data.report_citation(report), rows,
                         float(np.log1p(len(rows))), children, c.level, frozenset(c.entities)))
    return out


THREADS = 8  # topics at most of one community the build could not split (`threads`)
THREAD_ROWS = 4  # sentences at least a thread is told in


def threads(group: Group, sentences: SentenceIndex, max_members: int) -> list[Group]:
    """A community larger than the build's `max_members` (graph.max_cluster_size) that
    Leiden could not split, as topics of its own. A star (a story's hero related to
    everyone: Carol's 25 members around Scrooge, 499 of its sentences) is one community
    at every level; answered as one topic, its evidence was the hub's commonest lines
    ("Scrooge looked about him for the Ghost") and Marley went unsaid. Its threads: each
    other member with the hub (the sentences naming that member, titled "Ebenezer Scrooge
    and Jacob Marley"), the `THREADS` most told, each with the community's report
    citation. The hub alone is not one: its own sentences are its commonest ("Scrooge
    said that he would see him"). None for a community small enough."""
    members = group.members or frozenset()
    if len(members) <= max_members:
        return []
    told = {m: sentences.rows_naming([m]) for m in sorted(members)}
    hub = max(sorted(members), key=lambda m: len(told[m]))
    candidates = [(m, told[m], frozenset({m, hub})) for m in sorted(members - {hub})]
    candidates = [c for c in candidates if len(c[1]) >= THREAD_ROWS]
    candidates.sort(key=lambda c: (-len(c[1]), c[0]))
    return [Group(f"{group.key}#{name}", joined([hub, name], sentences.language(rows)),
                  group.citation, rows, float(np.log1p(len(rows))), (), group.level + 1, focus)
            for name, rows, focus in candidates[:THREADS]]


def document_groups(data: IndexData, sentences: SentenceIndex) -> list[Group]:
    """Documents as theme candidates (ts: the paper's map-reduce over the source texts),
    each headed by its title (its file's name where it has none)."""
    out = []
    for doc in sorted(data.documents.values(), key=lambda d: d.path):
        rows = sentences.rows_of_document(doc.id)
        out.append(Group(doc.id, doc.title or doc.path, None, rows, float(np.log1p(len(rows)))))
    return out


def themes_answer_ok(themes: list[Theme]) -> bool:
    return any(t.rows for t in themes)
