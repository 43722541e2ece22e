"""The chat model behind an OpenAI-compatible HTTP server: llama.cpp's `llama-server`,
llama-cpp-python's server, vLLM, or anything else that speaks /v1/chat/completions
(Ollama, a hosted API). It implements the `ChatModel` Protocol of `llm.py`, so the
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

Network: requests go only to the configured URLs: proxies from the environment and
redirects are not followed. An API key is read from the named environment variable for
each request and is never stored, logged or put in a message. Every URL is checked
before any work (it answers, it is an OpenAI-compatible server, it serves the model);
a server that stops answering mid-build ends the build with a resume hint.

What it does not do: start, stop or choose servers; spread work by load (requests go
round-robin over the URLs); retry a request more than once."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from .errors import BudgetError, ModelError
from .llm import (
    CallRecord,
    Message,
    OnText,
    Request,
    _fail_after_calls,
    calls_allowed,
    prompt_hash,
)

APIS = ("llama.cpp", "vllm", "openai")
CHECK_TIMEOUT = 10.0  # seconds a server gets to answer the checks made on construction
RETRY_PAUSE = 1.0  # before the one retry of a refused connection or an HTTP 5xx
BYTES_PER_TOKEN = 3  # token estimate where the server has no tokenizer
MESSAGE_TOKENS = 8  # estimated template tokens per message (and for the reply's header)
OPTION_BOOST = 60.0  # logit_bias on the options' own tokens (vLLM caps a bias at 100)
BIAS_LIMIT = 30.0  # a choice's bias is clipped: the options' tokens keep a lead of 30
RESUME_HINT = "the index is resumable: start the server and run the same build again"


@dataclass(frozen=True)
class Sampling:
    """What decides a reply besides the prompt (the preset's values, as for the local
    model). Attempts after the first are sampled at 0.5 or more, with seed + attempt."""

    temperature: float = 0.0
    seed: int = 42
    top_k: int = 40
    top_p: float = 0.95
    repeat_penalty: float = 1.0

    def at(self, attempt: int) -> tuple[float, int]:
        temperature = self.temperature if attempt == 0 else max(self.temperature, 0.5)
        return temperature, self.seed + attempt


@dataclass
class _Reply:
    text: str
    finish: str
    prompt_tokens: int
    completion_tokens: int
    reused_tokens: int


class _Down(Exception):  # refused, reset, closed
    pass


class _Slow(Exception):  # longer than the timeout
    pass


class _Status(Exception):
    def __init__(self, code: int, detail: str) -> None:
        super().__init__(f"HTTP {code}: {detail}")
        self.code, self.detail = code, detail


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a 3xx is answered as an HTTPError
        return None


# -- request bodies and replies (pure) ------------------------------------------------
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
    they part is made on the model's scores plus `bias`."""
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


def _reply(answer: dict, chat: bool) -> _Reply:
    choice = (answer.get("choices") or [{}])[0]
    text = (choice.get("message") or {}).get("content") if chat else choice.get("text")
    return _Reply(text or "", choice.get("finish_reason") or "stop", *_usage(answer))


def _usage(answer: dict) -> tuple[int, int, int]:
    """(prompt, completion, reused) tokens of an answer, from `usage` and llama.cpp's
    `timings`; 0 where the server does not say."""
    usage, timings = answer.get("usage") or {}, answer.get("timings") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    reused = timings.get("cache_n", cached) or 0
    prompt = usage.get("prompt_tokens") or (reused + (timings.get("prompt_n") or 0))
    completion = usage.get("completion_tokens") or timings.get("predicted_n") or 0
    return prompt, completion, min(reused, max(0, prompt - 1))


def _error_detail(raw: bytes) -> str:
    """The message of an error answer ({"error": {"message"}}, {"detail"}, {"message"})."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300] or "no message"
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            text = str(error.get("message") or error.get("detail") or data.get("detail") or data)
        else:
            text = str(error)
    return " ".join(text.split())[:300]


def _is_context_error(detail: str) -> bool:
    d = detail.lower()
    return "context" in d and any(w in d for w in ("exceed", "maximum", "too long", "longer"))


def _base_url(url: str) -> str:
    """The server's root: no trailing slash and no /v1 (both spellings are accepted)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelError(f"model server url {url!r} is not an http:// or https:// address")
    path = parts.path.rstrip("/")
    path = path[:-3] if path.endswith("/v1") else path
    return f"{parts.scheme}://{parts.netloc}{path}"


def _version(text: str) -> tuple[int, ...]:
    found = re.match(r"(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else ()


class RemoteChatModel:
    """A model served over HTTP (see the module docstring); `urls` are one or more
    servers of the same model, `model` the id they list at /v1/models."""

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
    ) -> None:
        """`n_ctx` is used where the server does not say its context size (llama-server
        and vLLM do); `parallel` 0 takes llama-server's slot count (else 4)."""
        if api not in APIS:
            raise ModelError(f"model server api {api!r} is not one of {', '.join(APIS)}")
        self.urls = [_base_url(u) for u in ([urls] if isinstance(urls, str) else urls)]
        if not self.urls:
            raise ModelError("a model server preset needs at least one url")
        self.model, self.api, self.timeout = model, api, float(timeout)
        self.name = name or model
        self.sampling = sampling or Sampling()
        self.calls: list[CallRecord] = []
        self._api_key_env = api_key_env
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
        self._turn = itertools.count()
        self._counts: dict[str, int] = {}
        self._prompts: dict[str, int] = {}
        self._option_ids: dict[str, list[int]] = {}
        self._bos: list[int] | None = None  # what llama-cpp-python's tokenizer always adds
        self._overhead: tuple[int, int] | None = None
        self._fail_after = _fail_after_calls()
        self._headers()  # a named key must be set before any work
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

    # -- identity -----------------------------------------------------------------------
    def model_key(self) -> str:
        """What identifies this model's behaviour, for work keys: the model as the server
        describes it, the dialect, the context size and the sampling settings. It never
        equals a local model's key, and two servers share it only when all of this does."""
        return "remote:" + json.dumps(
            {"api": self.api, "model": self._identity, "n_ctx": self.n_ctx,
             "sampling": asdict(self.sampling)},
            sort_keys=True, separators=(",", ":"))

    # -- HTTP ---------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key_env:
            key = os.environ.get(self._api_key_env, "")
            if not key:
                raise ModelError(
                    f"environment variable {self._api_key_env} (api_key_env of the model "
                    "preset) is not set; export the model server's API key in it")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _open(self, url: str, path: str, body: dict | None, timeout: float):
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(url + path, data=data, headers=self._headers(),
                                     method="GET" if body is None else "POST")
        try:
            return self._opener.open(req, timeout=timeout)
        except urllib.error.HTTPError as exc:
            try:
                detail = _error_detail(exc.read())
            except (OSError, http.client.HTTPException):
                detail = exc.reason or "no message"
            raise _Status(exc.code, detail) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _Slow() from None
            raise _Down(str(exc.reason)) from None
        except TimeoutError:
            raise _Slow() from None
        except (OSError, http.client.HTTPException) as exc:
            raise _Down(str(exc) or type(exc).__name__) from None

    def _fetch(self, url: str, path: str, body: dict | None, timeout: float,
               retry: bool, stream: bool = False, parse: bool = True) -> Any:
        """The JSON answer (with `stream`, the open response; without `parse`, the bytes);
        a refused or broken connection and an HTTP 5xx are tried once more after a
        pause when `retry`."""
        for again in (retry, False):
            try:
                resp = self._open(url, path, body, timeout)
                if stream:
                    return resp
                with resp:
                    raw = resp.read()
                return json.loads(raw) if parse else raw
            except TimeoutError:
                raise _Slow() from None
            except (OSError, http.client.HTTPException) as exc:  # while reading
                failure: Exception = _Down(str(exc) or type(exc).__name__)
            except _Status as exc:
                if exc.code < 500:
                    raise
                failure = exc
            except _Down as exc:
                failure = exc
            if not again:
                raise failure
            time.sleep(RETRY_PAUSE)

    def _call(self, url: str, path: str, body: dict | None, purpose: str = "",
              stream: bool = False) -> Any:
        """A request made while working: failures become the errors a user can act on."""
        what = purpose or "request"
        try:
            answer = self._fetch(url, path, body, self.timeout, retry=True, stream=stream)
        except _Status as exc:
            if exc.code in (401, 403):
                raise ModelError(f"model server {url} refused the API key (HTTP {exc.code}); "
                                 + self._key_hint()) from None
            if exc.code >= 500:
                raise ModelError(f"model server {url} stopped answering ({exc}); "
                                 f"{RESUME_HINT}") from None
            if _is_context_error(exc.detail):
                raise BudgetError(
                    f"a {what} does not fit the context of the model at {url} ({exc.detail})"
                    "; lower chunks.size or serve the model with a larger context") from None
            if exc.code in (404, 405):
                raise ModelError(f"model server {url} has no {path} (HTTP {exc.code}); is "
                                 f"api = \"{self.api}\" the right dialect for it?") from None
            raise ModelError(f"model server {url} rejected a {what} ({exc})") from None
        except _Down as exc:
            raise ModelError(f"model server {url} stopped answering ({exc}); {RESUME_HINT}") from None
        except _Slow:
            raise ModelError(
                f"model server {url} did not answer a {what} within {self.timeout:g} s; "
                "raise the preset's timeout or lower its parallel (requests wait in the "
                f"server's queue); {RESUME_HINT}") from None
        except ValueError:
            raise ModelError(f"model server {url} answered {path} with something other "
                             f"than JSON; {RESUME_HINT}") from None
        if not stream and isinstance(answer, dict) and answer.get("error"):  # some say 200
            raise ModelError(f"model server {url} failed a {what}: "
                             f"{_error_detail(json.dumps(answer).encode())}")
        return answer

    def _key_hint(self) -> str:
        if self._api_key_env:
            return f"check the key in the environment variable {self._api_key_env}"
        return ("it wants an API key: set api_key_env in the model preset to the name of an "
                "environment variable that holds it")

    # -- the check made on construction ------------------------------------------------
    def _probe(self, url: str, path: str, parse: bool = True) -> Any:
        """A check (GET): None where the server has no such endpoint."""
        try:
            return self._fetch(url, path, None, min(self.timeout, CHECK_TIMEOUT), retry=False,
                               parse=parse)
        except _Status as exc:
            if exc.code in (404, 405, 501):
                return None
            if exc.code in (401, 403):
                raise ModelError(f"model server {url} refused the API key (HTTP "
                                 f"{exc.code}); {self._key_hint()}") from None
            if exc.code == 503:
                raise ModelError(f"model server {url} is not ready ({exc.detail}); wait "
                                 "until it has loaded the model, then run again") from None
            raise ModelError(f"model server {url} failed {path} ({exc}); check its log") from None
        except _Down as exc:
            raise ModelError(f"no model server answers at {url} ({exc}); start it, or fix "
                             "the url in the model preset") from None
        except _Slow:
            raise ModelError(f"model server {url} did not answer {path} within "
                             f"{min(self.timeout, CHECK_TIMEOUT):g} s; is it overloaded, "
                             "or is the url wrong?") from None
        except ValueError:
            raise ModelError(f"{url}{path} did not answer with JSON: not an OpenAI-"
                             "compatible server (the url should be the server's base "
                             "address, e.g. http://127.0.0.1:8080)") from None

    def _check(self, url: str) -> tuple[str, dict, int, int]:
        """(flavour, model identity, context size, slots; 0 where it does not say) of one
        server, or a ModelError."""
        listing = self._probe(url, "/v1/models")
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
            self._probe(url, "/health", parse=False)  # a 503 while loading; missing is fine
        if self.api == "vllm":
            version = self._probe(url, "/version") or {}
            found = _version(str(version.get("version", "")))
            self.vllm_new = not found or found >= (0, 11)
            return "vllm", identity, int(entry.get("max_model_len") or 0), 0
        if self.api == "openai":
            return "openai", identity, 0, 0
        props = self._probe(url, "/props")
        if isinstance(props, dict) and "default_generation_settings" in props:
            n_ctx = (props["default_generation_settings"] or {}).get("n_ctx") or 0
            return "llama-server", identity, int(n_ctx), int(props.get("total_slots") or 0)
        return "llama-cpp-python", identity, 0, 0

    # -- tokens -------------------------------------------------------------------------
    def _tokenize(self, text: str) -> list[int] | None:
        """The token ids of `text` (no BOS, special-token text not parsed where the
        server lets us say so), or None where the server has no tokenizer."""
        url = self._pick()
        if self.flavour == "llama-server":
            body = {"content": text, "add_special": False, "parse_special": False}
            return self._tokens(url, "/tokenize", body)
        if self.flavour == "vllm":
            body = {"model": self.model, "prompt": text, "add_special_tokens": False}
            return self._tokens(url, "/tokenize", body)
        if self.flavour == "llama-cpp-python":  # adds BOS where the model does
            if self._bos is None:
                self._bos = self._tokens(url, "/extras/tokenize", {"model": self.model, "input": ""})
            tokens = self._tokens(url, "/extras/tokenize", {"model": self.model, "input": text})
            return tokens[len(self._bos):] if tokens[:len(self._bos)] == self._bos else tokens
        return None

    def _tokens(self, url: str, path: str, body: dict) -> list[int]:
        answer = self._call(url, path, body, "tokenize")
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
        url = self._pick()
        if self.flavour == "llama-server":
            prompt = self._call(url, "/apply-template", {"messages": messages}, "template")
            body = {"content": prompt.get("prompt", ""), "add_special": True, "parse_special": True}
            n = len(self._tokens(url, "/tokenize", body))
        elif self.flavour == "vllm":
            body = {"model": self.model, "messages": messages, "add_generation_prompt": True}
            n = len(self._tokens(url, "/tokenize", body))
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
            n1, n3 = (self._ask(self._pick(), self._chat_request(m, None, 1, 0, False),
                                "template").prompt_tokens for m in (one, three))
            per = max(0, -(-(n3 - n1 - self.count_tokens("Hi") - self.count_tokens("Bye")) // 2))
            self._overhead = (per, max(0, n1 - self.count_tokens("Hello") - per))
        return self._overhead

    # -- replies ------------------------------------------------------------------------
    def _pick(self) -> str:
        return self.urls[next(self._turn) % len(self.urls)]

    def _chat_request(self, messages, grammar, max_tokens, attempt, stream) -> dict:
        return chat_body(self.api, self.model, messages, grammar=grammar, max_tokens=max_tokens,
                         sampling=self.sampling, attempt=attempt, stream=stream,
                         vllm_new=self.vllm_new)

    def _ask(self, url: str, body: dict, purpose: str) -> _Reply:
        chat = "messages" in body
        answer = self._call(url, "/v1/chat/completions" if chat else "/v1/completions", body,
                            purpose)
        return _reply(answer, chat)

    def _map(self, work: Callable[[Any, str], _Reply], items: list) -> list[_Reply]:
        """`work(item, url)` for every item, up to `parallel` at a time, URLs taken in
        turn; the replies in input order. The first failure (in input order) is raised
        once the requests in flight have ended; requests not yet sent are dropped."""
        urls = [self._pick() for _ in items]
        if len(items) <= 1 or self.parallel <= 1:
            return [work(item, url) for item, url in zip(items, urls)]
        pool = ThreadPoolExecutor(max_workers=min(self.parallel, len(items)),
                                  thread_name_prefix="remote-model")
        futures = [pool.submit(work, item, url) for item, url in zip(items, urls)]
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
    ) -> str:
        if on_text is None:
            return self.complete_many(
                [Request(messages, grammar, max_tokens, purpose)], attempt=attempt)[0]
        self._allowed(1)
        started = time.perf_counter()
        body = self._chat_request(messages, grammar, max_tokens, attempt, True)
        reply = self._stream(self._pick(), body, on_text, purpose)
        if not reply.prompt_tokens:  # a server that gives no usage when streaming
            reply.prompt_tokens = self.prompt_tokens(messages)
        self.calls.append(self._record(purpose, prompt_hash(messages, grammar or ""), reply,
                                       time.perf_counter() - started))
        return reply.text

    def complete_many(self, requests: list[Request], *, attempt: int = 0) -> list[str]:
        allowed = self._allowed(len(requests))
        todo = requests[:allowed]
        started = time.perf_counter()
        bodies = [self._chat_request(r.messages, r.grammar, r.max_tokens, attempt, False)
                  for r in todo]
        replies = self._map(lambda i, url: self._ask(url, bodies[i], todo[i].purpose),
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
        every token of their tokenizations, and adds `bias` (clipped to +-BIAS_LIMIT) to
        the tokens of each option as the local trie does, so the greedy choice where
        options part is the local one. Unlike the trie, a token id carries one bias
        wherever it occurs: the first option's that has it. With api = "openai" there is
        no choosing (ModelError)."""
        self._allowed(1)
        check_options(options, bias)
        if not prompts:
            return []
        started = time.perf_counter()
        logit_bias = self._option_bias(options, bias)
        bodies = [choice_body(self.api, self.model, p, options, sampling=self.sampling,
                              logit_bias=logit_bias, vllm_new=self.vllm_new) for p in prompts]

        def one(i: int, url: str) -> _Reply:
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
            prompt_hash=prompt_hash([{"role": "raw", "content": p} for p in prompts],
                                    "\x00".join(options)),
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

    def _stream(self, url: str, body: dict, on_text: OnText, purpose: str) -> _Reply:
        pieces: list[str] = []
        finish, done, answer = "", False, {}
        resp = self._call(url, "/v1/chat/completions", body, purpose, stream=True)
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
                                     f"{_error_detail(data.encode())}")
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
        except TimeoutError:
            raise ModelError(f"model server {url} did not go on with a {purpose or 'reply'} "
                             f"within {self.timeout:g} s; {RESUME_HINT}") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise ModelError(f"model server {url} stopped answering ({exc}); "
                             f"{RESUME_HINT}") from None
        finally:
            resp.close()
        if not finish:
            raise ModelError(
                f"model server {url} ended a streamed {purpose or 'reply'} without finishing "
                "it" + (" (llama-cpp-python's server cuts a stream when another request "
                        "arrives: start it with --interrupt_requests False)" if done else
                        f"; {RESUME_HINT}"))
        prompt, completion, reused = _usage(answer)
        return _Reply("".join(pieces), finish, prompt, completion or len(pieces), reused)

    def _record(self, purpose: str, hash_: str, reply: _Reply, seconds: float) -> CallRecord:
        return CallRecord(
            purpose=purpose, prompt_hash=hash_, prompt_tokens=reply.prompt_tokens,
            reused_tokens=reply.reused_tokens, completion_tokens=reply.completion_tokens,
            seconds=seconds, finish_reason=reply.finish)

    def close(self) -> None:
        """Nothing is held between requests; the caches go."""
        self._counts.clear()
        self._prompts.clear()
