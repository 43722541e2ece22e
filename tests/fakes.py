"""Test doubles for unit logic only: a scripted chat model that replays queued replies
and records what it was asked, and a deterministic hash-based embedder."""

from __future__ import annotations

import hashlib
import math
from collections import deque

import numpy as np

from graphrag_local.errors import InjectedFailure
from graphrag_local.models.protocol import CallRecord, choice_hash, prompt_hash

CHOSEN_LEAD = 20.0  # the scripted option's lead, in log-probability units, over the others


class FakeChatModel:
    """Replays queued replies for `complete`; `choose` asks `chooser(prompt, options,
    purpose)` for the option (default: the first option), which leads the others by
    CHOSEN_LEAD: a `bias` larger than that chooses another (per option, exactly)."""

    exact_choice_bias = True

    def __init__(self, replies=(), *, n_ctx: int = 4096, default=None, fail_after: int | None = None,
                 chooser=None):
        self.replies = deque(replies)
        self.default = default  # callable(messages, grammar, purpose) -> str, when the queue is empty
        self.chooser = chooser or (lambda prompt, options, purpose: options[0])
        self.closed = False
        self.parallel = 1
        self.n_ctx = n_ctx
        self.name = "fake"
        self.calls: list[CallRecord] = []
        self.asked: list[dict] = []
        self.fail_after = fail_after

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    def prompt_tokens(self, messages) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages)

    def close(self) -> None:
        self.closed = True

    def choose(self, prompts, options, *, bias=(), purpose=""):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise InjectedFailure("fake failure")
        picks = []
        for prompt in prompts:
            self.asked.append({"prompt": prompt, "options": options, "purpose": purpose})
            pick = options.index(self.chooser(prompt, options, purpose))
            if bias:
                scores = [b + (CHOSEN_LEAD if i == pick else 0.0) for i, b in enumerate(bias)]
                pick = max(range(len(options)), key=scores.__getitem__)
            picks.append(pick)
        self.calls.append(
            CallRecord(purpose, choice_hash(prompts, options),
                       sum(self.count_tokens(p) for p in prompts), 0, len(prompts), 0.0, "choice")
        )
        return picks

    def complete_many(self, requests, *, attempt=0):
        return [self.complete(r.messages, grammar=r.grammar, max_tokens=r.max_tokens,
                              attempt=attempt, purpose=r.purpose) for r in requests]

    def complete(self, messages, *, grammar=None, max_tokens=256, attempt=0, purpose="",
                 on_text=None, avoid=None):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise InjectedFailure("fake failure")
        self.asked.append({"messages": [dict(m) for m in messages], "grammar": grammar,
                           "purpose": purpose, "max_tokens": max_tokens})
        if self.replies:
            reply = self.replies.popleft()
        elif self.default is not None:
            reply = self.default(messages, grammar, purpose)
        else:
            raise AssertionError(f"fake model has no reply queued for a {purpose} call")
        if on_text is not None:  # stream word by word; the consumer may stop it
            streamed = ""
            for piece in reply.split(" "):
                piece = (" " if streamed else "") + piece
                streamed += piece
                if on_text(piece):
                    break
            reply = streamed
        self.calls.append(
            CallRecord(purpose, prompt_hash(messages, grammar or ""), self.prompt_tokens(messages),
                       0, self.count_tokens(reply), 0.0, "stop")
        )
        return reply


class HashEmbedder:
    name = "hash-embedder"
    dim = 16

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            digest = hashlib.sha256(t.encode()).digest()
            v = [b / 255 - 0.5 for b in digest[: self.dim]]
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out[i] = [x / norm for x in v]
        return out


def near_index(text: str, near: list[tuple], entities: dict | None = None):
    """A sentence index over one chunk, `text`, whose sentences (`near`: (sentence,
    nearness) or (sentence, nearness, names it names), in order) are exactly that near
    the question vector [1, 0, 0]; what is left of each vector lies on one of two other
    axes by turns."""
    from graphrag_local.schema import Chunk
    from graphrag_local.search.common import IndexData
    from graphrag_local.search.evidence import SentenceIndex

    chunks = {"k": Chunk("k", "d", "d.txt", 0, 0, 10, 10, text)}
    rows, at = [], 0
    for sentence, _x, *names in near:
        start = text.index(sentence, at)
        at = start + len(sentence)
        rows.append({"chunk_id": "k", "start": start, "end": at,
                     "entities": list(names[0]) if names else []})
    matrix = np.asarray([[x, math.sqrt(1 - x * x), 0] if i % 2 else [x, 0, math.sqrt(1 - x * x)]
                         for i, (_s, x, *_n) in enumerate(near)], dtype=np.float32)
    data = IndexData(entities=entities or {}, relationships=[], claims=[], chunks=chunks,
                     reports=[], communities=[])
    return SentenceIndex(rows, matrix, data)
