"""RemoteChatModel. Fast tier: request bodies, grammars, replies, and the HTTP handling
against a small scripted server in this process. End-to-end: the embedded SmolLM2
served by llama-cpp-python's server (started through tests/serve_llama.py), and by
llama.cpp's llama-server too where one is on PATH or named by $LLAMA_SERVER."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import NetworkBlocked, no_network

from graphrag_local.errors import BudgetError, ModelError
from graphrag_local.models import Request, transport
from graphrag_local.models.bodies import (
    OPTION_BOOST,
    chat_body,
    check_options,
    choice_body,
    gbnf_literal,
    match_option,
    option_bias,
    options_grammar,
    usage,
)
from graphrag_local.models.protocol import Sampling
from graphrag_local.models.server import RemoteChatModel

ROOT = Path(__file__).resolve().parent.parent
MODEL_ID = "smollm2-135m"
JSON_GRAMMAR = 'root ::= "{\\"answer\\": \\"" [a-z ]{1,20} "\\"}"'
USER = [{"role": "user", "content": "What colour is the sky on a clear day?"}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- fast: bodies, grammars, replies ---------------------------------------------------
@pytest.mark.parametrize(
    "text, literal",
    [
        (" YES", '" YES"'),
        (" 42\n", '" 42\\n"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("a\\b\tc\r", '"a\\\\b\\tc\\r"'),
        ("bell\x07", '"bell\\x07"'),
        (" Zoë", '" Zoë"'),
    ],
)
def test_gbnf_literal_escapes(text, literal):
    assert gbnf_literal(text) == literal


def test_options_grammar_lists_every_option():
    assert options_grammar((" YES", " NO")) == 'root ::= " YES" | " NO"'
    assert options_grammar((" 1\n", " 10\n")) == 'root ::= " 1\\n" | " 10\\n"'


def test_check_options():
    check_options((" YES", " NO"), ())
    check_options((" 1\n", " 10\n", " 100\n"), (0.0, 1.0, 2.0))
    check_options((" program", " programme"), ())  # matched exactly, see its docstring
    for options, bias in [((" YES",), ()), ((" a", " a"), ()), ((" a", ""), ()),
                          ((" a", " b"), (1.0,))]:
        with pytest.raises(ValueError):
            check_options(options, bias)


def test_match_option():
    options = (" YES", " NO", " 1\n")
    assert match_option(" YES", options) == 0
    assert match_option(" NO", options) == 1
    assert match_option("NO", options) == 1  # a server that trims the leading space
    assert match_option("1", options) == 2
    assert match_option(" MAYBE", options) is None
    assert match_option("", options) is None
    assert match_option("a", (" a", "a ")) is None  # ambiguous once trimmed


def test_option_bias_boosts_the_options_own_tokens():
    assert option_bias([[5, 7], [9]], ()) == {"5": OPTION_BOOST, "7": OPTION_BOOST,
                                             "9": OPTION_BOOST}
    # the first option that has a token gives it its bias; biases are clipped
    assert option_bias([[5, 7], [5, 8]], (-2.0, 500.0)) == {
        "5": OPTION_BOOST - 2, "7": OPTION_BOOST - 2, "8": OPTION_BOOST + 30}


def test_chat_body_dialects():
    s = Sampling(seed=7)
    llama = chat_body("llama.cpp", "m", USER, grammar=JSON_GRAMMAR, max_tokens=9, sampling=s)
    assert llama["grammar"] == JSON_GRAMMAR and llama["cache_prompt"] is True
    assert (llama["temperature"], llama["seed"], llama["repeat_penalty"]) == (0.0, 7, 1.0)
    assert llama["max_tokens"] == 9 and llama["model"] == "m" and "stream" not in llama
    vllm = chat_body("vllm", "m", USER, grammar=JSON_GRAMMAR, max_tokens=9, sampling=s)
    assert vllm["structured_outputs"] == {"grammar": JSON_GRAMMAR}
    assert vllm["repetition_penalty"] == 1.0 and "grammar" not in vllm
    old = chat_body("vllm", "m", USER, grammar=JSON_GRAMMAR, max_tokens=9, sampling=s,
                    vllm_new=False)
    assert old["guided_grammar"] == JSON_GRAMMAR and "structured_outputs" not in old
    retry = chat_body("llama.cpp", "m", USER, grammar=None, max_tokens=9, sampling=s,
                      attempt=1, stream=True)
    assert (retry["temperature"], retry["seed"]) == (0.5, 8) and "grammar" not in retry
    assert retry["stream"] is True and retry["stream_options"] == {"include_usage": True}
    plain = chat_body("openai", "m", USER, grammar=None, max_tokens=9, sampling=s)
    assert set(plain) == {"model", "messages", "max_tokens", "temperature", "seed", "top_p"}
    with pytest.raises(ModelError, match="cannot constrain"):
        chat_body("openai", "m", USER, grammar=JSON_GRAMMAR, max_tokens=9, sampling=s)


def test_choice_body_dialects():
    options = (" YES", " NO", " Zoë\n")
    llama = choice_body("llama.cpp", "m", "Q:", options, sampling=Sampling(),
                        logit_bias={"5": 50.0})
    assert llama["prompt"] == "Q:" and llama["grammar"] == options_grammar(options)
    assert llama["temperature"] == 0.0 and llama["logit_bias"] == {"5": 50.0}
    assert llama["max_tokens"] == len(" Zoë\n".encode()) + 1  # bytes bound the tokens
    vllm = choice_body("vllm", "m", "Q:", options, sampling=Sampling())
    assert vllm["structured_outputs"] == {"choice": list(options)} and "logit_bias" not in vllm
    old = choice_body("vllm", "m", "Q:", options, sampling=Sampling(), vllm_new=False)
    assert old["guided_choice"] == list(options)
    with pytest.raises(ModelError, match="cannot restrict"):
        choice_body("openai", "m", "Q:", options, sampling=Sampling())


def test_usage_from_each_server():
    llama_server = {"usage": {"prompt_tokens": 40, "completion_tokens": 5},
                    "timings": {"cache_n": 33, "prompt_n": 7, "predicted_n": 5}}
    assert usage(llama_server) == (40, 5, 33)
    vllm = {"usage": {"prompt_tokens": 40, "completion_tokens": 5,
                      "prompt_tokens_details": {"cached_tokens": 32}}}
    assert usage(vllm) == (40, 5, 32)
    assert usage({"usage": {"prompt_tokens": 40, "completion_tokens": 5}}) == (40, 5, 0)
    assert usage({"timings": {"cache_n": 40, "prompt_n": 0}}) == (40, 0, 39)  # as local


# -- fast: HTTP handling against a scripted server -------------------------------------
class Scripted(ThreadingHTTPServer):
    """Answers each path from `routes` (status, JSON or bytes, or a function of the
    request body) and records what it was sent."""

    daemon_threads = True

    def __init__(self, routes: dict):
        super().__init__(("127.0.0.1", 0), ScriptedHandler)
        self.routes, self.seen = routes, []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class ScriptedHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _answer(self, body):
        route = self.server.routes.get(self.path)
        self.server.seen.append((self.command, self.path, body, dict(self.headers)))
        if callable(route):
            route = route(body)
        status, payload = route if route is not None else (404, {"detail": "Not Found"})
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        if status in (301, 302, 307):
            self.send_header("Location", "http://127.0.0.1:9/v1/models")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._answer(None)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self._answer(json.loads(self.rfile.read(length) or b"null"))


@contextmanager
def scripted(routes: dict):
    server = Scripted(routes)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def llama_server_routes(**extra) -> dict:
    """What llama-server answers (abridged)."""
    chat = {"choices": [{"message": {"content": '{"answer": "blue"}'}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 6},
            "timings": {"cache_n": 20, "prompt_n": 10, "predicted_n": 6}}
    return {
        "/v1/models": (200, {"object": "list", "data": [
            {"id": MODEL_ID, "created": 1, "meta": {"n_params": 134515008, "n_ctx": 2048}}]}),
        "/health": (200, {"status": "ok"}),
        "/props": (200, {"default_generation_settings": {"n_ctx": 2048}, "total_slots": 2}),
        "/tokenize": lambda body: (200, {"tokens": list(range(len(body["content"].split())))}),
        "/apply-template": (200, {"prompt": "<|im_start|>user\nHi there<|im_end|>\n"}),
        "/v1/chat/completions": (200, chat),
        "/v1/completions": (200, {"choices": [{"text": " NO", "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 12, "completion_tokens": 2}}),
        **extra,
    }


def test_llama_server_dialect_end_to_end_in_process(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # never used
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("TEST_REMOTE_KEY", "sk-secret-123")
    with scripted(llama_server_routes()) as server:
        with no_network("127.0.0.1", server.server_address[1]) as attempts:
            m = RemoteChatModel(server.url + "/v1/", MODEL_ID, api_key_env="TEST_REMOTE_KEY",
                                n_ctx=4096, parallel=0)  # the server's n_ctx and slots win
            assert (m.flavour, m.n_ctx, m.name, m.parallel) == ("llama-server", 2048, MODEL_ID, 2)
            reply = m.complete(USER, grammar=JSON_GRAMMAR, max_tokens=20, purpose="extract")
            assert reply == '{"answer": "blue"}'
            rec = m.calls[-1]
            assert (rec.prompt_tokens, rec.reused_tokens, rec.completion_tokens) == (30, 20, 6)
            assert rec.purpose == "extract" and rec.finish_reason == "stop"
            assert m.count_tokens("one two three") == 3
            assert m.prompt_tokens([{"role": "user", "content": "Hi there"}]) == 3
            assert m.choose(["Is ice hot?", "Is it?"], (" YES", " NO"), bias=(0.0, 1.0)) == [1, 1]
        assert attempts == []
    posts = {path: body for cmd, path, body, _ in server.seen if cmd == "POST"}
    assert posts["/v1/chat/completions"]["grammar"] == JSON_GRAMMAR
    choice = posts["/v1/completions"]
    assert choice["grammar"] == 'root ::= " YES" | " NO"' and choice["temperature"] == 0.0
    assert choice["logit_bias"] == {"0": OPTION_BOOST}  # " YES" and " NO" are one "word"
    headers = [h for *_, h in server.seen]
    assert all(h.get("Authorization") == "Bearer sk-secret-123" for h in headers)
    assert "sk-secret" not in repr(vars(m)) and "sk-secret" not in m.model_key()
    assert m.model_key().startswith("remote:") and '"n_params":134515008' in m.model_key()
    assert '"created"' not in m.model_key()


def test_llama_server_is_asked_to_keep_to_the_copy_guard_by_its_dry_sampler():
    """A writer's request carries the copy guard (`Avoid`); an in-process model keeps to
    it while decoding, llama-server is asked to by DRY (a penalty on repeating a run of
    the prompt); a request without it, or another server, gets no DRY."""
    from graphrag_local.models.protocol import Avoid

    guard = Avoid(("Mara Quill founded the Aldren Water Trust in 2015.",), 8, 3)
    with scripted(llama_server_routes()) as server:
        m = RemoteChatModel(server.url, MODEL_ID)
        m.complete_many([Request(USER, None, 20, "write", avoid=guard), Request(USER)])
        m.complete(USER, max_tokens=20, avoid=guard)
    posts = [body for cmd, path, body, _ in server.seen if path == "/v1/chat/completions"]
    guarded = [b for b in posts if b["max_tokens"] == 20]  # in a batch, and streamed alone
    plain = [b for b in posts if b["max_tokens"] != 20]
    assert len(guarded) == 2 and len(plain) == 1
    assert all(b["dry_allowed_length"] == 6 and b["dry_penalty_last_n"] == 2048  # n_ctx
               and b["dry_multiplier"] > 0 for b in guarded)
    assert not any(k.startswith("dry_") for k in plain[0])


def test_llama_server_marks_a_writers_unlikely_tokens_from_its_logprobs():
    """A writer's request asks for the tokens' log-probabilities (llama-server's are the
    model's own, before the grammar); a token taken under 1% is marked at its line's end
    as the in-process decoder marks it (`decode.annotated`), for the same garble tests."""
    tokens = [("- The", -0.4), (" dog", -5.4), (" sat", -1.6), (" [1]", -0.1), ("\n", -0.1),
              ("- It", -0.2), (" ran", -0.3), (" [1]", -0.1)]
    text = "".join(t for t, _ in tokens)
    chat = {"choices": [{"message": {"content": text}, "finish_reason": "stop",
                         "logprobs": {"content": [{"token": t, "logprob": lp}
                                                  for t, lp in tokens]}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 8}}
    with scripted(llama_server_routes(**{"/v1/chat/completions": (200, chat)})) as server:
        m = RemoteChatModel(server.url, MODEL_ID)
        marked, plain = m.complete_many([Request(USER, None, 20, "write", mark_unlikely=True),
                                         Request(USER, None, 21)])
    assert marked.splitlines() == ["- The dog sat [1] ~5", "- It ran [1]"]
    posts = {b["max_tokens"]: b for cmd, path, b, _ in server.seen if path.endswith("completions")}
    assert posts[20]["logprobs"] is True and "logprobs" not in posts[21]
    # the tokens do not spell the text (a character split over two): nothing is marked
    assert bodies_reply({"choices": [{"message": {"content": "é"}, "logprobs": {
        "content": [{"token": "\ufffd", "logprob": -9.0}]}}]}).text == "é"


def bodies_reply(answer: dict):
    from graphrag_local.models.bodies import reply

    return reply(answer, True)


def test_vllm_dialect_picks_the_field_by_version():
    def routes(version: str) -> dict:
        return {
            "/v1/models": (200, {"data": [{"id": "Qwen/Qwen2.5-7B", "root": "Qwen/Qwen2.5-7B",
                                           "max_model_len": 32768, "created": 5}]}),
            "/health": (200, b""),
            "/version": (200, {"version": version}),
            "/tokenize": lambda body: (200, {"count": 11 if "messages" in body else 2,
                                             "tokens": [1] * (11 if "messages" in body else 2)}),
            "/v1/chat/completions": (200, {"choices": [{"message": {"content": "x"},
                                                        "finish_reason": "stop"}]}),
        }

    for version, field in [("0.10.1", "guided_grammar"), ("0.11.2", "structured_outputs")]:
        with scripted(routes(version)) as server:
            m = RemoteChatModel([server.url], "Qwen/Qwen2.5-7B", api="vllm")
            assert (m.flavour, m.n_ctx, m.vllm_new) == ("vllm", 32768, field != "guided_grammar")
            m.complete(USER, grammar=JSON_GRAMMAR)
            assert m.prompt_tokens(USER) == 11 and m.count_tokens("a b") == 2
        body = [b for c, p, b, _ in server.seen if p == "/v1/chat/completions"][0]
        assert field in body and "grammar" not in body


@pytest.mark.parametrize(
    "routes, model, n_ctx, message",
    [
        ({"/v1/models": (200, b"<html>hello</html>")}, MODEL_ID, 4096, "did not answer with JSON"),
        ({"/v1/models": (200, {"object": "list"})}, MODEL_ID, 4096, "lists no models"),
        ({}, MODEL_ID, 4096, "lists no models"),  # 404 everywhere
        ({"/v1/models": (200, {"data": [{"id": "other"}]})}, MODEL_ID, 4096,
         "serves other, not 'smollm2-135m'"),
        ({"/v1/models": (503, {"error": {"message": "Loading model"}})}, MODEL_ID, 4096,
         "not ready"),
        ({"/v1/models": (401, {"error": {"message": "Invalid API key"}})}, MODEL_ID, 4096,
         "set api_key_env"),
        ({"/v1/models": (302, {})}, MODEL_ID, 4096, "failed /v1/models"),  # not followed
        ({"/v1/models": (200, {"data": [{"id": MODEL_ID}]})}, MODEL_ID, 0, "set n_ctx"),
    ],
)
def test_construction_errors_name_the_url_and_the_fix(routes, model, n_ctx, message):
    with scripted(routes) as server:
        with pytest.raises(ModelError, match=message) as info:
            RemoteChatModel([server.url], model, n_ctx=n_ctx)
    assert server.url in str(info.value) or "n_ctx" in str(info.value)
    assert all(p != "/v1/chat/completions" for _, p, *_ in server.seen)  # no work was tried


def test_a_missing_api_key_variable_is_named(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(ModelError, match="NO_SUCH_KEY_VAR"):
        RemoteChatModel(["http://127.0.0.1:9"], MODEL_ID, api_key_env="NO_SUCH_KEY_VAR")


def test_errors_while_working(monkeypatch):
    monkeypatch.setattr(transport, "RETRY_PAUSE", 0.05)
    tries = []

    def flaky(body):
        tries.append(body)
        return 500, {"error": {"message": "boom"}}

    routes = llama_server_routes(**{"/v1/chat/completions": flaky})
    routes["/v1/completions"] = (400, {"error": {"message": "the request exceeds the available "
                                                 "context size, try increasing it"}})
    with scripted(routes) as server:
        m = RemoteChatModel([server.url], MODEL_ID)
        with pytest.raises(ModelError, match="stopped answering .*HTTP 500: boom.*resumable"):
            m.complete(USER)
        assert len(tries) == 2  # retried once
        with pytest.raises(BudgetError, match="does not fit the context"):
            m.choose(["x"], (" YES", " NO"))
        assert m.calls == []


@pytest.mark.fast
def test_a_server_of_a_packaged_model_keeps_what_was_measured_for_it(tmp_path, monkeypatch):
    # SmolLM2 answers the gleaning YES/NO at chance, served or in process; a model we
    # know nothing about is asked, as the paper's method does
    from graphrag_local import api
    from graphrag_local.models.presets import get_preset

    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path))
    api.add_server_model("tiny", "http://127.0.0.1:9", "smollm2-135m", content="extractive")
    api.add_server_model("big", "http://127.0.0.1:9", "qwen2.5-7b")
    assert get_preset("tiny").glean_check is False and get_preset("tiny").source == "server"
    assert get_preset("big").glean_check is True


def test_complete_many_keeps_input_order_across_urls():
    def routes(tag: str) -> dict:
        def answer(body):
            time.sleep(0.05 * (3 - int(body["messages"][0]["content"]) % 3))
            text = tag + body["messages"][0]["content"]
            return 200, {"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 5, "completion_tokens": 1}}
        return llama_server_routes(**{"/v1/chat/completions": answer})

    with scripted(routes("a")) as one, scripted(routes("b")) as two:
        m = RemoteChatModel([one.url, two.url], MODEL_ID, parallel=3)
        requests = [Request([{"role": "user", "content": str(i)}], None, 5, f"p{i}")
                    for i in range(6)]
        replies = m.complete_many(requests)
    assert [r[1:] for r in replies] == [str(i) for i in range(6)]
    assert {r[0] for r in replies} == {"a", "b"}  # both servers get work
    assert [c.purpose for c in m.calls] == [f"p{i}" for i in range(6)]


def test_it_is_a_chat_model():
    from graphrag_local.models import ChatModel

    with scripted(llama_server_routes()) as server:
        m = RemoteChatModel([server.url], MODEL_ID)
    for name in ChatModel.__annotations__:
        assert hasattr(m, name), name
    for name in ("complete", "complete_many", "choose", "count_tokens", "prompt_tokens", "close"):
        assert inspect.signature(getattr(m, name)) == inspect.signature(
            getattr(ChatModel, name)).replace(parameters=list(
                inspect.signature(getattr(ChatModel, name)).parameters.values())[1:]), name


def test_the_injected_failure_comes_where_the_local_model_raises_it(monkeypatch):
    from graphrag_local.errors import InjectedFailure

    monkeypatch.setenv("GRAPHRAG_LOCAL_FAIL_AFTER_CALLS", "3")
    with scripted(llama_server_routes()) as server:
        m = RemoteChatModel([server.url], MODEL_ID, parallel=2)
        m.complete_many([Request(USER)] * 2)
        m.complete(USER)  # call 3 is made
        with pytest.raises(InjectedFailure):
            m.complete(USER)
        m.calls.clear()
        with pytest.raises(InjectedFailure):
            m.complete_many([Request(USER)] * 5)
        assert len(m.calls) == 3


def test_an_unused_port_fails_fast():
    started = time.perf_counter()
    with pytest.raises(ModelError, match="no model server answers at http://127.0.0.1"):
        RemoteChatModel([f"http://127.0.0.1:{free_port()}"], MODEL_ID, n_ctx=4096)
    assert time.perf_counter() - started < 5


# -- end to end: real servers ----------------------------------------------------------
def _wait_until_up(url: str, proc: subprocess.Popen, log: Path, seconds: float = 120) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"model server exited: {log.read_text()[-2000:]}")
        try:
            with opener.open(url + "/v1/models", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"model server did not start in {seconds} s: {log.read_text()[-2000:]}")


def llama_server_binary() -> str | None:
    return os.environ.get("LLAMA_SERVER") or shutil.which("llama-server")


@contextmanager
def model_server(kind: str, tmp: Path, interrupt: bool = False):
    """A server of the embedded SmolLM2 on a free port: (url, process). llama-cpp-python's
    cuts a streamed reply when another request comes unless told not to (`interrupt`)."""
    from graphrag_local.models.presets import get_preset, require

    model, port = require(get_preset(MODEL_ID)), free_port()
    if kind == "llama-cpp-python":
        if importlib.util.find_spec("uvicorn") is None:
            pytest.fail("llama-cpp-python's server needs its extras: pip install fastapi "
                        "uvicorn sse-starlette starlette-context pydantic-settings")
        cmd = [sys.executable, str(ROOT / "tests" / "serve_llama.py"), "--model", str(model),
               "--model_alias", MODEL_ID, "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", "4096", "--n_threads", "2", "--interrupt_requests", str(interrupt)]
    else:  # --no-repack: no AMX kernel (see llama._without_amx); 3 slots of 4096 tokens
        cmd = [llama_server_binary(), "-m", str(model), "--alias", MODEL_ID, "--host",
               "127.0.0.1", "--port", str(port), "-c", "12288", "-np", "3", "-t", "2",
               "--no-repack"]
    log = tmp / f"{kind}-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, proc, log)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


SERVERS = [
    "llama-cpp-python",
    pytest.param("llama-server", marks=pytest.mark.skipif(
        llama_server_binary() is None, reason="no llama-server on PATH or in $LLAMA_SERVER")),
]


@pytest.fixture(scope="module", params=SERVERS)
def served(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path_factory.mktemp("home")))
    with model_server(request.param, tmp_path_factory.mktemp("server")) as (url, _):
        yield request.param, url
    mp.undo()


@pytest.fixture
def model(served):
    kind, url = served
    m = RemoteChatModel([url], MODEL_ID, n_ctx=4096 if kind == "llama-cpp-python" else 0,
                        parallel=3)
    yield m
    m.close()


@pytest.mark.e2e
def test_complete_returns_text_and_a_call_record(model):
    reply = model.complete(USER, max_tokens=16, purpose="answer")
    assert reply.strip()
    rec = model.calls[-1]
    assert rec.purpose == "answer" and rec.finish_reason in ("stop", "length")
    assert rec.prompt_tokens > 10 and 0 < rec.completion_tokens <= 16
    # temperature 0, fixed seed: the same server state gives the same reply (a first and
    # a repeated request may differ: the repeat has its prompt cached, see server.py)
    again = model.complete(USER, max_tokens=16)
    assert model.complete(USER, max_tokens=16) == again
    if model.flavour == "llama-server":  # it says what it found in its prompt cache
        assert 0 < model.calls[-1].reused_tokens < model.calls[-1].prompt_tokens


@pytest.mark.e2e
def test_a_writer_request_with_the_copy_guard_is_answered(model):
    """llama-server is asked to keep to the copy guard by DRY (`bodies.copy_penalty`);
    a version that refused a field (dry_penalty_last_n -1 was refused) fails the write.
    And it marks the tokens the model gave under 1% (`bodies.unlikely_offsets`)."""
    from graphrag_local.models.protocol import Avoid

    evidence = "Mara Quill founded the Aldren Water Trust in 2015 to protect the river."
    messages = [{"role": "user", "content": f"Evidence: {evidence}\nSay what it tells."}]
    reply = model.complete_many([Request(messages, None, 24, "write",
                                         avoid=Avoid((evidence,), 8, 3))])[0]
    assert reply.strip()
    reply = model.complete(messages, max_tokens=24, avoid=Avoid((evidence,), 8, 3),
                           on_text=lambda piece: False)  # streamed
    assert reply.strip()
    if model.flavour == "llama-server":  # its log-probabilities mark an unlikely token
        said = [{"role": "user", "content": "Repeat exactly: The cat sat on the mat."}]
        forced = model.complete_many([Request(said, 'root ::= "The cat sat xylophone."', 24,
                                              "write", mark_unlikely=True)])[0]
        assert forced.startswith("The cat sat xylophone. ~11,"), forced  # at " xylophone"


@pytest.mark.e2e
def test_complete_under_a_json_grammar(model):
    messages = [{"role": "user", "content": "What colour is the sky? Answer in JSON."}]
    reply = model.complete(messages, grammar=JSON_GRAMMAR, max_tokens=40)
    answer = json.loads(reply)
    assert list(answer) == ["answer"] and set(answer["answer"]) <= set("abcdefghijklmnopqrstuvwxyz ")


@pytest.mark.e2e
def test_streaming_can_be_stopped(model):
    pieces: list[str] = []
    reply = model.complete(USER, max_tokens=30, on_text=lambda p: pieces.append(p) or len(pieces) == 3)
    assert reply == "".join(pieces) and len(pieces) == 3
    assert model.calls[-1].finish_reason == "stopped" and model.calls[-1].prompt_tokens > 10
    whole = model.complete(USER, max_tokens=12, on_text=lambda p: None)
    assert whole == model.complete(USER, max_tokens=12)  # streamed or not, one reply


@pytest.mark.e2e
def test_complete_many_gives_the_sequential_replies_in_order(model):
    requests = [Request([{"role": "user", "content": f"Write one sentence about the number {i}."}],
                        None, 12, f"r{i}") for i in range(6)]
    started = time.perf_counter()
    together = model.complete_many(requests)
    seconds = time.perf_counter() - started
    one_by_one = [model.complete(r.messages, max_tokens=r.max_tokens) for r in requests]
    assert together == one_by_one
    assert [c.purpose for c in model.calls[:6]] == [f"r{i}" for i in range(6)]
    print(f"complete_many: 6 replies in {seconds:.2f} s")


@pytest.mark.e2e
def test_choose_picks_options_in_one_record(model):
    prompts = ["Question: Is fire hot? Answer YES or NO.\nAnswer:",
               "Question: Is snow hot? Answer YES or NO.\nAnswer:",
               "Question: Is the sun bright? Answer YES or NO.\nAnswer:"]
    picks = model.choose(prompts, (" YES", " NO"), purpose="glean_check")
    assert len(picks) == 3 and set(picks) <= {0, 1}
    assert len(model.calls) == 1
    rec = model.calls[0]
    assert rec.finish_reason == "choice" and rec.purpose == "glean_check" and rec.prompt_tokens > 20
    # options a grammar must escape come back exactly
    odd = (' "quoted"\n', " back\\slash\n", " tab\there\n")
    assert model.choose(["Pick one:"], odd)[0] in (0, 1, 2)
    # a strong bias against an option rules it out
    assert model.choose(prompts, (" YES", " NO"), bias=(-40.0, 0.0)) == [1, 1, 1]
    assert model.choose(prompts, (" YES", " NO"), bias=(0.0, -40.0)) == [0, 0, 0]


@pytest.mark.e2e
def test_choose_agrees_with_the_local_model(model):
    from graphrag_local.models.llama import LlamaChatModel
    from graphrag_local.models.presets import get_preset, require
    from graphrag_local.settings import ExtractSettings
    from graphrag_local.stages.classify import type_options

    scores = tuple(f" {n}\n" for n in range(101))
    prompts = [f"Rate from 0 to 100 how {w} this is: {t}\nScore:" for w, t in
               [("hot", "the sun"), ("cold", "ice"), ("loud", "a whisper")]]
    yes_no = ["Is water wet? Answer YES or NO:", "Is a stone alive? Answer YES or NO:"]
    # the entity-type words with the not-an-entity bias (stages/classify.py): per token
    # id on the server, per option locally, the same as no option shares a token
    types = type_options(ExtractSettings().entity_types)
    # sentences whose best type leads the next by a clear margin: "Mara Quill leads the
    # Aldren Water Trust." had " woman" and " leader" 0.015 apart, which a llama-server of
    # another build (AVX2, not AVX-512) took the other way
    names = [f"{s} Here, {n} is a" for s, n in [
        ("Mara Quill is the mayor of Millbrook.", "Mara Quill"),
        ("The ferry leaves Port Aldren at dawn.", "Port Aldren"),
        ("The Lantern Festival fills the harbour every June.", "the Lantern Festival")]]

    def asks(m):
        return [m.choose(prompts, scores), m.choose(yes_no, (" YES", " NO")),
                m.choose(yes_no, (" YES", " NO"), bias=(-1.5, 0.0)),
                m.choose(names, types.options, bias=types.bias(-5.0))]

    remote = asks(model)
    preset = get_preset(MODEL_ID)
    local = LlamaChatModel(preset=preset, path=require(preset), n_threads=2)
    try:
        here = asks(local)
    finally:
        local.close()
    assert remote == here


@pytest.mark.e2e
def test_count_tokens_agrees_with_llama_cpp(model):
    import llama_cpp

    from graphrag_local.models.llama import _without_amx
    from graphrag_local.models.presets import get_preset, require

    with _without_amx(llama_cpp):
        vocab = llama_cpp.Llama(str(require(get_preset(MODEL_ID))), vocab_only=True, verbose=False)
    texts = ["Hello world", " YES", "Café owner Zoë Marchand supplies the Lantern Festival.",
             "line one\nline two\n\n  indented", "", "1234567890 + 42 = ?"]
    for text in texts:
        expected = len(vocab.tokenize(text.encode(), add_bos=False, special=False))
        assert model.count_tokens(text) == expected, text
    messages = [{"role": "user", "content": texts[2]}]
    model.complete(messages, max_tokens=1)
    assert abs(model.prompt_tokens(messages) - model.calls[-1].prompt_tokens) <= 1


@pytest.mark.e2e
def test_construction_checks_are_quick(served):
    kind, url = served
    started = time.perf_counter()
    with pytest.raises(ModelError, match="serves smollm2-135m, not 'no-such-model'"):
        RemoteChatModel([url], "no-such-model", n_ctx=4096)
    with pytest.raises(ModelError, match="no model server answers"):
        RemoteChatModel([f"http://127.0.0.1:{free_port()}"], MODEL_ID, n_ctx=4096)
    if kind == "llama-cpp-python":
        with pytest.raises(ModelError, match="set n_ctx"):
            RemoteChatModel([url], MODEL_ID)
    assert time.perf_counter() - started < 10


@pytest.mark.e2e
def test_only_the_configured_server_is_contacted(served, monkeypatch):
    kind, url = served
    port = int(url.rsplit(":", 1)[1])
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "")
    with no_network("127.0.0.1", port) as attempts:
        m = RemoteChatModel([url], MODEL_ID, n_ctx=4096 if kind == "llama-cpp-python" else 0)
        m.complete(USER, max_tokens=4)
        m.complete(USER, max_tokens=4, on_text=lambda p: None)
        m.complete_many([Request(USER, JSON_GRAMMAR, 20)] * 2)
        m.choose(["Is fire hot? Answer YES or NO:"], (" YES", " NO"), bias=(0.5, 0.0))
        m.count_tokens("some words")
        m.prompt_tokens(USER)
        with pytest.raises(NetworkBlocked):  # and the guard was really on
            socket.create_connection(("127.0.0.1", 9), timeout=1)
    assert attempts == [("127.0.0.1", 9)]


@pytest.mark.e2e
def test_a_server_that_dies_ends_the_build_with_the_resume_hint(tmp_path):
    with model_server("llama-cpp-python", tmp_path) as (url, proc):
        m = RemoteChatModel([url], MODEL_ID, n_ctx=4096)
        assert m.complete(USER, max_tokens=4)
        proc.kill()
        proc.wait()
        started = time.perf_counter()
        with pytest.raises(ModelError) as info:
            m.complete_many([Request(USER, None, 4)] * 3)
        assert time.perf_counter() - started < 10
    assert f"model server {url} stopped answering" in str(info.value)
    assert "the index is resumable: start the server and run the same build again" in str(info.value)
    assert len(m.calls) == 1


@pytest.mark.e2e
def test_a_cut_stream_is_reported(tmp_path):
    with model_server("llama-cpp-python", tmp_path, interrupt=True) as (url, _):
        streaming, other = (RemoteChatModel([url], MODEL_ID, n_ctx=4096) for _ in range(2))
        story = [{"role": "user", "content": "Tell me a long story about a lighthouse."}]
        pieces: list[str] = []

        def interrupt(piece: str) -> None:
            pieces.append(piece)
            if len(pieces) == 3:  # another request while the story streams
                threading.Thread(target=other.complete, args=(USER,),
                                 kwargs={"max_tokens": 2}, daemon=True).start()

        with pytest.raises(ModelError, match="--interrupt_requests False"):
            streaming.complete(story, max_tokens=200, on_text=interrupt)
