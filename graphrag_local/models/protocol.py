"""What the pipeline and the searches need from a chat model: the `ChatModel` Protocol, the
records and requests it takes and gives, and what every implementation shares (prompt
hashes, the sampling of retries, the injected-failure test hook).

Stages and searches see a model only through this (and the model-agnostic `structured.py`
and `grammar.py`). It does not import llama_cpp or open a connection: the
implementations are `llama.py` (in-process, through llama.cpp) and `server.py` (an
OpenAI-compatible server over HTTP)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..errors import InjectedFailure

Message = dict[str, str]
OnText = Callable[[str], "bool | None"]  # gets each piece of a streamed reply; True stops it

YES_NO_GRAMMAR = 'root ::= "YES" | "NO"'


@dataclass(frozen=True)
class CallRecord:
    """One LLM call, for the call log and the build summary."""

    purpose: str
    prompt_hash: str
    prompt_tokens: int
    reused_tokens: int  # prompt tokens found in the KV cache (not evaluated again)
    completion_tokens: int
    seconds: float
    finish_reason: str
    forced_tokens: int = 0  # tokens appended without a decoding step (the only way on)


@dataclass(frozen=True)
class Avoid:
    """Runs of `words` words of `texts` that a reply's lines ("- ...") may not repeat (a
    writer asked to write from evidence, not to copy it: `copying.py`). An in-process
    model keeps to it while decoding; llama-server is asked to by its DRY sampler
    (`bodies.copy_penalty`: a penalty, not a rule); other servers ignore it."""

    texts: tuple[str, ...]
    words: int
    repeats: int = 0  # if set, nor a run of this many words of the line itself (a loop)
    free: tuple[str, ...] = ()  # texts whose runs a line may say, though one of `texts` does


@dataclass(frozen=True)
class Request:
    """One reply to ask for, among others that do not depend on it (`complete_many`)."""

    messages: list[Message]
    grammar: str | None = None
    max_tokens: int = 256
    purpose: str = ""
    avoid: Avoid | None = None
    # mark where the reply's tokens were unlikely to the model itself (`decode.annotated`):
    # an in-process model does, llama-server from its tokens' log-probabilities
    # (`bodies.unlikely_offsets`); other servers cannot, and ignore it
    mark_unlikely: bool = False


# what begins the marks at the end of a line of a reply that asked for them
# (`Request.mark_unlikely`; `decode.annotated`: "- The Hen [3] ~4,17")
UNLIKELY_MARK = " ~"


@dataclass(frozen=True)
class Sampling:
    """What decides a reply besides the prompt (a preset's values). Attempts after the
    first are sampled at 0.5 or more, with seed + attempt."""

    temperature: float = 0.0
    seed: int = 42
    top_k: int = 40
    top_p: float = 0.95
    repeat_penalty: float = 1.0

    def at(self, attempt: int) -> tuple[float, int]:
        temperature = self.temperature if attempt == 0 else max(self.temperature, 0.5)
        return temperature, self.seed + attempt


class ChatModel(Protocol):
    """What the pipeline needs from a chat model."""

    name: str
    n_ctx: int
    parallel: int  # how many requests it decodes at once (1: one after the other)
    calls: list[CallRecord]  # every call so far, in order (the build logs them)
    # how `choose` applies `bias`: True, per option, where it parts from the others;
    # False, per token id (a server's logit_bias). See `choose`.
    exact_choice_bias: bool

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
        """The reply to `messages`; with `grammar` (GBNF), decoding is constrained by it,
        and with `avoid`, its lines copy no run of words it names (in-process models).
        With `on_text`, the reply is streamed to it piece by piece; it may stop the reply
        early by returning True (finish reason "stopped")."""
        ...

    def complete_many(self, requests: list[Request], *, attempt: int = 0) -> list[str]:
        """The replies to independent requests, in order: the same replies as calling
        `complete` on each at temperature 0 (up to floating-point order: see
        `decode.py`), decoded up to `parallel` at a time. One call record per request."""
        ...

    def choose(
        self,
        prompts: list[str],
        options: tuple[str, ...],
        *,
        bias: tuple[float, ...] = (),
        purpose: str = "",
    ) -> list[int]:
        """For each raw text in `prompts` (no chat template is applied), the index of the
        option the model continues it with: greedy decoding restricted to the options'
        tokens, no sampling, no free text. Options must be prefix-free in tokens; start
        them with a space. One call record per call.

        `bias` (log-probability units, one per option) counts where options part: at
        each step where they go on with different tokens, the token taken is the one
        whose score plus bias is highest, a token's bias being that of the first option
        (in order) that goes on with it; steps where the options leave one way on are
        not decided. With options that share no token, that is: bias[i] is added to the
        score of option i's first token. This is exact where `exact_choice_bias` is True
        (the in-process model walks a trie of the options' tokens). A server model
        (False) can only bias token ids: it adds bias[i], clipped to +-30, to every token
        of option i, a token that several options have carrying the first one's bias.
        The two are the same whenever no bias is over 30 in size and options that share
        a token carry the same bias, in particular when no token of one option occurs in
        another: the case for every choice the project makes (the entity-type words of
        `stages/classify.py`, YES/NO in `stages/classify.py`, `search/selection.py` and
        `eval/relevance.py`; tests/test_model_conformance.py checks it with the embedded
        model's tokenizer). Options that share tokens under different biases (" 1\\n"
        and " 10\\n" share "1" and "\\n") may be chosen differently."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def prompt_tokens(self, messages: list[Message]) -> int: ...

    def close(self) -> None: ...


def prompt_hash(messages: list[Message], extra: str = "") -> str:
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True) + "\x00" + extra
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def choice_hash(prompts: list[str], options: tuple[str, ...]) -> str:
    """The prompt hash of a `choose` call's record."""
    return prompt_hash([{"role": "raw", "content": p} for p in prompts], "\x00".join(options))


def _fail_after_calls() -> int | None:
    """Test hook: GRAPHRAG_LOCAL_FAIL_AFTER_CALLS=N makes call N+1 raise (resume tests)."""
    value = os.environ.get("GRAPHRAG_LOCAL_FAIL_AFTER_CALLS")
    return int(value) if value else None


def calls_allowed(fail_after: int | None, made: int, n: int) -> int:
    """How many of `n` more calls may run, `made` having run, before the injected failure
    of the test hook (`_fail_after_calls`); raises InjectedFailure when none may."""
    if fail_after is None:
        return n
    if made >= fail_after:
        raise InjectedFailure(
            f"injected failure after {fail_after} LLM calls (GRAPHRAG_LOCAL_FAIL_AFTER_CALLS)")
    return min(n, fail_after - made)
