"""Writing systems and the segmenters that read them, in one place: which characters are
Han, kana or another script written without spaces, which language a text's script
says (Chinese or Japanese), and jieba and fugashi loaded once, on first use, so an
English corpus never loads either."""

from __future__ import annotations

import re
from functools import lru_cache

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
KANA = re.compile(r"[\u3040-\u30ff]")
CJK = re.compile(f"{HAN.pattern}|{KANA.pattern}")
# scripts written without spaces between words (Han, kana, Thai, Lao): names are found
# inside runs of text, not between spaces
UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0eff]")


def script_language(text: str) -> str:
    """"ja" or "zh" for text mostly in Han characters (with kana: Japanese), else "" (a
    language of capital letters; a few Chinese words in English text leave it English)."""
    sample = text[:2000]
    kana, han = len(KANA.findall(sample)), len(HAN.findall(sample))
    letters = sum(ch.isalpha() for ch in sample)
    if kana + han < 10 or kana + han < 0.3 * letters:
        return ""
    return "ja" if kana >= 3 else "zh"


@lru_cache(maxsize=1)
def jieba():
    """jieba, quiet (it announces loading its dictionary otherwise), dictionary loaded."""
    import logging

    import jieba as module

    module.setLogLevel(logging.WARNING)
    module.initialize()
    return module


@lru_cache(maxsize=1)
def _fugashi():
    try:
        import fugashi

        return fugashi.Tagger(), None
    except (ImportError, RuntimeError) as exc:
        return None, exc


def ja_tagger(required: bool = True):
    """fugashi's tagger over unidic-lite (the [ja] extra). Without it: a ConfigError
    with the install line, or None when not `required` (search then splits Japanese
    with jieba, the same way in the question and in the sentences)."""
    tagger, error = _fugashi()
    if tagger is None and required:
        from ..errors import ConfigError

        raise ConfigError(
            "Japanese text needs the Japanese segmenter (fugashi with unidic-lite, 250 MB): "
            f"pip install 'graphrag-local[ja]' ({type(error).__name__}: {error})") from error
    return tagger
