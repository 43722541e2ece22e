"""Gold NER readers for `eval extraction` in other languages: each format on a small
sample written the way the real files look, the type mapping, Chinese names and text
joined without spaces, grouping into documents, Re-DocRED still read as before, and the
real gold files of ../shared when they are there."""

import json
from pathlib import Path

import pytest

from graphrag_local.eval.ner_gold import (
    GOLD_TYPES,
    gold_docs,
    load_golds,
    read_bio,
    read_stockmark,
    read_uner,
    spans,
)

pytestmark = pytest.mark.fast

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "multilingual" / "ner"

DE = """# newdoc id = n01001
# sent_id = n01001-0001
# text = „Neu“, schrieb Kori Schulman in Washington.
1\t„\tO\t-\t-
2\tNeu\tO\t-\t-
3\t“\tO\t-\t-
4\t,\tO\t-\t-
5\tschrieb\tO\t-\t-
6\tKori\tB-PER\t-\tstefan
7\tSchulman\tI-PER\t-\tstefan
8\tin\tO\t-\t-
9\tWashington\tB-LOC\t-\tstefan
10\t.\tO\t-\t-

# sent_id = n01001-0002
# text = Die UNO tagt.
1\tDie\tO\t-\t-
2\tUNO\tB-ORG\t-\tstefan
3\ttagt\tO\t-\t-
4\t.\tO\t-\t-
"""

ZH = """# sent_id = batch-0000-0002
1\t自从\tO\t-\t-
2\t2004\tO\t-\t-
3\t年\tO\t-\t-
4\t人文\tB-LOC\t-\tlinpq
5\t大楼\tI-LOC\t-\tlinpq
6\t建成\tO\t-\t-
7\t。\tO\t-\t-

# sent_id = batch-0000-0003
1\t毛泽东\tB-PER\t-\tlinpq
2\t来\tO\t-\t-
3\t了\tO\t-\t-
4\t。\tO\t-\t-
"""

FR = """Emmanuel I-PER
DESOLES I-PER
de O
RENNES I-LOC
. O
La O
« O
Fédération I-ORG
Républicaine I-ORG
» O
vote O
! O
Paris I-LOC
"""

JA = [
    {"curid": "2415078", "text": "レッドフォックス株式会社は、東京都千代田区に本社を置く企業である。",
     "entities": [{"name": "レッドフォックス株式会社", "span": [0, 12], "type": "法人名"},
                  {"name": "東京都千代田区", "span": [14, 21], "type": "地名"}]},
    {"curid": "2470626", "text": "松友美佐紀は、日本のバドミントン選手。",
     "entities": [{"name": "松友美佐紀", "span": [0, 5], "type": "人名"},
                  {"name": "日本", "span": [7, 9], "type": "地名"}]},
]


def test_uner_reads_text_line_and_names_from_it(tmp_path):
    sentences = read_uner(DE)
    assert [s.text for s in sentences] == ["„Neu“, schrieb Kori Schulman in Washington.",
                                           "Die UNO tagt."]
    assert sentences[0].mentions == (("Kori Schulman", "PER"), ("Washington", "LOC"))
    (tmp_path / "de.iob2").write_text(DE, encoding="utf-8")
    source, [doc] = load_golds(tmp_path / "de.iob2", limit=10)
    assert doc.text == "„Neu“, schrieb Kori Schulman in Washington. Die UNO tagt."
    assert doc.entities == (frozenset({"kori schulman"}), frozenset({"washington"}),
                            frozenset({"uno"}))
    assert doc.types == ("PER", "LOC", "ORG")
    assert "NER (de.iob2)" in source


def test_chinese_tokens_join_without_spaces():
    sentences = read_uner(ZH)  # no `# text` lines: the tokens are joined
    assert sentences[0].text == "自从2004年人文大楼建成。"
    assert sentences[0].mentions == (("人文大楼", "LOC"),)
    [doc] = gold_docs(sentences, "zh")
    assert doc.text == "自从2004年人文大楼建成。毛泽东来了。"
    assert doc.entities == (frozenset({"人文大楼"}), frozenset({"毛泽东"}))


def test_bio_splits_sentences_and_reads_io_tags():
    sentences = read_bio(FR)
    assert [s.text for s in sentences] == ["Emmanuel DESOLES de RENNES.",
                                           "La « Fédération Républicaine » vote!", "Paris"]
    assert sentences[0].mentions == (("Emmanuel DESOLES", "PER"), ("RENNES", "LOC"))
    assert sentences[1].mentions == (("Fédération Républicaine", "ORG"),)


def test_stockmark_json_and_its_types(tmp_path):
    sentences = read_stockmark(JA)
    assert sentences[1].mentions == (("松友美佐紀", "人名"), ("日本", "地名"))
    path = tmp_path / "ner.json"
    path.write_text(json.dumps(JA, ensure_ascii=False), encoding="utf-8")
    _source, [doc] = load_golds(path, limit=5)
    assert doc.text == JA[0]["text"] + JA[1]["text"]
    assert doc.language == "ja"
    assert doc.types == ("ORG", "LOC", "PER", "LOC")


@pytest.mark.parametrize("tags, expected", [
    (["B-PER", "I-PER", "O", "B-LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),
    (["B-PER", "B-PER", "I-PER"], [(0, 1, "PER"), (1, 3, "PER")]),  # IOB2: B- begins
    (["I-PER", "I-PER", "I-LOC", "O", "I-ORG"], [(0, 2, "PER"), (2, 3, "LOC"), (4, 5, "ORG")]),
])
def test_spans(tags, expected):
    assert spans(tags) == expected


@pytest.mark.parametrize("gold, ours", [
    ("PER", "PER"), ("PERSON", "PER"), ("ORG", "ORG"), ("LOC", "LOC"), ("GPE", "LOC"),
    ("人名", "PER"), ("法人名", "ORG"), ("政治的組織名", "ORG"), ("地名", "LOC"), ("施設名", "LOC"),
])
def test_type_mapping(gold, ours):
    assert GOLD_TYPES[gold] == ours


def test_other_types_stay_gold_entities_untyped():
    sentences = read_stockmark([{"text": "iPhoneとWWDCの話。", "entities": [
        {"name": "iPhone", "span": [0, 6], "type": "製品名"},
        {"name": "WWDC", "span": [7, 11], "type": "イベント名"}]}])
    [doc] = gold_docs(sentences, "ja")
    assert doc.entities == (frozenset({"iphone"}), frozenset({"wwdc"}))
    assert doc.types == ("製品名", "イベント名")


def test_documents_of_ten_sentences_and_one_entity_per_name():
    sentences = read_uner("\n".join(DE.split("\n")[2:14]) + "\n")  # the first sentence
    docs = gold_docs(sentences * 25, "de")
    assert [len(d.entities) for d in docs] == [2, 2, 2]  # 10 + 10 + 5 sentences
    assert docs[2].text.count("Kori Schulman") == 5
    assert [d.index for d in docs] == [0, 1, 2]


def test_redocred_still_read(tmp_path):
    doc = {"title": "T", "sents": [["Ann", "met", "Bob", "."]],
           "vertexSet": [[{"name": "Ann", "type": "PER"}], [{"name": "Bob", "type": "PER"}]],
           "labels": [{"h": 0, "t": 1, "r": "P1"}]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([doc, doc]), encoding="utf-8")
    source, golds = load_golds(path, limit=1, offset=1)
    assert source == "Re-DocRED"
    assert [g.index for g in golds] == [1]
    assert golds[0].text == "Ann met Bob." and golds[0].language == "en"


def test_other_files_refused(tmp_path):
    (tmp_path / "x.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(ValueError):
        load_golds(tmp_path / "x.txt", limit=1)


REAL = [("zh", "zh/zh_gsdsimp-ud-test.first300.iob2"), ("ja", "ja/ner.first300.json"),
        ("de", "de/de_pud-ud-test.first300.iob2"), ("ru", "ru/ru_pud-ud-test.first300.iob2"),
        ("fr", "fr/enp_FR.bnf.first300sent.bio")]


@pytest.mark.parametrize("language, name", REAL)
def test_real_gold_files(language, name):
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"no gold NER data at {path}")
    text = path.read_text(encoding="utf-8")
    sentences = {".iob2": read_uner, ".bio": read_bio,
                 ".json": lambda t: read_stockmark(json.loads(t))}[path.suffix](text)
    assert len(sentences) == 300
    assert sum(len(s.mentions) for s in sentences) > 100
    _source, golds = load_golds(path, limit=1000)
    assert len(golds) == 30  # 10 sentences a document
    assert {g.language for g in golds} == {language}
    assert sum(len(g.entities) for g in golds) > 100
    assert sum(t in ("PER", "ORG", "LOC") for g in golds for t in g.types) > 100
    assert all(g.text and len(g.entities) == len(g.types) for g in golds)
