"""Candidate names in Chinese and Japanese text, where no capital letter marks a name and
no space ends a word: the segmenter's proper-noun tags decide.

- Japanese: fugashi over unidic-lite (MeCab's dictionary of contemporary Japanese); a run
  of tokens tagged 固有名詞 (proper noun) is one name ("竹内" + "数馬" -> "竹内数馬").
- Chinese: jieba's part-of-speech tags nr (person), ns (place), nt (organisation), nz
  (other proper noun); a one-character surname followed by a title or kinship word is one
  name ("赵" + "太爷" -> "赵太爷"); 阿/小/老 before a Latin letter is a nickname ("阿Q").
  A word the dictionary itself tags as a person or place and that is also a common word
  of the language (frequent in jieba's dictionary: 和尚 "monk", 东西 "thing") is doubtful,
  for the model to decide, not sure.
One-character names are dropped (a surname or a place character alone is more often
part of a word than a name). Both segmenters are imported on first use."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

# jieba's tags -> the type they imply (a hint for typing, not a decision)
ZH_TAGS = {"nr": "PERSON", "nrfg": "PERSON", "nrt": "PERSON", "ns": "LOCATION",
           "nt": "ORGANIZATION", "nz": ""}
JA_TAGS = {"人名": "PERSON", "地名": "LOCATION", "組織名": "ORGANIZATION"}
# words after a one-character surname that make it a name ("赵太爷", "吴妈", "邹七嫂")
ZH_TITLES = frozenset(
    "太爷 老爷 少爷 秀才 举人 先生 太太 奶奶 小姐 姑娘 大人 家 府 妈 嫂 七嫂 爷 司晨 公 氏 "
    "四爷 七爷 老头子 老太太 夫人 大爷 二爷 三爷".split())
ZH_COMMON_FREQ = 300  # a dictionary word this frequent is a common word first
ZH_COMMON_PLACE_FREQ = 5000  # a place-tagged word this frequent ("东西", "太阳") too, unless
ZH_PLACE_ENDS = tuple("国省市县州城山河江湖庄村镇岛港湾")  # it ends like a place name
# one-character function words jieba's guessing glues onto a following unknown name
# ("但" + "未庄" -> "但未庄"): stripped from the front of a three-character-or-longer name
ZH_GLUED = frozenset("但在和与是的了到从向把被给对也都就又还便却说叫让")
_NICKNAME = re.compile(r"[阿小老][A-Za-zＡ-Ｚａ-ｚ]")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def cjk_candidates(text: str, language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(sure, doubtful) candidate names of `text`, in order of first occurrence."""
    found = _japanese(text) if language == "ja" else _chinese(text)
    sure = [n for n, ok in found.items() if ok]
    doubtful = [n for n, ok in found.items() if not ok]
    return tuple(sure), tuple(doubtful)


def cjk_types(text: str, language: str) -> dict[str, str]:
    """The type each candidate's tag implies ("PERSON", ...), where it implies one."""
    return dict(_typed(text, language))


def _typed(text: str, language: str):
    if language == "ja":
        for name, tag in _japanese_runs(text):
            if JA_TAGS.get(tag):
                yield name, JA_TAGS[tag]
    else:
        for m in _NICKNAME.finditer(text):
            yield m.group(), "PERSON"
        pairs = _jieba_tags(text)
        for i, (word, flag) in enumerate(pairs):
            nxt = pairs[i + 1][0] if i + 1 < len(pairs) else ""
            if flag.startswith("nr") and len(word) == 1 and nxt in ZH_TITLES:
                yield word + nxt, "PERSON"  # "赵太爷"
            elif ZH_TAGS.get(flag):
                yield (word[1:] if len(word) >= 3 and word[0] in ZH_GLUED else word), ZH_TAGS[flag]


def _japanese(text: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for name, tag in _japanese_runs(text):
        if len(name) >= 2 and not name.isdigit():
            out.setdefault(name, tag in JA_TAGS)  # 一般 (a proper noun of no kind): doubtful
    return out


def _japanese_runs(text: str):
    run: list[str] = []
    tag = ""
    for w in _ja_tagger()(text):
        f = w.feature
        if f.pos2 == "固有名詞":
            if not run:
                tag = f.pos3 or ""
            run.append(w.surface)
            continue
        if run:
            yield "".join(run), tag
            run = []
    if run:
        yield "".join(run), tag


def _chinese(text: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for m in _NICKNAME.finditer(text):
        out[m.group()] = True
    pairs = _jieba_tags(text)
    freq = _jieba_freq()
    for i, (word, flag) in enumerate(pairs):
        nxt = pairs[i + 1][0] if i + 1 < len(pairs) else ""
        if flag.startswith("nr") and len(word) == 1 and nxt in ZH_TITLES:
            out.setdefault(word + nxt, True)
        elif flag in ZH_TAGS and len(word) >= 2 and _HAN.search(word):
            if len(word) >= 3 and word[0] in ZH_GLUED:
                word = word[1:]
            f = freq.get(word) or 0
            common = (f >= ZH_COMMON_PLACE_FREQ and not word.endswith(ZH_PLACE_ENDS)
                      if flag == "ns" else f >= ZH_COMMON_FREQ)
            out.setdefault(word, not common and flag != "nz")
    return out


def _jieba_tags(text: str) -> list[tuple[str, str]]:
    import jieba.posseg

    _quiet_jieba()
    return [(p.word, p.flag) for p in jieba.posseg.cut(text)]


@lru_cache(maxsize=1)
def _jieba_freq() -> dict[str, int]:
    import jieba

    _quiet_jieba()
    jieba.initialize()
    return jieba.dt.FREQ


def _quiet_jieba() -> None:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)


@lru_cache(maxsize=1)
def _ja_tagger():
    try:
        import fugashi

        return fugashi.Tagger()
    except (ImportError, RuntimeError) as exc:
        from ..errors import ConfigError

        raise ConfigError(
            "Japanese text needs the Japanese segmenter (fugashi with unidic-lite, 250 MB): "
            f"pip install 'graphrag-local[ja]' ({type(exc).__name__}: {exc})") from exc


def top_names(text: str, language: str, n: int = 15) -> list[tuple[str, int]]:
    """The `n` candidates mentioned most often in `text` (for measuring)."""
    sure, _ = cjk_candidates(text, language)
    counts = Counter({name: text.count(name) for name in sure})
    return counts.most_common(n)
