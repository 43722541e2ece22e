"""The index on disk: LanceDB tables under the index folder, plus manifest.json and a
lock file. This is the only module that imports lancedb. Table schemas come from
`schema.py`; this module only moves rows in and out."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from .errors import IndexStateError
from .schema import table_schemas

MANIFEST = "manifest.json"
LOCK = ".build.lock"


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
            index_dir.mkdir(parents=True)
        self._db = lancedb.connect(str(index_dir / "lancedb"))
        self._dim = 0

    # -- tables -----------------------------------------------------------------------
    def tables(self) -> list[str]:
        result = self._db.list_tables()
        names = getattr(result, "tables", result)
        return sorted(names)

    def has(self, name: str) -> bool:
        return name in self.tables()

    def _schema(self, name: str, dim: int):
        return table_schemas(dim)[name]

    def write(self, name: str, rows: list[dict[str, Any]], dim: int = 0) -> None:
        """Replace a table's rows (created with its schema when absent)."""
        import pyarrow as pa

        schema = self._schema(name, dim)
        data = pa.Table.from_pylist(rows, schema=schema)
        mode = "overwrite" if self.has(name) else "create"
        self._db.create_table(name, data=data, schema=schema, mode=mode)

    def append(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Add rows to a work table, creating it on first use. Each call is one atomic
        LanceDB commit, so a killed build keeps everything appended before it."""
        import pyarrow as pa

        if not rows:
            return
        schema = self._schema(name, 0)
        data = pa.Table.from_pylist(rows, schema=schema)
        if self.has(name):
            self._db.open_table(name).add(data)
        else:
            self._db.create_table(name, data=data, schema=schema)

    def read(self, name: str, columns: list[str] | None = None) -> list[dict[str, Any]]:
        if not self.has(name):
            return []
        table = self._db.open_table(name).to_arrow()
        return (table.select(columns) if columns else table).to_pylist()

    def columns(self, name: str) -> list[str]:
        return self._db.open_table(name).schema.names if self.has(name) else []

    def nearest(
        self, name: str, vector: list[float], k: int, columns: list[str]
    ) -> list[dict[str, Any]]:
        """The `k` rows of `name` whose `vector` is nearest to `vector` (cosine), best
        first, each with its `similarity` (1 - cosine distance)."""
        if not self.has(name) or k <= 0:
            return []
        rows = (
            self._db.open_table(name).search(vector).distance_type("cosine")
            .select([*columns, "_distance"]).limit(k).to_list()
        )
        return [
            {**{c: r[c] for c in columns}, "similarity": 1.0 - float(r["_distance"])}
            for r in rows
        ]

    def count(self, name: str) -> int:
        return self._db.open_table(name).count_rows() if self.has(name) else 0

    def compact(self, name: str) -> None:
        """Merge the many small fragments a resumable stage leaves behind."""
        if self.has(name):
            try:
                self._db.open_table(name).optimize()
            except Exception:  # noqa: BLE001 - compaction is an optimisation only
                pass

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
        path = self.dir / MANIFEST
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
        tmp.replace(path)


class BuildLock:
    """An exclusive lock on the index folder for one build. The OS drops it when the
    process dies (even with kill -9), so a crashed build never leaves a stale lock."""

    def __init__(self, index_dir: Path):
        self.path = index_dir / LOCK
        self._fd: int | None = None

    def __enter__(self) -> BuildLock:
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
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
