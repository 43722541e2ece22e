"""How `query` and `chat` find a running `serve` of the same index: the server writes
`serve.json` into the index folder (readable by you only) while it runs, and removes it
when it stops; a file whose process is gone is ignored. Only loopback servers are used
this way, and a token (when the server needs one) is read from the environment variable
the file names, never from the file.

The client posts to `/query` with no proxy and no redirect, like the model-server
client: the question never leaves the machine by way of this path."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

FILE = "serve.json"


@contextmanager
def announce(index_dir: Path, host: str, port: int, token_env: str = ""):
    path = Path(index_dir) / FILE
    info = {"pid": os.getpid(), "host": host, "port": port, "token_env": token_env}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(info, f)
    try:
        yield info
    finally:
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass


def find_server(index_dir: Path) -> dict | None:
    """The running loopback server of this index, as {"url", "token"}, or None."""
    try:
        info = json.loads((Path(index_dir) / FILE).read_text(encoding="utf-8"))
        pid, host, port = int(info["pid"]), str(info["host"]), int(info["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    if host not in ("127.0.0.1", "::1", "localhost"):
        return None
    token = os.environ.get(info.get("token_env") or "", "") if info.get("token_env") else ""
    return {"url": f"http://{'[::1]' if host == '::1' else host}:{port}", "token": token}


def ask_server(server: dict, body: dict, timeout: float = 600.0) -> dict:
    """POST /query; raises OSError (connection) or ValueError (a reply that is no JSON)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    req = urllib.request.Request(server["url"] + "/query", data=json.dumps(body).encode("utf-8"),
                                 headers={"Content-Type": "application/json"}, method="POST")
    if server.get("token"):
        req.add_header("Authorization", f"Bearer {server['token']}")
    try:
        with opener.open(req, timeout=timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:  # the server's JSON error, with its message
        try:
            return json.loads(exc.read().decode("utf-8"))
        except ValueError:
            return {"error": {"message": f"HTTP {exc.code}", "code": exc.code}}


def healthy(server: dict, timeout: float = 0.5) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    req = urllib.request.Request(server["url"] + "/health")
    if server.get("token"):
        req.add_header("Authorization", f"Bearer {server['token']}")
    try:
        with opener.open(req, timeout=timeout) as resp:
            return resp.status == 200
    except OSError:
        return False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
