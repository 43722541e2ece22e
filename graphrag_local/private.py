"""Private files: what graphrag-local writes about your documents (the index, exports, the
graph page, evaluation runs) is readable by you only (folders 0700, files 0600) unless
the project's settings say `private = false`.

LanceDB creates its files itself, so the one mechanism that covers every writer is the
process umask: `private_files(True)` sets it to 077 for the duration of a write and
restores it afterwards; files and folders created meanwhile get no group or other bits.
Existing files keep their mode (a file overwritten in place is not re-permissioned).
The umask is per process, so other threads creating files meanwhile are covered too.

`writes_private` decorates a library function that writes: it reads the `private`
setting of the project (the `config` keyword argument, else ./graphrag-local.toml)."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PRIVATE_UMASK = 0o077


@contextmanager
def private_files(enabled: bool = True) -> Iterator[None]:
    """Create files 0600 and folders 0700 inside the block (when `enabled`)."""
    if not enabled:
        yield
        return
    old = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(old)


def make_private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700; an existing folder loses its group and
    other permissions (its owner's stay: a read-only folder stays read-only). Where the
    mode cannot be changed (someone else's folder, read-only media) it is left as it is:
    the writer that follows reports what matters."""
    path = Path(path)
    with private_files():
        path.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except OSError:
        pass
    return path


def project_private(config: Path | None = None) -> bool:
    """The `private` setting of the project: `config` when given, else ./graphrag-local.toml
    when present, else the default (true)."""
    from .settings import CONFIG_FILE_NAME, load_settings

    if config is None and Path(CONFIG_FILE_NAME).is_file():
        config = Path(CONFIG_FILE_NAME)
    return load_settings(config).private


def writes_private(fn):
    """Run `fn` under `private_files(project_private(config))`, `config` being its keyword
    argument of that name (absent: the project's config file, if any)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with private_files(project_private(kwargs.get("config"))):
            return fn(*args, **kwargs)

    return run


def loose_modes(root: Path) -> list[str]:
    """Folders and files under `root` (itself included) that others may read or enter,
    as "0755 path" strings; links are not followed."""
    loose = []
    for where in [root, *sorted(Path(root).rglob("*"))]:
        mode = where.lstat().st_mode
        if not os.path.islink(where) and mode & 0o077:
            loose.append(f"{mode & 0o777:04o} {where}")
    return loose
