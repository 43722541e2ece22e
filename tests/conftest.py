import shutil
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "corpus"


def pytest_collection_modifyitems(items):
    """Tests not marked e2e are the fast unit tier (`pytest -m fast`)."""
    for item in items:
        if "e2e" not in item.keywords:
            item.add_marker(pytest.mark.fast)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """User config, caches and model folders go to a temp dir, never the real home."""
    home = tmp_path_factory.getbasetemp() / "graphrag-home"
    monkeypatch.setenv("GRAPHRAG_LOCAL_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


class NetworkBlocked(RuntimeError):
    pass


@contextmanager
def no_network():
    """Make every outgoing connection from Python fail, and record attempts."""
    attempts: list = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse(self, address, *a, **k):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        attempts.append(address)
        raise NetworkBlocked(f"network use at run time: connect to {address}")

    def refuse_lookup(host, *a, **k):
        attempts.append(host)
        raise NetworkBlocked(f"network use at run time: lookup of {host}")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.getaddrinfo = refuse_lookup
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex
        socket.getaddrinfo = real_getaddrinfo


def copy_corpus(dest: Path, names=None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for p in sorted(SAMPLE.iterdir()):
        if names is None or p.name in names:
            shutil.copy(p, dest / p.name)
    return dest
