"""The index on disk: LanceDB tables under the index folder, manifest.json, the build lock
and the build marker. This is the only module that imports lancedb. Table schemas come
from `schema.py`; this module only moves rows in and out.

Readers never see half a build. Every write makes a new LanceDB version of its table, and
the manifest of a finished build records the version of each output table; a `Store`
opens those tables at those versions (pinned), so a query, `show` or `status` running
while a build rewrites the tables answers from the last finished build. The build
replaces the manifest atomically once every table is written, then removes the versions
older than the previous finished build's (a reader still on that build keeps working).
Work tables (append-only caches) are not pinned: readers see them as they are.

A build writes a marker (its pid and start) when it takes the lock and removes it when it
finishes: a reader can tell that a build is running, and a build that finds a marker knows
that the one before it was interrupted. The lock itself is an flock, which the OS drops
when the process dies, even with kill -9.

Writes that fail because the disk is full, the medium is read-only or permission is denied
raise `StoreError` naming the folder. LanceDB wraps such OS errors in its own
RuntimeError, so the errno is also read from the message ("... (os error 28)").

What it does not do: decide what to write or when (the pipeline does)."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import IndexStateError, StoreError
from .schema import OUTPUT_TABLES, table_schemas

MANIFEST = "manifest.json"
LOCK = ".build.lock"
RUNNING = ".build.running"
# cleanup keeps this much history before the previous build's versions (clock slack)
KEEP_MARGIN = timedelta(seconds=1)
CACHE_BYTES = 8 << 20  # each of LanceDB's index and metadata caches (see `_session`)
_SESSION = None

_WHY = {
    errno.ENOSPC: "no space left on device; free space and run the same build again: "
                  "the index is resumable",
    errno.EDQUOT: "disk quota exceeded; free space and run the same build again: "
                  "the index is resumable",
    errno.EROFS: "read-only file system; build into a writable folder (--index), or copy "
                 "the index there first",
    errno.EACCES: "permission denied; make the folder writable or build into another "
                  "folder (--index)",
    errno.EPERM: "operation not permitted; make the folder writable or build into another "
                 "folder (--index)",
}


def write_error(path: Path, exc: BaseException) -> StoreError | None:
    """`exc` as a StoreError naming `path` when a full disk, a read-only medium or a
    missing permission caused it; None for anything else (a bug keeps its traceback)."""
    code = getattr(exc, "errno", None)
    if code not in _WHY:
        found = re.search(r"\(os error (\d+)\)", str(exc))
        code = int(found.group(1)) if found else None
    return StoreError(f"{path}: {_WHY[code]}") if code in _WHY else None


@contextmanager
def writing(path: Path) -> Iterator[None]:
    try:
        yield
    except (OSError, RuntimeError) as exc:
        error = write_error(path, exc)
        if error is None:
            raise
        raise error from exc


def _session():
    """LanceDB's caches, bounded. Its default metadata cache keeps every version's
    manifest it has seen: a build committing thousands of units grew by ~50 KB a commit
    (300 MB over a 10 MB document). Reads here open few versions of small manifests."""
    import lancedb

    global _SESSION
    if _SESSION is None:
        _limit_malloc_arenas()
        _SESSION = lancedb.Session(index_cache_size_bytes=CACHE_BYTES,
                                   metadata_cache_size_bytes=CACHE_BYTES)
    return _SESSION


def _limit_malloc_arenas(arenas: int = 2) -> None:
    """Cap glibc's malloc arenas for this process. LanceDB's worker threads (and torch's)
    each get an arena by default, and memory freed in one is not reused by the others:
    merging a work table every few seconds grew a build by ~140 KB a commit (1 GB over a
    long embedding stage); with two arenas it stays flat. glibc only; elsewhere a no-op."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, arenas)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _fixed_vectors(vectors, dim: int):
    """A float32 matrix as the fixed-size list column LanceDB searches."""
    import numpy as np
    import pyarrow as pa

    flat = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1)
    if dim == 0:
        return pa.array([[] for _ in range(len(vectors))], type=pa.list_(pa.float32(), 0))
    return pa.FixedSizeListArray.from_arrays(pa.array(flat), dim)


def _pins(manifest: dict) -> dict[str, int]:
    """The table versions of a finished build's manifest (none for older manifests)."""
    return dict(manifest.get("tables", {})) if manifest.get("complete") else {}


class Store:
    def __init__(self, index_dir: Path, *, create: bool = False):
        os.environ.setdefault("LANCE_LOG", "error")
        import lancedb

        self.dir = index_dir
        if not index_dir.exists():
            if not create:
                raise IndexStateError(
                    f"no index at {index_dir}; build one with `graphrag-local build DOCS_DIR "
                    f"--index {index_dir}`"
                )
            with writing(index_dir):
                index_dir.mkdir(parents=True)
        self._db = lancedb.connect(str(index_dir / "lancedb"), session=_session())
        try:
            self.manifest = self.read_manifest()  # what this store reads: that build
        except IndexStateError:
            self.manifest = {}  # raised again where the manifest is asked for
        self.pins = _pins(self.manifest)

    # -- tables -----------------------------------------------------------------------
    def tables(self) -> list[str]:
        result = self._db.list_tables()
        names = getattr(result, "tables", result)
        return sorted(names)

    def has(self, name: str) -> bool:
        return name in self.tables()

    def _schema(self, name: str, dim: int):
        return table_schemas(dim)[name]

    def _mode(self, name: str) -> str:
        """"overwrite" also for a table a cut-off first write left without a version."""
        return "overwrite" if self.has(name) else "create"

    def _open(self, name: str, *, latest: bool = False):
        """`name` at the version the manifest pins (the latest when unpinned or `latest`),
        or None when absent or left without a first version by a cut-off write."""
        try:
            table = self._db.open_table(name)
        except ValueError as exc:
            if "not found" in str(exc):
                return None
            raise
        version = None if latest else self.pins.get(name)
        if version is not None:
            try:
                table.checkout(version)
            except (ValueError, RuntimeError, OSError):
                raise IndexStateError(
                    f"{self.dir}: the build this reader opened has since been replaced (twice, or "
                    "once with a document removed); "
                    "open the index again"
                ) from None
        return table

    def write(self, name: str, rows: list[dict[str, Any]], dim: int = 0,
              vectors=None) -> int:
        """Replace a table's rows by a new version (created with its schema when absent);
        returns that version. Readers pinned to an older version keep seeing it. `vectors`
        (a float32 matrix, a row per row) fills the `vector` column without a Python list
        per vector."""
        import pyarrow as pa

        schema = self._schema(name, dim)
        if vectors is None:
            data = pa.Table.from_pylist(rows, schema=schema)
        else:
            if len(vectors) != len(rows):
                raise ValueError(f"{name}: {len(rows)} rows but {len(vectors)} vectors")
            plain = pa.schema([f for f in schema if f.name != "vector"])
            data = pa.Table.from_pylist(rows, schema=plain)
            data = data.append_column(schema.field("vector"), _fixed_vectors(vectors, dim))
            data = data.select(schema.names)
        with writing(self.dir):
            table = self._db.create_table(name, data=data, schema=schema, mode=self._mode(name))
        return table.version

    def append(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Add rows to a work table, creating it on first use. Each call is one atomic
        LanceDB commit, so a killed build keeps everything appended before it."""
        import pyarrow as pa

        if rows:
            self._append(name, pa.Table.from_pylist(rows, schema=self._schema(name, 0)))

    def append_vectors(self, name: str, keys: list[str], vectors) -> None:
        """Add (key, vector) rows to a vector work table, as `append` does."""
        self._append(name, self._vector_rows(name, keys, vectors))

    def _vector_rows(self, name: str, keys: list[str], vectors):
        import numpy as np
        import pyarrow as pa

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = vectors.shape
        offsets = pa.array(np.arange(0, (n + 1) * dim, dim, dtype=np.int32))
        column = pa.ListArray.from_arrays(offsets, pa.array(vectors.ravel()))
        return pa.Table.from_arrays([pa.array(keys, pa.string()), column],
                                    schema=self._schema(name, 0))

    def replace_rows(self, name: str, rows: list[dict[str, Any]]) -> None:
        """A work table rewritten to hold `rows` only, its older versions and the files
        only they used removed: what the rows left out said is gone from the folder
        (`forget.py`; under the build lock)."""
        import pyarrow as pa

        self._replace(name, pa.Table.from_pylist(rows, schema=self._schema(name, 0)))

    def replace_vectors(self, name: str, keys: list[str], vectors) -> None:
        """`replace_rows` for a vector work table."""
        self._replace(name, self._vector_rows(name, keys, vectors))

    def _replace(self, name: str, data) -> None:
        with writing(self.dir):
            self._db.create_table(name, data=data, schema=data.schema, mode=self._mode(name))
        self.keep_latest(name)

    def keep_latest(self, name: str) -> None:
        """Remove every version of `name` but the latest, and the files only they used
        (`forget.py`, under the build lock: a reader still on the previous build is told
        to open the index again). Errors are raised: what they would have removed stays."""
        table = self._open(name, latest=True)
        if table is None:
            return
        with writing(self.dir), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "other readers will fail"
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)

    def _append(self, name: str, data) -> None:
        with writing(self.dir):
            table = self._open(name, latest=True)
            if table is None:
                self._db.create_table(name, data=data, schema=data.schema,
                                      mode=self._mode(name))
            else:
                table.add(data)

    def read_with_vectors(self, name: str, columns: list[str]):
        """`columns` of a table's rows, and their vectors as one float32 matrix (a row per
        row), without a Python list per vector."""
        import numpy as np
        import pyarrow.compute as pc

        table = self._open(name)
        if table is None or table.count_rows() == 0:
            return [], np.zeros((0, 0), dtype=np.float32)
        data = table.to_arrow()
        column = data.column("vector").combine_chunks()
        lengths = pc.unique(pc.list_value_length(column)).to_pylist()
        if len(lengths) != 1:
            raise IndexStateError(f"{self.dir}: {name} holds vectors of sizes {lengths}; "
                                  "delete the index folder and build again")
        flat = pc.list_flatten(column).to_numpy(zero_copy_only=False)
        matrix = flat.astype(np.float32, copy=False).reshape(len(data), lengths[0])
        return data.select(columns).to_pylist(), matrix

    def read(self, name: str, columns: list[str] | None = None) -> list[dict[str, Any]]:
        def rows() -> list[dict[str, Any]]:
            table = self._open(name)
            if table is None:
                return []
            data = table.to_arrow()
            return (data.select(columns) if columns else data).to_pylist()

        return self._retrying(name, rows)

    def _retrying(self, name: str, read):
        """`read()`, tried again when an unpinned work table lost files under it (a
        running build merges and prunes its work tables' versions)."""
        for attempt in range(3):
            try:
                return read()
            except (OSError, RuntimeError, ValueError):
                if name in self.pins or attempt == 2:
                    raise
                time.sleep(0.05)

    def columns(self, name: str) -> list[str]:
        table = self._open(name)
        return table.schema.names if table is not None else []

    def nearest(
        self, name: str, vector: list[float], k: int, columns: list[str]
    ) -> list[dict[str, Any]]:
        """The `k` rows of `name` whose `vector` is nearest to `vector` (cosine), best
        first, each with its `similarity` (1 - cosine distance)."""
        table = self._open(name) if k > 0 else None
        if table is None:
            return []
        rows = (
            table.search(vector).distance_type("cosine")
            .select([*columns, "_distance"]).limit(k).to_list()
        )
        return [
            {**{c: r[c] for c in columns}, "similarity": 1.0 - float(r["_distance"])}
            for r in rows
        ]

    def count(self, name: str) -> int:
        def rows() -> int:
            table = self._open(name)
            return table.count_rows() if table is not None else 0

        return self._retrying(name, rows)

    def versions(self, names) -> dict[str, int]:
        """The latest version of each of `names` that exists (what a manifest pins)."""
        tables = {name: self._open(name, latest=True) for name in names}
        return {name: t.version for name, t in tables.items() if t is not None}

    def compact(self, name: str, *, drop_versions: bool = False) -> None:
        """Merge the many small fragments a resumable stage leaves behind; with
        `drop_versions`, also remove the table's older versions (work tables only, under
        the build lock: no reader pins them and no other writer runs)."""
        table = self._open(name, latest=True)
        if table is not None:
            try:
                if drop_versions:
                    with warnings.catch_warnings():  # "other readers will fail": none do
                        warnings.simplefilter("ignore", UserWarning)
                        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
                else:
                    table.optimize()
            except Exception:  # noqa: BLE001 - compaction is an optimisation only
                pass

    def drop_old_versions(self, previous: dict[str, int], since: datetime) -> None:
        """After a finished build: each output table keeps its versions from the previous
        finished build's (`previous` pins) on, so a reader still on that build keeps
        working; each work table keeps those made since `since` (this build's start).
        Older versions, and files no version uses, are removed. LanceDB cleans up by age,
        so an age bound with a margin stands for the version. Only under the build lock:
        no other writer can be mid-commit. Failures are ignored (an optimisation only)."""
        bounds = {name: since for name in self.tables() if name not in OUTPUT_TABLES}
        for name, version in previous.items():
            table = self._open(name, latest=True)
            stamps = ({v["version"]: v["timestamp"] for v in table.list_versions()}
                      if table is not None else {})
            if version in stamps:
                bounds[name] = stamps[version]
        for name, before in bounds.items():
            table = self._open(name, latest=True)
            age = max(datetime.now() - before, timedelta(0)) + KEEP_MARGIN
            try:
                if table is not None:
                    table.optimize(cleanup_older_than=age, delete_unverified=True)
            except Exception:  # noqa: BLE001 - cleanup is an optimisation only
                pass

    def version_count(self, name: str) -> int:
        table = self._open(name, latest=True)
        return len(table.list_versions()) if table is not None else 0

    # -- manifest -----------------------------------------------------------------------
    def read_manifest(self) -> dict[str, Any]:
        path = self.dir / MANIFEST
        if not path.is_file():
            return {}
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise IndexStateError(f"{path}: corrupt manifest ({exc})") from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replace the manifest atomically (readers see the old one or the new one); this
        store then reads the tables it pins."""
        text = json.dumps(manifest, indent=2, sort_keys=True)
        with writing(self.dir):
            _replace(self.dir / MANIFEST, text)
        self.manifest = json.loads(text)
        self.pins = _pins(self.manifest)


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def _read_marker(path: Path) -> dict | None:
    """A build marker's content; {} when cut off mid-write; None when there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    try:
        marker = json.loads(text)
    except ValueError:
        return {}
    return marker if isinstance(marker, dict) else {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_build(index_dir: Path) -> dict | None:
    """The marker ({"pid", "started"}) of a build running on `index_dir` now, or None."""
    marker = _read_marker(index_dir / RUNNING)
    pid = (marker or {}).get("pid")
    return marker if isinstance(pid, int) and pid != os.getpid() and _alive(pid) else None


def describe_marker(marker: dict) -> str:
    if not marker:
        return "details unknown"
    return f"pid {marker.get('pid', '?')}, started {marker.get('started', '?')}"


class BuildLock:
    """An exclusive lock on the index folder for one build. The OS drops it when the
    process dies (even with kill -9), so a crashed build never leaves a stale lock.
    Holding it, the build's marker is written; it is removed when the block ends without
    an exception. `interrupted` is the marker a build that did not finish left behind
    (None when the last build finished). Taking the lock is also the check that the
    folder can be written, before any work."""

    def __init__(self, index_dir: Path):
        self.path = index_dir / LOCK
        self.marker = index_dir / RUNNING
        self.interrupted: dict | None = None
        self._fd: int | None = None

    def __enter__(self) -> BuildLock:
        with writing(self.path.parent):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = self.path.read_text().strip() or "another process"
            raise IndexStateError(
                f"another build is running on {self.path.parent} (pid {holder}); "
                "wait for it to finish"
            ) from None
        self._fd = fd
        try:
            with writing(self.path.parent):
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
                self.interrupted = _read_marker(self.marker)
                started = time.strftime("%Y-%m-%d %H:%M:%S")
                _replace(self.marker, json.dumps({"pid": os.getpid(), "started": started}))
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, exc_type, *exc) -> None:
        try:
            if exc_type is None:
                self.marker.unlink(missing_ok=True)
        finally:
            self._release()

    def _release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
