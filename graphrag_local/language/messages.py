"""What the tool itself writes into an answer, in the question's language, and the word that
joins the names of a community's title, in its documents' language. Answers quote the
documents as they are; only these few words are the tool's. A language without a
translation here gets English (a list of names: no word, "A, B, C")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

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


# the word that ends a list of names ("A, B and C"), by language; a language not here gets
# a list of no language ("A, B, C"), not an English "and"
AND = {"en": "and", "fr": "et", "es": "y", "de": "und", "ru": "и", "it": "e", "pt": "e",
       "nl": "en", "zh": "和", "ja": "と"}
_CJK_LISTS = {"zh", "ja"}  # joined with "、" and no spaces
_SPANISH_E = re.compile(r"(?i)h?i(?![aeiouáéíóú])")  # "y" is "e" before an /i/: "Fernando e Isabel"


def joined(names: Sequence[str], language: str) -> str:
    """Names as a list in `language`: "A, B and C", "A, B et C", "A e Isabel", "A、B和C"."""
    names = list(names)
    if len(names) < 2:
        return "".join(names)
    separator = "、" if language in _CJK_LISTS else ", "
    word = AND.get(language)
    if word is None:
        return separator.join(names)
    if language in _CJK_LISTS:
        return separator.join(names[:-1]) + word + names[-1]
    if language == "es" and _SPANISH_E.match(names[-1]):
        word = "e"
    return f"{separator.join(names[:-1])} {word} {names[-1]}"


def main_language(codes: Iterable[str]) -> str:
    """The language most of `codes` are (unknown ones, "", not counted; a tie goes to the
    first in alphabetic order; "en" for none)."""
    counts = Counter(c for c in codes if c)
    return min(counts, key=lambda c: (-counts[c], c)) if counts else "en"


def more(count: int, language: str) -> str:
    """The tail of a list cut short: " (+3 more)"; in another language " (+3)"."""
    return f" (+{count} more)" if language == "en" else f" (+{count})"


MORE = re.compile(r"\s*\(\+\d+(?: more)?\)$")  # `more`'s tail, to take off a title

# a written answer's topic where nothing written stood, its evidence quoted instead
QUOTED = {"en": "quoted", "fr": "cité", "es": "citado", "de": "zitiert", "ru": "цитата",
          "zh": "引文", "ja": "引用"}
# a question asking how often something comes up: its count (`search/tally.py`); "rule"
# says how a sentence counts (English only: elsewhere a sentence counts by naming it)
TALLY = {
    "en": {"head": 'How often "{topic}" comes up, and where',
           "rule": "naming it, or by the embedder {near} or nearer",
           "count": "{n} sentences about it ({rule}), {share} of the {counted} statements,"
                    " in {held} of the {documents} documents; most in:",
           "one": "1 sentence about it ({rule}), in 1 of the {documents} documents:",
           "none": "No sentence of the {documents} documents is about it ({rule}).",
           "nearest": "The nearest", "more": "({k} more documents: {m} sentences)"},
    "fr": {"head": "Combien de fois « {topic} » revient, et où",
           "count": "{n} phrases le nomment ({share} des {counted}), dans {held} des"
                    " {documents} documents ; le plus dans :",
           "one": "1 phrase le nomme, dans 1 des {documents} documents :",
           "none": "Aucune phrase des {documents} documents ne le nomme.",
           "more": "({k} autres documents : {m} phrases)"},
    "es": {"head": "Cuántas veces aparece «{topic}», y dónde",
           "count": "{n} frases lo nombran ({share} de {counted}), en {held} de los"
                    " {documents} documentos; sobre todo en:",
           "one": "1 frase lo nombra, en 1 de los {documents} documentos:",
           "none": "Ninguna frase de los {documents} documentos lo nombra.",
           "more": "({k} documentos más: {m} frases)"},
    "de": {"head": "Wie oft „{topic}“ vorkommt, und wo",
           "count": "{n} Sätze nennen es ({share} von {counted}), in {held} der {documents}"
                    " Dokumente; am meisten in:",
           "one": "1 Satz nennt es, in 1 der {documents} Dokumente:",
           "none": "Kein Satz der {documents} Dokumente nennt es.",
           "more": "({k} weitere Dokumente: {m} Sätze)"},
    "ru": {"head": "Как часто встречается «{topic}» и где",
           "count": "Предложений, где это названо: {n} ({share} из {counted}), в документах:"
                    " {held} из {documents}; больше всего в:",
           "one": "Предложений, где это названо: 1, в документах: 1 из {documents}:",
           "none": "Ни одно предложение из {documents} документов этого не называет.",
           "more": "(ещё документов: {k}, предложений: {m})"},
    "zh": {"head": "“{topic}”出现的次数和位置",
           "count": "{n} 句提到它（{counted} 句中的 {share}），在 {documents} 个文档中的 {held} 个；"
                    "最多的是：",
           "one": "1 句提到它，在 {documents} 个文档中的 1 个：",
           "none": "{documents} 个文档中没有句子提到它。",
           "more": "（另有 {k} 个文档：{m} 句）"},
    "ja": {"head": "「{topic}」の出現回数と場所",
           "count": "{n} 文が言及（{counted} 文中 {share}、{documents} 文書中 {held} 文書）。多い順：",
           "one": "1 文が言及（{documents} 文書中 1 文書）：",
           "none": "{documents} 文書のどの文も言及していません。",
           "more": "（ほか {k} 文書：{m} 文）"},
}
# between a focused written answer and the sentences it was written from
QUOTED_BELOW = {
    "en": "*Quoted from the documents:*",
    "fr": "*Cité des documents :*",
    "es": "*Citado de los documentos:*",
    "de": "*Aus den Dokumenten zitiert:*",
    "ru": "*Цитаты из документов:*",
    "zh": "*引自文档：*",
    "ja": "*文書からの引用：*",
}
# a focused written answer of which the check kept nothing: its quotes answer
ALL_DROPPED = {
    "en": "(quoted: the writer's {n} sentences were dropped by the check)",
    "fr": "(cité : les {n} phrases du rédacteur ont été retirées par la vérification)",
    "es": "(citado: la verificación descartó las {n} frases del redactor)",
    "de": "(zitiert: die Prüfung hat die {n} Sätze des Schreibers verworfen)",
    "ru": "(цитата: проверка отбросила предложения модели-автора: {n})",
    "zh": "（引文：撰写模型的 {n} 句均被检查删除）",
    "ja": "（引用：書き手モデルの {n} 文はすべて検査で削除）",
}
# how many written sentences the support check dropped (one, many)
DROPPED = {
    "en": ("(1 written sentence dropped: what it cites does not say it, or it repeats "
           "another or is garbled; --json lists them)",
           "({n} written sentences dropped: what they cite does not say it, or it repeats "
           "another or is garbled; --json lists them)"),
    "fr": ("(1 phrase écrite retirée : ce qu'elle cite ne le dit pas, ou elle en répète une "
           "autre ou est confuse ; --json la montre)",
           "({n} phrases écrites retirées : ce qu'elles citent ne le dit pas, ou elles en "
           "répètent une autre ou sont confuses ; --json les montre)"),
    "es": ("(1 frase escrita descartada: lo que cita no lo dice, o repite otra o está "
           "confusa; --json la muestra)",
           "({n} frases escritas descartadas: lo que citan no lo dice, o repiten otra o "
           "están confusas; --json las muestra)"),
    "de": ("(1 geschriebener Satz verworfen: was er zitiert, sagt es nicht, oder er "
           "wiederholt einen anderen oder ist verworren; --json zeigt ihn)",
           "({n} geschriebene Sätze verworfen: was sie zitieren, sagt es nicht, oder sie "
           "wiederholen einen anderen oder sind verworren; --json zeigt sie)"),
    "ru": ("(отброшено написанных предложений: 1; то, что оно цитирует, этого не говорит, "
           "или оно повторяет другое или искажено; --json показывает его)",
           "(отброшено написанных предложений: {n}; то, что они цитируют, этого не говорит, "
           "или они повторяют другое или искажены; --json показывает их)"),
    "zh": ("（删除了 1 句写出的句子：所引内容并未这样说，或与其他句子重复，或语句不通；"
           "--json 列出它）",
           "（删除了 {n} 句写出的句子：所引内容并未这样说，或与其他句子重复，或语句不通；"
           "--json 列出它们）"),
    "ja": ("（書かれた文を 1 件削除：引用先がそう述べていない、他の文の繰り返し、"
           "または文が崩れている。--json で一覧）",
           "（書かれた文を {n} 件削除：引用先がそう述べていない、他の文の繰り返し、"
           "または文が崩れている。--json で一覧）"),
}


def said(table: dict, language: str):
    """`table`'s entry for `language`, or its English one."""
    return table.get(language, table["en"])


def dropped_note(count: int, language: str) -> str:
    one, many = said(DROPPED, language)
    return one if count == 1 else many.format(n=count)
