import shutil
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphrag_local import api
from graphrag_local.errors import InjectedFailure
from graphrag_local.schema import OUTPUT_TABLES
from graphrag_local.store import Store

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "corpus"
# The kernel path a second build runs on where a test compares its vectors with another
# build's (issue 29): one thread, and MKL's and oneDNN's AVX2 code instead of AVX-512
# where the CPU has it. Vectors move in their last bits with these as they do between CPU
# families, so a comparison that demands the last bits fails on every machine, not only
# on another CPU family. Numpy (OpenBLAS) and llama.cpp (its own thread count) ignore them.
KERNEL_VARIANT = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                  "MKL_ENABLE_INSTRUCTIONS": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2"}


def assert_tables_agree(ours: list[dict], theirs: list[dict], table: str) -> None:
    """The guarantee of a resumed or synced index against a fresh build: the same rows in
    the same order, every field equal, vectors within VECTOR_TOLERANCE in each component."""
    from graphrag_local.models.embed import VECTOR_TOLERANCE

    assert len(ours) == len(theirs), table
    for a, b in zip(ours, theirs):
        va, vb = a.get("vector"), b.get("vector")
        assert {**a, "vector": None} == {**b, "vector": None}, table
        if va is None or vb is None:
            assert va is vb, table
            continue
        gap = max((abs(x - y) for x, y in zip(va, vb)), default=0.0)
        assert len(va) == len(vb) and gap <= VECTOR_TOLERANCE, (table, a.get("id") or a.get("name"), gap)


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
def no_network(host: str | None = None, port: int | None = None):
    """Make every outgoing connection from Python fail, and record attempts; with `host`
    and `port`, all but connections to that address (and lookups of that host: a model
    server's)."""
    attempts: list = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def allowed(sock, address) -> bool:
        return (sock.family == getattr(socket, "AF_UNIX", None)
                or (host is not None and tuple(address[:2]) == (host, port)))

    def guarded(real):
        def connect(self, address, *a, **k):
            if allowed(self, address):
                return real(self, address, *a, **k)
            attempts.append(address)
            raise NetworkBlocked(f"network use at run time: connect to {address}")
        return connect

    def lookup(name, *a, **k):
        if host is not None and name == host:
            return real_getaddrinfo(name, *a, **k)
        attempts.append(name)
        raise NetworkBlocked(f"network use at run time: lookup of {name}")

    socket.socket.connect = guarded(real_connect)
    socket.socket.connect_ex = guarded(real_connect_ex)
    socket.getaddrinfo = lookup
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex
        socket.getaddrinfo = real_getaddrinfo


@pytest.fixture(scope="session")
def e2e(tmp_path_factory):
    base = tmp_path_factory.mktemp("e2e")
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHRAG_LOCAL_HOME", str(base / "home"))
    docs = copy_corpus(base / "docs")
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 64)
    (docs / "empty.md").write_text("   \n")
    (docs / "table.csv").write_text("id,body\n1,no text column here\n")
    (docs / "cp1252.txt").write_bytes(
        "Café owner Zoë Marchand supplies the Lantern Festival in Port Aldren.".encode("cp1252")
    )
    index = base / "index"
    out = {"docs": docs, "index": index}
    with no_network() as attempts:
        mp.setenv("GRAPHRAG_LOCAL_FAIL_AFTER_CALLS", "15")  # in the second or third chunk
        with pytest.raises(InjectedFailure):
            api.build(docs, index)
        mp.delenv("GRAPHRAG_LOCAL_FAIL_AFTER_CALLS")
        out["crashed_calls"] = Store(index).read("llm_calls")
        out["crashed_extractions"] = Store(index).count("extractions")
        out["summary"] = api.build(docs, index)
        out["rerun"] = api.build(docs, index)
        out["network_attempts"] = list(attempts)
        with pytest.raises(NetworkBlocked):  # and the guard was really on
            socket.create_connection(("127.0.0.1", 9), timeout=1)
    out["tables"] = {t: Store(index).read(t) for t in OUTPUT_TABLES}
    out["calls"] = Store(index).read("llm_calls")
    yield out
    mp.undo()


def copy_corpus(dest: Path, names=None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for p in sorted(SAMPLE.iterdir()):
        if names is None or p.name in names:
            shutil.copy(p, dest / p.name)
    return dest


def traces(index: Path, word: str) -> list[str]:
    """Where the index folder still holds `word`: a file whose bytes hold it, a row of any
    retained version of a table that says it (a table's data may be stored compressed,
    where bytes do not show it), rows deleted but kept in their file (`_deletions`), or
    more data files than the retained versions read (one could hold it compressed)."""
    import lancedb

    found = [str(p) for p in index.rglob("*")
             if p.is_file() and (word.encode() in p.read_bytes() or "_deletions" in p.parts)]
    db = lancedb.connect(str(index / "lancedb"))
    for name in Store(index).tables():
        table = db.open_table(name)
        fragments = 0
        for v in table.list_versions():
            table.checkout(v["version"])
            fragments += table.stats()["fragment_stats"]["num_fragments"]
            if word in str(table.to_arrow().to_pylist()):
                found.append(f"{name} version {v['version']}")
        files = list((index / "lancedb" / f"{name}.lance" / "data").glob("*.lance"))
        if len(files) > fragments:
            found.append(f"{name}: {len(files)} data files, {fragments} fragments read")
    return found
