"""Lexical retrieval (issue 17): word tokens in every script, BM25, reciprocal rank
fusion, and an extractive session whose sentence ranking fuses them (`query.lexical`)."""

from dataclasses import replace

import numpy as np
import pytest
from fakes import FakeChatModel, HashEmbedder

from graphrag_local.errors import ConfigError
from graphrag_local.language.tokens import tokens
from graphrag_local.search.lexical import BM25, fuse
from graphrag_local.settings import QuerySettings, Settings, load_settings

pytestmark = pytest.mark.fast


def test_latin_and_cyrillic_words_are_lowered_runs_of_letters_and_digits():
    assert tokens("Mara Quill founded the Trust in 2015 (e.g. re_built).") == [
        "mara", "quill", "founded", "the", "trust", "in", "2015", "e", "g", "re", "built"]
    assert tokens("Савельич встретил нас на крыльце.") == [
        "савельич", "встретил", "нас", "на", "крыльце"]
    assert tokens("ＡＢＣ１２３ – …") == ["abc123"]  # NFKC; punctuation is no token


def test_chinese_is_segmented_into_words_not_one_run():
    assert tokens("阿Q在未庄") == ["阿q", "在", "未", "庄"]  # 未庄: not in jieba's dictionary
    assert tokens("阿Ｑ是谁？") == ["阿q", "是", "谁"]  # full-width Q, as the novel writes it
    # a name jieba does not know splits the same way whatever follows it
    assert tokens("王胡是谁")[:2] == tokens("王胡轻蔑的抬起眼来说")[:2] == ["王", "胡"]


def test_japanese_is_segmented_by_fugashi():
    words = tokens("吾輩は猫である。名前はまだ無い。")
    assert words[:3] == ["吾輩", "は", "猫"] and "名前" in words and "。" not in words


def test_japanese_without_fugashi_falls_back_to_jieba(monkeypatch):
    import graphrag_local.language.tokens as module

    monkeypatch.setattr(module, "ja_tagger", lambda required=True: None)  # no [ja] extra
    assert tokens("ですね、猫である") == ["で", "す", "ね", "猫", "で", "あ", "る"]


def test_bm25_ranks_the_sentence_with_the_rare_exact_word_first():
    texts = ["The trust met in the town hall.", "The trust voted on the river.",
             "The trust paid 40312 pounds for the dredging.", "The river flooded the town."]
    rows, scores = BM25(texts).scores("How much did the trust pay, 40312?")
    assert rows[0] == 2 and list(scores) == sorted(scores, reverse=True)
    assert 3 in rows  # "the" matches it, weakly
    assert len(BM25([]).scores("anything")[0]) == 0


def test_reciprocal_rank_fusion_order():
    # vector: 0 1 2 3; words: 3 2 9. 3: 1/64 + 1/61, 2: 1/63 + 1/62, 0: 1/61, 1: 1/62, 9: 1/63
    assert fuse([0, 1, 2, 3], [3, 2, 9]).tolist() == [3, 2, 0, 1, 9]
    assert fuse([0, 1], []).tolist() == [0, 1]  # no word in common: the vector order


def test_lexical_setting_is_fuse_or_off(tmp_path):
    assert QuerySettings().lexical == "fuse"
    cfg = tmp_path / "bad.toml"
    cfg.write_text('[query]\nlexical = "maybe"\n')
    with pytest.raises(ConfigError, match="query.lexical"):
        load_settings(cfg)


@pytest.fixture(scope="module")
def session_index(tmp_path_factory):
    from conftest import copy_corpus
    from test_pipeline import make_build

    from graphrag_local.pipeline import run_build

    base = tmp_path_factory.mktemp("lexical")
    settings = Settings(content="extractive", method="fast")  # no model call
    run_build(make_build(copy_corpus(base / "docs"), base / "idx", FakeChatModel(), settings=settings))
    return base / "idx"


def ask(index, lexical, question, method, **query):
    from graphrag_local.prompts import load_prompts
    from graphrag_local.query import Session

    settings = replace(Settings(), query=replace(QuerySettings(), lexical=lexical, **query))
    session = Session(index, settings, load_prompts(), FakeChatModel, HashEmbedder)
    return session, session.ask(question, method=method)


def test_fused_ranking_finds_what_hash_vectors_miss(session_index):
    """The hash embedder's vectors are noise, as an English embedder's are for a Chinese
    question: the words the question shares with a sentence lift it into the sentences
    basic search considers (from 80th by nearness to 20th, of 137)."""
    question = "Who founded the Aldren Water Trust?"
    answer = "Mara Quill founded the Aldren Water Trust in 2015."
    wide = dict(basic_top_sentences=24, quote_count=24)  # the answer lists all it considers
    _, off = ask(session_index, "off", question, "basic", **wide)
    session, fused = ask(session_index, "fuse", question, "basic", **wide)
    assert answer in fused.answer and answer not in off.answer
    q = session.vector(question)
    plain = session.sentences
    view = plain.asked(question, q)
    assert sorted(view.similarity(q).tolist()) == sorted(plain.similarity(q).tolist())
    other = np.ones_like(q)  # any other vector: plain nearness
    assert np.allclose(view.similarity(other), plain.similarity(other))
    for method in ("local", "global", "ts", "drift"):
        assert ask(session_index, "fuse", question, method)[1].answer, method


def test_a_question_in_another_language_leans_on_its_words():
    """The English embedder's ranking counts a quarter for a question in another
    language: a sentence the words rank first and the vectors rank last comes first."""
    from graphrag_local.language.messages import question_language
    from graphrag_local.search.lexical import fuse

    by_vector, by_words = [0, 1, 2, 3], [3, 2, 1, 0]
    assert fuse(by_vector, by_words)[0] == 0  # equal weights: ties go to the vectors
    assert fuse(by_vector, by_words, vector_weight=0.25)[0] == 3
    assert question_language("阿Ｑ住在未庄的什么地方？") == "zh"
    assert question_language("Кто такой Савельич и откуда он?") == "ru"
    assert question_language("Who founded the Aldren Water Trust?") == "en"


def test_a_question_is_told_among_the_index_languages(monkeypatch):
    """A question's language is one of the index's or English: an English index answers
    'en' without loading the detector; a German one still hears German; a short English
    question py3langid alone calls Italian is English among {en, de}."""
    import sys

    from graphrag_local.language.messages import question_language

    assert question_language("Who is Lena Castell?", {"de"}) == "en"
    assert question_language("Wer hat den Brief geschrieben und warum?", {"de"}) == "de"
    assert question_language("阿Ｑ住在未庄的什么地方？", {"en"}) == "zh"  # the script decides
    monkeypatch.setitem(sys.modules, "py3langid", None)  # importing it now raises
    assert question_language("Wer hat den Brief geschrieben?", {"en"}) == "en"
    assert question_language("Who is Lena Castell?", {"en", ""}) == "en"
