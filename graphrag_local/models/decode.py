"""Several replies decoded together in one llama.cpp context, one sequence each.

Independent requests (the map calls of a question, the reports of one community level,
the summaries of a build) share their instruction prefix: it is evaluated once, in
sequence 0, and its KV cells are copied to every other sequence (`llama_memory_seq_cp`).
Each step then decodes one batch holding the next token of every unfinished sequence, so
the weights are read once per step for all of them: on this 2-core CPU, generation is
bound by that read, and several sequences cost little more than one.

Sampling at temperature 0 is llama-cpp-python's chain (repeat penalty over the last 64
tokens, the grammar, greedy) done the cheap way: the penalised argmax is checked against
the grammar alone (what llama.cpp's own sampler does); only when the grammar rejects it
are the 64 best tokens masked, and all of them only when the grammar admits none of those
(`_greedy_among_best`: the same token, found without masking 151,936). Above temperature 0
(a preset's, or a retry's) the llama.cpp chain runs.
A job with a copy guard (`copying.py`: a writer's lines may not repeat a long run of their
evidence) has its greedy pick pass the guard too: a banned token is passed over for the
best one the guard and the grammar admit; above temperature 0 it is sampled here, not by
the chain, among the tokens the guard and the grammar admit (`_sampled`), and so is a job
that marks its unlikely tokens.

Forced text: where the grammar admits exactly one next character (a JSON key, a bracket,
the rest of a fixed word), the characters it forces are appended as tokens without a
decoding step of their own and evaluated together with the next sampled token; a space
that ends them is left to the model (its next token carries it, " Scrooge"). They are
counted apart. The same decoder serves one request and many, so a batched reply and a
sequential one differ only where floating-point sums taken in another order (a batch of
sequences goes through other matrix kernels) move a near-tie between two tokens.

Unlikely tokens: a job that asks (`Request.mark_unlikely`, a writer's) records where in its
text it took a token the model itself gave less than `UNLIKELY_P` (the grammar or the copy
guard ruled out what it would have written), and its reply carries them at the end of each
line as " ~4,17" (character offsets in the line: `annotated`).

This module does not import llama_cpp: `llama.py` hands it the library and the model."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from .copying import CopyGuard
from .protocol import UNLIKELY_MARK

PENALTY_LAST_N = 64  # what llama-cpp-python's Llama uses (last_n_tokens_size)
GUARD_TRIES = 8  # best tokens looked at before the grammar's mask, should the guard ban some
ASK_FIRST = 64  # best tokens the grammar is asked about before the whole vocabulary
UNLIKELY_P = 0.01  # a token taken below this probability (the model's own, before the grammar)


def annotated(text: str, offsets: list[int], last: bool = True) -> str:
    """`text` with each line's unlikely tokens (`offsets` into `text`) marked at its end, as
    offsets into the line: "- The Hen [3]" + " ~4". `last`: the last line too (not while
    it may go on)."""
    if not offsets:
        return text
    out, start = [], 0
    lines = text.split("\n")
    for k, line in enumerate(lines):
        end = start + len(line)
        marks = [o - start for o in offsets if start <= o < end]
        finished = k < len(lines) - 1 or last
        out.append(line + (UNLIKELY_MARK + ",".join(map(str, marks)) if marks and finished
                           else ""))
        start = end + 1
    return "\n".join(out)


@dataclass
class Job:
    """One request being decoded: its prompt tokens and what it produced so far."""

    prompt: list[int]
    grammar: str | None
    max_tokens: int
    stops: list[str]
    seq: int = 0
    pending: list[int] = field(default_factory=list)  # tokens to evaluate next step
    out: list[int] = field(default_factory=list)  # generated tokens
    forced: int = 0
    finish: str = ""
    text: str = ""
    reused: int = 0
    chain: object = None
    grammar_sampler: object = None
    on_text: object = None  # called with each new piece of text; True stops the job
    shown: int = 0  # characters of `reply(last=False)` passed to on_text
    guard: CopyGuard | None = None  # runs of its sources the reply may not copy
    mark: bool = False  # record where it took unlikely tokens (`unlikely`)
    unlikely: list[int] = field(default_factory=list)  # offsets in `text` of such tokens
    temperature: float = 0.0  # a guarded or marked job sampled above 0 (`Decoder._sampled`)
    rng: object = None  # ... and its random numbers, from the request's seed

    def reply(self, last: bool = True) -> str:
        """The text, with its unlikely tokens marked if it asked (`annotated`)."""
        return annotated(self.text, self.unlikely, last) if self.mark else self.text


class Decoder:
    """Runs jobs on a llama.cpp context of the model of a llama-cpp-python `Llama` (`llm`),
    with `lib` the llama_cpp module: on `llm`'s own context (one sequence, sharing its
    cached prompt with `create_completion`) or on `ctx`, a context of `max_seqs`
    sequences made for a batch."""

    def __init__(self, lib, llm, repeat_penalty: float, top_k: int, top_p: float,
                 ctx=None, max_seqs: int = 1):
        self.lib, self.llm, self.max_seqs = lib, llm, max_seqs
        self.repeat_penalty, self.top_k, self.top_p = repeat_penalty, top_k, top_p
        self.shared = ctx is None
        self.ctx = llm._ctx.ctx if ctx is None else ctx
        self._cached: list[int] = []  # what sequence 0 holds, on a context of our own
        self.vocab = llm._model.vocab
        self.n_vocab = llm.n_vocab()
        self.mem = lib.llama_get_memory(self.ctx)
        self.n_batch = max(1, int(lib.llama_n_batch(self.ctx)))  # tokens one decode may take
        self.eos = llm.token_eos()
        # tokens of one character each, to ask a grammar which characters it admits next
        singles: dict[str, int] = {}
        for token in range(self.n_vocab):
            piece = llm._model.token_to_piece(token).rstrip(b"\x00")
            if len(piece) == 1 and 32 <= piece[0] < 127:
                singles.setdefault(piece.decode(), token)
        self.single_chars = list(singles)
        self.single_ids = np.array([singles[c] for c in self.single_chars], dtype=np.int32)

    # -- samplers ----------------------------------------------------------------------
    def _samplers(self, job: Job, temperature: float, seed: int) -> None:
        """The job's grammar (for greedy picks and forced text), and above temperature 0
        llama-cpp-python's sampling chain (penalties, grammar, top-k/p, min-p, dist)."""
        lib = self.lib
        if job.grammar:
            job.grammar_sampler = lib.llama_sampler_init_grammar(
                self.vocab, job.grammar.encode("utf-8"), b"root")
            if not job.grammar_sampler:
                raise ValueError("the grammar does not parse")
        if temperature <= 0:
            return
        if job.guard is not None or job.mark:  # sampled here, past the guard (`_sampled`)
            job.temperature, job.rng = temperature, np.random.default_rng(seed)
            return
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_penalties(
            self.n_vocab, PENALTY_LAST_N, self.repeat_penalty, 0.0, 0.0))
        if job.grammar:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_grammar(
                self.vocab, job.grammar.encode("utf-8"), b"root"))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(self.top_k))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_typical(1.0, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(self.top_p, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_min_p(0.05, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temperature))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(seed))
        job.chain = chain

    def _candidates(self, ids: np.ndarray, logits: np.ndarray):
        """A llama_token_data_array over `ids` (kept alive with it)."""
        lib = self.lib
        data = (lib.llama_token_data * len(ids))()
        view = np.ctypeslib.as_array(data).view(
            np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)]))
        view["id"], view["logit"] = ids, logits
        arr = lib.llama_token_data_array(ctypes.cast(data, lib.llama_token_data_p), len(ids), -1,
                                         False)
        return arr, view, data

    def _admitted(self, grammar, ids: np.ndarray) -> np.ndarray:
        """Which of `ids` the grammar admits next."""
        arr, view, _data = self._candidates(ids, np.zeros(len(ids), dtype=np.float32))
        self.lib.llama_sampler_apply(grammar, ctypes.byref(arr))
        return ids[np.isfinite(view["logit"])]

    def _pick(self, job: Job, index: int, repeat_penalty: float) -> int:
        """The next token: at temperature 0 the greedy one, the penalised argmax if the
        grammar admits it (and the job's copy guard does), else the best token both admit
        (the best the grammar admits, should the guard ban them all); above it, one
        sampled among those both admit (`_sampled`). Where the job marks them, noted if
        the model gave it under `UNLIKELY_P`."""
        lib = self.lib
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self.ctx, index),
                                       shape=(self.n_vocab,)).copy()
        seen = np.unique(np.asarray(job.out[-PENALTY_LAST_N:], dtype=np.int64))
        if len(seen) and repeat_penalty != 1.0:
            v = logits[seen]
            logits[seen] = np.where(v <= 0, v * repeat_penalty, v / repeat_penalty)
        pick = self._sampled if job.temperature > 0 else self._greedy
        if not job.mark:
            return pick(job, logits)
        z = logits - logits.max()
        log_p = z - np.log(np.exp(z).sum())  # the model's own, before the grammar and guard
        token = pick(job, logits)
        if token >= 0 and log_p[token] < np.log(UNLIKELY_P):
            job.unlikely.append(len(job.text))
        return token

    def _greedy(self, job: Job, logits: np.ndarray) -> int:
        lib = self.lib
        for _ in range(GUARD_TRIES):
            token = int(np.argmax(logits))
            if not self._guarded(job, token):
                break
            logits[token] = -np.inf
        else:
            token = -1
        if token >= 0 and (job.grammar_sampler is None or len(
                self._admitted(job.grammar_sampler, np.array([token], np.int32)))):
            return token
        found = self._greedy_among_best(job, logits)
        if found is not None:
            return found
        arr, view, _data = self._candidates(np.arange(self.n_vocab, dtype=np.int32), logits)
        if job.grammar_sampler is not None:
            lib.llama_sampler_apply(job.grammar_sampler, ctypes.byref(arr))
        scores = view["logit"]
        best = int(np.argmax(scores))
        if not self._guarded(job, best):
            return best
        admitted = np.flatnonzero(np.isfinite(scores))  # (a bound grammar admits few)
        for token in admitted[np.argsort(-scores[admitted], kind="stable")][:GUARD_TRIES * 8]:
            if not self._guarded(job, int(token)):
                return int(token)
        return best

    def _sampled(self, job: Job, logits: np.ndarray) -> int:
        """A token sampled at the job's temperature as llama.cpp's chain samples (top-k,
        top-p, min-p 0.05 on the model's probabilities, then the temperature), among the
        `ASK_FIRST` best tokens that the grammar and the copy guard admit; the greedy pick
        where none of them is admitted. Sampled by the chain, a writer's reply at a
        temperature above 0 (a preset's, or a retry's) had no copy guard and no marks: the
        embedded model, asked to say a sentence again, said all of it."""
        n = len(logits)
        ids = np.argpartition(-logits, min(ASK_FIRST, n) - 1)[:ASK_FIRST]
        ids = ids[np.argsort(-logits[ids], kind="stable")].astype(np.int32)
        if job.grammar_sampler is not None:
            arr, view, _data = self._candidates(ids, logits[ids])
            self.lib.llama_sampler_apply(job.grammar_sampler, ctypes.byref(arr))
            ids = ids[np.isfinite(view["logit"])]
        admitted: list[int] = []
        for t in ids.tolist():  # best first, until top-k (the guard asked no further)
            if len(admitted) == self.top_k:
                break
            if not self._guarded(job, t):
                admitted.append(t)
        ids = np.array(admitted, dtype=np.int32)
        if not len(ids):
            return self._greedy(job, logits)
        z = logits[ids] - logits[ids[0]]  # (best first)
        p = np.exp(z) / np.exp(z).sum()
        keep = (np.cumsum(p) - p < self.top_p) & (p >= 0.05 * p[0])
        w = np.where(keep, np.exp(z / job.temperature), 0.0)
        return int(job.rng.choice(ids, p=w / w.sum()))

    def _greedy_among_best(self, job: Job, logits: np.ndarray) -> int | None:
        """What the whole-vocabulary pick below would give, found among the `ASK_FIRST`
        best tokens (and any tied with the last of them), or None when it may lie beyond
        them. The grammar masks a few dozen candidates instead of the whole vocabulary
        (151,936 for Qwen2.5): on this 2-core CPU the whole mask had taken 3.4 s of the
        534 tokens of Carol's written themes, more than a GPU's 2.3 ms a token. Exact: the
        admitted among the best are the first of all admitted in the same order (score
        down, then id), and the pick below looks no further than `GUARD_TRIES * 8`."""
        n = len(logits)
        if n <= ASK_FIRST:
            return None
        edge = np.partition(logits, n - ASK_FIRST)[n - ASK_FIRST]
        ids = np.flatnonzero(logits >= edge)
        ids = ids[np.argsort(-logits[ids], kind="stable")].astype(np.int32)
        arr, view, _data = self._candidates(ids, logits[ids])
        if job.grammar_sampler is not None:
            self.lib.llama_sampler_apply(job.grammar_sampler, ctypes.byref(arr))
        admitted = ids[np.isfinite(view["logit"])]
        if not len(admitted):
            return None
        for token in admitted[:GUARD_TRIES * 8]:
            if not self._guarded(job, int(token)):
                return int(token)
        return int(admitted[0]) if len(admitted) >= GUARD_TRIES * 8 else None

    def _guarded(self, job: Job, token: int) -> bool:
        """Whether the job's copy guard bans `token` next."""
        if job.guard is None or token == self.eos:
            return False
        piece = self.llm._model.token_to_piece(token).rstrip(b"\x00").decode(
            "utf-8", errors="ignore")  # (the piece comes padded with NULs)
        return job.guard.bans(job.text, piece)

    def _forced(self, job: Job) -> tuple[str, bool]:
        """The text the grammar forces next (one admitted character after another), and
        whether it then admits only the end of the reply."""
        if job.grammar_sampler is None:
            return "", False
        lib = self.lib
        probe = lib.llama_sampler_clone(job.grammar_sampler)
        text = ""
        try:
            while True:
                allowed = self._admitted(probe, self.single_ids)
                if len(allowed) != 1:
                    ends = not len(allowed) and len(self._admitted(
                        probe, np.array([self.eos], np.int32)))
                    if not ends:
                        # a space before a word is the word's token's (" Scrooge"): forced
                        # alone, it leaves the model a split it never saw (the 1.5B then
                        # wrote headings "## 1" and lines "-  Scrooge ...")
                        text = text.rstrip(" ")
                    return text, bool(ends) and not len(allowed)
                char = self.single_chars[int(np.flatnonzero(self.single_ids == allowed[0])[0])]
                lib.llama_sampler_accept(probe, int(allowed[0]))
                text += char
        finally:
            lib.llama_sampler_free(probe)

    def _accept(self, job: Job, token: int) -> None:
        if job.grammar_sampler is not None:
            self.lib.llama_sampler_accept(job.grammar_sampler, token)
        if job.chain is not None:
            self.lib.llama_sampler_accept(job.chain, token)

    # -- the loop ------------------------------------------------------------------------
    def run(self, jobs: list[Job], temperature: float, seed: int) -> None:
        """Decode `jobs` (at most `max_seqs`) to the end; fills each job's text, tokens,
        finish reason and forced count. The KV cache keeps job 0's sequence (prompt and
        reply) as the model's cached state; the other sequences are dropped."""
        lib, llm = self.lib, self.llm
        assert 0 < len(jobs) <= self.max_seqs
        prefix = _common_prefix([j.prompt for j in jobs])
        # sequence 0 holds the shared prefix (reusing what the cache already holds)
        keep = min(llm.longest_token_prefix(self.cached, jobs[0].prompt[:prefix]), prefix)
        lib.llama_memory_seq_rm(self.mem, -1, keep, -1)
        for s in range(1, self.max_seqs):
            lib.llama_memory_seq_rm(self.mem, s, -1, -1)
        self.cached = jobs[0].prompt[:keep]
        for i, job in enumerate(jobs):
            job.seq = i
            job.reused = keep
            job.pending = job.prompt[keep:] if i == 0 else job.prompt[prefix:]
            self._samplers(job, temperature, seed)
        if prefix > keep and len(jobs) > 1:  # evaluate the shared part once, in sequence 0
            self._decode([(jobs[0], jobs[0].prompt[keep:prefix], keep)])
            jobs[0].pending = jobs[0].prompt[prefix:]
        for job in jobs[1:]:
            lib.llama_memory_seq_cp(self.mem, 0, job.seq, 0, prefix)
            job.reused = prefix
        positions = {j.seq: (prefix if j.seq else len(j.prompt) - len(j.pending)) for j in jobs}
        active = list(jobs)
        while active:
            rows = []
            for job in active:
                rows.append((job, job.pending, positions[job.seq]))
                positions[job.seq] += len(job.pending)
            index = self._decode(rows)
            still = []
            for job in active:
                if job.chain is not None:  # a retry above temperature 0
                    token = lib.llama_sampler_sample(job.chain, self.ctx, index[job.seq])
                    if job.grammar_sampler is not None:
                        lib.llama_sampler_accept(job.grammar_sampler, token)
                else:
                    token = self._pick(job, index[job.seq], self.repeat_penalty)
                    self._accept(job, token)
                job.pending = []
                if self._take(job, token):
                    continue
                text, ends = self._forced(job)
                for forced in (self.llm.tokenize(text.encode(), add_bos=False, special=False)
                               if text else ()):
                    job.forced += 1
                    self._accept(job, forced)
                    if self._take(job, forced):
                        break
                if ends and not job.finish:
                    job.finish = "stop"
                if not job.finish:
                    still.append(job)
            active = still
        for job in jobs:
            if job.on_text is not None and job.mark:
                if len(reply := job.reply()) > job.shown:
                    job.on_text(reply[job.shown:])  # the last line's marks
            if job.chain is not None:
                lib.llama_sampler_free(job.chain)
            if job.grammar_sampler is not None:
                lib.llama_sampler_free(job.grammar_sampler)
        # the model's cached state: job 0's tokens that reached the KV cache
        first = jobs[0]
        state = first.prompt + first.out[: len(first.out) - len(first.pending)]
        for s in range(1, len(jobs)):
            lib.llama_memory_seq_rm(self.mem, s, -1, -1)
        self.cached = state

    # -- choices ----------------------------------------------------------------------------
    def choose(self, prompts: list[list[int]], roots: list) -> tuple[list[int], dict[str, int]]:
        """For each prompt (at most `max_seqs`), the option its trie (`roots[i]`, see
        `llm._OptionTrie`) leads to by greedy choice over the options' tokens plus their
        bias, decoded together as a two-level tree of prefixes: what all prompts share (the
        instructions) once, in sequence 0, reusing what the cache holds; then what each
        run of consecutive prompts shares beyond it (the sentence a name is asked about)
        once, in the first sequence of the run; then each prompt's own tail (the name), all
        in one batch. Forced steps (one way on) are appended without a step of their own.
        Returns the option indices and token counts (evaluated, reused, steps, forced)."""
        lib, llm = self.lib, self.llm
        n = len(prompts)
        assert 0 < n <= self.max_seqs
        shared = _common_prefix(prompts)
        keep = min(llm.longest_token_prefix(self.cached, prompts[0][:shared]), shared)
        lib.llama_memory_seq_rm(self.mem, -1, keep, -1)
        for s in range(1, self.max_seqs):
            lib.llama_memory_seq_rm(self.mem, s, -1, -1)
        self.cached = prompts[0][:keep]
        jobs = [Job(p, None, 0, [], seq=i) for i, p in enumerate(prompts)]
        stats = {"evaluated": 0, "reused": keep, "steps": 0, "forced": 0}
        if shared > keep:
            self._decode([(jobs[0], prompts[0][keep:shared], keep)])
            stats["evaluated"] += shared - keep
        # runs of consecutive prompts with a longer common prefix (one sentence, several names)
        runs: list[list[int]] = []
        for i in range(n):
            if runs and _common_prefix([prompts[runs[-1][0]], prompts[i]]) > shared:
                runs[-1].append(i)
            else:
                runs.append([i])
        heads = {}
        for run in runs:
            head = run[0]
            own = _common_prefix([prompts[i] for i in run]) if len(run) > 1 else shared
            heads[head] = own
            if head:
                lib.llama_memory_seq_cp(self.mem, 0, head, 0, shared)
        level = [(jobs[h], prompts[h][shared:own], shared) for h, own in heads.items() if own > shared]
        if level:
            self._decode(level)
            stats["evaluated"] += sum(len(t) for _, t, _ in level)
        stats["reused"] += shared * (n - 1)
        rows = {}
        for run in runs:
            head, own = run[0], heads[run[0]]
            for i in run:
                if i != head:
                    lib.llama_memory_seq_cp(self.mem, head, i, 0, own)
                    stats["reused"] += own - shared
                rows[i] = (jobs[i], prompts[i][own:], own)
        stats["evaluated"] += sum(len(t) for _, t, _ in rows.values())
        nodes = list(roots)
        picks = [-1] * n
        first = True
        in_cache = list(prompts[0])  # what sequence 0 holds once each round is decoded
        while rows:
            index = self._decode(list(rows.values()))
            if not first and 0 in rows:
                in_cache += rows[0][1]
            nxt = {}
            for seq, (job, toks, pos) in rows.items():
                logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self.ctx, index[seq]),
                                               shape=(self.n_vocab,))
                node = nodes[seq]
                token = max(node.children, key=lambda t: logits[t] + node.bias[t])
                if not first:
                    stats["steps"] += 1
                node = node.children[token]
                path = [token]
                while not node.done and len(node.children) == 1:  # the only way on
                    token, node = next(iter(node.children.items()))
                    path.append(token)
                    stats["forced"] += 1
                nodes[seq] = node
                job.out += path
                if node.done:
                    picks[seq] = node.option
                else:
                    nxt[seq] = (job, path, pos + len(toks))
            rows, first = nxt, False
        for s in range(1, n):
            lib.llama_memory_seq_rm(self.mem, s, -1, -1)
        self.cached = in_cache
        return picks, stats

    def log_probs(self, prompt: list[int], text: list[int]) -> list[float]:
        """The log-probability the model gives each token of `text` after `prompt` and the
        tokens of `text` before it (one pass, on sequence 0, reusing what the cache holds
        of `prompt`)."""
        lib, llm = self.lib, self.llm
        keep = min(llm.longest_token_prefix(self.cached, prompt), len(prompt) - 1)
        lib.llama_memory_seq_rm(self.mem, -1, keep, -1)
        for s in range(1, self.max_seqs):
            lib.llama_memory_seq_rm(self.mem, s, -1, -1)
        self.cached = prompt[:keep]
        job = Job(prompt + text, None, 0, [], seq=0)
        head, pos = prompt[keep:-1], keep
        while head:  # the prompt, no logits, in pieces of at most n_batch tokens
            self._submit([(job, head[:self.n_batch], pos)], logits=False)
            pos += len(head[:self.n_batch])
            head = head[self.n_batch:]
        tail = (prompt[-1:] + text)[:-1]  # each of these predicts the next token of `text`
        out: list[float] = []
        for start in range(0, len(tail), self.n_batch):
            piece = tail[start:start + self.n_batch]
            index = self._submit([(job, piece, pos)], logits=True, every=True)
            for k in range(len(piece)):
                logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self.ctx, index[k]),
                                               shape=(self.n_vocab,)).astype(np.float64)
                z = logits - logits.max()
                out.append(float(z[text[start + k]] - np.log(np.exp(z).sum())))
            pos += len(piece)
        self.cached = (prompt + text)[:-1]
        return out

    @property
    def cached(self) -> list[int]:
        """The tokens sequence 0 holds in the KV cache."""
        if self.shared:
            return self.llm._input_ids[: self.llm.n_tokens].tolist()
        return self._cached

    @cached.setter
    def cached(self, tokens: list[int]) -> None:
        if self.shared:  # keep llama-cpp-python's view of its cache true
            self.llm.input_ids[: len(tokens)] = tokens
            self.llm.n_tokens = len(tokens)
        else:
            self._cached = list(tokens)

    def _take(self, job: Job, token: int) -> bool:
        """Add a produced token to the job; True when the job is finished."""
        if self.lib.llama_vocab_is_eog(self.vocab, token):
            job.finish = "stop"
            return True
        job.out.append(token)
        job.pending.append(token)
        text = self.llm.detokenize(job.out).decode("utf-8", errors="ignore")
        for stop in job.stops:
            at = text.find(stop)
            if at != -1:
                job.text, job.finish = text[:at], "stop"
                return True
        job.text = text
        shown = job.reply(last=False) if job.on_text is not None else ""
        if len(shown) > job.shown:  # (its marks too: `shown` counts them)
            piece, job.shown = shown[job.shown:], len(shown)
            if job.on_text(piece):
                job.finish = "stopped"
                return True
        if len(job.out) >= job.max_tokens:
            job.finish = "length"
            return True
        return False

    def _decode(self, rows: list[tuple[Job, list[int], int]]) -> dict[int, int]:
        """Evaluate `rows` (job, tokens, position of the first); returns the batch index of
        each sequence's last token, whose logits the last llama_decode computed. All but
        the last token of each row go first, in pieces of at most n_batch tokens (llama.cpp
        refuses a bigger batch: several prompts' tails together can exceed it); then the
        last tokens, together."""
        head: list[tuple[Job, list[int], int]] = []
        used = 0
        for job, toks, pos in rows:
            start = 0
            while start < len(toks) - 1:
                take = min(self.n_batch - used, len(toks) - 1 - start)
                head.append((job, toks[start : start + take], pos + start))
                used += take
                start += take
                if used == self.n_batch:
                    self._submit(head, logits=False)
                    head, used = [], 0
        if head:
            self._submit(head, logits=False)
        return self._submit([(job, toks[-1:], pos + len(toks) - 1) for job, toks, pos in rows
                             if toks], logits=True)

    def _submit(self, rows: list[tuple[Job, list[int], int]], logits: bool,
                every: bool = False) -> dict[int, int]:
        """One llama_decode; with `logits`, each row's last token's are computed (with
        `every`, of one row, each of its tokens', by their place in it)."""
        lib = self.lib
        n = sum(len(toks) for _, toks, _ in rows)
        batch = lib.llama_batch_init(n, 0, 1)
        try:
            k, index = 0, {}
            for job, toks, pos in rows:
                for t, token in enumerate(toks):
                    batch.token[k] = token
                    batch.pos[k] = pos + t
                    batch.n_seq_id[k] = 1
                    batch.seq_id[k][0] = job.seq
                    batch.logits[k] = logits and (every or t == len(toks) - 1)
                    k += 1
                index[job.seq] = k - 1
            if every:
                index = {t: t for t in range(n)}
            batch.n_tokens = n
            rc = lib.llama_decode(self.ctx, batch)
            if rc != 0:
                raise RuntimeError(f"llama_decode returned {rc}")
            return index
        finally:
            lib.llama_batch_free(batch)


def _common_prefix(prompts: list[list[int]]) -> int:
    """Length of the prefix all prompts share, leaving each at least one token of its own."""
    n = min(len(p) for p in prompts) - 1
    first = prompts[0]
    for p in prompts[1:]:
        i = 0
        while i < n and p[i] == first[i]:
            i += 1
        n = i
    return max(0, n)
