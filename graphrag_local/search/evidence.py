"""The index's sentences as search reads them: one unit-length vector per sentence, the
entities each sentence names and the document it is in. Loaded once per session; every
extractive method (and DRIFT's follow-ups) ranks these rows, so an answer can only ever
quote sentences of the documents.

Deliberately no ranking policy here: `themes.py` and `extractive.py` decide what to
quote; this module only answers "which sentences", "how near" and "how central".

"How near" is the one place where sentences are ranked for a question, so it is also
where lexical retrieval joins in (`query.lexical = "fuse"`, the default): `asked` gives
the index as one question sees it, its nearness fused with BM25 (`lexical.py`); and
`explained` the index as a question asking for a reason sees it, each sentence at least as
near as the one beside it (the reason is seldom in the sentence the question restates)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable

import numpy as np

from ..language.amounts import Asked, states_amount
from ..language.messages import main_language, question_language
from ..schema import Source
from ..sentences import asks, label_of, squash, unlabelled
from ..stages.ground import contains, normalise
from .common import IndexData
from .lexical import BM25, fuse

# The embedder (all-MiniLM-L6-v2) knows English only: for a question in another language
# its nearness counts a quarter in the fusion. Measured on the six texts of
# ../shared/data/multilingual with six factual questions each (fast indexes, basic
# search, correct of 36): equal weights 23, a quarter 32, words alone 33; a quarter keeps
# what the embedder does see (names, numbers) for mixed-language collections.
EMBEDDER_LANGUAGES = ("en",)
OTHER_LANGUAGE_WEIGHT = 0.25
# Nearness is compared at this many decimals: one sentence's nearness differs in the last
# bits from one CPU family to another (its vector does: models/embed.VECTOR_TOLERANCE), so
# scores that close tie, and a tie goes to the earlier row (or the smaller id): a ranking
# is the same on every CPU.
SCORE_DECIMALS = 5
# for a question asking for a reason, a sentence is at least as near as the sentence beside
# it less this (`SentenceIndex.explained`): just below it, before the next nearest one
REASON_MARGIN = 0.01
# for a question asking for an amount or a time, a sentence stating one is this much nearer
# (`SentenceIndex.measured`). Measured with `eval facts` (quoted answers, four methods) on
# Carol, the podcast, the sample corpus and four of samples/multilingual: 0.1 gained 2
# answers (English sets only), 0.2 5 (Carol's "How long has Marley been dead?" in global,
# two of the podcast's "In what year ...?", a French and a Japanese one), 0.3 as 0.2 in
# English; none lost.
AMOUNT_LIFT = 0.2
# for a question asking for a name, a sentence naming an entity the question does not is
# this much nearer (`SentenceIndex.naming_others`). Measured with `eval facts` (quoted
# answers, four methods) on the same sets: 0.05 gained 2 answers, 0.1 and 0.15 3 (basic:
# Carol's "What is the name of Scrooge's nephew?" and "Whose wife is Mrs. Cratchit?", the
# podcast's "At which venture firm is Reid Hoffman a partner?"), none lost; 0.2 gained 4,
# lost 1 (local: "Who is the clerk to Ebenezer Scrooge?").
NAME_LIFT = 0.1
# A sentence every three words of which (each run of three, a speaker's label aside:
# `sentences.unlabelled`) are said in this many documents, and in this share of them, is a
# formula, not something the text tells about a topic: a show's greeting and sign-off, a
# mail's disclaimer, a filler ("Yeah, it's really interesting."). Of the podcast index's
# 6,434 sentences (ten episodes) 154 are; about 40 read, all such: "I'm your host, Kevin
# Scott, Chief Technology Officer for Microsoft." (in all ten), "CHRISTINA WARREN: Hello and
# welcome to Behind the Tech.", "I think that's really interesting."; of A Christmas Carol's
# five staves 1 ("How are you!"), of the 12 stories none, of the sample corpus 3 sentences
# ("Elena Voss is the mayor of Port Aldren.", said in four of its five documents to say who
# she is) and 3 headings whose words the others say ("# The Aldren Water Trust").
# `themes.py` ranks a formula last as a topic's sentence.
FORMULA_DOCUMENTS = 4
FORMULA_SHARE = 1 / 3
# and a short sentence (`FORMULA_SHORT` runs of three words at most: ten words) most of
# whose runs (`FORMULA_MOST`, two at least) are: "KEVIN SCOTT: Hello everyone, welcome to
# Behind the Tech." (its "hello everyone welcome" said once) headed the host's topic in
# the podcast's answer on challenges, quoted. On the podcast index it finds 92 more, 25
# read: 22 fillers ("So, tell us a little bit about that.", "KEVIN SCOTT: That's sort of
# amazing.", "Thank you for having me."), 3 that say a little ("I didn't have a lemonade
# stand."); on Carol, the 12 stories and the sample corpus none
FORMULA_SHORT = 8
FORMULA_MOST = 0.6
_PARAGRAPH = re.compile(r"\n\s*\n")  # a blank line between two sentences
REPLY_SENTENCES = 3  # of a turn answering a question, read for the sentence that answers it
ASKER_GOES_ON = 2  # sentences the asker may say after the question, before that turn


def settled(scores):
    """Scores (a float or an array) rounded to SCORE_DECIMALS: what rankings compare."""
    return np.round(scores, SCORE_DECIMALS)


def unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero)."""
    if matrix.size == 0:
        return matrix.astype(np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def _runs(text: str) -> list[tuple[str, str, str]]:
    """The runs of three words of a sentence, lower case, after a leading speaker's label."""
    found = re.findall(r"\w+", unlabelled(text).casefold())
    return list(zip(found, found[1:], found[2:]))


def _formula(said: list[bool]) -> bool:
    """Whether a sentence whose runs of three words are `said` in enough documents (each,
    in order) is a formula: all of them, or, in a short one, most."""
    if not said:
        return False
    if all(said):
        return True
    return len(said) <= FORMULA_SHORT and sum(said) >= max(2, FORMULA_MOST * len(said))


class SentenceIndex:
    """Sentences (rows of the index's `sentences` table) with their vectors."""

    def __init__(self, rows: list[dict], matrix: np.ndarray, data: IndexData):
        keep = [i for i, r in enumerate(rows) if r["chunk_id"] in data.chunks]
        self.sources = [Source(rows[i]["chunk_id"], rows[i]["start"], rows[i]["end"]) for i in keep]
        self.matrix = unit(matrix[keep]) if len(keep) else np.zeros((0, 1), np.float32)
        self.entities = [tuple(rows[i].get("entities") or ()) for i in keep]
        self.row_of = {(s.chunk_id, s.start): i for i, s in enumerate(self.sources)}
        self.document = [data.chunks[s.chunk_id].document_id for s in self.sources]
        self.degree = {name: e.degree for name, e in data.entities.items()}
        self._data = data
        naming: dict[str, list[int]] = {}
        for i, names in enumerate(self.entities):
            for name in names:
                naming.setdefault(name, []).append(i)
        self._naming = {k: np.asarray(v, dtype=np.int64) for k, v in naming.items()}
        by_doc: dict[str, list[int]] = {}
        for i, d in enumerate(self.document):
            by_doc.setdefault(d, []).append(i)
        self._by_doc = {k: np.asarray(v, dtype=np.int64) for k, v in by_doc.items()}
        by_chunk: dict[str, list[int]] = {}
        for i, s in enumerate(self.sources):
            by_chunk.setdefault(s.chunk_id, []).append(i)
        self._by_chunk = {k: np.asarray(v, dtype=np.int64) for k, v in by_chunk.items()}
        self._lexical: BM25 | None = None  # built on the first `asked`
        # sentences read together (`_beside`): made on the first question asking why, on
        # a view (`asked`'s), and kept in this list, which every view shares with the index
        self._pairs: list[np.ndarray] = []
        self._fused: tuple[np.ndarray, np.ndarray] | None = None  # (question vector, nearness)
        self._plain: tuple[np.ndarray, np.ndarray] | None = None  # the same, unlifted (`_lifted`)
        self._formulas: list[np.ndarray] = []  # made on first use (`formulaic`), shared by views
        self._amounts: dict[Asked, np.ndarray] = {}  # rows stating a value asked (`measured`)

    def __len__(self) -> int:
        return len(self.sources)

    def text(self, row: int) -> str:
        s = self.sources[row]
        return squash(self._data.chunks[s.chunk_id].text[s.start : s.end])

    def language(self, rows: np.ndarray) -> str:
        """The language most of the rows are in (their chunks'; "en" where none is known)."""
        chunks = self._data.chunks
        return main_language(chunks[self.sources[r].chunk_id].language for r in rows.tolist())

    def in_english(self) -> np.ndarray:
        """Which rows are in English (their chunks' language, or none known): the ones the
        embedder reads."""
        chunks = self._data.chunks
        return np.asarray([chunks[s.chunk_id].language in ("en", "") for s in self.sources],
                          dtype=bool)

    def quoted(self, row: int) -> str:
        """The sentence as an answer quotes it: a piece of a long sentence whole."""
        return self._data.quoted(self.sources[row])

    def formulaic(self) -> np.ndarray:
        """Per row, whether the sentence is a formula (`FORMULA_DOCUMENTS`): each run of
        three of its words said in many of the collection's documents (in a short one,
        most: `FORMULA_SHORT`)."""
        if not self._formulas:
            runs = [_runs(self.text(i)) for i in range(len(self))]
            documents: dict[tuple[str, str, str], set[str]] = {}
            for found, doc in zip(runs, self.document):
                for run in found:
                    documents.setdefault(run, set()).add(doc)
            least = max(FORMULA_DOCUMENTS, FORMULA_SHARE * len(self._by_doc))
            self._formulas.append(np.asarray(
                [_formula([len(documents[r]) >= least for r in found]) for found in runs],
                dtype=bool))
        return self._formulas[0]

    def rows_naming(self, names: Iterable[str]) -> np.ndarray:
        """Rows of the sentences that name any of `names`, in index order."""
        parts = [self._naming[n] for n in dict.fromkeys(names) if n in self._naming]
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate(parts))

    def rows_in_chunks_of(self, rows: np.ndarray) -> np.ndarray:
        """Rows of every sentence of the chunks that hold any of `rows`, in index order."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        chunks = dict.fromkeys(self.sources[r].chunk_id for r in rows.tolist())
        return np.unique(np.concatenate([self._by_chunk[c] for c in chunks]))

    def aboutness(self, rows: np.ndarray, members: frozenset[str] | None = None) -> np.ndarray:
        """How much each row says about a group: the members (all entities when None) it
        names, each weighted by the log of its degree."""
        out = np.zeros(len(rows), dtype=np.float32)
        for k, r in enumerate(rows.tolist()):
            named = self.entities[r] if members is None else [n for n in self.entities[r] if n in members]
            out[k] = sum(1.0 + np.log1p(self.degree.get(n, 0)) for n in set(named))
        return out

    def rows_of_document(self, document_id: str) -> np.ndarray:
        return self._by_doc.get(document_id, np.zeros(0, dtype=np.int64))

    def rows_of(self, sources: Iterable[Source]) -> np.ndarray:
        """Rows of the given sentences (those not in the index are left out)."""
        found = [self.row_of.get((s.chunk_id, s.start), -1) for s in sources]
        return np.asarray([i for i in dict.fromkeys(found) if i >= 0], dtype=np.int64)

    def similarity(self, vector: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Cosine nearness of each row (all rows when `rows` is None) to `vector`, settled
        (`settled`: rows whose nearness differs in the last bits tie, and every ranking
        here is a stable sort, so a tie goes to the earlier row on any CPU)."""
        q = unit(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        if self._fused is not None and np.array_equal(q, self._fused[0]):  # see `asked`
            return self._fused[1] if rows is None else self._fused[1][rows]
        m = self.matrix if rows is None else self.matrix[rows]
        return settled(m @ q).astype(np.float32) if len(m) else np.zeros(0, dtype=np.float32)

    def centroid(self, rows: np.ndarray) -> np.ndarray:
        """The unit mean of the rows' vectors: what a set of sentences is about."""
        if len(rows) == 0:
            return np.zeros(self.matrix.shape[1], dtype=np.float32)
        return unit(self.matrix[rows].mean(axis=0, keepdims=True))[0]

    def nearest(self, vector: np.ndarray, k: int, rows: np.ndarray | None = None) -> np.ndarray:
        """The `k` rows (of `rows`, or of all) nearest `vector`, best first."""
        sims = self.similarity(vector, rows)
        order = np.argsort(-sims, kind="stable")[:k]
        return order if rows is None else rows[order]

    # -- lexical fusion (issue 17) ---------------------------------------------------------
    def asked(self, question: str, vector: np.ndarray) -> SentenceIndex:
        """This index as `question` (embedded as `vector`) sees it: `similarity` and
        `nearest` for that vector rank by reciprocal rank fusion of nearness and BM25 on
        the question's words. Each row keeps a value on the embedder's scale: the fused
        i-th row gets the corpus's i-th highest nearness, so what is calibrated on cosines
        (themes' focus) reads the same; a question sharing no word ranks as before."""
        if self._lexical is None:
            self._lexical = BM25(self.text(i) for i in range(len(self)))
        sims = self.similarity(vector)
        by_vector = np.argsort(-sims, kind="stable")
        language = question_language(question, self._data.languages)
        weight = 1.0 if language in EMBEDDER_LANGUAGES else OTHER_LANGUAGE_WEIGHT
        order = fuse(by_vector, self._lexical.scores(question)[0], vector_weight=weight)
        fused = np.empty_like(sims)
        fused[order] = sims[by_vector]
        return self._seen_as(vector, fused)

    def _seen_as(self, vector: np.ndarray, nearness: np.ndarray) -> SentenceIndex:
        """A view of this index whose `similarity` to `vector` is `nearness` (a row each)."""
        view = copy.copy(self)
        view._fused = (unit(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0], nearness)
        view._plain = None  # (set by `_lifted` only)
        return view

    # -- reasons ---------------------------------------------------------------------------
    def explained(self, vector: np.ndarray) -> SentenceIndex:
        """This index as a question asking for a reason (`language.reasons.asks_why`) sees
        it: each sentence at least as near as the sentence beside it (`_beside`), less
        `REASON_MARGIN`. The sentence nearest "Why did the Aldren Water Trust oppose the
        dredging?" restates it ("The Aldren Water Trust opposes a plan to dredge Aldren
        Harbour."); the next one gives the reason ("Mara Quill argues that dredging would
        damage the mouth of the River Aldren.") and shares few of its words, so it was not
        quoted. LlamaIndex's sentence-window retrieval reads a window around each hit the
        same way; here the window's sentences are ranked, quoted and cited one by one."""
        sims = self.similarity(vector)
        pairs = self._beside()
        lifted = sims.copy()
        if len(pairs):
            a, b = pairs[:, 0], pairs[:, 1]
            np.maximum.at(lifted, b, sims[a] - REASON_MARGIN)
            np.maximum.at(lifted, a, sims[b] - REASON_MARGIN)
        return self._seen_as(vector, settled(lifted).astype(np.float32))

    # -- amounts ---------------------------------------------------------------------------
    def measured(self, vector: np.ndarray, asked: Asked) -> SentenceIndex:
        """This index as a question asking for a value (`language.amounts.Asked`) sees
        it: a sentence that states one is `AMOUNT_LIFT` nearer. "How long has Marley been
        dead?" is nearest to the sentences that say he is dead; the one that says how long
        ("'Mr. Marley has been dead these seven years,' Scrooge replied.") was fifth."""
        if asked not in self._amounts:
            self._amounts[asked] = np.fromiter(
                (states_amount(self.text(r), asked) for r in range(len(self))),
                dtype=bool, count=len(self))
        return self._lifted(vector, AMOUNT_LIFT * self._amounts[asked])

    # -- names -----------------------------------------------------------------------------
    def naming_others(self, vector: np.ndarray, question: str) -> SentenceIndex:
        """This index as a question asking for a name (`language.who`) sees it: a sentence
        naming an entity that `question` does not name (by a name, an alias or the words
        of its name: "Mrs Cratchit" in "Whose wife is Mrs. Cratchit?"; "Bob Cratchit" is
        not) is `NAME_LIFT` nearer."""
        named = set(self._data.named_in(question))
        key = normalise(question)
        other: dict[str, bool] = {}

        def names_other(names: tuple[str, ...]) -> bool:
            for n in names:
                if n not in other:
                    other[n] = n not in named and not contains(key, normalise(n))
                if other[n]:
                    return True
            return False

        states = np.fromiter((names_other(e) for e in self.entities), dtype=bool,
                             count=len(self))
        return self._lifted(vector, NAME_LIFT * states)

    def _lifted(self, vector: np.ndarray, lift: np.ndarray) -> SentenceIndex:
        """A view whose nearness to `vector` is this one's plus `lift` (a row each), and
        whose `plain_similarity` is this one's: how near the question is to the collection
        (a group's best sentence, `themes.Scored.peak`, and from it the question's focus)
        is measured without a lift. Lifted, "Who are the heroes of these stories?" was a
        focused question (focus 0.62, from 0.22), answered from fewer stories."""
        plain = self.plain_similarity(vector)
        view = self._seen_as(vector, settled(self.similarity(vector) + lift).astype(np.float32))
        view._plain = (view._fused[0], plain)
        return view

    def plain_similarity(self, vector: np.ndarray, rows: np.ndarray | None = None
                         ) -> np.ndarray:
        """`similarity`, without the lifts of `measured` and `naming_others`."""
        q = unit(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        if self._plain is not None and np.array_equal(q, self._plain[0]):
            return self._plain[1] if rows is None else self._plain[1][rows]
        return self.similarity(vector, rows)

    def reply(self, row: int, most: int = REPLY_SENTENCES) -> list[int]:
        """The first `most` sentences of the turn that answers the question at `row`, in a
        transcript: the next sentence of its chunk, or the next after the asker's own one or
        two, opens another speaker's turn ("KEVIN SCOTT: And you were on the CPU design
        team for one of their microprocessors, right?" then "JUDY ESTRIN: I was on the
        design team of the Z8 and Z8000."), up to that turn's end. [] where the row does not
        ask, or no one else answers it there."""
        text = self.text(row)
        if not asks(text):
            return []
        source = self.sources[row]
        in_chunk = sorted(self._by_chunk[source.chunk_id].tolist(), key=lambda r: self.sources[r].start)
        after = in_chunk[in_chunk.index(row) + 1:]
        # the asker may go on a sentence or two before the other speaker's turn
        for _ in range(ASKER_GOES_ON):
            if not after or label_of(self.text(after[0])):
                break
            after = after[1:]
        if not after:
            return []
        answering = label_of(self.text(after[0]))
        asking = label_of(text) or self._data.speaker(source)
        if not answering or answering == asking:
            return []
        turn = [after[0]]
        for r in after[1:most]:
            if label_of(self.text(r)):
                break
            turn.append(r)
        return turn

    def _beside(self) -> np.ndarray:
        """Pairs of rows (a, b) where b is the sentence just after a in its chunk, in the
        same paragraph, or the first sentence after a question ends a paragraph (its answer,
        in dialogue: "'Tell me why?'" then "'I wear the chain I forged in life,' replied
        the Ghost.")."""
        if not self._pairs:
            pairs = []
            for chunk_id, in_chunk in self._by_chunk.items():
                text = self._data.chunks[chunk_id].text
                rows = sorted(in_chunk.tolist(), key=lambda r: self.sources[r].start)
                for a, b in zip(rows, rows[1:]):
                    gap = text[self.sources[a].end:self.sources[b].start]
                    if not _PARAGRAPH.search(gap) or asks(self.text(a)):
                        pairs.append((a, b))
            self._pairs.append(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
        return self._pairs[0]
