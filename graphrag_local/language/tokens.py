"""Words for lexical search (`search/lexical.py`): lower-cased NFKC word tokens in any
script, so that a question and a sentence of the documents split the same way.

- Latin, Cyrillic and other spaced scripts: runs of letters and digits (`str.isalnum`);
  punctuation and underscores separate them and are never tokens.
- Chinese (a run holding Han characters): jieba's words ("阿Q在未庄" -> 阿q, 在, 未, 庄),
  not one token per unspaced run. From its dictionary only (HMM=False): a name it does
  not know splits into its characters the same way in a question and in the text, where
  its HMM guesses words from what follows ("王胡是谁" -> 王胡是 / 谁 against the text's
  "王胡轻蔑" -> 王胡 / 轻蔑, so the name never matched). On 阿Q正传
  (samples/multilingual/zh_facts.jsonl) fused basic search answers 3 of 6 without the
  HMM, 2 of 6 with it.
- Japanese (a text holding kana): fugashi's surface forms over unidic-lite (the [ja]
  extra; without it, jieba's split).

Both segmenters are imported on first use, so an English corpus never loads them.
Deliberately no stemming and no stop words: BM25's idf already weighs common words down,
and a stemmer per language is more than exact names and numbers need."""

from __future__ import annotations

import re
import unicodedata

from .scripts import CJK, KANA, ja_tagger, jieba

_RUN = re.compile(r"[^\W_]+")  # \w without "_": the isalnum characters


def tokens(text: str) -> list[str]:
    """The word tokens of `text`, lower-cased, in order (repeats kept)."""
    text = unicodedata.normalize("NFKC", text)
    if not CJK.search(text):  # the common case, and the fast one
        return _RUN.findall(text.lower())
    tagger = ja_tagger(required=False) if KANA.search(text) else None
    out: list[str] = []
    for run in _RUN.findall(text):
        if tagger is not None and CJK.search(run):
            words = [w.surface for w in tagger(run)]
        elif CJK.search(run):
            words = jieba().cut(run, HMM=False)
        else:
            out += _RUN.findall(run.lower())  # as the fast path splits it
            continue
        out += [w.lower() for w in words if any(ch.isalnum() for ch in w)]
    return out
