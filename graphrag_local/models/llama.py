"""The chat model run in-process through llama-cpp-python. This is the only module that
imports llama_cpp.

Two ways to ask. `complete` writes: prompts are formatted with the model's own chat
template (or a plain transcript for base models), tokenized with the model's own
tokenizer and run as a completion on that token list, under a grammar for every
structured reply. `choose` only chooses: for a raw text it picks one of a few given
continuations by the model's own next-token scores, with no sampling and no free text;
where the options leave a single way on, those tokens are appended without a decoding
step. Both paths give exact token budgets and exact counts of prompt tokens reused from
the KV cache.

The Protocol it implements is `protocol.py`'s; several replies decoded together are
`decode.py`'s. It does not choose a preset or find a GGUF (`presets.py`)."""

from __future__ import annotations

import logging
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BudgetError, ConfigError, ModelError
from .copying import CopyGuard
from .decode import Decoder, Job, _common_prefix
from .gpu_probe import gpu_load_crash
from .presets import Preset, check_gguf
from .protocol import (
    Avoid,
    CallRecord,
    Message,
    OnText,
    Request,
    Sampling,
    _fail_after_calls,
    calls_allowed,
    choice_hash,
    prompt_hash,
)

log = logging.getLogger(__name__)
MASK = "\ue000"  # stands, in a formatted prompt, for text of a message that must stay text


def _mask_special(llm, messages: list[Message]) -> tuple[list[Message], list[str]]:
    """The messages with every special token's text in their content (a document's
    "<|im_start|>", as llama.cpp would parse it) and every MASK replaced by MASK, and
    the texts replaced, in order. Contents without any are passed as they are, so their
    prompts tokenize exactly as before."""
    attrs = _special_attrs()
    out, literals = [], []
    for m in messages:
        content = m.get("content") or ""
        data = content.encode("utf-8")
        ids = llm.tokenize(data, add_bos=False, special=True)
        found = {MASK} if MASK in content else set()
        if ids != llm.tokenize(data, add_bos=False, special=False):
            found |= {llm._model.token_get_text(t) for t in set(ids)
                      if llm._model.token_get_attr(t) & attrs}
        if found:
            texts = sorted(found, key=len, reverse=True)
            pattern = re.compile("|".join(re.escape(t) for t in texts))
            content = pattern.sub(lambda x: literals.append(x.group()) or MASK, content)
            m = {**m, "content": content}
        out.append(m)
    return out, literals


def _special_attrs() -> int:
    """Token attributes that llama.cpp parses as special tokens when asked to."""
    import llama_cpp

    return (llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
            | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN)


def backend() -> tuple[str, str, bool]:
    """(llama-cpp-python's version, llama.cpp's system info, whether the build offloads
    layers to a GPU), for `doctor`; raises what importing llama_cpp raises."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    return llama_cpp.__version__, info, bool(llama_cpp.llama_supports_gpu_offload())


def _build_id(llama_cpp) -> str:
    """The llama.cpp build in use: its version, and where its shared library is and when
    it was written (a rebuild in place changes it)."""
    lib = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or Path(llama_cpp.__file__).parent / "lib")
    try:
        stamp = max((f.stat().st_mtime_ns for f in lib.glob("*llama*")), default=0)
    except OSError:
        stamp = 0
    return f"{llama_cpp.__version__}|{lib.resolve()}|{stamp}"


def env_threads() -> int | None:
    """GRAPHRAG_LOCAL_THREADS: CPU threads for llama.cpp (unset: all cores)."""
    value = os.environ.get("GRAPHRAG_LOCAL_THREADS", "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"GRAPHRAG_LOCAL_THREADS={value!r} is not a positive whole number "
                          "of CPU threads")
    return int(value)


@dataclass
class LlamaChatModel:
    """A GGUF model run in-process through llama-cpp-python."""

    exact_choice_bias = True  # `choose` walks a trie: bias counts where options part

    preset: Preset
    path: Path
    seed: int = 42
    n_threads: int | None = None
    verbose: bool = False
    calls: list[CallRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_gguf(self.path)
        try:
            import llama_cpp
        except ImportError as exc:  # pragma: no cover - install problem
            raise ModelError(f"llama-cpp-python is not installed: {exc}") from None
        self._llama_cpp = llama_cpp
        offload = bool(llama_cpp.llama_supports_gpu_offload())
        n_gpu = self.preset.n_gpu_layers
        if n_gpu < 0:
            n_gpu = -1 if offload else 0
        if n_gpu != 0 and offload:
            crash = gpu_load_crash(self.path, n_gpu, _build_id(llama_cpp))
            if crash:  # it would end this process: the CPU instead, and say so
                log.warning(
                    "llama.cpp dies (%s) loading %s on the GPU in a process that has "
                    "loaded numpy, pyarrow and lancedb, as graphrag-local must: it runs on "
                    "the CPU instead, slowly. For the GPU, serve it from a process of its "
                    "own (llama-server -m %s -ngl 99 --port 8080) and register that: "
                    "graphrag-local models add NAME --url http://127.0.0.1:8080 --model ID "
                    "(README: 'Speed: batching and model servers').",
                    crash, self.path, self.path)
                n_gpu = 0
        self.n_gpu_layers = n_gpu
        self.parallel = self.preset.parallel or auto_parallel(self.path)
        threads = self.n_threads or env_threads() or os.cpu_count() or 1
        try:
            self._threads = threads
            with _without_amx(llama_cpp):
                self._llm = llama_cpp.Llama(
                    model_path=str(self.path),
                    n_ctx=self.preset.n_ctx,
                    n_batch=self.preset.n_ctx,
                    n_gpu_layers=n_gpu,
                    n_threads=threads,
                    n_threads_batch=threads,
                    seed=self.seed,
                    verbose=self.verbose,
                    logits_all=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"llama.cpp could not load {self.path} ({exc}); the file may be corrupt "
                "or of an architecture this llama-cpp-python build does not support"
            ) from None
        self.name = self.preset.name
        self.n_ctx = self._llm.n_ctx()
        self._formatter = self._make_formatter()
        self._grammars: dict[str, object] = {}
        self._fail_after = _fail_after_calls()
        p = self.preset
        self.sampling = Sampling(p.temperature, self.seed, p.top_k, p.top_p, p.repeat_penalty)
        self._decoder = Decoder(llama_cpp, self._llm, p.repeat_penalty, p.top_k, p.top_p)
        self._batch: Decoder | None = None

    # -- formatting -------------------------------------------------------------------
    def _make_formatter(self):
        fmt = self.preset.chat_format
        chat_format = self._llama_cpp.llama_chat_format
        if fmt == "plain":
            return _plain_format
        if fmt == "auto":
            template = self._llm.metadata.get("tokenizer.chat_template")
            if not template:
                raise ModelError(
                    f"{self.path.name} carries no chat template; set chat_format in its "
                    "preset (e.g. \"plain\" for a base model, or \"chatml\")"
                )
            model = self._llm._model
            eos = model.token_get_text(self._llm.token_eos())
            bos_id = self._llm.token_bos()
            bos = model.token_get_text(bos_id) if bos_id != -1 else ""
            jinja = chat_format.Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)

            def fmt_jinja(messages: list[Message]) -> tuple[str, list[str], bool]:
                r = jinja(messages=messages)
                return r.prompt, [eos] if eos else [], True

            return fmt_jinja
        formatter = getattr(chat_format, "format_" + fmt.replace("-", "_"), None)
        if formatter is None:
            raise ModelError(f"preset '{self.preset.name}': unknown chat_format '{fmt}'")

        def fmt_named(messages: list[Message]) -> tuple[str, list[str], bool]:
            r = formatter(messages=messages)
            stop = r.stop if isinstance(r.stop, list) else ([r.stop] if r.stop else [])
            return r.prompt, stop, r.added_special

        return fmt_named

    def _tokens(self, messages: list[Message]) -> tuple[list[int], list[str]]:
        """The chat template's markers are special tokens; text in the messages never is
        ("<|im_start|>assistant" in a document stays text: see `_mask_special`)."""
        messages, literals = _mask_special(self._llm, messages)
        prompt, stop, added_special = self._formatter(messages)
        pieces = prompt.split(MASK)
        if len(pieces) != len(literals) + 1:  # the template dropped or repeated a message
            pieces, literals = ["".join(pieces)], []  # then without the masked texts
        tokens = self._llm.tokenize(pieces[0].encode("utf-8"), add_bos=not added_special,
                                    special=True)
        for literal, piece in zip(literals, pieces[1:]):
            tokens += self._llm.tokenize(literal.encode("utf-8"), add_bos=False, special=False)
            tokens += self._llm.tokenize(piece.encode("utf-8"), add_bos=False, special=True)
        return tokens, stop

    # -- the Protocol ---------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, messages: list[Message]) -> int:
        return len(self._tokens(messages)[0])

    def _grammar(self, grammar: str | None):
        if grammar is None:
            return None
        if grammar not in self._grammars:
            if len(self._grammars) > 64:
                self._grammars.clear()
            self._grammars[grammar] = self._llama_cpp.LlamaGrammar.from_string(
                grammar, verbose=False
            )
        return self._grammars[grammar]

    def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int = 256,
        attempt: int = 0,
        purpose: str = "",
        on_text: OnText | None = None,
        avoid: Avoid | None = None,
    ) -> str:
        if on_text is None or grammar is not None or avoid is not None:
            # under a grammar, the decoder's cheap check (`decode.py`): under a writer's
            # large grammar 3x faster than llama-cpp-python's sampler, which masks every
            # token each step; as fast under a small one
            return self._complete_one(Request(messages, grammar, max_tokens, purpose, avoid),
                                      attempt, on_text)
        self._check_injected_failure()
        tokens, stop = self._tokens(messages)
        self._check_budget(len(tokens), max_tokens, purpose)
        cached = self._llm._input_ids[: self._llm.n_tokens].tolist()
        reused = self._llm.longest_token_prefix(cached, tokens)
        p = self.preset
        started = time.perf_counter()
        temperature, seed = self.sampling.at(attempt)
        kwargs = dict(
            prompt=tokens, max_tokens=max_tokens, temperature=temperature,
            top_k=p.top_k, top_p=p.top_p, repeat_penalty=p.repeat_penalty,
            seed=seed, stop=stop or None, grammar=self._grammar(grammar),
        )
        text, finish, n_out = self._stream(kwargs, on_text)
        self.calls.append(
            CallRecord(
                purpose=purpose,
                prompt_hash=prompt_hash(messages, grammar or ""),
                prompt_tokens=len(tokens),
                reused_tokens=min(reused, len(tokens) - 1) if tokens else 0,
                completion_tokens=n_out,
                seconds=time.perf_counter() - started,
                finish_reason=finish,
            )
        )
        return text

    def _complete_one(self, request: Request, attempt: int, on_text: OnText | None) -> str:
        tokens, stop = self._tokens(request.messages)
        self._check_budget(len(tokens), request.max_tokens, request.purpose)
        job = Job(tokens, request.grammar, request.max_tokens, stop, on_text=on_text,
                  guard=_guard(request), mark=request.mark_unlikely)
        self._run(self._decoder, [request], [job], attempt)
        return job.reply()

    def reread(self, messages: list[Message], text: str) -> list[float]:
        """The log-probability the model gives each token of `text` as its reply to
        `messages` (`checked.REREAD_TOKENS`: how a written line reads to the writer)."""
        tokens, _stop = self._tokens(messages)
        ids = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if not ids or len(tokens) + len(ids) > self.n_ctx:
            return []
        # on the batch context: a line streamed is read again while the model's own
        # context is still writing the next
        with self._batch_decoder() as decoder:
            return decoder.log_probs(tokens, ids)

    def complete_many(self, requests: list[Request], *, attempt: int = 0) -> list[str]:
        jobs = []
        for r in requests:
            tokens, stop = self._tokens(r.messages)
            self._check_budget(len(tokens), r.max_tokens, r.purpose)
            jobs.append(Job(tokens, r.grammar, r.max_tokens, stop, guard=_guard(r),
                            mark=r.mark_unlikely))
        if self.parallel <= 1 or len(jobs) == 1:
            for r, job in zip(requests, jobs):
                self._run(self._decoder, [r], [job], attempt)
            return [job.reply() for job in jobs]
        with self._batch_decoder() as decoder:
            pending = list(zip(requests, jobs))
            while pending:
                group = [pending.pop(0)]  # as many as the sequences and KV cells allow
                while pending and len(group) < self.parallel and _cells(
                        [j for _, j in group + pending[:1]]) <= self.n_ctx * self.parallel:
                    group.append(pending.pop(0))
                self._run(decoder, [r for r, _ in group], [j for _, j in group], attempt)
        return [job.reply() for job in jobs]

    def _run(self, decoder: Decoder, requests: list[Request], jobs: list[Job], attempt: int):
        self._check_injected_failure()
        started = time.perf_counter()
        try:
            decoder.run(jobs, *self.sampling.at(attempt))
        except ValueError as exc:
            raise ModelError(
                f"a {requests[0].purpose or 'reply'} grammar is invalid: {exc}") from None
        seconds = (time.perf_counter() - started) / len(jobs)
        for r, job in zip(requests, jobs):
            self.calls.append(
                CallRecord(
                    purpose=r.purpose,
                    prompt_hash=prompt_hash(r.messages, r.grammar or ""),
                    prompt_tokens=len(job.prompt),
                    reused_tokens=min(job.reused, len(job.prompt) - 1),
                    completion_tokens=len(job.out) - job.forced,
                    seconds=seconds,
                    finish_reason=job.finish,
                    forced_tokens=job.forced,
                )
            )

    @contextmanager
    def _batch_decoder(self):
        """A second context of `parallel` sequences with n_ctx cells each (the prefix
        they share stored once), made the first time requests are decoded together and
        kept until `close`: its KV memory is only taken by work that batches."""
        if self._batch is None:
            lib = self._llama_cpp
            main = self._llm.context_params  # the same settings as the model's own context
            params = type(main).from_buffer_copy(main)
            params.n_ctx = self.n_ctx * self.parallel
            params.n_seq_max = self.parallel
            params.kv_unified = True
            ctx = lib.llama_init_from_model(self._llm._model.model, params)
            if not ctx:
                raise ModelError(
                    f"llama.cpp could not make a context for {self.parallel} sequences of "
                    f"{self.n_ctx} tokens; lower `parallel` in the model preset")
            p = self.preset
            self._batch = Decoder(lib, self._llm, p.repeat_penalty, p.top_k, p.top_p, ctx,
                                  self.parallel)
        yield self._batch

    def _check_budget(self, prompt: int, max_tokens: int, purpose: str) -> None:
        if prompt + max_tokens > self.n_ctx:
            raise BudgetError(
                f"a {purpose or 'prompt'} of {prompt} tokens plus {max_tokens} output "
                f"tokens does not fit the model context n_ctx={self.n_ctx}; lower "
                "chunks.size or raise n_ctx in the model preset"
            )

    def _stream(self, kwargs: dict, on_text: OnText) -> tuple[str, str, int]:
        pieces: list[str] = []
        finish, n_out = "stopped", 0
        stream = self._llm.create_completion(**kwargs, stream=True)
        try:
            for part in stream:
                choice = part["choices"][0]
                if choice["text"]:
                    n_out += 1
                    pieces.append(choice["text"])
                    if on_text(choice["text"]):
                        break
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
                    break
        finally:
            stream.close()
        return "".join(pieces), finish, n_out

    def choose(
        self,
        prompts: list[str],
        options: tuple[str, ...],
        *,
        bias: tuple[float, ...] = (),
        purpose: str = "",
    ) -> list[int]:
        self._check_injected_failure()
        if not prompts:
            return []
        started = time.perf_counter()
        trie = _OptionTrie(options, bias, self._option_tokens)
        if self.parallel > 1 and len(prompts) > 1:
            picks, stats = self._choose_together(prompts, trie, purpose)
            evaluated, reused, steps, forced = (stats[k] for k in (
                "evaluated", "reused", "steps", "forced"))
        else:
            picks, evaluated, reused, steps, forced = self._choose_one_by_one(prompts, trie, purpose)
        self.calls.append(
            CallRecord(
                purpose=purpose,
                prompt_hash=choice_hash(prompts, options),
                prompt_tokens=evaluated + reused,
                reused_tokens=reused,
                completion_tokens=steps,  # a choice read off the prompt's logits costs none
                seconds=time.perf_counter() - started,
                finish_reason="choice",
                forced_tokens=forced,
            )
        )
        return picks

    def _raw_tokens(self, prompt: str, purpose: str) -> list[int]:
        # raw text, no chat template: nothing in it is a special token (a document's
        # "<|im_end|>" included)
        tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        if len(tokens) + 1 > self.n_ctx:
            raise BudgetError(
                f"a {purpose or 'choice'} prompt of {len(tokens)} tokens does not fit the "
                f"model context n_ctx={self.n_ctx}")
        return tokens

    def _choose_together(self, prompts: list[str], trie, purpose: str):
        """The prompts in groups of `parallel`, each group decoded as parallel sequences
        of the batch context (`Decoder.choose`): the same choices as one by one, up to
        floating-point order (a near-tie may fall the other way, as for `complete_many`)."""
        picks: list[int] = []
        totals = {"evaluated": 0, "reused": 0, "steps": 0, "forced": 0}
        tokens = [self._raw_tokens(p, purpose) for p in prompts]
        with self._batch_decoder() as decoder:
            for start in range(0, len(tokens), self.parallel):
                group = tokens[start : start + self.parallel]
                got, stats = decoder.choose(group, [trie.root] * len(group))
                picks += got
                for k in totals:
                    totals[k] += stats[k]
        return picks, totals

    def _choose_one_by_one(self, prompts: list[str], trie, purpose: str):
        evaluated = reused = steps = forced = 0
        picks: list[int] = []
        for prompt in prompts:
            tokens = self._raw_tokens(prompt, purpose)
            node, path = trie.root, list(tokens)
            while not node.done:
                if len(node.children) == 1:  # the only way on: no decoding step
                    token, node = next(iter(node.children.items()))
                    forced += 1
                else:
                    if len(path) + 1 > self.n_ctx:
                        raise BudgetError(
                            f"a {purpose or 'choice'} prompt of {len(path)} tokens does not "
                            f"fit the model context n_ctx={self.n_ctx}"
                        )
                    n_new, n_old = self._feed(path)
                    reused += n_old
                    if len(path) > len(tokens):
                        steps += 1  # a step down the options: decoding what was chosen
                    else:
                        evaluated += n_new
                    logits = self._last_logits()
                    token = max(node.children, key=lambda t: logits[t] + node.bias[t])
                    node = node.children[token]
                path.append(token)
            picks.append(node.option)
        return picks, evaluated, reused, steps, forced

    def _option_tokens(self, option: str) -> list[int]:
        return self._llm.tokenize(option.encode("utf-8"), add_bos=False, special=False)

    def _feed(self, tokens: list[int]) -> tuple[int, int]:
        """Make the KV cache hold exactly `tokens`, evaluating only what it lacks; the
        logits of the last token are then ready. Returns (evaluated, reused)."""
        llm = self._llm
        cached = llm._input_ids[: llm.n_tokens].tolist()
        keep = min(llm.longest_token_prefix(cached, tokens), len(tokens) - 1)
        llm.n_tokens = keep  # eval() drops the cache beyond this point
        llm.eval(tokens[keep:])
        return len(tokens) - keep, keep

    def _last_logits(self):
        import numpy as np

        ptr = self._llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self._llm.n_vocab(),))

    def _check_injected_failure(self) -> None:
        calls_allowed(self._fail_after, len(self.calls), 1)

    def close(self) -> None:
        if getattr(self, "_batch", None) is not None:
            self._llama_cpp.llama_free(self._batch.ctx)
            self._batch = None
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()


class _OptionTrie:
    """The options of a `choose` call as a trie of their tokens. A node with one child
    is a forced step; at a node with more, each child carries the bias of the first
    option that goes through it, added to its token's score (`ChatModel.choose`)."""

    class Node:
        def __init__(self) -> None:
            self.children: dict[int, _OptionTrie.Node] = {}
            self.bias: dict[int, float] = {}
            self.option = -1  # set on the node where an option ends

        @property
        def done(self) -> bool:
            return self.option >= 0

    def __init__(self, options: tuple[str, ...], bias: tuple[float, ...], tokenize) -> None:
        if len(options) < 2:
            raise ValueError("choose needs at least two options")
        self.root = self.Node()
        for i, option in enumerate(options):
            tokens = tokenize(option)
            if not tokens:
                raise ValueError(f"option {option!r} has no tokens")
            node = self.root
            for token in tokens:
                if node.done:
                    raise ValueError(f"options must be prefix-free: {option!r}")
                if token not in node.children:
                    node.children[token] = self.Node()
                    node.bias[token] = bias[i] if bias else 0.0
                node = node.children[token]
            if node.children or node.done:
                raise ValueError(f"options must be prefix-free: {option!r}")
            node.option = i


def auto_parallel(path: Path) -> int:
    """Sequences decoded together when the preset says 0: 8 for a model under 1 GB
    (measured here: 1.8x the tokens per second of one sequence on SmolLM2), else 4."""
    return 8 if path.stat().st_size < 1_000_000_000 else 4


def _cells(jobs: list[Job]) -> int:
    """KV cells a group needs: the prefix the prompts share once, the rest each."""
    shared = _common_prefix([j.prompt for j in jobs]) if len(jobs) > 1 else 0
    return shared + sum(len(j.prompt) - shared + j.max_tokens for j in jobs)


@contextmanager
def _without_amx(llama_cpp):
    """Load weights without llama.cpp's extra CPU buffer types when the build uses Intel
    AMX: its AMX matrix multiply segfaults on every decode with our GGUFs (seen with
    llama-cpp-python 0.3.36 built natively on a Sapphire Rapids CPU). Without the extra
    buffer types the plain CPU kernels run; elsewhere nothing changes."""
    info = llama_cpp.llama_print_system_info().decode(errors="replace")
    if "AMX_INT8 = 1" not in info:
        yield
        return
    low = llama_cpp.llama_cpp
    default = low.llama_model_default_params

    def params():
        p = default()
        p.use_extra_bufts = False
        return p

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = default


def _plain_format(messages: list[Message]) -> tuple[str, list[str], bool]:
    """A plain transcript for base models without a chat template."""
    parts = []
    for m in messages:
        if m["role"] == "system":
            parts.append(m["content"].strip() + "\n")
        elif m["role"] == "user":
            parts.append(m["content"].rstrip() + "\n")
        else:
            parts.append(m["content"].strip() + "\n\n")
    return "".join(parts), ["\n\n\n"], False


def load_chat_model(preset: Preset, path: Path, seed: int) -> LlamaChatModel:
    return LlamaChatModel(preset=preset, path=path, seed=seed)


def _guard(request: Request) -> CopyGuard | None:
    return CopyGuard(request.avoid) if request.avoid is not None else None
