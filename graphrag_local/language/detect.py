"""The language a text is written in: an ISO 639-1 code ("en", "zh", "ja", "de", "ru",
...), by py3langid (a 4.5 MB offline model of 97 languages, fast enough to run on every
document and chunk). A text with too few letters to tell is "en", the project's default.
`input.language` in the settings forces one language for every document instead."""

from __future__ import annotations

from functools import lru_cache

from .scripts import HAN, KANA

SAMPLE_CHARS = 4000  # enough to tell; detection time grows with the text


def detect_language(text: str) -> str:
    """The language of `text` (a sample from its start, middle and end)."""
    if len(text) > SAMPLE_CHARS:
        third = SAMPLE_CHARS // 3
        mid = len(text) // 2
        text = text[:third] + "\n" + text[mid : mid + third] + "\n" + text[-third:]
    return _detect(text)


@lru_cache(maxsize=4096)
def _detect(text: str) -> str:
    letters = sum(ch.isalpha() for ch in text)
    if letters < 20:
        return "en"
    if KANA.search(text):  # kana is Japanese only
        return "ja"
    import py3langid

    code, _score = py3langid.classify(text)
    if code == "ja" or HAN.search(text[:400]):  # Han without kana: Chinese
        return "zh"
    return code
