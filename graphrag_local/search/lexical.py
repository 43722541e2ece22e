"""Lexical retrieval over the index's sentences: Okapi BM25 on language-aware word tokens
(`language/tokens.py`), and reciprocal rank fusion (RRF) of its ranking with the
embedder's. The question embedder (all-MiniLM-L6-v2) is English only: a Chinese or
Russian question lands near random sentences, and even in English an exact name or
number is a weak spot of a sentence embedding. A word the question shares with a
sentence is not.

Hand-written rather than LanceDB's full-text search: LanceDB's FTS tokenizer does not
segment Chinese or Japanese (an unspaced run would be one token), and a second,
pre-tokenised column with its own index would double the sentence store for something
this module computes in memory, once per session, in about a second per 100,000
sentences (a question then scores in milliseconds).

Deliberately only ranking: which sentences an answer quotes is still decided by the
search methods (`evidence.SentenceIndex` applies the fusion)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..language.tokens import tokens

K1 = 1.2  # term-frequency saturation (Okapi's usual value)
B = 0.75  # length normalisation
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009)


class BM25:
    """Okapi BM25 over texts numbered 0..n-1. The postings are one sorted array of
    (word, row) pairs with their term frequencies, and each word's offset into it."""

    def __init__(self, texts: Iterable[str], k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self._vocab: dict[str, int] = {}
        ids: list[int] = []
        lengths: list[int] = []
        for text in texts:
            words = tokens(text)
            lengths.append(len(words))
            ids += [self._vocab.setdefault(w, len(self._vocab)) for w in words]
        n = len(lengths)
        self.length = np.asarray(lengths, dtype=np.float32)
        self.mean_length = float(self.length.mean()) if n else 0.0
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        pairs, tf = np.unique(np.asarray(ids, dtype=np.int64) * max(n, 1) + rows,
                              return_counts=True)
        self._rows = pairs % max(n, 1)
        self._tf = tf.astype(np.float32)
        self._start = np.searchsorted(pairs // max(n, 1), np.arange(len(self._vocab) + 1))

    def __len__(self) -> int:
        return len(self.length)

    def scores(self, question: str, top: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The rows that share a word with `question`, best first (the first `top` of
        them), and their BM25 scores."""
        n = len(self)
        total = np.zeros(n, dtype=np.float32)
        norm = self.k1 * (1 - self.b + self.b * self.length / max(self.mean_length, 1e-9))
        for word in dict.fromkeys(tokens(question)):
            w = self._vocab.get(word)
            if w is None:
                continue
            span = slice(self._start[w], self._start[w + 1])
            rows, tf = self._rows[span], self._tf[span]
            idf = np.log1p((n - len(rows) + 0.5) / (len(rows) + 0.5))
            total[rows] += idf * tf * (self.k1 + 1) / (tf + norm[rows])
        hit = np.flatnonzero(total > 0)
        order = hit[np.argsort(-total[hit], kind="stable")][:top]
        return order, total[order]


def fuse(vector_ranking, lexical_ranking, k: int = RRF_K, vector_weight: float = 1.0
         ) -> np.ndarray:
    """Reciprocal rank fusion of two rankings of rows (non-negative ints, best first): a
    row scores 1 / (k + rank) in each ranking it is in; best total first, ties in the
    vector ranking's order, then the lexical one's."""
    by_vector = np.asarray(vector_ranking, dtype=np.int64)
    by_words = np.asarray(lexical_ranking, dtype=np.int64)
    size = int(max(by_vector.max(initial=-1), by_words.max(initial=-1))) + 1
    score = np.zeros(size, dtype=np.float64)
    score[by_vector] += vector_weight / (k + np.arange(1, len(by_vector) + 1))
    score[by_words] += 1.0 / (k + np.arange(1, len(by_words) + 1))
    rows = np.concatenate([by_vector, by_words[~np.isin(by_words, by_vector)]])
    return rows[np.argsort(-score[rows], kind="stable")]
