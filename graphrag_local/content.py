"""The content mode, chosen once: by the build from the settings and the model preset,
and by a question-answering session from the index's manifest (an index is queried the
way it was built, whatever config a later command reads). One object per mode holds
what the mode changes on both sides:

- extractive (the tiny presets): the model only chooses (entity types, YES/NO); every
  stored description, summary and finding is a sentence of the documents with its
  source, and every answer is quoted evidence (`search/extractive.py`, `search/drift.py`);
- abstractive (3B-8B presets, the paper): the model extracts, writes descriptions and
  reports, and writes each answer from its context (`search/global_search.py`, ...)."""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from typing import Any

from .errors import ConfigError
from .language.amounts import asks_amount
from .language.reasons import asks_why
from .language.who import asks_name
from .language.whole import asks_of_whole
from .schema import Chunk, ChunkExtraction, Sentence, Source
from .search import extractive as ex
from .search.common import SearchResult, followup_text

METHODS = ("global", "local", "basic", "ts", "drift")


class ContentMode:
    name = ""
    extract_prompts: tuple[str, ...] = ()
    verbatim_only = False  # anything stored that is not a sentence of the documents is a bug
    chunks_together = False  # extraction asks several chunks' choices in one call

    # --- build ------------------------------------------------------------------------------
    def extraction_options(self, recipe) -> dict:
        raise NotImplementedError

    def extract_chunks(self, recipe, model, prompts, items) -> list[ChunkExtraction]:
        """The extractions of several chunks ((chunk, sentences, key) each)."""
        raise NotImplementedError

    def describe(self, b, entities, relationships) -> list[tuple[str, tuple[Source, ...]]]:
        raise NotImplementedError

    def reporter(self, b):
        raise NotImplementedError

    # --- query ------------------------------------------------------------------------------
    def answer(self, session, method: str, question: str, level, history, on_text,
               lead: bool) -> SearchResult:
        raise NotImplementedError


class Extractive(ContentMode):
    name = "extractive"
    extract_prompts = ("type_entities", "glean_check_spans")
    verbatim_only = True
    chunks_together = True

    def extraction_options(self, recipe) -> dict:
        return {"method": "standard", "content": "extractive", **asdict(recipe.classify)}

    def extract_chunks(self, recipe, model, prompts, items):
        from .stages.classify import classify_chunks

        return classify_chunks(model, prompts, items, recipe.classify)  # choices asked together

    def describe(self, b, entities, relationships):
        from . import elements

        return elements.describe_extractively(b, entities, relationships)

    def reporter(self, b):
        from . import elements

        return elements.extractive_reporter(b)

    def answer(self, session, method, question, level, history, on_text, lead):
        from .search import drift, themes, written
        from .search.selection import select_communities

        s = plain = session.settings.query
        if session.writer_name:  # a writer writes from more than a quoted answer shows
            s = replace(s, quote_count=s.writer_quotes, drift_quotes=s.writer_quotes,
                        theme_quotes=s.writer_theme_quotes, answer_words=s.writer_evidence_words)
        data = session.data
        a = ex.Answering(question, data, session.prompts, s, lead, on_text,
                         time.perf_counter(), lambda: session.model,
                         (lambda: session.writer) if session.writer_name else None,
                         session.written_cache if session.writer_name else None, plain)
        asked = followup_text(question, history)
        whole = asks_of_whole(asked)  # "What are the main themes?": focus 0, not measured
        q = session.vector(asked)
        sentences = session.sentences
        if s.lexical == "fuse":  # issue 17: every method below ranks sentences by BM25 too
            sentences = sentences.asked(asked, q)
        if asks_why(question):  # the reason is often beside the sentence the question restates
            sentences = sentences.explained(q)
        amount = asks_amount(question)
        if amount is not None:  # "How long ...?": the sentence saying how long, of the near ones
            sentences = sentences.measured(q, amount)
        if asks_name(question):  # "Who ...?": a sentence naming someone it does not name
            sentences = sentences.naming_others(q, question)
        if method == "basic":
            rows = sentences.nearest(q, s.basic_top_sentences)
            return ex.basic(a, [(sentences.sources[r], float(x))
                                for r, x in zip(rows, sentences.similarity(q, rows))])
        if method == "local":  # the entities the question names, then the nearest ones
            found = session.nearest("entities", q, s.local_top_entities, ["name"])
            named = data.named_in(question)
            names = list(dict.fromkeys(named + [
                r["name"] for r in found if r["name"] in data.entities]))[: s.local_top_entities]
            # (not for a why: its reason is often beside the sentence naming what it asks
            # of, and not naming it: "They say dredging would destroy the oyster beds")
            return ex.local(a, sentences, q, names, () if asks_why(question) else tuple(named))
        if method == "drift":
            return drift.drift_extractive(a, sentences, q, session.primer(q))
        if method == "ts":
            scored, tests, trace = themes.score_groups(
                ex.document_groups(data, sentences), sentences, q), 0, []
            focus, lv = None, None
        else:
            lv = session.resolve_level(level)
            scored, tests, trace, focus = select_communities(
                data, sentences, q, lv, test=session.relevance_test(question),
                budget=s.selection_tests, max_members=session.settings.graph.max_cluster_size,
                whole=whole)
        selection = themes.choose_themes(
            scored, sentences, max_themes=s.themes, quotes_per_theme=s.theme_quotes,
            max_words=s.answer_words, focus=focus,
            margin=themes.peak_margin(sentences, q), whole=whole)
        if session.writer_name and max(selection.focus, selection.selective) < written.REPORTED:
            # a collection-wide question: each topic is written as its group's report,
            # from evidence that does not depend on the question (read from the cache by
            # any later question that reaches the group, or `build --write-reports`); not
            # one that tells groups apart ("Which people ... are athletes?")
            selection = themes.as_reports(selection, sentences, s.writer_theme_quotes,
                                          written.REPORT_WORDS)
        result = ex.themed(method, a, sentences, selection, level=lv)
        result.timings["relevance_tests"] = tests
        result.context = trace + result.context
        return result


class Abstractive(ContentMode):
    name = "abstractive"
    extract_prompts = (
        "extract_entities", "glean_check", "glean_continue", "extract_relationships",
        "extract_claims",
    )

    def extraction_options(self, recipe) -> dict:
        return {"method": "standard", "content": "abstractive", **asdict(recipe.extract)}

    def extract_chunks(self, recipe, model, prompts, items):
        from .stages.extract import extract_chunk

        return [extract_chunk(model, prompts, c, recipe.extract, k) for c, _, k in items]

    def describe(self, b, entities, relationships):
        from . import elements

        if b.recipe.method == "fast":  # the fast method's records carry their sentences
            return elements.describe_extractively(b, entities, relationships)
        return elements.describe_with_model(b, entities, relationships)

    def reporter(self, b):
        from . import elements

        return elements.model_reporter(b)

    def answer(self, session, method, question, level, history, on_text, lead):
        from .search.basic_search import basic_search
        from .search.drift import drift_abstractive
        from .search.global_search import global_search, text_search
        from .search.local_search import local_context, local_search
        from .search.selection import select_communities

        s = session.settings.query
        data = session.data
        model = session.model
        common: dict[str, Any] = dict(settings=s, history=history, on_text=on_text)
        started = time.perf_counter()
        if method == "ts":
            return text_search(model, session.prompts, question, data,
                               seed=session.settings.seed, **common)
        q = session.vector(followup_text(question, history))
        if method == "global":
            lv = session.resolve_level(level)
            tests, before = 0, len(model.calls)
            if lv is None:  # dynamic community selection
                scored, tests, _trace, _focus = select_communities(
                    data, session.sentences, q, None, test=session.relevance_test(question),
                    budget=s.selection_tests)
                reports = [data.report_by_community[x.group.key] for x in scored]
            else:
                reports = [r for r in data.reports if r.level == lv]
            result = global_search(model, session.prompts, question, reports, lv,
                                   seed=session.settings.seed, **common)
            result.calls = list(model.calls[before:])  # the relevance tests included
            result.timings["relevance_tests"] = tests
            return result
        if method == "drift":
            def context(vector, budget):
                hits = session.entity_hits(vector, s.local_top_entities)
                return local_context(hits, data, budget, s, model.count_tokens)

            return drift_abstractive(model, session.prompts, question, data, session.primer(q),
                                     context, session.embedder.embed, **common)
        if method == "local":
            hits = session.entity_hits(q, s.local_top_entities)
            return local_search(model, session.prompts, question, data, hits,
                                started=started, **common)
        found = session.nearest("chunks", q, s.basic_top_chunks, ["id"])
        hits = [(data.chunks[r["id"]], r["similarity"]) for r in found if r["id"] in data.chunks]
        return basic_search(model, session.prompts, question, data, hits, started=started,
                            **common)


MODES: dict[str, ContentMode] = {m.name: m for m in (Extractive(), Abstractive())}


def content_mode(name: str) -> ContentMode:
    if name not in MODES:
        raise ConfigError(f"content must be \"extractive\" or \"abstractive\" (got {name!r})")
    return MODES[name]


def fast_extract(recipe, chunk: Chunk, sentences: list[Sentence], key: str) -> ChunkExtraction:
    """The fast method's extraction (no model), whatever the content mode."""
    from .stages.mentions import fast_extraction

    return fast_extraction(chunk, sentences, recipe.extract.entity_types, key)
