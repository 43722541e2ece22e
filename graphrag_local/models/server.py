"""The chat model behind an OpenAI-compatible HTTP server: llama.cpp's `llama-server`,
llama-cpp-python's server, vLLM, or anything else that speaks /v1/chat/completions
(Ollama, a hosted API). It implements the `ChatModel` Protocol of `protocol.py`, so the
pipeline cannot tell it from the in-process model, and keeps many requests in flight.

Dialects (`api`):
- "llama.cpp": llama-server and llama-cpp-python's server. GBNF goes in `grammar`;
  tokens are counted by the server (`/tokenize`, or `/extras/tokenize`); llama-server
  also says its context size (`/props`) and how many prompt tokens it reused
  (`timings.cache_n`).
- "vllm": GBNF in `structured_outputs.grammar` (`guided_grammar` before vLLM 0.11),
  choices in `structured_outputs.choice`; `/tokenize` counts text and whole chat prompts;
  the context size is the model's `max_model_len`.
- "openai": no grammar. `complete` works only without one, `choose` not at all: the
  server cannot constrain its output, so the structured stages need another dialect.
  Token counts are estimated (3 UTF-8 bytes a token: on the high side for English).

Replies are those of the in-process model in kind, not token for token: the server
applies its own chat template and sampler. Temperature 0 and a fixed seed make replies
repeatable up to floating-point order, as in `decode.py`: a server that batches requests
(llama-server, vLLM), or one that finds the whole prompt in its cache and evaluates only
its last token again (llama-cpp-python's server, on a repeated request), may move a
near-tie. `complete_many` otherwise gives the replies of `complete` one by one.

Network (`transport.py`): requests go only to the configured URLs, with no proxy from the
environment and no redirect; an API key is read from the environment for each request
and never stored. Every URL is checked before any work (it answers, it is an
OpenAI-compatible server, it serves the model). Each request, token counts included, goes
to the server with the fewest requests in flight per slot (`transport.Servers`); at most
`parallel` are in flight from `complete_many` and `choose`. A server that stops answering
mid-build (refused, reset, timed out, HTTP 5xx) is left out for `cooldown` seconds with
one logged warning, and its requests go to the others; only when every server is down
does the build end, with a resume hint. A streamed reply that breaks after its first
text has been passed on is not moved (the text cannot be taken back): it fails. Request
bodies and the reading of answers are `bodies.py`'s pure functions.

What it does not do: start or stop servers, or add one while it runs; retry a request
on one server more than once; keep a build waiting for a server to come back."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from ..errors import ModelError
from . import bodies
from .bodies import Reply, chat_body, check_options, choice_body, match_option, option_bias
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
from .transport import COOLDOWN, RESUME_HINT, ServerDown, Servers, Transport, base_url, error_detail

APIS = ("llama.cpp", "vllm", "openai")
BYTES_PER_TOKEN = 3  # token estimate where the server has no tokenizer
MESSAGE_TOKENS = 8  # estimated template tokens per message (and for the reply's header)


class RemoteChatModel:
    """A model served over HTTP (see the module docstring); `urls` are one or more
    servers of the same model, `model` the id they list at /v1/models."""

    exact_choice_bias = False  # `choose` biases token ids (logit_bias), not options

    def __init__(
        self,
        urls: list[str] | str,
        model: str,
        *,
        api: str = "llama.cpp",
        api_key_env: str | None = None,
        n_ctx: int = 0,
        parallel: int = 4,
        timeout: float = 120,
        name: str = "",
        sampling: Sampling | None = None,
        cooldown: float = COOLDOWN,
    ) -> None:
        """`n_ctx` is used where the server does not say its context size (llama-server
        and vLLM do); `parallel` 0 takes llama-server's slot count (else 4); `cooldown`
        is how long a server that stopped answering is left out (with several URLs)."""
        if api not in APIS:
            raise ModelError(f"model server api {api!r} is not one of {', '.join(APIS)}")
        self.urls = [base_url(u) for u in ([urls] if isinstance(urls, str) else urls)]
        if not self.urls:
            raise ModelError("a model server preset needs at least one url")
        self.model, self.api, self.timeout = model, api, float(timeout)
        self.name = name or model
        self.sampling = sampling or Sampling()
        self.calls: list[CallRecord] = []
        self._http = Transport(api, api_key_env, self.timeout)
        self._counts: dict[str, int] = {}
        self._prompts: dict[str, int] = {}
        self._option_ids: dict[str, list[int]] = {}
        self._bos: list[int] | None = None  # what llama-cpp-python's tokenizer always adds
        self._overhead: tuple[int, int] | None = None
        self._fail_after = _fail_after_calls()
        self._http.headers()  # a named key must be set before any work
        self.vllm_new = True
        found = [self._check(url) for url in self.urls]  # (flavour, identity, n_ctx, slots)
        self.flavour, self._identity = found[0][0], found[0][1]
        if any(f[:2] != found[0][:2] for f in found):
            raise ModelError(
                f"the model servers {', '.join(self.urls)} serve different models under "
                f"the id '{model}'; give one preset the URLs of one model only")
        known = [f[2] for f in found if f[2]]
        self.n_ctx = min(known) if known else n_ctx
        if self.n_ctx <= 0:
            raise ModelError(
                f"model server {self.urls[0]} does not say its context size; set n_ctx in "
                "the model preset to the context the server was started with (e.g. "
                "--n_ctx of llama_cpp.server)")
        self.parallel = parallel if parallel > 0 else sum(f[3] for f in found) or 4
        self._servers = Servers(self.urls, [f[3] for f in found], cooldown)

    # -- identity -----------------------------------------------------------------------
    def model_key(self) -> str:
        """What identifies this model's behaviour, for work keys: the model as the server
        describes it, the dialect, the context size and the sampling settings. It never
        equals a local model's key, and two servers share it only when all of this does."""
        return "remote:" + json.dumps(
            {"api": self.api, "model": self._identity, "n_ctx": self.n_ctx,
             "sampling": asdict(self.sampling)},
            sort_keys=True, separators=(",", ":"))

    # -- the check made on construction ------------------------------------------------
    def _check(self, url: str) -> tuple[str, dict, int, int]:
        """(flavour, model identity, context size, slots; 0 where it does not say) of one
        server, or a ModelError."""
        listing = self._http.probe(url, "/v1/models")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise ModelError(f"{url}/v1/models lists no models: not an OpenAI-compatible "
                             "server (the url should be the server's base address, e.g. "
                             "http://127.0.0.1:8080)")
        ids = [e.get("id") for e in entries if isinstance(e, dict)]
        if self.model not in ids:
            raise ModelError(
                f"model server {url} serves {', '.join(map(str, ids)) or 'no model'}, not "
                f"'{self.model}'; set model in the preset to the id it lists")
        entry = entries[ids.index(self.model)]
        identity = {k: entry[k] for k in ("id", "root", "parent", "meta") if entry.get(k)}
        if self.api in ("llama.cpp", "vllm"):
            self._http.probe(url, "/health", parse=False)  # a 503 while loading; missing is fine
        if self.api == "vllm":
            version = self._http.probe(url, "/version") or {}
            found = bodies.version(str(version.get("version", "")))
            self.vllm_new = not found or found >= (0, 11)
            return "vllm", identity, int(entry.get("max_model_len") or 0), 0
        if self.api == "openai":
            return "openai", identity, 0, 0
        props = self._http.probe(url, "/props")
        if isinstance(props, dict) and "default_generation_settings" in props:
            n_ctx = (props["default_generation_settings"] or {}).get("n_ctx") or 0
            return "llama-server", identity, int(n_ctx), int(props.get("total_slots") or 0)
        return "llama-cpp-python", identity, 0, 0

    # -- tokens -------------------------------------------------------------------------
    def _tokenize(self, text: str) -> list[int] | None:
        """The token ids of `text` (no BOS, special-token text not parsed where the
        server lets us say so), or None where the server has no tokenizer."""
        if self.flavour == "openai":
            return None
        return self._servers.send(lambda url: self._tokenize_at(url, text))

    def _tokenize_at(self, url: str, text: str) -> list[int]:
        if self.flavour == "llama-server":
            body = {"content": text, "add_special": False, "parse_special": False}
            return self._tokens(url, "/tokenize", body)
        if self.flavour == "vllm":
            body = {"model": self.model, "prompt": text, "add_special_tokens": False}
            return self._tokens(url, "/tokenize", body)
        # llama-cpp-python's server, which adds BOS where the model does
        if self._bos is None:
            self._bos = self._tokens(url, "/extras/tokenize", {"model": self.model, "input": ""})
        tokens = self._tokens(url, "/extras/tokenize", {"model": self.model, "input": text})
        return tokens[len(self._bos):] if tokens[:len(self._bos)] == self._bos else tokens

    def _tokens(self, url: str, path: str, body: dict) -> list[int]:
        answer = self._http.call(url, path, body, "tokenize")
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise ModelError(f"model server {url} answered {path} without a token list; is "
                             f"api = \"{self.api}\" the right dialect for it?")
        return tokens

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the server's own tokenizer; with api = "openai" an
        estimate (3 bytes a token). Cached by text."""
        n = self._counts.get(text)
        if n is None:
            tokens = self._tokenize(text) if text else []
            n = len(tokens) if tokens is not None else -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)
            if len(self._counts) > 100_000:
                self._counts.clear()
            self._counts[text] = n
        return n

    def prompt_tokens(self, messages: list[Message]) -> int:
        """Tokens of the chat prompt of `messages`. Exact where the server formats it for
        us (llama-server /apply-template, vLLM /tokenize of messages). Elsewhere the
        contents' tokens plus a per-message and a fixed overhead: measured once from the
        prompt_tokens of two one-token replies (llama-cpp-python's server; a template
        that adds a default system message makes this an over-estimate when messages
        bring their own), or MESSAGE_TOKENS each (api = "openai")."""
        key = json.dumps(messages, ensure_ascii=False, sort_keys=True)
        if key in self._prompts:
            return self._prompts[key]
        if self.flavour == "llama-server":
            def count(url: str) -> int:
                prompt = self._http.call(url, "/apply-template", {"messages": messages}, "template")
                body = {"content": prompt.get("prompt", ""), "add_special": True,
                        "parse_special": True}
                return len(self._tokens(url, "/tokenize", body))
            n = self._servers.send(count)
        elif self.flavour == "vllm":
            body = {"model": self.model, "messages": messages, "add_generation_prompt": True}
            n = self._servers.send(lambda url: len(self._tokens(url, "/tokenize", body)))
        else:
            per_message, fixed = self._template_overhead()
            n = fixed + sum(per_message + self.count_tokens(m["content"]) for m in messages)
        if len(self._prompts) > 1000:
            self._prompts.clear()
        self._prompts[key] = n
        return n

    def _template_overhead(self) -> tuple[int, int]:
        """(tokens per message, fixed tokens) of the server's chat template."""
        if self._overhead is None and self.flavour != "llama-cpp-python":
            self._overhead = (MESSAGE_TOKENS, MESSAGE_TOKENS)
        if self._overhead is None:  # one-token replies to 1 and to 3 messages
            one = [{"role": "user", "content": "Hello"}]
            three = [*one, {"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Bye"}]
            n1, n3 = (self._servers.send(lambda url, m=m: self._ask(
                url, self._chat_request(m, None, 1, 0, False), "template")).prompt_tokens
                for m in (one, three))
            per = max(0, -(-(n3 - n1 - self.count_tokens("Hi") - self.count_tokens("Bye")) // 2))
            self._overhead = (per, max(0, n1 - self.count_tokens("Hello") - per))
        return self._overhead

    # -- replies ------------------------------------------------------------------------
    def _chat_request(self, messages, grammar, max_tokens, attempt, stream,
                      avoid: Avoid | None = None, mark: bool = False) -> dict:
        body = chat_body(self.api, self.model, messages, grammar=grammar, max_tokens=max_tokens,
                         sampling=self.sampling, attempt=attempt, stream=stream,
                         vllm_new=self.vllm_new)
        if self.flavour == "llama-server":
            if avoid is not None and avoid.words:  # the copy guard, as DRY
                body.update(bodies.copy_penalty(avoid.words, self.n_ctx))
            if mark and not stream:  # its tokens' log-probabilities mark the unlikely ones
                body["logprobs"] = True
        return body

    def _ask(self, url: str, body: dict, purpose: str) -> Reply:
        chat = "messages" in body
        answer = self._http.call(url, "/v1/chat/completions" if chat else "/v1/completions", body,
                            purpose)
        return bodies.reply(answer, chat)

    def _map(self, work: Callable[[Any, str], Reply], items: list) -> list[Reply]:
        """`work(item, url)` for every item, up to `parallel` at a time, each on the
        server chosen when it is sent; the replies in input order. The first failure (in
        input order) is raised once the requests in flight have ended; requests not yet
        sent are dropped."""
        def send(item: Any) -> Reply:
            return self._servers.send(lambda url: work(item, url))

        if len(items) <= 1 or self.parallel <= 1:
            return [send(item) for item in items]
        pool = ThreadPoolExecutor(max_workers=min(self.parallel, len(items)),
                                  thread_name_prefix="remote-model")
        futures = [pool.submit(send, item) for item in items]
        try:
            return [f.result() for f in futures]
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _allowed(self, n: int) -> int:
        """How many of `n` calls may run before the injected failure (test hook
        GRAPHRAG_LOCAL_FAIL_AFTER_CALLS, as for the local model)."""
        return calls_allowed(self._fail_after, len(self.calls), n)

    def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int = 256,
        attempt: int = 0,
        purpose: str = "",
        on_text: OnText | None = None,
        avoid: Avoid | None = None,  # llama-server: as its DRY sampler (`bodies.copy_penalty`)
    ) -> str:
        if on_text is None:
            return self.complete_many(
                [Request(messages, grammar, max_tokens, purpose, avoid=avoid)],
                attempt=attempt)[0]
        self._allowed(1)
        started = time.perf_counter()
        body = self._chat_request(messages, grammar, max_tokens, attempt, True, avoid)
        reply = self._servers.send(lambda url: self._stream(url, body, on_text, purpose))
        if not reply.prompt_tokens:  # a server that gives no usage when streaming
            reply.prompt_tokens = self.prompt_tokens(messages)
        self.calls.append(self._record(purpose, prompt_hash(messages, grammar or ""), reply,
                                       time.perf_counter() - started))
        return reply.text

    def complete_many(self, requests: list[Request], *, attempt: int = 0) -> list[str]:
        allowed = self._allowed(len(requests))
        todo = requests[:allowed]
        started = time.perf_counter()
        payloads = [self._chat_request(r.messages, r.grammar, r.max_tokens, attempt, False,
                                       r.avoid, r.mark_unlikely) for r in todo]
        replies = self._map(lambda i, url: self._ask(url, payloads[i], todo[i].purpose),
                            list(range(len(todo))))
        seconds = (time.perf_counter() - started) / max(1, len(todo))
        for r, reply in zip(todo, replies):
            self.calls.append(self._record(r.purpose, prompt_hash(r.messages, r.grammar or ""),
                                           reply, seconds))
        if allowed < len(requests):
            self._allowed(1)  # raises: the injected failure is call fail_after + 1
        return [reply.text for reply in replies]

    def choose(
        self,
        prompts: list[str],
        options: tuple[str, ...],
        *,
        bias: tuple[float, ...] = (),
        purpose: str = "",
    ) -> list[int]:
        """The option each raw prompt is continued with: greedy decoding under a grammar
        (vLLM: a choice) of exactly the options, one request a prompt. A grammar admits
        any spelling of an option in tokens; `logit_bias` keeps the decoding on the
        options' own tokens (as the local model's trie does) by adding OPTION_BOOST to
        every token of their tokenizations, and adds bias[i] (clipped to +-BIAS_LIMIT)
        to every token of option i. A token id carries one bias wherever it occurs, the
        first option's that has it, so this is the local model's choice only where
        options that share a token share its bias (`exact_choice_bias` is False; see
        `ChatModel.choose`). With api = "openai" there is no choosing (ModelError)."""
        self._allowed(1)
        check_options(options, bias)
        if not prompts:
            return []
        started = time.perf_counter()
        logit_bias = self._option_bias(options, bias)
        bodies = [choice_body(self.api, self.model, p, options, sampling=self.sampling,
                              logit_bias=logit_bias, vllm_new=self.vllm_new) for p in prompts]

        def one(i: int, url: str) -> Reply:
            reply = self._ask(url, bodies[i], purpose or "choice")
            if match_option(reply.text, options) is None:
                raise ModelError(
                    f"model server {url} answered {reply.text[:80]!r} to a {purpose or 'choice'}"
                    f" among {len(options)} options: it did not apply the "
                    f"{'grammar' if self.api == 'llama.cpp' else 'choice'}")
            return reply

        replies = self._map(one, list(range(len(prompts))))
        self.calls.append(CallRecord(
            purpose=purpose,
            prompt_hash=choice_hash(prompts, options),
            prompt_tokens=sum(r.prompt_tokens for r in replies),
            reused_tokens=sum(r.reused_tokens for r in replies),
            completion_tokens=sum(r.completion_tokens for r in replies),
            seconds=time.perf_counter() - started,
            finish_reason="choice",
        ))
        return [match_option(r.text, options) for r in replies]

    def _option_bias(self, options: tuple[str, ...], bias: tuple[float, ...]) -> dict[str, float]:
        if self.api == "openai":
            return {}
        return option_bias([self._option_tokens(o) for o in options], bias)

    def _option_tokens(self, option: str) -> list[int]:
        tokens = self._option_ids.get(option)
        if tokens is None:
            tokens = self._tokenize(option) or []
            if not tokens:
                raise ValueError(f"option {option!r} has no tokens")
            if len(self._option_ids) > 10_000:
                self._option_ids.clear()
            self._option_ids[option] = tokens
        return tokens

    def _stream(self, url: str, body: dict, on_text: OnText, purpose: str) -> Reply:
        pieces: list[str] = []
        finish, done, answer = "", False, {}
        resp = self._http.call(url, "/v1/chat/completions", body, purpose, stream=True)
        try:
            for raw in resp:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    done = True
                    break
                chunk = json.loads(data)
                if chunk.get("error"):
                    raise ModelError(f"model server {url} failed a {purpose or 'reply'}: "
                                     f"{error_detail(data.encode())}")
                answer.update({k: chunk[k] for k in ("usage", "timings") if chunk.get(k)})
                for choice in chunk.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content") or ""
                    if piece:
                        pieces.append(piece)
                        if on_text(piece):
                            finish = "stopped"
                            break
                    finish = finish or choice.get("finish_reason") or ""
                if finish == "stopped":
                    break
        except TimeoutError:  # moved to another server only while no text was passed on
            raise (ModelError if pieces else ServerDown)(
                f"model server {url} did not go on with a {purpose or 'reply'} within "
                f"{self.timeout:g} s; {RESUME_HINT}") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            moved = not pieces and not isinstance(exc, ValueError)  # not JSON: not down
            raise (ServerDown if moved else ModelError)(
                f"model server {url} stopped answering ({exc}); {RESUME_HINT}") from None
        finally:
            resp.close()
        if not finish:
            raise ModelError(
                f"model server {url} ended a streamed {purpose or 'reply'} without finishing "
                "it" + (" (llama-cpp-python's server cuts a stream when another request "
                        "arrives: start it with --interrupt_requests False)" if done else
                        f"; {RESUME_HINT}"))
        prompt, completion, reused = bodies.usage(answer)
        return Reply("".join(pieces), finish, prompt, completion or len(pieces), reused)

    def _record(self, purpose: str, hash_: str, reply: Reply, seconds: float) -> CallRecord:
        return CallRecord(
            purpose=purpose, prompt_hash=hash_, prompt_tokens=reply.prompt_tokens,
            reused_tokens=reply.reused_tokens, completion_tokens=reply.completion_tokens,
            seconds=seconds, finish_reason=reply.finish)

    def close(self) -> None:
        """Nothing is held between requests; the caches go."""
        self._counts.clear()
        self._prompts.clear()
