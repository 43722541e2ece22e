"""HTTP for `server.py`: JSON requests to the configured model servers, one retry of a
refused connection or an HTTP 5xx, and every failure turned into an error a user can act
on (a ModelError that names the URL and the fix, a BudgetError for a prompt too long).
`Servers` chooses the server of each request: the one with the fewest requests in flight
(per slot, where every server says its slots), ties going to the next in turn. A server
that stops answering (refused, reset, no answer within the timeout, HTTP 5xx) is left
out for a cool-down, with one logged warning, and the request goes to another server;
only when every server is down does the request fail, with a resume hint.

Requests go only to the URLs given: proxies from the environment and redirects are not
followed. An API key is read from the named environment variable for each request and
is never stored, logged or put in a message.

What it does not do: know the dialects' endpoints or bodies (`server.py`, `bodies.py`);
retry on the same server more than once; wait for a server to come back (a request that
finds every server down fails at once, and the build resumes where it stopped); treat a
refused request (HTTP 4xx, a prompt too long) as a server that is down."""

from __future__ import annotations

import http.client
import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..errors import BudgetError, ModelError

CHECK_TIMEOUT = 10.0  # seconds a server gets to answer the checks made on construction
RETRY_PAUSE = 1.0  # before the one retry of a refused connection or an HTTP 5xx
RESUME_HINT = "the index is resumable: start the server and run the same build again"
COOLDOWN = 30.0  # seconds a server that stopped answering is left out before a new try

log = logging.getLogger(__name__)
T = TypeVar("T")


class ServerDown(ModelError):
    """A server stopped answering (refused, reset, timed out, HTTP 5xx): `Servers` moves
    the request to another server; with none left, the message is the user's."""


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


def error_detail(raw: bytes) -> str:
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


def base_url(url: str) -> str:
    """The server's root: no trailing slash and no /v1 (both spellings are accepted)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelError(f"model server url {url!r} is not an http:// or https:// address")
    path = parts.path.rstrip("/")
    path = path[:-3] if path.endswith("/v1") else path
    return f"{parts.scheme}://{parts.netloc}{path}"


class Transport:
    """JSON over HTTP to model servers speaking dialect `api` (named in error messages),
    with the API key from the environment variable `api_key_env`, if any."""

    def __init__(self, api: str, api_key_env: str | None, timeout: float) -> None:
        self.api, self.timeout = api, timeout
        self._api_key_env = api_key_env
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())

    def headers(self) -> dict[str, str]:
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
        req = urllib.request.Request(url + path, data=data, headers=self.headers(),
                                     method="GET" if body is None else "POST")
        try:
            return self._opener.open(req, timeout=timeout)
        except urllib.error.HTTPError as exc:
            try:
                detail = error_detail(exc.read())
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

    def call(self, url: str, path: str, body: dict | None, purpose: str = "",
             stream: bool = False) -> Any:
        """A request made while working: failures become the errors a user can act on."""
        what = purpose or "request"
        try:
            answer = self._fetch(url, path, body, self.timeout, retry=True, stream=stream)
        except _Status as exc:
            if exc.code in (401, 403):
                raise ModelError(f"model server {url} refused the API key (HTTP {exc.code}); "
                                 + self.key_hint()) from None
            if exc.code >= 500:
                raise ServerDown(f"model server {url} stopped answering ({exc}); "
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
            raise ServerDown(f"model server {url} stopped answering ({exc}); {RESUME_HINT}") from None
        except _Slow:
            raise ServerDown(
                f"model server {url} did not answer a {what} within {self.timeout:g} s; "
                "raise the preset's timeout or lower its parallel (requests wait in the "
                f"server's queue); {RESUME_HINT}") from None
        except ValueError:
            raise ModelError(f"model server {url} answered {path} with something other "
                             f"than JSON; {RESUME_HINT}") from None
        if not stream and isinstance(answer, dict) and answer.get("error"):  # some say 200
            raise ModelError(f"model server {url} failed a {what}: "
                             f"{error_detail(json.dumps(answer).encode())}")
        return answer

    def key_hint(self) -> str:
        if self._api_key_env:
            return f"check the key in the environment variable {self._api_key_env}"
        return ("it wants an API key: set api_key_env in the model preset to the name of an "
                "environment variable that holds it")

    def probe(self, url: str, path: str, parse: bool = True) -> Any:
        """A check (GET) made before any work: None where the server has no such
        endpoint; every other failure is a ModelError that says what to fix."""
        timeout = min(self.timeout, CHECK_TIMEOUT)
        try:
            return self._fetch(url, path, None, timeout, retry=False, parse=parse)
        except _Status as exc:
            if exc.code in (404, 405, 501):
                return None
            if exc.code in (401, 403):
                raise ModelError(f"model server {url} refused the API key (HTTP "
                                 f"{exc.code}); {self.key_hint()}") from None
            if exc.code == 503:
                raise ModelError(f"model server {url} is not ready ({exc.detail}); wait "
                                 "until it has loaded the model, then run again") from None
            raise ModelError(f"model server {url} failed {path} ({exc}); check its log") from None
        except _Down as exc:
            raise ModelError(f"no model server answers at {url} ({exc}); start it, or fix "
                             "the url in the model preset") from None
        except _Slow:
            raise ModelError(f"model server {url} did not answer {path} within "
                             f"{timeout:g} s; is it overloaded, or is the url wrong?") from None
        except ValueError:
            raise ModelError(f"{url}{path} did not answer with JSON: not an OpenAI-"
                             "compatible server (the url should be the server's base "
                             "address, e.g. http://127.0.0.1:8080)") from None


class Servers:
    """Which of one model's servers gets each request (see the module docstring).
    `slots` are the servers' own counts, 0 where one does not say. With one server there
    is no cool-down: each request tries it, as there is nowhere else to send it."""

    def __init__(self, urls: list[str], slots: list[int], cooldown: float = COOLDOWN) -> None:
        self.urls, self.cooldown = list(urls), float(cooldown)
        self._slots = list(slots) if all(n > 0 for n in slots) else [1] * len(urls)
        self._busy = [0] * len(urls)  # requests in flight
        self._down_until = [0.0] * len(urls)  # time.monotonic() when it may be tried again
        self._failure: list[ServerDown | None] = [None] * len(urls)  # set while it is down
        self._turn = 0
        self._lock = threading.Lock()

    def send(self, request: Callable[[str], T]) -> T:
        """`request(url)` on the least busy live server; where that server stops
        answering, it is left out and the request goes to another. Each server is tried
        at most once; when none is left, a ServerDown that says so."""
        tried: set[int] = set()
        last: ServerDown | None = None
        while True:
            i = self._take(tried)
            if i is None:
                raise self._all_down(last)
            try:
                answer = request(self.urls[i])
            except ServerDown as exc:
                self._failed(i, exc)
                tried.add(i)
                last = exc
                continue
            finally:
                with self._lock:
                    self._busy[i] -= 1
            self._answered(i)
            return answer

    def _take(self, tried: set[int]) -> int | None:
        """The live server with the fewest requests in flight per slot, from the one
        after the last chosen; a server back from its cool-down gets one request at a
        time until it answers, unless no other is live."""
        with self._lock:
            now, n = time.monotonic(), len(self.urls)
            best, best_load = None, 0.0
            for k in range(n):
                i = (self._turn + k) % n
                if i in tried or self._down_until[i] > now:
                    continue
                on_trial = self._failure[i] is not None and self._busy[i] > 0
                load = float("inf") if on_trial else self._busy[i] / self._slots[i]
                if best is None or load < best_load:
                    best, best_load = i, load
            if best is not None:
                self._busy[best] += 1
                self._turn = best + 1
            return best

    def _failed(self, i: int, exc: ServerDown) -> None:
        if len(self.urls) == 1:
            return
        with self._lock:
            first = self._failure[i] is None
            self._failure[i] = exc
            self._down_until[i] = time.monotonic() + self.cooldown
        if first:  # not again while it stays down
            log.warning("%s; it is left out for %g s and its requests go to the other "
                        "model servers", str(exc).removesuffix(f"; {RESUME_HINT}"),
                        self.cooldown)

    def _answered(self, i: int) -> None:
        with self._lock:
            back, self._failure[i] = self._failure[i] is not None, None
        if back:
            log.info("model server %s answers again and gets requests again", self.urls[i])

    def _all_down(self, last: ServerDown | None) -> ServerDown:
        if len(self.urls) == 1 and last is not None:
            return last  # the one server's own message, as it was before there were several
        with self._lock:
            failures = [f for f in self._failure if f is not None]
        reasons = "; ".join(str(f).removesuffix(f"; {RESUME_HINT}") for f in failures)
        return ServerDown(f"every model server stopped answering ({reasons}); {RESUME_HINT}")
