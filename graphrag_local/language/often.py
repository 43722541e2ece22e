"""Whether a question asks how often something comes up, where it comes up most, or where
("Which stories mention a king?"), and what that something is: "How often do guests mention collaboration with other companies?"
(collaboration with other companies), "Which guests speak the most about educational
technology?" (educational technology), "What are the most frequently mentioned challenges
in the tech industry?" (challenges in the tech industry); "Wie oft wird der Hafen
erwähnt?" (Hafen), "港口被提到了多少次？" (港口). Such a question is answered first by a count
of the sentences about it, by document (`search/tally.py`): themes alone do not say how
often, and answered so, "Which guests speak the most about educational technology?" got
ten topics, one on a Bitcoin wallet.

What is counted is the question's words after what it is asked of ("about", "of",
"mention", "discuss", "über", "de", "о"), without its frame ("compared to other topics",
"in their interviews", "erwähnt", "est-il mentionné"): embedded whole, the question is
nearest the host's own questions ("How did you start in tech as a kid?").

Only a question of what the documents *say* ("mentioned", "discussed", "comes up", "talk
about"): "How often does the council meet?" asks for a frequency the documents state, and
"How many times does Scrooge see a ghost?" for a count of events (`_SAID`).

In English, French, Spanish, German, Russian, Chinese and Japanese, the languages of
`messages.py`; a few common phrasings each, deliberately: a question not read so is
answered as before, without a count."""

from __future__ import annotations

import re

_ASKS = re.compile(
    r"\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\b"
    r"|\b(?:most|more|less)\s+(?:often|frequently)\b"
    r"|\bfrequently\s+(?:mention|mentions|mentioned|discuss|discusses|discussed|talk|talks"
    r"|speak|speaks|cite|cites|cited|raise|raises|raised)\b"
    r"|\b(?:speak|speaks|spoke|talk|talks|talked|write|writes|wrote|say|says|said|mention"
    r"|mentions|mentioned|discuss|discusses|discussed)\s+(?:the\s+)?most\b"
    # "Which guests discuss diversity ...?", "Which stories mention a king?": where it comes up
    r"|\bwhich\s+(?:guests?|speakers?|episodes?|documents?|stories|story|articles?|books?"
    r"|chapters?|texts?|files?|reports?|podcasts?|interviews?|letters?|papers?|notes?|emails?"
    r"|pages?|sections?)\b",  # (not "which people": a document is not a person)
    re.IGNORECASE)
# what the counted thing follows: the first of these after the question's "how often"
# (a verb's object before a preposition's: "members of the council mention flooding")
_PIVOT = re.compile(
    r"\b(?:about|regarding|concerning|mention|mentions|mentioned|mentioning|discuss"
    r"|discusses|discussed|discussing|cite|cites|cited|raise|raises|raised|address"
    r"|addresses|addressed|describe|describes|described|describing|cover|covers|covered)\s+",
    re.IGNORECASE)
_OF = re.compile(r"\b(?:of|on)\s+", re.IGNORECASE)
_AUXILIARY = re.compile(r"^\s*(?:do|does|did|is|are|was|were|has|have|had)\s+", re.IGNORECASE)
# "What obstacles do guests frequently mention ...?": the verb's object is what it opens with
_OPENING = re.compile(r"^\s*(?:what|which)\s+(?P<thing>.+?)\s+(?:do|does|did|are|is|were|was"
                      r"|have|has)\s", re.IGNORECASE)
_NO_OBJECT = re.compile(r"^\s*(?:when|while|and|in|during|as|\?|$)", re.IGNORECASE)
# the question's frame after the counted thing
_FRAME = re.compile(
    r"\s+(?:(?:arise|arises|arose|come|comes|came|appear|appears|appeared|occur|occurs"
    r"|occurred|happen|happens|happened|feature|features|featured|show|shows)\b"
    r"|compared\s+(?:to|with)\b"
    r"|(?:in|during|across|throughout)\s+(?:their|the|these|his|her|our|all)?\s*"
    r"(?:conversations?|discussions?|interviews?|episodes?|documents?|podcasts?|talks?"
    r"|texts?|stories|story|books?|articles?)\b"
    r"|(?:broached|presented|brought|raised|discussed|mentioned|talked)\b).*$",
    re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:the|a|an|any|some|specific|particular|topic|issue|subject"
                      r"|importance|idea|question)\s+(?:of\s+)?)+", re.IGNORECASE)


# a question counts what the documents say only where it asks how often something is
# said: "How often does the council meet?" asks for a frequency the documents state, and
# "How many times does Scrooge see a ghost?" for a count of events, which sentences near
# "Scrooge see a ghost" are not
_SAID = {
    "en": r"\b(?:talk|speak|spoke|discuss|mention|broach|rais|brought|bring|come|comes|came"
          r"|arise|arose|appear|cite|cited|refer|say|says|said|write|wrote|written|feature"
          r"|present|cover|address|describ|tell|tells|told|discussion|conversation|topic"
          r"|issue|subject)\w*",
    "de": r"erwähn|genannt|nennt|besprochen|gesprochen|sprich|sprech|rede|vorkomm|kommt\b.*\bvor"
          r"|taucht\b.*\bauf|die\s+rede|thema|diskutier|behandel",
    "fr": r"mentionn|parl|cit[ée]|revien|appara|évoqu|question\s+de|sujet|traite|discut",
    "es": r"mencion|habl|aparec|trat|cita|nombr|tema|discut",
    "ru": r"упомина|говор|встреча|появля|речь|обсужда|тема|пишут|сказано",
    "zh": r"提到|提及|谈到|讲到|说到|出现|讨论|话题",
    "ja": r"言及|出て|登場|触れ|話題|語られ",
}
_SAID = {language: re.compile(pattern, re.IGNORECASE) for language, pattern in _SAID.items()}


def asked_often(question: str, language: str = "en") -> str:
    """What `question` (in `language`, `messages.question_language`) asks how often it
    comes up ("educational technology"), or "" when it does not ask so (or says nothing of
    what)."""
    if language not in _SAID or not _SAID[language].search(question):
        return ""
    if language in _RULES:
        return _other(question, _RULES[language])
    if language in ("zh", "ja"):
        return _unspaced(question, language)
    asks = _ASKS.search(question)
    if asks is None:
        return ""
    rest = question[asks.end():]
    opening = _OPENING.match(question[:asks.start()])
    if opening is not None and _NO_OBJECT.match(rest):
        rest = opening.group("thing")
    elif (pivot := _PIVOT.search(rest) or _OF.search(rest)) is not None:
        rest = rest[pivot.end():]
    else:  # "How often does the Lantern Festival come up?"
        rest = _AUXILIARY.sub("", rest)
    topic = _FRAME.sub("", rest.strip().rstrip("?.!").strip())
    topic = _LEADING.sub("", topic).strip(" ,;:")
    return topic if re.search(r"\w{3}", topic) else ""


class _Rules:
    """How a language with spaces asks how often: the asking words, what the counted thing
    follows, the verb or auxiliary it may follow instead, the frame after it, the articles
    before it."""

    def __init__(self, asks: str, pivot: str, verb: str, frame: str, leading: str):
        flags = re.IGNORECASE
        self.asks, self.pivot = re.compile(asks, flags), re.compile(pivot, flags)
        self.verb, self.frame = re.compile(verb, flags), re.compile(frame, flags)
        self.leading = re.compile(leading, flags)


_RULES = {
    # "Wie oft wird der Hafen erwähnt?", "Welche Dokumente sprechen am meisten über den Hafen?"
    "de": _Rules(
        r"\bwie\s+(?:oft|häufig)\b|\bam\s+(?:häufigsten|meisten)\b"
        r"|\bwelche[rns]?\s+(?:Dokumente|Gäste|Geschichten|Texte|Folgen|Episoden|Artikel"
        r"|Briefe|Kapitel)\b",
        r"\b(?:über|von|vom)\s+",
        r"^\s*(?:wird|werden|wurde|wurden|ist|sind|kommt|kommen|taucht|tauchen|spricht"
        r"|sprechen|redet|reden|schreibt|schreiben)\s+(?:man\s+)?",
        r"\s+(?:erwähnt|genannt|besprochen|gesprochen|diskutiert|behandelt|vor|auf|in\s+den"
        r"\s+(?:Dokumenten|Texten|Geschichten))\b.*$",
        r"^(?:(?:der|die|das|den|dem|des|ein|eine|einen|einem|einer)\s+)+"),
    # "Combien de fois le port est-il mentionné ?", "À quelle fréquence parle-t-on de la pêche ?"
    "fr": _Rules(
        r"\bcombien\s+de\s+fois\b|\bà\s+quelle\s+fréquence\b|\ble\s+plus\s+souvent\b"
        r"|\b(?:parlent|parle|traitent|traite|mentionnent|mentionne)\s+le\s+plus\b"
        r"|\bquel(?:le)?s?\s+(?:documents?|invités?|épisodes?|histoires?|textes?|articles?"
        r"|lettres?|chapitres?)\b",
        r"(?:\b(?:de|du|des|sur)\s+|\bd['’])",
        r"^\s*(?:parle-t-on|est|sont|apparaît|apparaissent|revient|reviennent)\s+",
        r"\s+(?:est-il|est-elle|sont-ils|sont-elles|est|sont|apparaît|apparaissent|revient"
        r"|reviennent|mentionn\w*|cité\w*|dans\s+(?:les|ces)\s+\w+)\b.*$",
        r"^(?:(?:le|la|les|un|une)\s+|l['’])+"),
    # "¿Cuántas veces se menciona el puerto?", "¿Con qué frecuencia se habla de la pesca?"
    "es": _Rules(
        r"\bcon\s+qué\s+frecuencia\b|\bcuántas\s+veces\b|\bmás\s+a\s+menudo\b"
        r"|\b(?:hablan|habla|tratan|trata|mencionan|menciona)\s+más\b"
        r"|\bqué\s+(?:documentos?|invitados?|episodios?|historias?|textos?|artículos?"
        r"|cartas?|capítulos?)\b",
        r"\b(?:de|del|sobre|acerca\s+de)\s+",
        r"^\s*(?:se\s+)?(?:menciona|mencionan|nombra|nombran|aparece|aparecen|habla|hablan"
        r"|trata|tratan|es|son)\s+",
        r"\s+(?:se\s+menciona\w*|aparece\w*|en\s+(?:los|estos|las|estas)\s+\w+)\b.*$",
        r"^(?:(?:el|la|los|las|un|una)\s+)+"),
    # "Как часто упоминается порт?", "Как часто говорится о порте?"
    "ru": _Rules(
        r"(?<!\w)(?:как\s+часто|сколько\s+раз|чаще\s+всего|больше\s+всего"
        r"|какие\s+(?:документы|гости|эпизоды|истории|тексты|статьи|письма|главы))(?!\w)",
        r"(?<!\w)(?:о|об|обо|про)\s+",
        r"^\s*(?:упоминается|упоминаются|упоминают|говорится|говорят|встречается"
        r"|встречаются|появляется|появляются|рассказывают)\s+",
        r"\s+(?:упоминается|упоминаются|упоминают|встречается|встречаются|в\s+(?:этих|текстах"
        r"|документах))(?!\w).*$",
        r"^$"),
}


def may_ask_often(question: str) -> bool:
    """Whether `question` has the asking words of one of these languages: what is cheap to
    tell before its language is (`messages.question_language` loads a model for it)."""
    return bool(_ASKS.search(question) or _ZH_ASKS.search(question) or _JA.search(question)
                or any(r.asks.search(question) for r in _RULES.values()))


def _other(question: str, rules: _Rules) -> str:
    asks = rules.asks.search(question)
    if asks is None:
        return ""
    rest = question[asks.end():]
    pivot = rules.pivot.search(rest)
    rest = rest[pivot.end():] if pivot is not None else rules.verb.sub("", rest)
    topic = rules.frame.sub("", rest.strip().strip("?¿!.。 ").strip())
    topic = rules.leading.sub("", topic).strip(" ,;:?¿")
    return topic if re.search(r"\w{2}", topic) else ""


# Chinese: "港口被提到了多少次？", "港口出现了几次？", "文档中多常提到港口？"; Japanese:
# "港は何回言及されていますか？", "港はどのくらいの頻度で出てきますか？"
_ZH_ASKS = re.compile(r"多少次|几次|多常|多频繁|频率|最常|最多|哪些")
_ZH_VERB = r"(?:被)?(?:提到|提及|谈到|讲到|说到|出现|讨论)(?:了|过)?"
_ZH_BEFORE = re.compile(r"^(?:在)?(?:这些)?(?:文档|文件|文本|故事)?(?:中|里)?(?P<t>.+?)"
                        + _ZH_VERB + r"(?:多少次|几次)")
_ZH_AFTER = re.compile(r"(?:多常|多频繁|最常|最多|哪些(?:文档|文件|文本|故事|嘉宾|文章)(?:中|里)?)"
                       + _ZH_VERB + r"(?P<t>.+?)[？?。]?$")
_JA = re.compile(r"^(?P<t>.+?)(?:は|が)(?:何回|何度|どのくらい|どれくらい|どの程度)")


def _unspaced(question: str, language: str) -> str:
    q = question.strip()
    if language == "ja":
        m = _JA.match(q)
    else:
        m = (_ZH_BEFORE.match(q) or _ZH_AFTER.search(q)) if _ZH_ASKS.search(q) else None
    return m.group("t").strip() if m else ""
