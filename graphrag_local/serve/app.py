"""`graphrag-local serve`: the index as a local HTTP service (FastAPI, run by uvicorn).

- `GET /health`: up, and which build it answers from.
- `GET /v1/models`: the index as OpenAI model ids: `INDEX` (the configured method) and
  `INDEX:global`, `INDEX:local`, `INDEX:drift`, `INDEX:basic`, `INDEX:ts`.
- `POST /v1/chat/completions`: the OpenAI wire format (Open WebUI, LibreChat, the
  `openai` client), streamed as server-sent events or not. The last user message is the
  question, earlier turns are the chat history. The reply's text is the answer with its
  sources as the CLI prints them; the sources also come as structured JSON in the
  extra field `sources`.
- `POST /query`: what `graphrag-local query --json` prints.

Safe by default: it listens on loopback; on any other address it needs a bearer token,
read from the environment variable `serve.token_env` and compared in constant time. No
CORS unless `serve.cors_origins` names origins. Request bodies and questions are size-
limited (413), a question waits its turn for at most `serve.wait_seconds` (503) behind
at most `serve.max_waiting` others (429), both with Retry-After. The access log gives
method, path, status and time, never the question (unless `serve.log_questions`).
Errors are JSON: {"error": {"message", "type", "code"}}."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi import Request  # at module level: FastAPI reads the annotations by name

from ..errors import ConfigError, GraphragError, IndexStateError, InputError
from ..settings import ServeSettings
from .service import Busy, IndexService, Limits

log = logging.getLogger("graphrag_local.serve")
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# an oversized body up to this size is read and dropped before the 413, so that a client
# still sending it reads the answer (uvicorn closes at once otherwise, and the client gets
# a broken pipe); a larger one gets the 413 and the connection closed
DRAIN_BYTES = 8 * 2**20


def model_ids(name: str) -> list[str]:
    from ..content import METHODS

    return [name] + [f"{name}:{m}" for m in METHODS]


def sources_text(citations: list[dict]) -> str:
    """The sources of an answer as the CLI lists them, in markdown."""
    lines = [f"- [{c['ref']}] {c['kind']}: {c['title']}" + (f" ({c['detail']})" if c["detail"] else "")
             for c in citations if c.get("cited")]
    return ("\n\n**Sources**\n" + "\n".join(lines)) if lines else ""


def token_required(host: str) -> bool:
    return host not in LOOPBACK


def make_app(service: IndexService, settings: ServeSettings, name: str, *, token: str | None):
    """The FastAPI app answering from `service`; `token`: the bearer token every request
    must carry (None: none needed, on loopback)."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, StreamingResponse

    from ..query import result_dict

    # a thread for every question admitted (waiting, or answering): asyncio's default pool
    # has cpu+4 threads, and questions queued for one were neither counted nor refused
    pool = ThreadPoolExecutor(settings.max_waiting + 2, thread_name_prefix="ask")

    async def ask(question, method, level, history):
        service.admit()  # 429 now when the queue is full
        return await asyncio.get_running_loop().run_in_executor(
            pool, lambda: service.ask(question, method, level, history, admitted=True))

    app = FastAPI(title="graphrag-local", docs_url=None, redoc_url=None, openapi_url=None)
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["*"])

    def error(status: int, message: str, kind: str, headers: dict | None = None) -> JSONResponse:
        return JSONResponse({"error": {"message": message, "type": kind, "code": status}},
                            status_code=status, headers=headers)

    @app.middleware("http")
    async def guard(request: Request, call_next):
        started = time.perf_counter()
        if token is not None:
            given = request.headers.get("authorization", "")
            want = f"Bearer {token}"
            if not hmac.compare_digest(given.encode("utf-8"), want.encode("utf-8")):
                response = error(401, "missing or wrong bearer token", "authentication_error",
                                 {"WWW-Authenticate": "Bearer"})
                _access(request, response.status_code, started, None)
                return response
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > settings.max_body_bytes):
            if size.isdigit() and int(size) <= DRAIN_BYTES:
                async for _ in request.stream():
                    pass
            response = error(413, f"request body over {settings.max_body_bytes} bytes",
                             "invalid_request_error")
            _access(request, 413, started, None)
            return response
        try:
            response = await call_next(request)
        except Exception:  # a bug: one traceback in the log, a 500 to the client
            log.exception("unexpected error")
            response = error(500, "internal error", "server_error")
        _access(request, response.status_code, started, getattr(request.state, "question", None))
        return response

    def _access(request, status: int, started: float, question: str | None) -> None:
        extra = f" q={question[:200]!r}" if question and settings.log_questions else ""
        log.info("%s %s %d %.3fs%s", request.method, request.url.path, status,
                 time.perf_counter() - started, extra)

    async def body_of(request: Request) -> dict:
        raw, size = bytearray(), 0
        async for piece in request.stream():
            size += len(piece)
            if size <= settings.max_body_bytes:
                raw += piece
            elif size > DRAIN_BYTES:
                break
        if size > settings.max_body_bytes:
            raise _Refused(413, f"request body over {settings.max_body_bytes} bytes")
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise _Refused(400, "the request body is not JSON") from None
        if not isinstance(data, dict):
            raise _Refused(400, "the request body must be a JSON object")
        return data

    def checked_question(text, request: Request) -> str:
        if not isinstance(text, str) or not text.strip():
            raise _Refused(400, "no question: send a non-empty user message")
        if len(text) > settings.max_question_chars:
            raise _Refused(413, f"the question is over {settings.max_question_chars} characters")
        request.state.question = text
        return text.strip()

    def method_of(model: str) -> str:
        if model in (name, ""):
            return settings.method
        if ":" in model and model.split(":", 1)[0] == name:
            method = model.split(":", 1)[1]
            if f"{name}:{method}" in model_ids(name):
                return method
        raise _Refused(404, f"unknown model '{model}'; this server has: {', '.join(model_ids(name))}",
                       "model_not_found")

    # refusals become their responses inside the middleware above, so they are logged as
    # requests, not as errors; anything else reaches the middleware's `except`
    async def on_error(request: Request, exc: Exception):
        if isinstance(exc, _Refused):
            return error(exc.status, str(exc), exc.kind)
        if isinstance(exc, Busy):
            return error(429 if exc.full else 503, str(exc), "rate_limit_error" if exc.full
                         else "server_busy", {"Retry-After": str(exc.retry_after)})
        if isinstance(exc, (InputError, ConfigError)):
            return error(400, str(exc), "invalid_request_error")
        if isinstance(exc, IndexStateError):
            return error(503, str(exc), "index_unavailable", {"Retry-After": "10"})
        log.error("%s: %s", type(exc).__name__, exc)
        return error(500, str(exc), "server_error")

    app.add_exception_handler(_Refused, on_error)
    app.add_exception_handler(GraphragError, on_error)

    @app.get("/health")
    async def health():
        s = service._session
        built = s.manifest.get("summary", {}) if s is not None else {}
        return {"status": "ok", "index": str(service.index_dir), "model": name,
                "documents": built.get("documents"), "waiting": service.waiting,
                "build_loaded_at": service.loaded_at}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [
            {"id": m, "object": "model", "created": int(service.loaded_at), "owned_by": "graphrag-local"}
            for m in model_ids(name)]}

    @app.post("/query")
    async def query(request: Request):
        data = await body_of(request)
        question = checked_question(data.get("question"), request)
        method = data.get("method") or settings.method
        level = data.get("level")
        history = data.get("history") or []
        if not isinstance(method, str):
            raise _Refused(400, "`method` must be a string")
        if level is not None and not isinstance(level, str | int):
            raise _Refused(400, "`level` must be a number, \"auto\" or null")
        if not isinstance(history, list) or not all(
                isinstance(x, list | tuple) and len(x) == 2 and all(isinstance(t, str) for t in x)
                for x in history):
            raise _Refused(400, "`history` must be a list of [question, answer] pairs of strings")
        history = [tuple(x) for x in history]
        result = await ask(question, method, level, history)
        return result_dict(result, name)

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        data = await body_of(request)
        method = method_of(str(data.get("model") or ""))
        messages = data.get("messages")
        if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) for m in messages):
            raise _Refused(400, "`messages` must be a non-empty list of {role, content}")
        turns = [(m.get("role"), _text(m.get("content"))) for m in messages
                 if m.get("role") in ("user", "assistant")]
        if not turns or turns[-1][0] != "user":
            raise _Refused(400, "the last message must be the user's question")
        question = checked_question(turns[-1][1], request)
        history, asked = [], None
        for role, text in turns[:-1]:
            if role == "user":
                asked = text
            elif asked is not None:
                history.append((asked, _strip_sources(text)))
                asked = None
        rid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
        model = str(data.get("model") or name)
        if not data.get("stream"):
            result = await ask(question, method, None, history)
            d = result_dict(result, name)
            return {"id": rid, "object": "chat.completion", "created": created, "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant",
                        "content": result.answer + sources_text(d["citations"])}}],
                    "usage": {"prompt_tokens": d["prompt_tokens"],
                              "completion_tokens": d["completion_tokens"],
                              "total_tokens": d["prompt_tokens"] + d["completion_tokens"]},
                    "sources": d["citations"], "method": method}
        service.admit()  # 429 before the stream starts; a 503 after waiting comes in it
        return StreamingResponse(_stream(question, method, history, rid, created, model),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    def _stream(question, method, history, rid, created, model):
        """Server-sent events: the answer's pieces as they come, then its sources. A
        client that goes away stops the answer at its next piece. The answer starts here,
        not when the response is first read: an admitted question always runs, and so
        gives its place back, even when its client left before the first byte."""
        queue: asyncio.Queue = asyncio.Queue()
        loop = asyncio.get_running_loop()
        gone = threading.Event()

        def on_text(piece: str) -> bool:
            loop.call_soon_threadsafe(queue.put_nowait, ("piece", piece))
            return gone.is_set()  # True stops the model

        def work():
            try:
                result = service.ask(question, method, None, history, on_text, admitted=True)
                loop.call_soon_threadsafe(queue.put_nowait, ("done", result))
            except Exception as exc:  # noqa: BLE001 - reported to the client, in the stream
                loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

        def event(delta: dict, finish: str | None = None, **extra) -> str:
            chunk = {"id": rid, "object": "chat.completion.chunk", "created": created,
                     "model": model, "choices": [{"index": 0, "delta": delta,
                                                  "finish_reason": finish}], **extra}
            return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"

        threading.Thread(target=work, daemon=True).start()
        return events(queue, gone, event, method)

    async def events(queue, gone, event, method):
        try:
            yield event({"role": "assistant"})
            while True:
                kind, value = await queue.get()
                if kind == "piece":
                    yield event({"content": value})
                elif kind == "error":
                    status = 429 if isinstance(value, Busy) and value.full else 503 if isinstance(
                        value, Busy) else 500
                    yield "data: " + json.dumps({"error": {"message": str(value), "code": status}}) + "\n\n"
                    break
                else:
                    d = result_dict(value, name)
                    if value.no_answer:  # never streamed: say it now
                        yield event({"content": value.answer})
                    tail = sources_text(d["citations"])
                    if tail:
                        yield event({"content": tail})
                    yield event({}, "stop", sources=d["citations"], method=method)
                    break
            yield "data: [DONE]\n\n"
        finally:
            gone.set()  # the client left (or the stream ended): stop the model at its next piece

    return app


class _Refused(Exception):
    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind


def _text(content) -> str:
    """A message's text: a string, or OpenAI's list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _strip_sources(answer: str) -> str:
    return answer.split("\n\n**Sources**\n", 1)[0]


def serve(index_dir: Path, *, config: Path | None = None, model: str | None = None,
          host: str | None = None, port: int | None = None, name: str | None = None,
          ready=lambda url: None, writer: str | None = None) -> None:
    """Run the service until interrupted (the CLI's `serve`)."""
    import uvicorn

    from .. import api
    from .discovery import announce

    settings = api.resolve_settings(config, model).serve
    host = host or settings.host
    port = port or settings.port
    token = None
    if token_required(host):
        token = os.environ.get(settings.token_env, "")
        if len(token) < 16:
            raise ConfigError(
                f"serving on {host} (not loopback) needs a bearer token of 16 characters or "
                f"more in the environment variable {settings.token_env}; or serve on 127.0.0.1")
    limits = Limits(settings.max_waiting, settings.wait_seconds)
    service = IndexService(index_dir, config=config, model=model, limits=limits, writer=writer)
    service.warm()  # fails now, with a clear error, if the index cannot be read
    name = name or Path(index_dir).resolve().name
    app = make_app(service, settings, name, token=token)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    server = _Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                    access_log=False, lifespan="off"))
    with announce(index_dir, host, port, token_env=settings.token_env if token else ""):
        ready(f"http://{host}:{port}")
        try:
            server.run()
        finally:
            service.close()


def _server_class():
    import signal
    from contextlib import contextmanager

    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, stopped by SIGINT/SIGTERM without re-raising the signal after
        its shutdown (so that `serve.json` is removed on the way out)."""

        @contextmanager
        def capture_signals(self):
            def stop(*_):
                self.should_exit = True

            old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for s, handler in old.items():
                    signal.signal(s, handler)

    return Server


def _Server(config):  # noqa: N802 - made on first use: uvicorn is imported only by `serve`
    return _server_class()(config)
