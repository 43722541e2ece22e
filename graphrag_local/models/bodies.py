"""The requests `server.py` sends and the answers it reads, as pure functions: chat and
choice bodies in each dialect ("llama.cpp", "vllm", "openai"), the GBNF of a choice's
options and the `logit_bias` that keeps decoding on the options' own tokens, and the
text, finish reason and token counts of an answer.

What it does not do: send anything (`transport.py`), tokenize (the server does, through
`server.py`), or decide which dialect a server speaks."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..errors import ModelError
from .decode import UNLIKELY_P, annotated
from .protocol import Message, Sampling

OPTION_BOOST = 60.0  # logit_bias on the options' own tokens (vLLM caps a bias at 100)
BIAS_LIMIT = 30.0  # a choice's bias is clipped: the options' tokens keep a lead of 30


@dataclass
class Reply:
    text: str
    finish: str
    prompt_tokens: int
    completion_tokens: int
    reused_tokens: int


# -- choices --------------------------------------------------------------------------
def gbnf_literal(text: str) -> str:
    """A GBNF string literal matching exactly `text`."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def options_grammar(options: tuple[str, ...]) -> str:
    return "root ::= " + " | ".join(gbnf_literal(o) for o in options)


def check_options(options: tuple[str, ...], bias: tuple[float, ...]) -> None:
    """The rules of `ChatModel.choose`, on text: two or more options, none empty, no two
    equal, one bias per option when given. An option may be a prefix of another in text
    (" program", " programme"): the grammar then lets the model stop or go on, and the
    reply is matched exactly. (The local model asks prefix-free *tokens*, which such
    options have where the longer one is a token of its own.)"""
    if len(options) < 2 or not all(options) or (bias and len(bias) != len(options)):
        raise ValueError("choose needs two or more non-empty options (and a bias for each)")
    if len(set(options)) != len(options):
        raise ValueError(f"options must differ: {options!r}")


def option_bias(tokenized: list[list[int]], bias: tuple[float, ...]) -> dict[str, float]:
    """`logit_bias` for a choice: OPTION_BOOST on every token of every option, plus the
    option's bias (clipped to +-BIAS_LIMIT; the first option's where options share a
    token), so that the options' own tokens beat any other spelling and the choice where
    they part is made on the model's scores plus `bias`: per token id, not per option
    (see `ChatModel.choose` on `exact_choice_bias`)."""
    out: dict[str, float] = {}
    for i, tokens in enumerate(tokenized):
        extra = max(-BIAS_LIMIT, min(BIAS_LIMIT, bias[i])) if bias else 0.0
        for token in tokens:
            out.setdefault(str(token), OPTION_BOOST + extra)
    return out


def match_option(reply: str, options: tuple[str, ...]) -> int | None:
    """The option a reply is: equal to it, else equal to it but for surrounding white
    space (a server that trims), if that leaves one option."""
    if reply in options:
        return options.index(reply)
    loose = [i for i, o in enumerate(options) if o.strip() == reply.strip()]
    return loose[0] if len(loose) == 1 else None


# -- bodies ---------------------------------------------------------------------------
def _structured(vllm_new: bool, kind: str, value: Any) -> dict:
    if vllm_new:
        return {"structured_outputs": {kind: value}}
    return {"guided_" + kind: value}


def _sampler(api: str, sampling: Sampling) -> dict:
    if api == "llama.cpp":
        return {"top_k": sampling.top_k, "top_p": sampling.top_p,
                "repeat_penalty": sampling.repeat_penalty, "cache_prompt": True}
    if api == "vllm":
        return {"top_k": sampling.top_k, "top_p": sampling.top_p,
                "repetition_penalty": sampling.repeat_penalty}
    return {"top_p": sampling.top_p}


# llama-server's DRY sampler ("don't repeat yourself": a token that would make a run of
# tokens said before in the prompt or the reply longer than `dry_allowed_length` loses
# multiplier * base ** (the run's length - allowed) of its logit) stands in for the copy
# guard an in-process writer keeps to (`protocol.Avoid`, `copying.py`): the evidence is
# in the prompt, so a line copying it is pushed off the copy after about
# `Avoid.words` words (a word of English evidence is one or two tokens). The 1.5B behind
# llama-server (CPU), written lines that are copies (80% or more of the line one run of
# what it cites) and lines kept: Carol's themes 9 of 14 copies without DRY, 8 of 15 at
# multiplier 0.8, 6 of 14 at 2; the 12 stories' main themes and kinds of animals 10 of
# 13 and 11 of 14 without, 2 of 13 and 2 of 13 at 2
DRY_MULTIPLIER = 2.0
DRY_BASE = 1.75


def copy_penalty(words: int, n_ctx: int) -> dict:
    """llama-server's DRY parameters for a reply that may not repeat `words` words in a
    row of its prompt's evidence, looking back over the whole context (`n_ctx` tokens:
    llama-server refuses -1, which some of its versions read as "all")."""
    return {"dry_multiplier": DRY_MULTIPLIER, "dry_base": DRY_BASE,
            "dry_allowed_length": max(2, words - 2), "dry_penalty_last_n": max(64, n_ctx)}


def chat_body(api: str, model: str, messages: list[Message], *, grammar: str | None,
              max_tokens: int, sampling: Sampling, attempt: int = 0, stream: bool = False,
              vllm_new: bool = True) -> dict:
    """The /v1/chat/completions request of one reply, in the server's dialect."""
    if grammar and api == "openai":
        raise ModelError(
            "this model server (api = \"openai\") cannot constrain a reply to a grammar, "
            "and every structured step needs one: serve the model with llama-server or "
            "vLLM (api = \"llama.cpp\" or \"vllm\")")
    temperature, seed = sampling.at(attempt)
    body = {"model": model, "messages": messages, "max_tokens": max_tokens,
            "temperature": temperature, "seed": seed, **_sampler(api, sampling)}
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    if grammar and api == "llama.cpp":
        body["grammar"] = grammar
    elif grammar:
        body.update(_structured(vllm_new, "grammar", grammar))
    return body


def choice_body(api: str, model: str, prompt: str, options: tuple[str, ...], *,
                sampling: Sampling, logit_bias: dict[str, float] | None = None,
                vllm_new: bool = True) -> dict:
    """The /v1/completions request that continues a raw `prompt` with one of `options`:
    greedy, under a grammar (llama.cpp) or a choice (vLLM) of exactly the options."""
    if api == "openai":
        raise ModelError(
            "this model server (api = \"openai\") cannot restrict a reply to given "
            "options: serve the model with llama-server or vLLM (api = \"llama.cpp\" or "
            "\"vllm\")")
    # a token is at least one byte; the server counts the end-of-text token too
    max_tokens = max(len(o.encode("utf-8")) for o in options) + 1
    body = {"model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0,
            "seed": sampling.seed, **_sampler(api, sampling)}
    if api == "llama.cpp":
        body["grammar"] = options_grammar(options)
    else:
        body.update(_structured(vllm_new, "choice", list(options)))
    if logit_bias:
        body["logit_bias"] = logit_bias
    return body


# -- answers --------------------------------------------------------------------------
def reply(answer: dict, chat: bool) -> Reply:
    """The reply in a /v1/chat/completions (`chat`) or /v1/completions answer; where the
    answer holds its tokens' log-probabilities (llama-server, asked for them by a
    writer's request), each line marked where the model itself gave a token it took
    under `decode.UNLIKELY_P`, as the in-process decoder marks it (`decode.annotated`)."""
    choice = (answer.get("choices") or [{}])[0]
    text = (choice.get("message") or {}).get("content") if chat else choice.get("text")
    text = text or ""
    offsets = unlikely_offsets(choice, text)
    if offsets:
        text = annotated(text, offsets)
    return Reply(text, choice.get("finish_reason") or "stop", *usage(answer))


def unlikely_offsets(choice: dict, text: str) -> list[int]:
    """Where in `text` each token starts that the model gave under `UNLIKELY_P`, from the
    choice's `logprobs` (llama-server's are the model's own, before the grammar and the
    sampler's penalties: the in-process decoder's measure). Empty where the tokens do not
    spell the text (a character split over two tokens) or the answer has no logprobs."""
    content = (choice.get("logprobs") or {}).get("content") or []
    pieces = [t.get("token") or "" for t in content]
    if not content or "".join(pieces) != text:
        return []
    out, at = [], 0
    for piece, t in zip(pieces, content):
        if float(t.get("logprob", 0.0)) < math.log(UNLIKELY_P):
            out.append(at)
        at += len(piece)
    return out


def usage(answer: dict) -> tuple[int, int, int]:
    """(prompt, completion, reused) tokens of an answer, from `usage` and llama.cpp's
    `timings`; 0 where the server does not say."""
    used, timings = answer.get("usage") or {}, answer.get("timings") or {}
    cached = (used.get("prompt_tokens_details") or {}).get("cached_tokens")
    reused = timings.get("cache_n", cached) or 0
    prompt = used.get("prompt_tokens") or (reused + (timings.get("prompt_n") or 0))
    completion = used.get("completion_tokens") or timings.get("predicted_n") or 0
    return prompt, completion, min(reused, max(0, prompt - 1))


def version(text: str) -> tuple[int, ...]:
    """(major, minor) of a version string such as vLLM's /version; () when it has none."""
    found = re.match(r"(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else ()
