"""What identifies a build's chat model: its preset, its file and the file's digest.

Kept apart from the pipeline so that a query (which checks the index was built by the
model it names) does not import the build's stages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .models.presets import Preset
from .schema import content_id


@dataclass
class ModelInfo:
    """What identifies the model's behaviour: part of every LLM work key."""

    preset: Preset
    path: Path | None  # None for a model server
    sha256: str  # of the GGUF; for a model server, of what the server says it serves
    remote: Any = None  # the checked RemoteChatModel of a `source = "server"` preset

    @property
    def key(self) -> str:
        p = self.preset
        return content_id(
            self.sha256, p.chat_format, str(p.n_ctx), str(p.temperature), str(p.top_k),
            str(p.top_p), str(p.repeat_penalty),
        )
