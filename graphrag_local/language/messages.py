"""What the tool itself writes into an answer, in the question's language. Answers quote
the documents as they are; only these few words are the tool's. A language without a
translation here gets English."""

from __future__ import annotations

NOTHING = {
    "en": "The index holds nothing relevant to this question",
    "zh": "索引中没有与此问题相关的内容",
    "ja": "索引にはこの質問に関係する内容がありません",
    "de": "Der Index enthält nichts, was zu dieser Frage passt",
    "ru": "В индексе нет ничего, что относится к этому вопросу",
    "fr": "L'index ne contient rien de pertinent pour cette question",
    "es": "El índice no contiene nada relevante para esta pregunta",
}
_STOP = {"zh": "。", "ja": "。"}


def question_language(question: str) -> str:
    """The language a question is asked in: a question is short, so its script decides
    first (kana: Japanese; Han: Chinese), then py3langid on however few letters it has."""
    letters = [ch for ch in question if ch.isalpha()]
    kana = sum("\u3040" <= ch <= "\u30ff" for ch in letters)
    han = sum("\u3400" <= ch <= "\u9fff" for ch in letters)
    if kana:
        return "ja"
    if han >= 2 and han >= 0.3 * len(letters):
        return "zh"
    if len(letters) < 3:
        return "en"
    import py3langid

    return py3langid.classify(question)[0]


def nothing_relevant(question: str, why: str = "") -> str:
    """"Nothing relevant" in the question's language; `why` (English, for the curious)
    follows in English answers only."""
    language = question_language(question)
    if language not in NOTHING:
        language = "en"
    if language == "en" and why:
        return f"{NOTHING['en']}: {why}"
    return NOTHING[language] + _STOP.get(language, ".")
