"""What the tool itself writes into an answer, in the question's language. Answers quote
the documents as they are; only these few words are the tool's. A language without a
translation here gets English."""

from __future__ import annotations

from collections.abc import Iterable

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


def question_language(question: str, among: Iterable[str] = ()) -> str:
    """The language a question is asked in: a question is short, so its script decides
    first (kana: Japanese; Han: Chinese), then py3langid on however few letters it has.

    `among` is the index's languages: a question is in one of them or in English, the
    tool's own. Asked of an English index the answer is English without loading the
    detector (0.6 s, a sixth of a one-shot query); otherwise py3langid's best of those
    languages, which also keeps a short question from sounding foreign ("Who is Lena
    Castell?" is Italian to py3langid among all 97). An empty `among`: all languages."""
    letters = [ch for ch in question if ch.isalpha()]
    kana = sum("\u3040" <= ch <= "\u30ff" for ch in letters)
    han = sum("\u3400" <= ch <= "\u9fff" for ch in letters)
    if kana:
        return "ja"
    if han >= 2 and han >= 0.3 * len(letters):
        return "zh"
    if len(letters) < 3:
        return "en"
    known = {code for code in among if code}
    candidates = known | {"en"} if known else set()
    candidates -= {"zh", "ja"}  # told by their scripts above
    if len(candidates) == 1:
        return next(iter(candidates))
    import py3langid

    for code, _score in py3langid.rank(question):
        if not candidates or code in candidates:
            return code
    return "en"


def nothing_relevant(question: str, why: str = "", among: Iterable[str] = ()) -> str:
    """"Nothing relevant" in the question's language (`among`: see `question_language`);
    `why` (English, for the curious) follows in English answers only."""
    language = question_language(question, among)
    if language not in NOTHING:
        language = "en"
    if language == "en" and why:
        return f"{NOTHING['en']}: {why}"
    return NOTHING[language] + _STOP.get(language, ".")
