"""The index kept warm for `serve` and `mcp`: one question-answering session per finished
build, the chat model and the embedder loaded once for the life of the process.

- A new finished build is picked up without a restart: before each question the
  manifest is looked at (its size and modification time); when it changed, a new
  session opens on the new build's table versions, keeping the loaded models (a session
  reads only the versions its manifest pins, so a build running meanwhile is not seen
  until it finishes: `store.py`). A question that fails because a build removed old
  table versions under it is asked again once, on the new build.
- One question at a time reaches the models (a llama.cpp context is not thread-safe):
  others wait their turn, at most `max_waiting` of them and at most `wait_seconds`
  each; beyond that they are refused (`Busy`) with how long to wait before trying again.

What it does not do: HTTP (see `app.py`), authentication, or anything a build does."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import GraphragError


class Busy(GraphragError):
    """Refused for load: too many waiting (`full`), or waited too long."""

    def __init__(self, message: str, retry_after: int, full: bool):
        super().__init__(message)
        self.retry_after, self.full = retry_after, full


@dataclass(frozen=True)
class Limits:
    max_waiting: int = 16
    wait_seconds: float = 60.0


class IndexService:
    def __init__(self, index_dir: Path, *, config: Path | None = None, model: str | None = None,
                 limits: Limits = Limits(), writer: str | None = None):
        self.index_dir = Path(index_dir)
        self.config, self.model_name = config, model
        self.writer = writer  # a writer preset that writes the answers (None: the config's)
        self.limits = limits
        self._lock = threading.Lock()  # the models answer one question at a time
        self._count = threading.Lock()  # guards _waiting
        self._waiting = 0
        self._session = None
        self._stamp: tuple[int, int] | None = None
        self._models: dict[str, object] = {}  # loaded once: "embedder", "model:<preset>"
        self.loaded_at = 0.0

    # -- the session of the last finished build ---------------------------------------------
    def _manifest_stamp(self) -> tuple[int, int] | None:
        try:
            st = (self.index_dir / "manifest.json").stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def session(self, fresh: bool = False):
        """The session on the last finished build (opened again when a newer one finished)."""
        from .. import api
        from ..query import Session

        stamp = self._manifest_stamp()
        if self._session is not None and stamp == self._stamp and not fresh:
            return self._session
        settings, info = api.session_settings(self.index_dir, config=self.config,
                                              model=self.model_name)
        settings = api.with_writer(settings, self.writer)
        key = f"model:{info.preset.name}:{info.path or info.preset.url}"
        self._session = Session(
            self.index_dir, settings, api.project_prompts(self.config),
            get_model=lambda: self._cached(key, lambda: api.open_chat_model(info, settings.seed)),
            get_embedder=lambda: self._cached("embedder", api.question_embedder),
            get_writer=lambda name: self._cached(
                f"writer:{name}", lambda: api.open_writer(name, self.config, settings.seed)),
        )
        self._stamp = stamp
        self.loaded_at = time.time()
        return self._session

    def _cached(self, key: str, make):
        if key not in self._models:
            self._models[key] = make()
        return self._models[key]

    def warm(self) -> None:
        """Open the session and load the embedder now, not at the first question."""
        with self._lock:
            self.session().embedder  # noqa: B018 - loads it

    def close(self) -> None:
        for m in self._models.values():
            close = getattr(m, "close", None)
            if close is not None:
                close()
        self._models.clear()

    # -- asking -------------------------------------------------------------------------------
    def admit(self) -> None:
        """A place among the waiting questions, or `Busy` (full) at once. `run` takes one
        itself unless told it was `admitted` already (the HTTP service admits a question
        before it queues for a thread, so a full queue is refused, not left to grow)."""
        with self._count:
            if self._waiting >= self.limits.max_waiting:
                raise Busy(f"{self._waiting} questions are waiting already; try again shortly",
                           retry_after=2, full=True)
            self._waiting += 1

    def run(self, work, admitted: bool = False):
        """`work(session)` with the models to itself, in turn (see the module's docstring)."""
        if not admitted:
            self.admit()
        try:
            if not self._lock.acquire(timeout=self.limits.wait_seconds):
                raise Busy(f"waited {self.limits.wait_seconds:.0f} s for the models; try again",
                           retry_after=5, full=False)
        finally:
            with self._count:
                self._waiting -= 1
        try:
            try:
                return work(self.session())
            except (OSError, RuntimeError, ValueError) as exc:
                if isinstance(exc, GraphragError):
                    raise
                return work(self.session(fresh=True))  # a build removed versions under it
        finally:
            self._lock.release()

    def ask(self, question: str, method: str, level=None, history=None, on_text=None,
            admitted: bool = False):
        return self.run(lambda s: s.ask(question, method=method, level=level,
                                        history=history or [], on_text=on_text), admitted)

    @property
    def waiting(self) -> int:
        return self._waiting
