"""Candidate names in Chinese and Japanese text, where no capital letter marks a name and
no space ends a word: the segmenter's proper-noun tags decide.

- Japanese: fugashi over unidic-lite (MeCab's dictionary of contemporary Japanese); a
  compound noun holding a 固有名詞 (proper noun) is one name, with its nouns, prefixes and
  suffixes ("竹内" + "数馬", "全" + "日本" + "空輸"); its last word makes it an
  organisation ("日本航空") or keeps it a place ("東京都千代田区").
- Chinese: jieba's part-of-speech tags nr (person), ns (place), nt (organisation), nz
  (other proper noun); a one-character surname followed by a title or kinship word is one
  name ("赵" + "太爷" -> "赵太爷"); 阿/小/老 before a Latin letter is a nickname ("阿Q").
  Adjacent proper nouns are one name (transliterations: "亨茨" + "维尔"), with a place or
  organisation word after them ("奥斯瓦尔德乡") and "圣" before them; a tag jieba only
  guesses as "other proper noun" (nz) alone is doubtful, and so is a word that follows a
  demonstrative or classifier in a quarter of its mentions ("一个尼姑", "什么东西").
  (Marking words frequent in jieba's dictionary doubtful, to drop 东西 "thing" and 和尚
  "monk", cost more real names than it saved: NER F1 0.427 with it, 0.447 without.)
- Both: names written in Latin letters inside the text ("BMW").
One-character names are dropped (a surname or a place character alone is more often
part of a word than a name). A chunk is segmented once: its candidates and their types
read the same cached segmentation."""

from __future__ import annotations

import re
from functools import lru_cache

from .scripts import HAN, ja_tagger, jieba

# jieba's tags -> the type they imply (a hint for typing, not a decision)
ZH_TAGS = {"nr": "PERSON", "nrfg": "PERSON", "nrt": "PERSON", "ns": "LOCATION",
           "nt": "ORGANIZATION", "nz": ""}
JA_TAGS = {"人名": "PERSON", "地名": "LOCATION", "組織名": "ORGANIZATION"}
# the last word of a compound name that makes it an organisation, or keeps it a place
JA_ORG_ENDS = frozenset("会社 株式会社 銀行 大学 学校 高校 航空 証券 汽車 自動車 製紙 電機 工業 "
                        "新聞 放送 協会 連盟 党 省 庁 軍 団 社 局 部 所 院".split())
JA_PLACE_ENDS = frozenset("都 道 府 県 市 区 町 村 郡 州 島 山 川 湖 駅 城 港 橋 寺 神社 国".split())
# words after a one-character surname that make it a name ("赵太爷", "吴妈", "邹七嫂")
ZH_TITLES = frozenset(
    "太爷 老爷 少爷 秀才 举人 先生 太太 奶奶 小姐 姑娘 大人 家 府 妈 嫂 七嫂 爷 司晨 公 氏 "
    "四爷 七爷 老头子 老太太 夫人 大爷 二爷 三爷".split())
# words that end a place or organisation name after a proper noun ("奥斯瓦尔德乡")
ZH_ORG_ENDS = frozenset("公司 银行 大学 学院 中学 小学 研究所 研究中心 中心 协会 学会 理事会 委员会 "
                        "设计局 博物馆 图书馆 医院 集团 党 部 局 会 军 队".split())
ZH_NAME_ENDS = ZH_ORG_ENDS | frozenset("乡 县 市 省 州 区 镇 村 堂 寺 庙 宫 桥 路 街 山 峰 河 江 湖 "
                                       "岛 港 湾 站 教堂 大教堂 城".split())
# one-character function words jieba's guessing glues onto a following unknown name
# ("但" + "未庄" -> "但未庄"): stripped from the front of a three-character-or-longer name
ZH_GLUED = frozenset("但在和与是的了到从向把被给对也都就又还便却说叫让")
_LATIN_NAME = re.compile(r"(?<![A-Za-z])[A-Z][A-Za-z0-9&'.-]*(?: [A-Z][A-Za-z0-9&'.-]*)*")
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
_NICKNAME = re.compile(r"[阿小老][A-Za-zＡ-Ｚａ-ｚ]")


def cjk_candidates(text: str, language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(sure, doubtful) candidate names of `text`, in order of first occurrence."""
    found = _japanese(text) if language == "ja" else _chinese(text)
    for m in _LATIN_NAME.finditer(text):  # names written in Latin letters ("BMW", "IHG")
        if len(m.group()) >= 2:
            found.setdefault(m.group(), True)
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
        for name, _sure, kind in _chinese_runs(text):
            if kind:
                yield name, kind


def _japanese(text: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for name, tag in _japanese_runs(text):
        if len(name) >= 2 and not name.isdigit():
            out.setdefault(name, tag in JA_TAGS)  # 一般 (a proper noun of no kind): doubtful
    return out


@lru_cache(maxsize=8)
def _japanese_runs(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(_japanese_compounds(text))


def _japanese_compounds(text: str):
    """(name, kind) per compound noun holding a proper noun: the proper noun with the
    nouns, prefixes and suffixes joined to it ("全" + "日本" + "空輸", "東京" + "都" +
    "千代田" + "区", "松友" + "美佐" + "紀"); kind is its first proper noun's (人名, ...)."""
    run: list = []

    def flush():
        proper = [w for w in run if w.feature.pos2 == "固有名詞"]
        if proper:
            # a common noun in kana or of time before the name is no part of it ("とき" +
            # "忠利", "when Tadatoshi"); after a person's name, neither is a prefixed or
            # kana word ("長十郎" + "お" + "願い", "Chōjūrō's request"; "土方歳三" + "ら",
            # "Hijikata and others"), nor a kana suffix after any name
            while run[0].feature.pos2 != "固有名詞" and (
                    run[0].feature.pos3 == "副詞可能" or _HIRAGANA.search(run[0].surface)):
                run.pop(0)
            person = proper[0].feature.pos3 == "人名"
            last = max(i for i, w in enumerate(run) if w.feature.pos2 == "固有名詞")
            for i in range(last + 1, len(run)):
                f, kana = run[i].feature, _HIRAGANA.search(run[i].surface)
                if (person and (f.pos1 == "接頭辞" or kana)) or (kana and f.pos1 == "接尾辞"):
                    del run[i:]
                    break
            while run and run[-1].feature.pos1 == "接頭辞":
                run.pop()
            kind = proper[0].feature.pos3 or ""
            last = run[-1]
            if last.feature.pos2 != "固有名詞" and (last.surface in JA_ORG_ENDS or (
                    kind == "地名" and last.surface not in JA_PLACE_ENDS)):
                kind = "組織名"  # "日本航空", "…株式会社"
            yield "".join(w.surface for w in run), kind
        run.clear()

    for w in ja_tagger()(text):
        f = w.feature
        joins = (f.pos1 == "名詞" and f.pos2 in ("固有名詞", "普通名詞")) or (
            f.pos1 == "接尾辞" and f.pos2 == "名詞的") or f.pos1 == "接頭辞"
        if joins and not (f.pos1 == "接尾辞" and not run):
            run.append(w)
        else:
            yield from flush()
    yield from flush()


@lru_cache(maxsize=65536)
def ja_person_words(name: str) -> tuple[str, str] | None:
    """(surname, given name) of a Japanese name the dictionary reads as a surname followed
    by a given name ("竹内数馬" -> ("竹内", "数馬"), "高見権右衛門"); None for anything else
    ("阿部一族", the Abe clan: a surname and a common noun). Cached: alias resolution asks
    for every name more than once."""
    words = list(ja_tagger()(name))
    if len(words) < 2:
        return None
    first, second = words[0].feature, words[1].feature
    if (first.pos3, first.pos4) != ("人名", "姓") or (second.pos3, second.pos4) != ("人名", "名"):
        return None
    return words[0].surface, name[len(words[0].surface):]


def _chinese(text: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for m in _NICKNAME.finditer(text):
        out[m.group()] = True
    for name, sure, _type in _chinese_runs(text):
        out.setdefault(name, sure and not counted(name, text))
    return out


# a demonstrative, classifier, "what" or "little" before a word: common nouns take them ("这东西",
# "一个尼姑", "什么东西"), names hardly ever do
_DETERMINED = "这那个些哪么一几每小"


def counted(word: str, text: str, share: float = 0.25) -> bool:
    """`word` follows a demonstrative or classifier in `share` or more of its mentions."""
    total = text.count(word)
    after = len(re.findall(f"[{_DETERMINED}]{re.escape(word)}", text))
    return total > 0 and after >= max(1, share * total)


def _chinese_runs(text: str):
    """(name, sure, type) for each run of name-tagged words: adjacent proper nouns are one
    name ("亨茨" + "维尔"; "安德里亚·皮萨诺"), with a place or organisation word after them
    ("奥斯瓦尔德" + "乡", "北极" + "研究中心") and "圣" before them."""
    pairs = _jieba_tags(text)
    i = 0
    while i < len(pairs):
        word, flag = pairs[i]
        nxt = pairs[i + 1][0] if i + 1 < len(pairs) else ""
        if flag.startswith("nr") and len(word) == 1 and nxt in ZH_TITLES:
            yield word + nxt, True, "PERSON"  # "赵" + "太爷"
            i += 2
            continue
        if flag not in ZH_TAGS and not _leads_a_name(pairs, i):
            i += 1
            continue
        j, parts, tags = i, [], []
        while j < len(pairs):
            w, f = pairs[j]
            if f in ZH_TAGS or (f == "j" and len(w) == 1) or (w == "圣" and not parts):
                parts.append(w)
                tags.append(f)
            elif w in "·•・" and parts and j + 1 < len(pairs) and pairs[j + 1][1] in ZH_TAGS:
                parts.append(w)
            else:
                break
            j += 1
        while j < len(pairs) and pairs[j][0] in ZH_NAME_ENDS:
            parts.append(pairs[j][0])
            tags.append("nt" if pairs[j][0] in ZH_ORG_ENDS else "ns")
            j += 1
        name = "".join(parts)
        if len(name) >= 3 and name[0] in ZH_GLUED:
            name = name[1:]
        named = [t for t in tags if t in ZH_TAGS]
        if len(name) >= 2 and HAN.search(name) and named:
            kind = ZH_TAGS.get(tags[-1] if tags[-1] in ZH_TAGS else named[0], "")
            yield name, not all(t == "nz" for t in named), kind
        i = max(j, i + 1)


def _leads_a_name(pairs: list[tuple[str, str]], i: int) -> bool:
    """Single characters jieba could not place (tagged j) or "圣", right before a proper
    noun, are the start of its name ("圣" "奥" + "斯瓦尔德")."""
    k = i
    while k < len(pairs) and k - i < 3 and (pairs[k][0] == "圣" or (
            pairs[k][1] == "j" and len(pairs[k][0]) == 1)):
        k += 1
    return k > i and k < len(pairs) and pairs[k][1] in ZH_TAGS


@lru_cache(maxsize=8)
def _jieba_tags(text: str) -> tuple[tuple[str, str], ...]:
    jieba()  # quiet, dictionary loaded
    from jieba import posseg

    return tuple((p.word, p.flag) for p in posseg.cut(text))
