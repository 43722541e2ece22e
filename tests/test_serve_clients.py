"""`graphrag-local serve` and `graphrag-local mcp` as other tools meet them: the installed
executable serving the shared sample index (the `e2e` fixture) on a free loopback port,
with the real embedded model and embedder, asked by the `openai` client package (plain
and streamed), by `query` (which finds the running server), and by the official MCP
client over stdio. Then what a careless or hostile client sends: malformed JSON, an
unknown model, bodies and questions over the limits, no or a wrong bearer token (a
second server, on a non-loopback address), a client leaving mid-stream: each gets a 4xx
with a message or a clean close, and the next request is served."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import SAMPLE

pytestmark = pytest.mark.e2e
EXE = Path(sys.executable).parent / "graphrag-local"
QUESTION = "Who is the chief engineer of the Aldren Water Trust?"


def http(url: str, body=None, headers: dict | None = None, timeout: float = 120):
    """(status, headers, JSON reply) of a GET, or a POST of `body` (bytes, an iterable of
    bytes sent chunked, or a dict sent as JSON); no proxy."""
    if isinstance(body, dict):
        body = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json",
                                                          **(headers or {})})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=timeout) as r:
            return r.status, r.headers, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.loads(exc.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(index: Path, log: Path, *args: str, env: dict | None = None):
    """`graphrag-local serve` on a free port; (process, base URL) once /health answers."""
    port = free_port()
    proc = subprocess.Popen([str(EXE), "serve", "--index", str(index), "--port", str(port), *args],
                            stdout=subprocess.DEVNULL, stderr=log.open("w"),
                            env=env or dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {env['GRAPHRAG_LOCAL_TOKEN']}"} if env else {}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if http(url + "/health", headers=headers, timeout=2)[0] == 200:
                return proc, url
        except OSError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise AssertionError("serve did not answer /health in 180 s:\n" + log.read_text()[-3000:])


def stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def server(e2e, tmp_path_factory):
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    proc, url = start(e2e["index"], log)
    yield {"url": url, "log": log, "name": e2e["index"].name, "index": e2e["index"], "proc": proc}
    stop(proc)
    assert proc.returncode == 0, log.read_text()[-3000:]
    assert not (e2e["index"] / "serve.json").exists()  # it says it is gone


def client(server, key: str = "any key"):
    from openai import OpenAI

    return OpenAI(base_url=server["url"] + "/v1", api_key=key, max_retries=0, timeout=120)


def assert_sources_resolve(sources: list[dict], e2e) -> None:
    """Every source names a chunk, entity or report of the index; a chunk's title is a
    file of the corpus folder (the sample corpus and the fixture's odd files)."""
    tables = e2e["tables"]
    ids = {"chunk": {c["id"] for c in tables["chunks"]},
           "entity": {e["id"] for e in tables["entities"]},
           "report": {r["id"] for r in tables["community_reports"]}}
    assert sources and any(s["cited"] for s in sources)
    for s in sources:
        assert s["id"] in ids[s["kind"]], s
        if s["kind"] == "chunk":
            assert (e2e["docs"] / s["title"]).is_file(), s


def test_openai_client_lists_the_index_and_its_methods(server):
    ids = [m.id for m in client(server).models.list()]
    name = server["name"]
    assert ids[0] == name and {f"{name}:{m}" for m in ("global", "local", "basic", "drift")} <= set(ids)


def test_openai_client_gets_an_answer_with_its_sources(server, e2e):
    reply = client(server).chat.completions.create(
        model=f"{server['name']}:basic", messages=[{"role": "user", "content": QUESTION}])
    text = reply.choices[0].message.content
    assert "Tobias Renn is the chief engineer" in text and "\n\n**Sources**\n- [S" in text
    assert reply.choices[0].finish_reason == "stop"
    sources = reply.model_extra["sources"]
    assert_sources_resolve(sources, e2e)
    assert "01_water_trust.md" in {s["title"] for s in sources if s["cited"]}
    assert (SAMPLE / "01_water_trust.md").is_file()


def test_openai_client_gets_a_streamed_answer_with_its_sources(server, e2e):
    stream = client(server).chat.completions.create(
        model=f"{server['name']}:local", stream=True,
        messages=[{"role": "user", "content": "Who is Mara Quill?"}])
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "Mara Quill founded the Aldren Water Trust" in text and "**Sources**" in text
    assert chunks[0].choices[0].delta.role == "assistant"
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and last.model_extra["method"] == "local"
    assert_sources_resolve(last.model_extra["sources"], e2e)


def test_a_conversation_and_the_bare_model_id(server, e2e):
    """The bare id answers with the configured method (global); earlier turns are the
    history, an assistant turn's sources left out of it."""
    c = client(server)
    first = c.chat.completions.create(model=server["name"], messages=[
        {"role": "user", "content": "What are the main themes of these documents?"}])
    assert first.model_extra["method"] == "global"
    assert_sources_resolve(first.model_extra["sources"], e2e)
    follow = c.chat.completions.create(model=f"{server['name']}:basic", messages=[
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What are the main themes of these documents?"},
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": QUESTION}])
    assert "Tobias Renn" in follow.choices[0].message.content


def test_query_uses_the_running_server(server):
    out = subprocess.run([str(EXE), "query", QUESTION, "--method", "basic", "--index",
                          str(server["index"]), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["served_by"] == server["url"] and "Tobias Renn" in data["answer"]
    plain = http(server["url"] + "/query", {"question": QUESTION, "method": "basic"})[2]
    assert set(plain) == set(data) - {"served_by"}


BAD = {
    "malformed JSON": ("/v1/chat/completions", b'{"model": "x", "messages": [', {}, 400),
    "not an object": ("/query", b"[1, 2]", {}, 400),
    "unknown model": ("/v1/chat/completions", json.dumps(
        {"model": "nope", "messages": [{"role": "user", "content": "hi"}]}).encode(), {}, 404),
    "no messages": ("/v1/chat/completions", b'{"messages": []}', {}, 400),
    "last turn not the user's": ("/v1/chat/completions", json.dumps(
        {"messages": [{"role": "assistant", "content": "hi"}]}).encode(), {}, 400),
    "oversized body": ("/query", json.dumps({"question": "x" * 300_000}).encode(), {}, 413),
    "oversized body, chunked": ("/query", None, {}, 413),
    "question of 1 MB": ("/query", json.dumps({"question": "q" * 1_000_000}).encode(), {}, 413),
    "question over the limit": ("/query", json.dumps({"question": "q " * 2500}).encode(), {}, 413),
    "unknown method": ("/query", b'{"question": "hi", "method": "nope"}', {}, 400),
    "bad history": ("/query", b'{"question": "hi", "history": [1, 2]}', {}, 400),
    "bad level": ("/query", b'{"question": "hi", "method": "global", "level": "nine"}', {}, 400),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_gets_a_4xx_with_a_message_and_the_next_request_is_served(server, case):
    path, body, headers, status = BAD[case]
    if body is None:  # no Content-Length: the server counts as it reads
        def pieces():
            for _ in range(40):
                yield b"x" * 10_000
        body = pieces()
    got, _, reply = http(server["url"] + path, body, headers)
    assert got == status and reply["error"]["message"], reply
    got, _, reply = http(server["url"] + "/query", {"question": QUESTION, "method": "basic"})
    assert got == 200 and "Tobias Renn" in reply["answer"]


def test_a_client_leaving_mid_stream_is_a_clean_close(server):
    body = json.dumps({"model": f"{server['name']}:global", "stream": True, "messages": [
        {"role": "user", "content": "What are the main themes of these documents?"}]}).encode()
    port = int(server["url"].rsplit(":", 1)[1])
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\nContent-Type: "
                      b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            got = b""
            while b"data: " not in got:
                got += s.recv(4096)
            assert got.startswith(b"HTTP/1.1 200")
    stream = client(server).chat.completions.create(
        model=f"{server['name']}:basic", stream=True, messages=[{"role": "user", "content": QUESTION}])
    assert "Tobias Renn" in "".join(c.choices[0].delta.content or "" for c in stream)


def test_the_log_names_requests_not_questions_and_holds_no_traceback(server):
    http(server["url"] + "/health")
    log = server["log"].read_text()
    assert "POST /v1/chat/completions 200" in log and "POST /query 413" in log
    assert "Traceback" not in log and "Exception in ASGI" not in log
    assert "chief engineer" not in log and "Mara Quill" not in log


def test_a_rebuild_under_load_answers_from_the_old_build_or_the_new(e2e, tmp_path):
    """Clients keep asking while the served index is rebuilt without the document that
    answers them: every reply is a 200 and is the old build's answer or the new one's."""
    import threading

    index, docs = tmp_path / "index", tmp_path / "docs"
    shutil.copytree(e2e["index"], index)
    shutil.copytree(e2e["docs"], docs)
    (docs / "01_water_trust.md").unlink()
    proc, url = start(index, tmp_path / "serve.log")
    asks = [{"question": QUESTION, "method": "basic"},
            {"question": "What are the main themes of these documents?", "method": "global"}]
    try:
        old = [http(url + "/query", a)[2]["answer"] for a in asks]
        done, replies = threading.Event(), []

        def ask_until_built(k: int) -> None:
            more = 3
            while more:
                more -= done.is_set()
                a = asks[k % 2]
                status, _, data = http(url + "/query", a)
                replies.append((asks.index(a), status, data.get("answer")))
                k += 1

        clients = [threading.Thread(target=ask_until_built, args=(k,)) for k in range(4)]
        for c in clients:
            c.start()
        build = subprocess.run([str(EXE), "build", str(docs), "--index", str(index)],
                               capture_output=True, text=True)
        done.set()
        for c in clients:
            c.join()
        assert build.returncode == 0, build.stderr[-3000:]
        new = [http(url + "/query", a)[2]["answer"] for a in asks]
    finally:
        stop(proc)
    assert new[0] != old[0] and "Water Trust" in old[0]  # the rebuild changed the answer
    assert {status for _, status, _ in replies} == {200}
    assert all(answer in (old[k], new[k]) for k, _, answer in replies)
    assert len(replies) >= 4 * 3 and any(answer == new[k] for k, _, answer in replies)


def test_another_address_needs_a_token(e2e, tmp_path):
    """Not loopback: no token of 16 characters or more in GRAPHRAG_LOCAL_TOKEN, no server;
    with one, every request must carry it (a copy of the index, so that the shared one's
    serve.json stays the loopback server's)."""
    index = tmp_path / "index"
    shutil.copytree(e2e["index"], index, ignore=shutil.ignore_patterns("serve.json"))
    env = {k: v for k, v in os.environ.items() if k != "GRAPHRAG_LOCAL_TOKEN"}
    refused = subprocess.run([str(EXE), "serve", "--index", str(index), "--host", "0.0.0.0",
                              "--port", str(free_port())], capture_output=True, text=True,
                             env=env, timeout=120)
    assert refused.returncode != 0 and "GRAPHRAG_LOCAL_TOKEN" in refused.stderr
    token = "t0ken-of-the-test-" + os.urandom(8).hex()
    proc, url = start(index, tmp_path / "serve.log", "--host", "0.0.0.0",
                      env={**env, "GRAPHRAG_LOCAL_TOKEN": token})
    try:
        body = {"question": QUESTION, "method": "basic"}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token},
                        {"Authorization": f"Bearer {token}x"}):
            status, got_headers, reply = http(url + "/query", body, headers)
            assert status == 401 and got_headers["WWW-Authenticate"] == "Bearer", headers
            assert "token" in reply["error"]["message"]
        from openai import AuthenticationError

        with pytest.raises(AuthenticationError):
            client({"url": url}, "wrong").models.list()
        reply = client({"url": url}, token).chat.completions.create(
            model="index:basic", messages=[{"role": "user", "content": QUESTION}])
        assert "Tobias Renn" in reply.choices[0].message.content
    finally:
        stop(proc)


def test_mcp_client_lists_the_tools_and_calls_query_and_entity(e2e):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    counts: dict[str, int] = {}
    for r in e2e["tables"]["relationships"]:
        for end in (r["source"], r["target"]):
            counts[end] = counts.get(end, 0) + 1
    name = max(sorted(counts), key=counts.get)  # the entity with the most relationships

    async def session():
        params = StdioServerParameters(command=str(EXE),
                                       args=["mcp", "--index", str(e2e["index"])],
                                       env=dict(os.environ))
        out = {}
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    out["tools"] = {t.name: t for t in (await s.list_tools()).tools}
                    out["query"] = await s.call_tool("query", {"question": QUESTION,
                                                               "method": "basic"})
                    out["entity"] = await s.call_tool("entity", {"name": name})
                    out["nobody"] = await s.call_tool("entity", {"name": "Nobody Anywhere"})
                    out["status"] = await s.call_tool("status", {})
        return out

    out = anyio.run(session)
    assert set(out["tools"]) == {"query", "entity", "reports", "status"}
    assert {"question", "method", "level"} <= set(out["tools"]["query"].input_schema["properties"])
    assert not out["query"].is_error
    answer = json.loads(out["query"].content[0].text)
    assert "Tobias Renn" in answer["answer"] and answer["method"] == "basic"
    assert_sources_resolve(answer["sources"], e2e)
    assert not out["entity"].is_error
    entity = json.loads(out["entity"].content[0].text)
    assert entity["name"] == name and entity["description"] and entity["relationships"]
    assert entity["sources"] and all((e2e["docs"] / s["path"]).is_file() for s in entity["sources"])
    assert out["nobody"].is_error and "no entity named" in out["nobody"].content[0].text
    status = json.loads(out["status"].content[0].text)
    assert status["complete"] is True and status["tables"]["entities"] == len(e2e["tables"]["entities"])


def test_a_served_writer_streams_its_checked_lines(e2e, tmp_path):
    """`serve --writer`: a streamed global answer arrives topic by topic, each written line
    citing sources of the index (checked before it is sent), then the sources."""
    from graphrag_local.models import presets

    writer = "qwen2.5-coder-0.5b"
    if not presets.locate_assemble_parts(presets.get_preset(writer)):
        pytest.skip("the writer's parts are not installed")
    index = tmp_path / "index"
    shutil.copytree(e2e["index"], index)
    proc, url = start(index, tmp_path / "serve.log", "--writer", writer)
    try:
        stream = client({"url": url}).chat.completions.create(
            model=f"{index.name}:global", stream=True,
            messages=[{"role": "user", "content": "What are the main themes of these documents?"}])
        chunks = list(stream)
    finally:
        stop(proc)
    pieces = [c.choices[0].delta.content or "" for c in chunks]
    text = "".join(pieces)
    answer = text.split("\n\n**Sources**")[0]
    assert sum(1 for p in pieces if p.startswith("**") or p.startswith("\n**")) >= 2, pieces
    lines = [line for line in answer.splitlines() if line.startswith("- ")]
    assert lines and all(line.rstrip().endswith("]") and "[S" in line for line in lines), answer
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and last.model_extra["method"] == "global"
    assert_sources_resolve(last.model_extra["sources"], e2e)
