"""Whether a question asks for an amount or a time, and whether a sentence states one, in
the languages of the index's documents. "How long has Marley been dead?" is nearest, to
the embedder, to the sentences that say he is dead ("Marley was dead, to begin with.",
"There is no doubt that Marley was dead."), not to the one that says how long ("'Mr.
Marley has been dead these seven years,' Scrooge replied."); "In what year did Andrew Ng
write the paper on ...?" to the ones about the paper, not the one with its year. Search
then ranks a sentence that states the kind of value asked above near ones that do not
(`search/evidence.SentenceIndex.measured`).

Deliberately coarse: four kinds (a time, a length of time, a count, a sum), told by the
question's words; a sentence states one by its words (a number, a unit of time, a year,
a month's or a day's name), not by understanding it. Which number answers is still the
sentence's nearness to decide."""

from __future__ import annotations

import re
from typing import NamedTuple

WHEN, LONG, COUNT, MONEY = "when", "long", "count", "money"


class Asked(NamedTuple):
    kind: str  # WHEN, LONG, COUNT or MONEY
    counted: str = ""  # what is counted, where the question says ("homes" of "how many homes")


_ASKS = [  # (kind, pattern), the first that matches decides
    (WHEN, r"\b(?:in |during |by )?(?:what|which) (?:year|month|day|date|decade|century)\b"
           r"|\bwhen\b|\bin welchem (?:jahr|monat)\b|\bwann\b|\ben quelle année\b|\bquand\b"
           r"|\ben qu[eé] año\b|\bcu[aá]ndo\b|\bв как(?:ом|ой) (?:году|месяце|день)\b|\bкогда\b"
           r"|哪一?年|什么时候|何时|何時|いつ|何年に"),
    (LONG, r"\bhow long\b|\bfor how many (?:years|months|weeks|days|hours)\b|\bwie lange?\b"
           r"|\bdepuis combien de temps\b|\bcombien de temps\b|\bcu[aá]nto tiempo\b"
           r"|\bкак долго\b|\bсколько (?:лет|времени|дней|месяцев)\b|多久|多长时间|多長時間"
           r"|どのくらい|どれくらい|何年間"
           # an age is a number of years ("seven years old")
           r"|\bhow old\b|\bwie alt\b|\bquel âge\b|\bqué edad\b|\bсколько (?:ему|ей) лет\b"
           r"|多大|几岁|幾歳|何歳"),
    (COUNT, r"\bhow (?:many|much|far)\b|\bwhat (?:number|amount|sum|percentage)\b"
            r"|\bwie (?:viele?|weit)\b|\bcombien\b|\bcu[aá]nt[oa]s?\b|\bсколько\b"
            r"|多少|几[个位年次]|幾|いくつ|いくら|何人|何個|何回"),
]
_ASK = [(kind, re.compile(p, re.IGNORECASE)) for kind, p in _ASKS]
# a count asked of money: a sum ("How much money did the council give the trust?")
_MONEY_ASKED = re.compile(
    r"\b(?:money|cost|costs|pay|paid|earn|earns|earned|price|spend|spent|grant|worth|salary"
    r"|geld|kostet|kosten|bezahlt|argent|co[uû]te|pay[ée]|dinero|cuesta|cost[oó]|pag[oó]"
    r"|денег|деньги|стоит|стоил|заплатил)\b|多少钱|費用|いくら", re.IGNORECASE)
# what a sum is counted in: a word after its number, or a sign before it
_CURRENCIES = frozenset(
    "pound pounds dollar dollars euro euros cent cents penny pence shilling shillings guinea "
    "guineas franc francs mark marks yen yuan peso pesos rupee rupees crown crowns "
    "pfund mark euro franken livres sous écus pesetas reales ducados maravedís "
    "рубль рубля рублей копеек копейки".split())
_CURRENCY_SIGN = re.compile(r"[£$€¥₽]\s?\d|\d\s?[£$€¥₽]|\d\s?(?:元|円|块)")
# the word after "how many" and its kin: what is counted
_COUNTED = re.compile(r"\b(?:how many|wie viele|combien d[e']|cu[aá]nt[oa]s|сколько)\s*(\w{3,})",
                      re.IGNORECASE)

_NUMBER_WORDS = (
    # English ("one" is a pronoun as often: "no one", "the one he loved")
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred hundreds thousand thousands million millions billion billions "
    "dozen dozens half twice "
    # German
    "zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zwanzig dreißig vierzig "
    "fünfzig sechzig siebzig achtzig neunzig hundert tausend million millionen milliarde "
    "milliarden dutzend "
    # French
    "deux trois quatre cinq six sept huit neuf dix onze douze vingt trente quarante "
    "cinquante soixante cent cents mille millions milliard milliards douzaine "
    # Spanish
    "dos tres cuatro cinco seis siete ocho nueve diez doce veinte treinta cuarenta cincuenta "
    "sesenta setenta ochenta noventa cien ciento "
    "cientos mil millón millones docena "
    # Russian
    "два две три четыре пять шесть семь восемь девять десять двадцать тридцать сорок "
    "пятьдесят шестьдесят семьдесят восемьдесят девяносто сто "
    "тысяча тысяч тысячи миллион миллиона миллионов дюжина"
)
_TIME_WORDS = (  # not "May", "March", "hier": "may", "march", German "hier" are words too
    "january february april june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday yesterday tomorrow ago "
    "januar februar märz juni juli oktober dezember montag dienstag mittwoch donnerstag "
    "freitag samstag sonntag gestern morgen "
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre "
    "lundi mardi mercredi jeudi vendredi samedi dimanche demain "
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre lunes martes miércoles jueves viernes sábado domingo ayer mañana "
    "января февраля марта апреля мая июня июля августа сентября октября ноября декабря "
    "понедельник вторник среду четверг пятницу субботу воскресенье вчера завтра назад"
)
_NUMBERS = frozenset(_NUMBER_WORDS.split())
_TIMES = frozenset(_TIME_WORDS.split())
# units of time (a word matched whole, casefolded)
_UNIT = re.compile(
    r"(?:years?|months?|weeks?|days?|nights?|hours?|minutes?|seconds?|decades?|century|centuries"
    r"|jahre?n?|monate?n?|wochen?|tage?n?|nächte|stunden?|minuten?|jahrzehnte?n?|jahrhunderte?"
    r"|ans|années?|mois|semaines?|jours?|nuits?|heures?|décennies?|siècles?"
    r"|años?|mes(?:es)?|semanas?|días?|noches?|horas?|minutos?|décadas?|siglos?"
    r"|год(?:а|у)?|лет|месяц(?:а|ев)?|недел[ьиюя]|дн(?:я|ей)|день|часа?|часов|минут[ыу]?"
    r"|век(?:а|ов)?)")
_YEAR = re.compile(r"(?:1[0-9]{3}|20[0-9]{2})s?")  # a word: "2009", "1960s"
_SHORT_YEAR = re.compile(r"(?<![\w'’])['’][0-9]{2}s?\b")  # "'79", "the '40s"
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\bo'clock\b")
_SINCE = frozenset("since seit depuis desde с".split())
_SPAN = re.compile(r"\b(?:to|until|till|through|bis|au|à|jusqu'|hasta|al|по|до)\b|[-–]",
                   re.IGNORECASE)
_WORD = re.compile(r"\w+")
# Chinese and Japanese: a numeral before a unit or classifier ("七年", "三个", "五人");
# a bare "一" is in too many words ("一起", "一样") to say a number
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_CJK_NUMERAL = r"[0-9０-９一二三四五六七八九十百千万萬亿億两兩〇零]+"
_CJK_NUMBER = re.compile(_CJK_NUMERAL + r"(?:年|个|個|岁|歳|才|天|日|月|周|週|元|円|人|名|次|回|分"
                         r"|小时|時間|座|家|本|件|位|条|頭)")
_CJK_DURATION = re.compile(_CJK_NUMERAL + r"(?:歳|才|岁|年|个月|ヶ月|か月|天|日|周|週間?|小时|時間|分钟|分)")
_CJK_TIME = re.compile(_CJK_NUMERAL + r"[年月日時]|昨天|明天|去年|今年|昨日|明日|星期|曜日")


def asks_amount(question: str) -> Asked | None:
    """The kind of value `question` asks for: `WHEN` ("When did the flood happen?", "In
    what year ...?"), `LONG` ("How long has Marley been dead?", "How old ...?"), `COUNT`
    ("How many homes ...?", with what it counts: "homes") or `MONEY` ("How much money
    ...?", "How much does it cost?"); None for any other question."""
    for kind, pattern in _ASK:
        if pattern.search(question):
            counted = _COUNTED.search(question) if kind == COUNT else None
            if kind == COUNT and not counted and _MONEY_ASKED.search(question):
                return Asked(MONEY)
            return Asked(kind, counted.group(1).casefold() if counted else "")
    return None


def states_amount(text: str, asked: Asked) -> bool:
    """Whether `text` states a value of the kind `asked`: for `COUNT` a number (digits, a
    number word: "£20,000"), a word or two before what is counted where the question says
    ("by Three Spirits" for "How many spirits ...?"); for `MONEY` a sum ("400,000 pounds",
    "$6 billion"; not "in 2015" or "nine members"); for `LONG` a number of units of time
    ("these seven years", "seven-years'-dead"), a time since which ("since 2019") or two a
    span runs between ("from 18 August to 20 August"); for `WHEN` a year ("2009", "'79"),
    a clock's time, a month's or a day's name, "ago" ("seven Christmas Eves ago").
    Read word by word (a search of every sentence of a collection for each question)."""
    words = _WORD.findall(text.casefold())
    numbers = [i for i, w in enumerate(words) if w[0].isdigit() or w in _NUMBERS]
    cjk = bool(_CJK.search(text))

    def followed(i: int, test) -> bool:  # one of the next three words passes `test`
        return any(test(w) for w in words[i + 1:i + 4])

    if asked.kind == MONEY:
        return (any(followed(i, _CURRENCIES.__contains__) for i in numbers)
                or bool(_CURRENCY_SIGN.search(text)))
    if asked.kind == COUNT:
        if not asked.counted:
            return bool(numbers) or cjk and bool(_CJK_NUMBER.search(text))
        stem = asked.counted[:4]
        return any(followed(i, lambda w: w.startswith(stem)) for i in numbers)
    if asked.kind == LONG:
        return (any(followed(i, _UNIT.fullmatch) for i in numbers)
                or cjk and bool(_CJK_DURATION.search(text))
                or any(w in _SINCE and _a_time(words[i + 1:i + 3]) for i, w in enumerate(words))
                or len([w for w in words if _YEAR.fullmatch(w) or w in _TIMES]) >= 2
                and bool(_SPAN.search(text)))
    return (_a_time(words) or bool(_SHORT_YEAR.search(text)) or bool(_CLOCK.search(text))
            or cjk and bool(_CJK_TIME.search(text)))


def _a_time(words: list[str]) -> bool:
    return any(_YEAR.fullmatch(w) or w in _TIMES for w in words)
