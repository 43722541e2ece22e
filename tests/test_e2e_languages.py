"""Other languages end to end, on real text with the real embedder: a folder holding an
English document, the opening of 阿Q正传 (Chinese) and of Капитанская дочка (Russian)
builds (fast method: names from the segmenters and rules, no model), each document gets
its language, names are real names of each text, and a question in each language is
answered from the document in that language, quoting it as it is."""

import re
from pathlib import Path

import pytest
from conftest import copy_corpus

from graphrag_local import api
from graphrag_local.store import Store

pytestmark = pytest.mark.e2e
TEXTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "multilingual"


def opening(language: str, chars: int) -> str:
    path = next((TEXTS / language).glob("*.txt"), None)
    if path is None:
        pytest.skip(f"no {language} text under {TEXTS}")
    return path.read_text(encoding="utf-8")[:chars]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    base = tmp_path_factory.mktemp("languages")
    docs = copy_corpus(base / "docs", ["01_water_trust.md"])
    (docs / "a_q.txt").write_text(opening("zh", 4000), encoding="utf-8")
    (docs / "dochka.txt").write_text(opening("ru", 5000), encoding="utf-8")
    index = base / "index"
    api.build(docs, index, method="fast")
    return index


def ask(index, question: str, method: str = "basic"):
    session = api.open_session(index)
    try:
        return session.ask(question, method=method)
    finally:
        session.close()


def test_each_document_has_its_language(mixed):
    assert api.status(mixed)["languages"] == {"en": 1, "zh": 1, "ru": 1}


def test_names_in_chinese_and_russian_are_names(mixed):
    names = {r["name"] for r in Store(mixed).read("entities", ["name"])}
    assert {"阿Ｑ", "赵太爷", "土谷祠", "陈独秀"} <= names, sorted(names)
    assert {"Савельич", "Андрей Петрович Гринёв", "Москва"} <= names, sorted(names)
    assert not {"Что", "Да", "Ну", "Это"} & names  # sentence-start words are no names


def test_a_question_in_each_language_is_answered_from_its_document(mixed):
    zh = ask(mixed, "阿Ｑ住在未庄的什么地方？")
    assert "土谷祠" in zh.answer, zh.answer
    ru = ask(mixed, "Кем был Бопре в отечестве своем?")
    assert "парикмахером" in ru.answer, ru.answer
    en = ask(mixed, "Who founded the Aldren Water Trust?")
    assert "Mara Quill" in en.answer, en.answer


def test_titles_and_headings_are_in_their_documents_language(mixed):
    """A community's title joins its names with its documents' word for "and" (Russian
    "и", Chinese "、" and "和"), and a global answer to a Russian question is headed so: no
    English "and" in a Russian answer."""
    titles = [r["title"] for r in Store(mixed).read("community_reports", ["title"])]
    cyrillic = [t for t in titles if re.search("[а-яА-Я]", t) and re.search(r"\s", t)]
    han = [t for t in titles if re.search("[\u4e00-\u9fff]", t) and "、" in t]
    assert cyrillic and all(" and " not in t for t in cyrillic), titles
    assert any(" и " in t for t in cyrillic), titles
    assert han and all("和" in t and " and " not in t for t in han), titles
    assert any(" and " in t for t in titles if "Aldren" in t), titles
    ru = ask(mixed, "Какие главные темы этих документов?", method="global")
    headings = [line for line in ru.answer.splitlines() if line.startswith("**")]
    assert any(re.search("[а-яА-Я]", h) for h in headings), ru.answer
    assert not any(" and " in h and re.search("[а-яА-Я]", h) for h in headings), ru.answer


def test_a_question_asking_how_often_is_counted_in_its_own_language(mixed):
    """"Как часто упоминается Савельич?" and "阿Ｑ被提到了多少次？": the sentences naming him,
    by document, in the question's words (the embedder reads English: elsewhere a sentence
    counts by naming it, "Савельичу" for "Савельич"), each document's quoted and cited."""
    ru = ask(mixed, "Как часто упоминается Савельич?", method="global")
    assert ru.answer.startswith("**Как часто встречается «Савельич» и где** (цитата)")
    assert [d["document"] for d in ru.tally["by_document"]] == ["dochka.txt"]
    assert ru.tally["sentences"] >= 3
    zh = ask(mixed, "阿Ｑ被提到了多少次？", method="global")
    assert zh.answer.startswith("**“阿Ｑ”出现的次数和位置**")
    assert [d["document"] for d in zh.tally["by_document"]] == ["a_q.txt"]
    first = zh.answer.split("\n\n")[0].splitlines()[2]
    assert first.startswith("- *") and "阿Ｑ" in first and first.endswith("]")
