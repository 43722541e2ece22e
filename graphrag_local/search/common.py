"""What the search methods share: evidence units and citations, packing by token budget,
the chat history block, and the final answer, streamed with a guard against loops."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..edges import Edges
from ..models import CallRecord, ChatModel, OnText
from ..prompts import Prompts
from ..schema import (
    Chunk,
    Claim,
    Community,
    CommunityReport,
    Document,
    Entity,
    Finding,
    Relationship,
    Source,
)
from ..sentences import last_speaker, squash, whole_sentence
from ..settings import QuerySettings

Count = Callable[[str], int]
REF = re.compile(r"\b([ERS]\d{1,4})\b")


# a name that says whose what someone is: "Scrooge's clerk", "Scrooge's nephew"
_KNOWN_BY = re.compile(r"^(.+?)['’]s (\w[\w-]*)$")


@dataclass(frozen=True)
class Citation:
    """One piece of evidence the model was given. `ref` is the label it saw (R3, E1, S2)."""

    kind: str  # "report" | "entity" | "relationship" | "claim" | "chunk"
    ref: str
    id: str  # the record's id in the index
    title: str  # report title, entity name, "source -> target", or the chunk's file
    detail: str = ""  # level, entity type, or the chunk's position
    score: float = 0.0  # helpfulness 0-100 (global) or similarity 0-1 (local, basic)
    cited: bool = False  # the answer refers to it by its ref


@dataclass(frozen=True)
class Unit:
    """A piece of context: its ref, the text the model reads, and what to cite."""

    ref: str
    text: str
    citation: Citation


@dataclass
class SearchResult:
    question: str
    method: str
    answer: str
    level: int | None = None
    no_answer: bool = False  # the index holds nothing relevant; no answer was invented
    citations: list[Citation] = field(default_factory=list)
    context: list[str] = field(default_factory=list)  # every prompt's data, as given
    context_tokens: int = 0  # tokens of evidence given to the model, over all calls
    unknown_refs: list[str] = field(default_factory=list)  # refs in the answer not in context
    timings: dict[str, float] = field(default_factory=dict)
    calls: list[CallRecord] = field(default_factory=list)
    stopped_loop: bool = False  # the answer started repeating itself and was cut
    map_calls: int = 0
    failed_calls: int = 0  # structured replies still malformed after a retry (skipped)
    # a written answer (`written.py`): the writer, and its sentences kept and dropped by
    # the support check; empty for a quoted or an abstractive answer
    written: dict = field(default_factory=dict)
    # a question asking how often (`search/tally.py`): what was counted, by document
    tally: dict = field(default_factory=dict)


def truncate_tokens(text: str, budget: int, count: Count) -> str:
    """`text` cut (at a word) to fit `budget` tokens."""
    if count(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + " …"


def pack_batches(texts: list[str], budget: int, count: Count) -> list[list[int]]:
    """Greedy packing of `texts` (in order) into batches of at most `budget` tokens
    (each text plus a separating newline); a text too big alone gets a batch of its own
    (the caller truncates it). Returns the indices of each batch."""
    batches: list[list[int]] = []
    used = budget + 1
    for i, text in enumerate(texts):
        n = count(text) + 1
        if used + n > budget:
            batches.append([])
            used = 0
        batches[-1].append(i)
        used += n
    return batches


def take_within(texts: list[str], budget: int, count: Count) -> int:
    """How many of `texts`, from the first, fit in `budget` tokens together."""
    used = 0
    for i, text in enumerate(texts):
        used += count(text) + 1
        if used > budget:
            return i
    return len(texts)


def history_block(history: list[tuple[str, str]], turns: int, budget: int, count: Count) -> str:
    """The last `turns` exchanges of a chat, newest kept first when the budget is tight."""
    lines: list[str] = []
    for q, a in reversed(history[-turns:] if turns else []):
        entry = f"User: {q}\nAssistant: {a.strip()}"
        if count("\n".join([entry, *lines])) > budget:
            entry = truncate_tokens(entry, max(0, budget - count("\n".join(lines))), count)
            if len(entry) < 20:
                break
        lines.insert(0, entry)
    return ("\n-Conversation so far-\n" + "\n".join(lines) + "\n") if lines else ""


def followup_text(question: str, history: list[tuple[str, str]]) -> str:
    """A follow-up question with the one before it, for retrieval and map prompts."""
    return f"{question} (follow-up to: {history[-1][0]})" if history else question


class LoopGuard:
    """Stops a streamed answer once it repeats itself: when its last `window` characters
    already occur earlier in it. A tiny model otherwise loops until the token cap."""

    def __init__(self, window: int = 60, forward: OnText | None = None):
        self.window = window
        self.text = ""
        self.forward = forward
        self.looped = False
        self.first_piece_at: float | None = None

    def __call__(self, piece: str) -> bool:
        if self.first_piece_at is None:
            self.first_piece_at = time.perf_counter()
        self.text += piece
        if len(self.text) >= 2 * self.window:
            tail = self.text[-self.window :]
            if tail.strip() and self.text.find(tail, 0, len(self.text) - self.window) != -1:
                self.looped = True
                return True
        if self.forward is not None:
            self.forward(piece)
        return False

    def answer(self) -> str:
        if not self.looped:
            return self.text.strip()
        return self.text[: -self.window].rstrip()


def generate_answer(
    model: ChatModel, prompt: str, max_tokens: int, on_text: OnText | None, purpose: str
) -> tuple[str, bool, float | None]:
    """The final answer, streamed to `on_text`; returns (answer, cut for looping, the time
    its first piece arrived, as perf_counter)."""
    guard = LoopGuard(forward=on_text)
    model.complete(
        [{"role": "user", "content": prompt}], max_tokens=max_tokens, purpose=purpose,
        on_text=guard,
    )
    return guard.answer(), guard.looped, guard.first_piece_at


def mark_cited(answer: str, citations: list[Citation]) -> tuple[list[Citation], list[str]]:
    """Citations with `cited` set where the answer names their ref, and the refs the
    answer names that were never in the context (a model inventing sources)."""
    named = set(REF.findall(answer))
    known = {c.ref for c in citations}
    marked = [replace(c, cited=c.ref in named) for c in citations]
    return marked, sorted(named - known, key=lambda r: (r[0], int(r[1:])))


def budget_for(model: ChatModel, prompt_without_data: str, reply_tokens: int, cap: int) -> int:
    """Data tokens a prompt may carry: n_ctx minus the prompt and the reply (and at most
    `cap` when it is set)."""
    overhead = model.prompt_tokens([{"role": "user", "content": prompt_without_data}])
    room = model.n_ctx - overhead - reply_tokens - 8
    return max(0, min(room, cap) if cap else room)


@dataclass(frozen=True)
class Report:
    """A community report as search reads it. `ref` (R1, R2, ...) is stable for an index."""

    ref: str
    record: CommunityReport
    entities: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def level(self) -> int:
        return self.record.level

    @property
    def title(self) -> str:
        return self.record.title

    @property
    def summary(self) -> str:
        return self.record.summary

    @property
    def full_content(self) -> str:
        return self.record.full_content

    @property
    def rating(self) -> float:
        return self.record.rating

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.record.findings


@dataclass
class IndexData:
    """The parts of an index search needs, loaded once per session (no vectors). What is
    derived from the tables (communities by member, relationships by endpoint, ...) is
    built on first use, so a method pays only for the tables it reads (`query.py` reads
    each table itself on first use as well)."""

    entities: dict[str, Entity]  # by name
    relationships: list[Relationship]
    claims: list[Claim]
    chunks: dict[str, Chunk]  # by id
    reports: list[Report]  # ok reports, sorted by (level, id)
    communities: list[Community]
    documents: dict[str, Document] = field(default_factory=dict)  # by id, text left out

    @cached_property
    def community_of(self) -> dict[str, list[tuple[int, str]]]:
        """name -> [(level, community id)]"""
        out: dict[str, list[tuple[int, str]]] = {}
        for c in sorted(self.communities, key=lambda c: (c.level, c.id)):
            for name in c.entities:
                out.setdefault(name, []).append((c.level, c.id))
        return out

    @cached_property
    def report_by_community(self) -> dict[str, Report]:
        return {r.id: r for r in self.reports}

    @cached_property
    def alias_of(self) -> dict[str, str]:
        """An alias (case-folded) -> its entity's name; an alias two entities share is left
        out."""
        counts: dict[str, set[str]] = {}
        for e in self.entities.values():
            for alias, _ in e.aliases:
                counts.setdefault(alias.casefold(), set()).add(e.name)
        return {a: next(iter(ns)) for a, ns in counts.items() if len(ns) == 1}

    @cached_property
    def cased(self) -> dict[str, str]:
        """An entity's name by its name or alias, case-folded (`alias_of`), where the name
        is not written all in capitals: a written line's "KEVIN SCOTT" (a transcript's
        speaker label) is shown as "Kevin Scott" (`checked.recased`)."""
        out = dict(self.alias_of)
        out.update({name.casefold(): name for name in self.entities})  # a name over an alias
        return {form: name for form, name in out.items() if name.upper() != name}

    @cached_property
    def names_pattern(self) -> re.Pattern[str] | None:
        """Every entity's name and alias as one pattern (`headings.names_pattern`), made
        once: what a written answer takes out of a heading to tell whether it is only
        names (`written._Checker.only_names`)."""
        from .headings import names_pattern

        return names_pattern([*self.entities, *self.alias_of])

    @cached_property
    def name_words(self) -> frozenset[str]:
        """The lower-cased words of the entity names that the documents write as names:
        capitalised more often than not ("Halvard", "Li", "Chinese"). A word of a name the
        documents mostly write in lower case ("Education", "Innovation", "Story" on the
        podcasts, typed as entities from their headings) is an ordinary word: a written
        heading may use it without its evidence holding it."""
        words = {w for name in self.entities for w in name.split() if w[:1].isupper()}
        lower = {w.lower() for w in words}
        counts: dict[str, list[int]] = {w: [0, 0] for w in lower}
        for chunk in self.chunks.values():
            for w in re.findall(r"\w+", chunk.text):
                c = counts.get(w.lower())
                if c is not None:
                    c[w[:1].isupper()] += 1
        return frozenset(w for w in lower if counts[w][1] >= counts[w][0])

    @cached_property
    def edges(self) -> Edges:
        """The relationships by endpoint: a query reads its names' edges, not them all."""
        return Edges(self.relationships)

    @cached_property
    def _claims_at(self) -> dict[str, list[int]]:
        at: dict[str, list[int]] = {}
        for i, c in enumerate(self.claims):
            at.setdefault(c.subject, []).append(i)
        return at

    def claims_about(self, names: Iterable[str]) -> list[Claim]:
        """The claims whose subject is one of `names`, in table order (as a scan gives)."""
        found = sorted(i for n in dict.fromkeys(names) for i in self._claims_at.get(n, ()))
        return [self.claims[i] for i in found]

    @cached_property
    def languages(self) -> frozenset[str]:
        """The languages the index's chunks are in (empty for an index built before
        languages were stored): what a question's language is told among."""
        return frozenset(c.language for c in self.chunks.values() if c.language)

    @cached_property
    def levels(self) -> list[int]:
        return sorted({r.level for r in self.reports})

    @cached_property
    def chunk_ref(self) -> dict[str, str]:
        order = sorted(self.chunks.values(), key=lambda c: (c.path, c.index))
        return {c.id: f"S{i}" for i, c in enumerate(order, 1)}

    @cached_property
    def _name_forms(self) -> dict[str, str]:
        """Each name and unshared alias (over two characters) -> its entity's name; and a
        person known by whose kin or what they are ("Scrooge's clerk") is also named "the
        clerk of Scrooge" or "to" him, by any of his names ("Who is the clerk to Ebenezer
        Scrooge?" asked after "Scrooge's clerk", not Ebenezer Scrooge)."""
        forms = {n: n for n in self.entities if len(n) > 2}
        forms.update({a: self.alias_of[a.casefold()] for e in self.entities.values()
                      for a, _ in e.aliases if a.casefold() in self.alias_of and len(a) > 2})
        owners: dict[str, set[str]] = {}
        for form, name in forms.items():
            owners.setdefault(name, set()).add(form)
        for form, name in list(forms.items()):
            m = _KNOWN_BY.match(form)
            owner = forms.get(m.group(1)) if m else None
            if owner is None or owner == name:
                continue
            for other in owners[owner]:
                for by in ("of", "to"):
                    forms.setdefault(f"{m.group(2)} {by} {other}", name)
        return forms

    def named_in(self, text: str) -> list[str]:
        """The entities `text` names, by their names or aliases (a longer name wins over
        the names inside it), in order of mention."""
        from ..stages.mentions import names_in

        forms = self._name_forms
        return list(dict.fromkeys(forms[f] for f in names_in(text, list(forms))))

    def quoted(self, source: Source) -> str:
        """The sentence at `source` as an answer quotes it: a piece of a long sentence
        (cut at a clause where it was stored) whole (`sentences.whole_sentence`)."""
        chunk = self.chunks[source.chunk_id]
        a, b = whole_sentence(chunk.text, source.start, source.end, chunk.start_char == 0)
        return squash(chunk.text[a:b])

    @cached_property
    def _chunk_at(self) -> dict[tuple[str, int], Chunk]:
        """(document id, place in it) -> chunk."""
        return {(c.document_id, c.index): c for c in self.chunks.values()}

    def speaker(self, source: Source) -> str:
        """Who says the sentence at `source`, where its document is a transcript: the label
        of the turn it stands in ("ANDREW NG" of "I was born in London ..."), looked for in
        its chunk before it, then in the chunk before that up to it, where the label names
        an entity of the index (not a memo's "FROM:" or a "NOTE:"); "" where none is."""
        chunk = self.chunks[source.chunk_id]
        found = last_speaker(chunk.text[:source.start])
        prev = self._chunk_at.get((chunk.document_id, chunk.index - 1))
        if found is None and prev is not None and chunk.start_char > prev.start_char:
            found = last_speaker(prev.text[:chunk.start_char - prev.start_char + source.start])
        return found if found and found.casefold() in self._entity_forms else ""

    @cached_property
    def _entity_forms(self) -> frozenset[str]:
        """Every entity's name and alias, case-folded."""
        return frozenset(n.casefold() for n in self.entities) | frozenset(self.alias_of)

    def chunk_citation(self, chunk: Chunk, score: float = 0.0) -> Citation:
        where = f"{chunk.location}, " if chunk.location else ""
        return Citation(
            "chunk", self.chunk_ref[chunk.id], chunk.id, chunk.path,
            f"{where}chunk {chunk.index + 1}, tokens {chunk.start_token}-{chunk.end_token}", score,
        )

    def report_citation(self, report: Report, score: float = 0.0) -> Citation:
        return Citation("report", report.ref, report.id, report.title, f"level {report.level}", score)


def answer_from_context(
    model: ChatModel,
    prompts: Prompts,
    prompt_name: str,
    method: str,
    question: str,
    make_context: Callable[[int], tuple[str, list[Citation]]],
    *,
    settings: QuerySettings,
    history: list[tuple[str, str]] | None = None,
    on_text: OnText | None = None,
    started: float | None = None,
    purpose: str = "answer",
) -> SearchResult:
    """One answer from one context (local and basic search, and the reduce step of global
    search): the budget is what n_ctx leaves after the prompt (with the chat history) and
    the answer; `make_context` fills it and says what it cited."""
    started = started or time.perf_counter()
    calls_before = len(model.calls)
    result = SearchResult(question=question, method=method, answer="")
    hist = history_block(history or [], settings.history_turns, 300, model.count_tokens)
    empty = prompts.render(prompt_name, context="", history=hist, question=question)
    budget = budget_for(model, empty, settings.answer_max_tokens, settings.context_tokens)
    context, citations = make_context(budget)
    result.timings["retrieval_seconds"] = round(time.perf_counter() - started, 3)
    if not citations:
        result.no_answer = True
        result.answer = "The index holds nothing to answer from: no entity or text matched."
    else:
        result.context = [context]
        result.context_tokens = model.count_tokens(context)
        prompt = prompts.render(prompt_name, context=context, history=hist, question=question)
        answer, looped, first_at = generate_answer(
            model, prompt, settings.answer_max_tokens, on_text, purpose=purpose
        )
        result.answer, result.stopped_loop = answer, looped
        if first_at is not None:
            result.timings["first_token_seconds"] = round(first_at - started, 3)
        result.citations, result.unknown_refs = mark_cited(answer, citations)
    result.calls = list(model.calls[calls_before:])
    result.timings["total_seconds"] = round(time.perf_counter() - started, 3)
    return result
