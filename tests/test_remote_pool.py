"""Several servers of one model (`transport.Servers` under RemoteChatModel): the least
busy gets each request, one that stops answering is left out with one warning and its
requests go to the others, it is tried again after the cool-down, and the build ends
only when every server is down. Fast tier: scripted servers on 127.0.0.1 in this
process (test_remote.py's), started, killed and restarted on their own ports."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

import pytest
from test_remote import MODEL_ID, USER, Scripted, ScriptedHandler, llama_server_routes

from graphrag_local.errors import BudgetError, ModelError
from graphrag_local.models import Request, transport
from graphrag_local.models.server import RemoteChatModel
from graphrag_local.models.transport import RESUME_HINT

LOGGER = "graphrag_local.models.transport"


class Replica(Scripted):
    """A scripted llama-server on a given port (0: any free one), so that it can be
    killed (connections refused) and started again where it was."""

    def __init__(self, routes: dict, port: int = 0):
        ThreadingHTTPServer.__init__(self, ("127.0.0.1", port), ScriptedHandler)
        self.routes, self.seen = routes, []

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up
            super().handle_error(request, client_address)

    def chats(self) -> int:
        return sum(path == "/v1/chat/completions" for _, path, *_ in self.seen)


def start(routes: dict, port: int = 0) -> Replica:
    server = Replica(routes, port)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return server


def kill(server: Replica) -> None:
    server.shutdown()
    server.server_close()


@contextmanager
def replicas(*routes: dict):
    servers = [start(r) for r in routes]
    try:
        yield servers
    finally:
        for s in servers:
            kill(s)


def answer(body: dict, delay: float = 0.0) -> tuple[int, dict]:
    """The same reply on every replica: a function of the question."""
    time.sleep(delay)
    question = body["messages"][-1]["content"]
    return 200, {"choices": [{"message": {"content": f"answer to {question}"},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 5, "completion_tokens": 3}}


def routes(chat=answer, slots: int = 2) -> dict:
    sse = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in [
        {"choices": [{"delta": {"content": "stre"}}]},
        {"choices": [{"delta": {"content": "amed"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}]) + b"data: [DONE]\n\n"

    def chat_or_stream(body):
        return (200, sse) if body.get("stream") else chat(body)

    return llama_server_routes(**{
        "/v1/chat/completions": chat_or_stream,
        "/props": (200, {"default_generation_settings": {"n_ctx": 2048}, "total_slots": slots})})


def questions(n: int, tag: str = "q") -> list[Request]:
    return [Request([{"role": "user", "content": f"{tag}{i}"}], None, 5, f"p{i}") for i in range(n)]


@pytest.fixture(autouse=True)
def _short_retry(monkeypatch):
    monkeypatch.setattr(transport, "RETRY_PAUSE", 0.01)


def warnings_of(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == LOGGER and r.levelno == logging.WARNING]


# -- load --------------------------------------------------------------------------
def test_requests_go_to_the_least_busy_server():
    slow = routes(lambda body: answer(body, delay=0.3))
    with replicas(slow, routes()) as (a, b):
        m = RemoteChatModel([a.url, b.url], MODEL_ID, parallel=4)
        replies = m.complete_many(questions(20))
    assert replies == [f"answer to q{i}" for i in range(20)]
    # round robin would send 10 to each; the slow one holds its first two for 0.3 s
    # while the fast one answers the rest
    print(f"slow server {a.chats()} requests, fast server {b.chats()}")
    assert a.chats() + b.chats() == 20
    assert a.chats() <= 5 and b.chats() >= 15


def test_load_is_counted_per_slot():
    def even(body):
        return answer(body, delay=0.1)

    with replicas(routes(even, slots=1), routes(even, slots=3)) as (one, three):
        m = RemoteChatModel([one.url, three.url], MODEL_ID, parallel=0)
        assert m.parallel == 4
        m.complete_many(questions(12))
    # equally fast servers: requests follow the slots, 1 : 3 (by raw counts: 6 and 6)
    print(f"1 slot: {one.chats()} requests, 3 slots: {three.chats()}")
    assert one.chats() <= 4 and three.chats() >= 8


# -- a server that stops answering --------------------------------------------------------
def misbehaving(how: str, after: int) -> tuple[dict, list]:
    """Routes that answer `after` chats, then stop answering: killed (refused), HTTP 500,
    or too slow for the model's timeout. The list holds the server once it is known."""
    holder: list[Replica] = []
    count = [0]
    lock = threading.Lock()

    def chat(body):
        with lock:
            count[0] += 1
            n = count[0]
        if n < after or how == "killed" and n == after:
            if n == after:
                kill(holder[0])  # this reply still goes out; new connections are refused
            return answer(body)
        if how == "500":
            return 500, {"error": {"message": "CUDA error: out of memory"}}
        return answer(body, delay=1.5)  # "slow"

    return routes(chat), holder


@pytest.mark.parametrize("how", ["killed", "500", "slow"])
def test_a_server_that_stops_answering_is_left_out_with_one_warning(how, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    bad_routes, holder = misbehaving(how, after=2)
    with replicas(routes()) as (alone,):
        expected = RemoteChatModel([alone.url], MODEL_ID).complete_many(questions(30))
    with replicas(routes(lambda body: answer(body, delay=0.01)), bad_routes) as (good, bad):
        holder.append(bad)
        m = RemoteChatModel([good.url, bad.url], MODEL_ID, parallel=4, timeout=0.5)
        started = time.perf_counter()
        replies = m.complete_many(questions(30))
        seconds = time.perf_counter() - started
    assert replies == expected == [f"answer to q{i}" for i in range(30)]
    assert len(m.calls) == 30
    warned = warnings_of(caplog)
    assert len(warned) == 1, warned
    assert f"model server {bad.url}" in warned[0] and "left out for 30 s" in warned[0]
    assert good.url not in warned[0] and RESUME_HINT not in warned[0]
    # left out: only the requests already sent to it when it stopped reached it (at most
    # `parallel`; a 500 is tried twice); without that it would get about half of the 30
    answered = 2 if how == "killed" else 1
    failed = bad.chats() - answered
    print(f"{how}: {seconds:.2f} s, {failed} failed tries reached the bad server")
    assert failed <= 4 * (2 if how == "500" else 1)
    assert good.chats() == 30 - answered


def test_a_stream_and_a_token_count_move_too(caplog):
    with replicas(routes(), routes()) as (dead, live):
        m = RemoteChatModel([dead.url, live.url], MODEL_ID)  # the dead one is first in turn
        kill(dead)
        pieces: list[str] = []
        assert m.complete(USER, on_text=pieces.append) == "streamed" == "".join(pieces)
        assert m.count_tokens("one two three") == 3
        assert m.prompt_tokens([{"role": "user", "content": "Hi there"}]) == 3
    assert len(warnings_of(caplog)) == 1


def test_a_server_is_tried_again_after_the_cool_down(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    cooldown = 1.0
    with replicas(routes(), routes()) as (a, b):
        m = RemoteChatModel([a.url, b.url], MODEL_ID, parallel=2, cooldown=cooldown)
        port = b.server_address[1]
        kill(b)
        died = time.monotonic()
        assert m.complete_many(questions(6)) == [f"answer to q{i}" for i in range(6)]
        assert a.chats() == 6
        # still dead when its cool-down ends: the next request tries it (it is next in
        # turn), fails over, and there is no second warning
        time.sleep(max(0.0, died + cooldown + 0.1 - time.monotonic()))
        tried_again = time.monotonic()
        assert m.complete_many(questions(6, "r")) == [f"answer to r{i}" for i in range(6)]
        assert a.chats() == 12 and len(warnings_of(caplog)) == 1
        revived = start(routes(), port)
        try:
            m.complete_many(questions(4, "s"))
            if time.monotonic() < tried_again + cooldown:  # in its new cool-down
                assert revived.chats() == 0
            time.sleep(max(0.0, tried_again + 1.5 * cooldown - time.monotonic()))
            replies = m.complete_many(questions(10, "t"))
        finally:
            kill(revived)
    assert replies == [f"answer to t{i}" for i in range(10)]
    print(f"after the cool-down the revived server answered {revived.chats()} of 10")
    assert revived.chats() >= 3  # back in rotation, not one trial request only
    assert len(warnings_of(caplog)) == 1
    assert any("answers again" in r.getMessage() and b.url in r.getMessage()
               for r in caplog.records if r.levelno == logging.INFO)


# -- every server down, and what is not a server down -----------------------------------
def test_when_every_server_is_down_the_build_ends_with_the_resume_hint():
    with replicas(routes(), routes()) as (a, b):
        m = RemoteChatModel([a.url, b.url], MODEL_ID, parallel=4)
        kill(a)
        kill(b)
        started = time.perf_counter()
        with pytest.raises(ModelError) as info:
            m.complete_many(questions(6))
    assert time.perf_counter() - started < 5
    message = str(info.value)
    assert message.startswith("every model server stopped answering")
    assert f"model server {a.url} stopped answering" in message
    assert f"model server {b.url} stopped answering" in message
    assert message.endswith(RESUME_HINT) and message.count(RESUME_HINT) == 1
    assert m.calls == []


def test_one_server_down_keeps_its_own_message():
    with replicas(routes()) as (a,):
        m = RemoteChatModel([a.url], MODEL_ID)
        kill(a)
        for _ in range(2):  # no cool-down with one server: each request tries it
            with pytest.raises(ModelError, match=f"^model server {a.url} stopped answering "
                                                 f".*; {RESUME_HINT}$"):
                m.complete(USER)


def test_a_refused_request_is_not_a_server_down(caplog):
    def picky(body):
        question = body["messages"][-1]["content"]
        if question == "long":
            return 400, {"error": {"message": "the request exceeds the available context size"}}
        if question == "bad":
            return 400, {"error": {"message": "failed to parse grammar"}}
        return answer(body)

    with replicas(routes(picky), routes(picky)) as (a, b):
        m = RemoteChatModel([a.url, b.url], MODEL_ID, parallel=2)
        for question in ("long", "bad", "bad", "long"):  # one of each on each, in turn
            error, message = ((BudgetError, "does not fit the context") if question == "long"
                              else (ModelError, "rejected a request .*grammar"))
            with pytest.raises(error, match=message):
                m.complete([{"role": "user", "content": question}])
        assert (a.chats(), b.chats()) == (2, 2)  # each refused once, not moved
        assert m.complete_many(questions(8)) == [f"answer to q{i}" for i in range(8)]
    assert a.chats() > 2 and b.chats() > 2  # both still in rotation
    assert warnings_of(caplog) == []
