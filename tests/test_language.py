"""Languages: detection, sentences in every script, names in Chinese and Japanese (by
their segmenters), grounding inside unspaced text, German nouns told from names, Russian
names in the nominative."""

import pytest

from graphrag_local.language.detect import detect_language
from graphrag_local.language.messages import MORE, joined, main_language, more
from graphrag_local.language.scripts import script_language
from graphrag_local.schema import Chunk
from graphrag_local.sentences import split_sentences
from graphrag_local.stages.aliases import clean_name, nominative, word_stats
from graphrag_local.stages.ground import candidate_names, normalise, occurs
from graphrag_local.stages.mentions import names_in

pytestmark = pytest.mark.fast

ZH = "阿Q在未庄住着。赵太爷很生气，他说阿Q不配姓赵！王胡和小D都笑了。"
JA = "阿部弥一右衛門は熊本の侍であった。忠利は江戸で病に倒れた。竹内数馬も来た。"
RU = ("Савельич встретил нас на крыльце. — Что это, сударь? — сказал он. Я отдал письмо "
      "Савельичу. Я знал, что он ждёт и что письмо дойдёт. Мы поехали с Савельичем в Симбирск.")
DE = ("Effi saß am Fenster. »Die Zeit vergeht«, sagte die Mutter. Es war die Zeit der "
      "Ernte, und Effi lachte. Nach einer Zeit kam Innstetten. Innstetten grüßte die "
      "Tochter, und die Tochter grüßte Innstetten.")


def text_of(text, spans):
    return [text[a:b] for a, b in spans]


def test_each_language_is_detected():
    assert detect_language(ZH * 3) == "zh"
    assert detect_language(JA * 3) == "ja"
    assert detect_language(RU) == "ru"
    assert detect_language(DE) == "de"
    assert detect_language("The Water Trust met in Millbrook on Tuesday evening.") == "en"
    assert detect_language("?!") == "en"  # too little to tell: the default


def test_sentences_end_at_full_width_stops_and_before_any_capital():
    assert text_of(ZH, split_sentences(ZH)) == [
        "阿Q在未庄住着。", "赵太爷很生气，他说阿Q不配姓赵！", "王胡和小D都笑了。"]
    ru = text_of(RU, split_sentences(RU))
    assert ru[0] == "Савельич встретил нас на крыльце." and len(ru) == 5
    assert text_of("Er kam. »Das ist gut«, sagte sie.", split_sentences(
        "Er kam. »Das ist gut«, sagte sie.")) == ["Er kam.", "»Das ist gut«, sagte sie."]
    # English as before: abbreviations and a lower-case word after a stop do not split
    assert len(split_sentences("Mr. Scrooge came. e.g. this one. Then 1843 came.")) == 2


def test_chinese_and_japanese_names_come_from_the_segmenters():
    zh = candidate_names(ZH)
    assert {"阿Q", "小D", "赵太爷", "王胡"} <= set(zh), zh
    assert not any(len(n) == 1 for n in zh)
    ja = candidate_names(JA)
    assert {"熊本", "忠利", "江戸", "竹内数馬"} <= set(ja), ja
    assert script_language(ZH) == "zh" and script_language(JA) == "ja"
    # a few Chinese words in an English text leave the English rules in charge
    assert script_language("The Lantern Festival (灯会) was held in Millbrook.") == ""
    assert "Lantern Festival" in candidate_names("The Lantern Festival (灯会) was held in Millbrook.")


def test_names_ground_inside_unspaced_text():
    assert occurs("未庄", normalise(ZH)) and occurs("赵太爷", normalise(ZH))
    assert not occurs("钱太爷", normalise(ZH))
    assert names_in("王胡和小D都笑了。", ["王胡", "小D", "阿Q"]) == ["王胡", "小D"]
    # spaced scripts still need whole words
    assert not occurs("Mill", normalise("Millbrook flooded"))


def test_german_nouns_after_articles_are_not_names():
    stats = word_stats([DE])
    assert clean_name("Zeit", stats) is None and clean_name("Tochter", stats) is None
    assert clean_name("Effi", stats) == "Effi" and clean_name("Innstetten", stats) == "Innstetten"


def test_russian_names_are_one_name_in_the_nominative():
    assert {nominative(w) for w in ("Савельич", "Савельича", "Савельичу", "Савельичем")} == {
        "Савельич"}
    assert nominative("Марьи Ивановны") == "Марья Ивановна"
    assert nominative("Scrooge") == "Scrooge"
    stats = word_stats([RU])
    assert clean_name("Что", stats) is None  # after a dialogue dash: a sentence start


def test_chinese_names_join_their_pieces_and_common_nouns_stay_doubtful():
    from graphrag_local.language.names import cjk_candidates, cjk_types

    sure, _ = cjk_candidates("圣奥斯瓦尔德乡位于亨茨维尔附近。安德里亚·皮萨诺来了。", "zh")
    assert {"圣奥斯瓦尔德乡", "亨茨维尔", "安德里亚·皮萨诺"} <= set(sure), sure
    sure, doubtful = cjk_candidates("一个尼姑走了。这尼姑笑了。小尼姑哭了。王胡来到未庄。", "zh")
    assert "尼姑" not in sure
    assert cjk_types("毛泽东去了日本。", "zh") == {"毛泽东": "PERSON", "日本": "LOCATION"}


def test_japanese_compound_names_and_latin_names_in_cjk_text():
    from graphrag_local.language.names import cjk_candidates, cjk_types

    text = "全日本空輸と日本航空は東京都千代田区にある。松友美佐紀はBMWに乗る。"
    sure, _ = cjk_candidates(text, "ja")
    assert {"全日本空輸", "日本航空", "東京都千代田区", "松友美佐紀", "BMW"} <= set(sure), sure
    types = cjk_types(text, "ja")
    assert types["日本航空"] == "ORGANIZATION" and types["東京都千代田区"] == "LOCATION"


def test_japanese_names_are_not_glued_to_the_words_around_them():
    """'そのとき忠利が' is "then Tadatoshi": 'とき' (when) is no part of the name; nor is the
    request after '長十郎' or the plural 'ら' after '土方歳三'; '柄本又七郎' keeps its '郎'."""
    from graphrag_local.language.names import cjk_candidates

    text = "そのとき忠利が言った。長十郎お願いがございます。土方歳三らが来た。柄本又七郎が来た。"
    sure, doubtful = cjk_candidates(text, "ja")
    assert {"忠利", "長十郎", "土方歳三", "柄本又七郎"} <= set(sure), sure
    assert not {"とき忠利", "長十郎お願い", "土方歳三ら"} & set(sure + doubtful)


def test_german_runs_are_cut_at_common_nouns_but_keep_titles_and_adjectives():
    from graphrag_local.language.german import is_common_noun, name_pieces

    assert name_pieces("Hauptstadt Belgrad") == ["Belgrad"]
    assert name_pieces("Vertreter von Uber") == ["Uber"]
    assert name_pieces("Schicksal der Republik") == []
    assert name_pieces("Frau von Briest") == ["Frau von Briest"]
    assert name_pieces("Vereinigten Staaten") == ["Vereinigten Staaten"]
    assert is_common_noun("Kirchhofsmauer") and is_common_noun("Jahre")
    assert not is_common_noun("Belgrad") and not is_common_noun("Innstetten")


def test_japanese_without_the_extra_fails_with_the_install_line(monkeypatch):
    from graphrag_local.errors import ConfigError
    from graphrag_local.language import scripts

    monkeypatch.setattr(scripts, "_fugashi", lambda: (None, ImportError("no fugashi")))
    with pytest.raises(ConfigError, match=r"graphrag-local\[ja\]"):
        scripts.ja_tagger()
    assert scripts.ja_tagger(required=False) is None


def test_words_of_chinese_and_japanese_sentences_are_counted_by_the_segmenter():
    """Global and ts answers keep sentences of four words or more and count an answer's
    words: a Chinese or Japanese sentence has no spaces, and counted by them it was one
    word, so every one was dropped and those answers said "nothing relevant"."""
    from graphrag_local.sentences import word_count

    assert word_count("竹内数馬が討死をしたことは、このときわかった。") >= 8
    assert word_count("阿Q在未庄里做短工。") >= 4
    assert word_count("Lena Castell has directed the festival since 2019.") == 8
    assert word_count("tight-fisted, and old") == 3  # English: split at spaces, as before


def test_a_chinese_name_is_an_entity_wherever_its_document_writes_it():
    """jieba reads a word by its context: 未庄 (the village of 阿Q正传) was a candidate in 2 of
    the 28 chunks that write it. A name one chunk of a Chinese document yields is an
    entity of every chunk of that document that writes it outside a longer name; other
    documents, English and Japanese chunks are left as they are."""
    from graphrag_local.schema import ChunkExtraction, Document
    from graphrag_local.stages.chunk import chunk_sentences
    from graphrag_local.stages.mentions import entity_records, spread_names

    texts = {"a": ["阿Q住在未庄的土谷祠里，赵太爷不许他姓赵。", "他回到未庄，看见王胡和太爷在墙根下。", "赵太爷在未庄的家里大声地骂了阿Q一顿。"],
             "b": ["未庄是一个村子。"], "e": ["Weizhuang is a village.", " Ah Q lives in Weizhuang."],
             "j": ["忠利は江戸にいた。", "忠利が死んだ。"]}
    docs, chunks = [], []
    for d, parts in texts.items():
        lang = {"e": "en", "j": "ja"}.get(d, "zh")
        docs.append(Document(d, d, d, "".join(parts), "utf-8", language=lang))
        at = 0
        for i, t in enumerate(parts):
            chunks.append(Chunk(f"{d}{i}", d, d, i, 0, 0, len(t), t, at, at + len(t), language=lang))
            at += len(t)
    sentences = chunk_sentences(docs, chunks)

    def extraction(cid, typed):
        ents, rels = entity_records(typed, [s for s in sentences if s.chunk_id == cid], cid)
        return ChunkExtraction(cid, cid, "ok", "", tuple(ents), tuple(rels))

    given = [extraction("a0", [("未庄", "LOCATION"), ("土谷祠", "LOCATION"), ("赵太爷", "PERSON")]),
             extraction("a1", [("王胡", "PERSON"), ("太爷", "PERSON")]), extraction("a2", []),
             extraction("b0", []), extraction("e0", [("Weizhuang", "LOCATION")]),
             extraction("e1", []), extraction("j0", [("忠利", "PERSON")]), extraction("j1", [])]
    out = {r.chunk_id: r for r in spread_names(given, chunks, sentences)}
    assert {(e.name, e.type) for e in out["a1"].entities} == {
        ("王胡", "PERSON"), ("太爷", "PERSON"), ("未庄", "LOCATION")}
    assert {frozenset((r.source, r.target)) for r in out["a1"].relationships} == {
        frozenset(p) for p in (("王胡", "未庄"), ("太爷", "未庄"), ("王胡", "太爷"))}
    assert all(e.spans for e in out["a1"].entities)
    assert out["a0"] == given[0]  # nothing new there
    # 太爷 is written in a2 only inside 赵太爷, a longer name of the document
    assert {e.name for e in out["a2"].entities} == {"赵太爷", "未庄"}
    assert out["b0"].entities == ()  # another document's names are not this one's
    assert out["e1"].entities == ()  # English: capitals mark names in every chunk alike
    assert out["j1"].entities == ()  # Japanese: MeCab reads a name alike in every chunk


def test_names_are_listed_in_their_language():
    """A community's title joins its names with its documents' "and"; a language without
    one here gets a list of no language, never an English "and"."""
    names = ["Phileas Fogg", "Passepartout", "Fix"]
    assert joined(names, "en") == "Phileas Fogg, Passepartout and Fix"
    assert joined(names, "fr") == "Phileas Fogg, Passepartout et Fix"
    assert joined(names[:2], "de") == "Phileas Fogg und Passepartout"
    assert joined(["Fernando", "Isabel"], "es") == "Fernando e Isabel"  # "y" before /i/
    assert joined(["Sancho", "Hierro"], "es") == "Sancho y Hierro"  # not before "hie"
    assert joined(["阿Ｑ", "土谷祠", "赵太爷"], "zh") == "阿Ｑ、土谷祠和赵太爷"
    assert joined(["太郎", "花子"], "ja") == "太郎と花子"
    assert joined(names, "fi") == "Phileas Fogg, Passepartout, Fix"
    assert joined(["Ann"], "fr") == "Ann"
    for language in ("en", "ru", "zh"):  # the tail comes off for a heading in every language
        assert MORE.sub("", "A и B" + more(3, language)) == "A и B"
    assert main_language(["fr", "", "en", "fr"]) == "fr" and main_language(["", ""]) == "en"
