"""A written topic's heading (`written.py`): the writer words it, and it is shown if it names a
topic in words its evidence bears out. `trimmed` mends a heading the grammar's length cut;
`shown` decides: a heading whose every number and every word of the index's entity names is
said by what its topic cites (or its title, or the question; a demonym or plural of a name
said counts: "Chinese" for "China") is shown; one naming what is not said (or says a name in
a form its text never writes, `_name_form`) is cut before that name, and shown if two words
or more are left; one that only restates the question, loops, speaks in the first person,
says the request's words (`echoes`), relates names its text gives as alternatives ("MIT and
Caltech Compete with Stanford" of "MIT or Caltech or ... Stanford": `support.misrelated`),
repeats an earlier heading or writes Chinese or Japanese characters its text does not is
not. A name is shown as the text writes it (`recased`). The
caller falls back (`written._Checker.heading_of`): over written lines, to the community's
title; over a quote, to the topic's entities the quote names, else the title.

Over a topic shown quoted (one sentence of its evidence) an English heading must also
say, in half its content words, what that sentence says (`fits`). A heading made only of
names (`only_names`: the fallback's names, or the writer's "Feynman and Gell-Mann") is
worded again from what its topic shows (`written.retitle`).

What it deliberately does not do: bind the writer's first heading's words by grammar (a
heading names a topic in the writer's words: "Ethics", "Redemption"; one worded again is
bound to what its topic shows), or judge whether a heading over written lines is apt."""

from __future__ import annotations

import re

from .. import garbles, support
from ..language.scripts import CJK
from ..sentences import split_sentences, words
from .bound import TITLE_CHARS, ends_phrase, inside_words


def restates(heading: str, question: str) -> bool:
    """A heading made of the question's words ("Main Themes of These Documents") names no
    topic."""
    asked = {w.lower() for w in re.findall(r"\w+", question)}
    return all(w.lower() in asked or w.lower() in support.FUNCTION_WORDS
               for w in re.findall(r"\w+", heading))


def fits(heading: str, quote: str, question: str) -> bool:
    """Whether an English heading over a quote says what the quote (or the question) says
    in at least half its content words (a word said when its first five letters are:
    "Accessibility" of "accessible"). The writer headed a topic from all its evidence; a
    topic shown quoted shows one sentence of it: on the podcast's ten answers "MIT's
    football team and its relationship with Caltech's neural network invention", "Bitcoin
    and Quantum Computing" and "Senior Cloud Developer Advocate" stood over sentences on
    MIT and Caltech competing for talent, Bitcoin in Venezuela and a sign-off."""
    said = {w[:5] for w in words(quote + " " + question)}
    content = [w for w in words(heading) if w.isalpha() and w not in support.FUNCTION_WORDS]
    return 2 * sum(w[:5] in said for w in content) >= len(content)


def fitting(heading: str, quote: str, question: str) -> str:
    """The heading, if it `fits` the quote; else its first part, before "and" or a comma
    or colon, if that fits and is two words or more ("Silicon Valley Culture" of "Silicon
    Valley Culture and Entrepreneurial Environment" over a sentence on Silicon Valley and
    the Puget Sound's tech scene); else ""."""
    if fits(heading, quote, question):
        return heading
    first = re.split(r"\s+and\s+|\s*[,:;]\s*", heading, maxsplit=1)[0].strip()
    return first if len(first.split()) >= 2 and fits(first, quote, question) else ""


# words a phrase does not end with: a heading ending so was cut ("... visit to"): those a
# written line does not end with (`garbles.OPEN_ENDS`), a few more English ones, and those
# of the other languages of the index's documents ("... Leroy ou d'un", "... der
# Liebesgeschichte mit", "... с Устиньей Негулиной за"; not those that are English words
# or names: "die", "den", "par", "con", "am", "aus", "sin", "al")
_OPEN_ENDS = garbles.OPEN_ENDS | frozenset(
    "a an but as his her if that which who whom whose when while because than "
    "der das dem des ein eine einen einem einer und oder mit von zu für auf "
    "le la les un une du de d'un d'une qu'un et ou avec pour au aux "
    "el los las unos unas del y o por para que "
    "à dans sur chez vers sous entre en hacia desde hasta sobre "
    "bei nach über zum zur im vom beim "
    "и в во с со к на по о об от для за у из при про над под до без через а но что как".split())


def trimmed(heading: str) -> str:
    """A heading the grammar's length cut ("Internet pioneers, entrepreneurs, tech
    executives, author of the book Closing the") ends at its last comma; one that says a
    word twice in a row loses the second; any heading loses the commas and function
    words it ends with ("... Carolina Cruz-Neira and Reid Hoffman's visit to,")."""
    if len(heading) >= TITLE_CHARS and "," in heading:  # (its space after, squashed)
        heading = heading[:heading.rindex(",")]
    # (a looping one is left as it is, for `shown` to refuse: "Innstetten innstetten ...")
    words = heading.split() if garbles.loops(heading) else _undoubled(heading.split())
    while words:
        last = words[-1].rstrip(",;:-")
        # an acronym is a name, whatever word it spells in lower case ("AI, Stanford and MIT")
        if last and (last.lower() not in _OPEN_ENDS or len(last) > 1 and last.isupper()):
            words[-1] = last
            break
        words.pop()
    return " ".join(words) or heading


def _undoubled(words: list[str]) -> list[str]:
    """The words less each that says the word before it again, a garble ("Don Quijote
    andantes andantes", "Police Inspecteurs inspecteurs de police", "Scrooge Scrooge and
    Marley"); function words may ("very, very")."""
    def bare(w: str) -> str:
        return re.sub(r"[\W_]", "", w).casefold()

    return [w for i, w in enumerate(words)
            if not (i and bare(w) and bare(w) == bare(words[i - 1])
                    and bare(w) not in support.FUNCTION_WORDS)]


# the endings of a demonym or plural on a place's or person's name ("China" "Chinese",
# "America" "American", "Cratchit" "Cratchits")
_NAME_ENDS = ("ese", "ian", "ish", "an", "n", "s", "")


def _said(word: str, said: set[str]) -> bool:
    """Whether `word` (lower case) is among the words `said`, or a demonym or plural of one
    of them at least four letters long."""
    if word in said:
        return True
    for end in _NAME_ENDS:
        stem = word[:len(word) - len(end)] if end else word
        if word.endswith(end) and len(stem) >= 4 and (
                stem in said or any(stem + v in said for v in "aeyo")):
            return True
    return False


def _before(heading: str, word: str) -> str:
    """`heading` up to the name `word` is part of: the capitalised words before it too
    ("Kevin Scott Interview with Fei-Fei Li" before "Li": "Kevin Scott Interview with")."""
    words = heading.split()
    i = next((k for k, t in enumerate(words) if word in re.findall(r"[^\W_]+", t)), len(words))
    while i > 0 and words[i - 1][:1].isupper():
        i -= 1
    return " ".join(words[:i])


def unnamed(heading: str, given: str, name_words: frozenset[str]) -> str | None:
    """The first number, or word of the index's entity names (`name_words`, lower case),
    in `heading` that `given` does not say as a word (a demonym or plural of one is said:
    "Chinese", "China"), or within its text where it is a number or Chinese or Japanese."""
    text = given.lower()
    said = set(re.findall(r"[^\W_]+", text))
    for w in support.names_and_numbers(heading):
        low, number = w.lower(), any(ch.isdigit() for ch in w)
        if not number and low not in name_words and not _name_form(low, name_words):
            continue
        if not (low in text if number or CJK.search(w) else _said(low, said)):
            return w
    return None


# letters a name's word and another form of it share at least ("Chine" of "China", four,
# is French, not a garble)
FORM_STEM = 5


def _name_form(word: str, name_words: frozenset[str]) -> bool:
    """Whether `word` is another form of a word of the index's names: all of that word
    but its last letter (`FORM_STEM` letters or more) begins it, and it ends in one to
    three letters more, not those of a plural ("Space" is no form of "SpaceX", nor
    "Universities" a wrong one of "University"). Where the text does not say that
    form, the writer inflected a name wrongly: "Don Quijote de la Manchego" of "Mancha",
    "Вслед за Василисе Егоровны" of "Василиса Егоровна"."""
    if CJK.search(word) or len(word) <= FORM_STEM:
        return False
    for n in name_words:
        stem = n[:-1]
        if (len(stem) >= FORM_STEM and word.startswith(stem) and 1 <= len(word) - len(stem) <= 3
                and word not in (n + "s", n + "es", stem + "ies")):  # a plural is no garble
            return True
    return False


# a speaker's own words: English, and the first person singular of French, Spanish, German
# and Russian; in lower case only where a capital makes a name ("Yo-Yo Ma", "Mir", "Moi
# University"), and not a word that is also English or a name ("mi", "ma", "Mein")
_SPEAKER = re.compile(r"\b(?:I|[Mm]y|[Mm]e|[Mm]ine|[Jj]e|moi|yo|[Ii]ch|mich|mir|"
                      r"[Яя]|[Мм]еня|[Мм]не|[Мм]ой)\b|(?<!\w)[Jj]['’]")


def spoken(heading: str) -> bool:
    """A heading in a speaker's first person is a sentence of a transcript or a character's
    line, not a topic's name ("The Google CAT thing was led by my PhD student Quoc Le ...",
    "J'ai été chanteur ambulant")."""
    return bool(_SPEAKER.search(heading))


def shown(heading: str, given: str, question: str, name_words: frozenset[str],
          earlier: set[str] = frozenset()) -> str:
    """The heading as shown over a topic whose cited text (and title, and question) is
    `given`, or "" where none stands: cut before the first name `given` does not say, two
    words at least ("Google engineers and their influence on AdMob": "Google engineers and
    their influence"); not only the question's words, not looping, not in a speaker's
    first person, not an `earlier` heading (lower case: a heading said twice names no
    topic), not in Chinese or Japanese characters `given` does not write ("MIT Researcher
    Nancy Kanwisher and the MIT Computer Science Department in New墨西哥" over an English
    sentence, the podcast's fourth answer)."""
    if (missing := unnamed(heading, given, name_words)) is not None:
        heading = trimmed(_before(heading, missing))
        if len(heading.split()) < 2:
            return ""
    if (not heading or restates(heading, question) or garbles.loops(heading) or spoken(heading)
            or unnamed(heading, given, name_words) is not None or heading.lower() in earlier
            or echoes(heading, given) or (CJK.search(heading) and not CJK.search(given))
            or support.misrelated(sentence_cased(heading, given), [given],
                                  alternatives_only=True)):
        return ""
    return recased(heading, given)


# the topic request's own words (`replies.THEMED_LAYOUT`: "... say what the evidence
# tells"), which name no topic where the topic's text does not say them
_REQUEST_WORDS = frozenset({"evidence"})


def echoes(heading: str, given: str) -> bool:
    """Whether a heading says a word of the request the writer was given that what it
    heads does not: "The evidence tells that most people who wrote their first program"."""
    said = {w.lower() for w in words(given)}
    return any(w.lower() in _REQUEST_WORDS and w.lower() not in said for w in words(heading))


_CASED_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def _name_runs(text: str) -> set[str]:
    """Two or more capitalised words in a row, a sentence's first word left out: names as
    `text` writes them ("Andrew Stuart"; "Ghost" of "The Ghost stopped")."""
    runs: set[str] = set()
    run: list[re.Match] = []

    def close() -> None:
        first = text[:run[0].start()].rstrip(" \t\"'«“‘(—–-") if run else ""
        named = run[1:] if run and (not first or first[-1] in ".!?:\n") else run
        if len(named) > 1:
            runs.add(text[named[0].start():named[-1].end()])

    for m in _CASED_WORD.finditer(text):
        if m.group(0)[:1].isupper() and (not run or text[run[-1].end():m.start()] in (" ", "-")):
            run.append(m)
            continue
        close()
        run = [m] if m.group(0)[:1].isupper() else []
    close()
    return runs


def recased(heading: str, given: str) -> str:
    """`heading` with a name of two words or more written as `given` writes it, where the
    heading writes it in other case: "Indiens andrew Stuart" of "... s'écria Andrew
    Stuart" is "Indiens Andrew Stuart" (a word alone keeps its case: "The harbour
    dispute" of "Aldren Harbour")."""
    for name in sorted(_name_runs(given), key=len, reverse=True):
        heading = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", name, heading,
                         flags=re.IGNORECASE)
    return heading


def sentence_cased(heading: str, given: str) -> str:
    """`heading` as a sentence would write it: a title's capital taken off each word that
    `given` writes in lower case only ("MIT and Caltech compete with Stanford" of "MIT and
    Caltech Compete with Stanford"), for the checks that read capitals as names."""
    lower = {m.group(0) for m in _CASED_WORD.finditer(given) if m.group(0).islower()}
    upper = {m.group(0).casefold() for m in _CASED_WORD.finditer(given)
             if not m.group(0).islower()}

    def one(m: re.Match) -> str:
        word = m.group(0)
        low = word.casefold()
        if word[:1].isupper() and not word.isupper() and low in lower and low not in upper:
            return low
        return word

    return _CASED_WORD.sub(one, heading)


def names_pattern(names) -> re.Pattern[str] | None:
    """One pattern finding any of the entity `names` (or aliases) as whole words, case
    apart, the longest first, with a possessive "'s": what `only_names` takes out."""
    forms = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    if not forms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for f in forms)
                      + r")(?:['’]s)?(?!\w)", re.IGNORECASE)


def only_names(heading: str, names: re.Pattern[str] | None) -> bool:
    """Whether a heading, its entity names taken out (`names_pattern`), says no word but
    function words: a list of names ("Kevin Scott, Christina Warren and Microsoft",
    "Grace Hopper"), not a topic. "PhD in Electrical Engineering" is, where the index
    holds "PhD" and "Electrical Engineering"; "Bitcoin Story" is not."""
    rest = names.sub(" ", heading) if names is not None else heading
    return not any(w.isalpha() and w not in support.FUNCTION_WORDS for w in words(rest))


def cuts_name(heading: str, text: str, names: re.Pattern[str] | None) -> str:
    """A name the heading says that `text` says only inside a longer name, else "": the
    heading cut that name ("There's the Corner Where the Ghost" of "... where the Ghost of
    Christmas Present sat!", Carol's index holding "Ghost" and "Ghost of Christmas
    Present"). The longer name is what the text names."""
    if names is None:
        return ""
    said = {_possessed(m.group()) for m in names.finditer(text)}
    for m in names.finditer(heading):
        name = _possessed(m.group())
        if name not in said and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text.casefold()):
            return name
    return ""


def _possessed(name: str) -> str:
    return _POSSESSIVE.sub("", name.casefold())


def ends_inside(heading: str, text: str) -> bool:
    """Whether a heading made of `text`'s words ends on a word that `text` says only
    before another content word, or on a possessive (`bound.ends_phrase`): on a phrase's
    modifier, its noun left out ("Grace Hopper Portrait Session with Enthusiastic" of "...
    this enthusiastic person"; "Papers by PHD Student's"). The title grammar ends a heading
    worded again on no such word; this reads a heading written otherwise."""
    found = re.findall(r"[^\W_]+(?:['’][^\W_]+)*", heading)
    return bool(found) and not ends_phrase(found[-1], inside_words(text))


_WORD_S = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"['’]s$")  # "Scrooge's" is "Scrooge" and its owner
_BE = frozenset("is are was were be been being".split())


def _lowered(text: str) -> list[str]:
    """A text's words in lower case, a possessive as its noun ("Scrooge's" is "scrooge")."""
    return [_POSSESSIVE.sub("", w.lower()) for w in _WORD_S.findall(text)]


# a participle said after the noun it tells of is put before it in a heading, and is not
# two words turned round: "Bootstrapped Tech Businesses" of "... more tech-powered
# businesses bootstrapped ...", "Shared Vision" of "a vision shared"; the noun within
# this many words before it
_PARTICIPLE_REACH = 4


def _participle(word: str) -> bool:
    """Whether `word` (lower case) reads as a past participle: "-ed", five letters or more
    ("bootstrapped", "needed"; not "red", "bed", "seed")."""
    return len(word) >= 5 and word.endswith("ed") and not word.endswith("eed")


def runs_backwards(heading: str, text: str) -> str:
    """Two content words a heading made of `text`'s words puts side by side that `text`
    says only the other way round, and not as the parts of a compound: not with a
    preposition after the word the heading puts second ("MIT Professors" of "professors
    at MIT", "Artificial Intelligence Books" of "books ... about artificial intelligence"),
    but "of" before a possessive ("Scrooge's nephew voice" of "the voice of Scrooge's
    nephew": `_of_owner`), nor "is" ("Locally Needed Manufacturing" of "... manufacturing
    is needed"), nor a participle put before its noun (`_participle`: "Bootstrapped Tech
    Businesses" of "tech-powered businesses bootstrapped"). The writer,
    heading a topic again from what it shows, piled up nouns so: "Fox and Red Hen Catch"
    (of "... a way to catch the little Red Hen"), "Ghost of Christmas Present Corner" (of
    "There's the corner where the Ghost of Christmas Present sat!"), "John Lasseter and the
    Movie Bridge", "Google Big Swath of Important Things" (of "... this huge swath of all of
    the big, complicated, important things at Google"). The two words, or ""."""
    head, tokens = _lowered(heading), _lowered(text)
    raw = [w.lower() for w in _WORD_S.findall(text)]  # (possessives kept)
    for a, b in zip(head, head[1:]):
        if a in support.FUNCTION_WORDS or b in support.FUNCTION_WORDS:
            continue
        at_a = [i for i, t in enumerate(tokens) if t == a]
        at_b = [i for i, t in enumerate(tokens) if t == b]
        if not at_a or not at_b or any(j > i for i in at_a for j in at_b):
            continue  # said in this order somewhere (or not said: not this test's)
        if any(j + 1 < len(tokens) and (tokens[j + 1] in support.PREPOSITIONS
                                        or tokens[j + 1] in _BE)
               and not _of_owner(raw, j + 1) for j in at_b):
            continue
        if _participle(a) and any(0 < i - j <= _PARTICIPLE_REACH for i in at_a for j in at_b):
            continue  # "Bootstrapped Tech Businesses" of "tech-powered businesses bootstrapped"
        return f"{a} {b}"
    return ""


_OWNERS = frozenset("his her its their my our your".split())


def _of_owner(raw: list[str], at: int) -> bool:
    """Whether the word at `at` is "of" before a possessive ("the voice of Scrooge's
    nephew", "of his nephew"): what it joins is no compound ("Scrooge's nephew voice")."""
    after = raw[at + 1] if at + 1 < len(raw) else ""
    return raw[at] == "of" and (bool(_POSSESSIVE.search(after)) or after in _OWNERS)


def says_twice(heading: str, text: str) -> str:
    """A content word a heading says twice, unless the heading's words from the one to the
    other are a run `text` says as it is: "Christina Warren colleague of the Colleague" and
    "Feynman and Gell-Mann at the Feynman" are garbles; "Artificial Intelligence for Human
    Intelligence" is a phrase of "... maybe artificial intelligence for human intelligence
    is sort of the same thing as physics is for the natural world" (refused for its second
    "Intelligence", a topic of the podcast's answers on AI was headed by its community's
    names, "Kevin Scott, Christina Warren and Microsoft"). The word, or ""."""
    head, run = _lowered(heading), " " + " ".join(_lowered(text)) + " "
    for i, w in enumerate(head):
        if w in support.FUNCTION_WORDS:
            continue
        for j in range(i + 1, len(head)):
            if head[j] == w and " " + " ".join(head[i:j + 1]) + " " not in run:
                return w
    return ""


# words a heading joins two things by ("X by Y", "X at Y") that must be said of each other
_JOINS = support.PREPOSITIONS | frozenset({"by"})


def joins_apart(heading: str, text: str) -> str:
    """Two words a heading joins by a preposition ("Papers by UCLA") that `text` says, but
    in no one sentence: the heading relates what its text keeps apart. Headed again from
    Kevin Scott's "He has a hundred plus really fantastically good papers on ... artificial
    intelligence ..." and "So, tell us ... after you graduated UCLA.", the writer began
    "Artificial Intelligence Papers by UCLA". Its sentences are the index's (`sentences.
    split_sentences`, uncut: "St. Paul's in Hong Kong" is one). The two words ("papers by
    UCLA"), or ""."""
    head = _lowered(heading)
    parts = [set(_lowered(text[a:b])) for a, b in split_sentences(text, len(text) + 1)]
    everywhere = set().union(*parts) if parts else set()
    for i in range(1, len(head) - 1):
        if head[i] not in _JOINS or head[i - 1] in support.FUNCTION_WORDS:
            continue
        after = [w for w in head[i + 1:] if w not in support.ARTICLES]
        if not after or after[0] in support.FUNCTION_WORDS:
            continue
        a, b = head[i - 1], after[0]
        if {a, b} <= everywhere and not any({a, b} <= p for p in parts):
            return f"{a} {head[i]} {b}"
    return ""


_MODAL_BRIDGE = frozenset("be have not been also".split())  # "must be dredged", "could not go"


def unrealised(heading: str, text: str) -> str:
    """A word a heading states (with no modal of its own) that `text` says only after a
    modal verb ("must be dredged", "could go"): the heading says done what the text says
    must or could be. Headed again from "Jonas Halvard decided that Aldren Harbour must be
    dredged.", the writer wrote "Jonas Halvard Dredged Aldren Harbour". The word, or ""."""
    head, tokens = _lowered(heading), _lowered(text)
    if any(w in support.MODALS for w in head):
        return ""

    def after_modal(i: int) -> bool:
        return i >= 1 and (tokens[i - 1] in support.MODALS or i >= 2 and
                           tokens[i - 1] in _MODAL_BRIDGE and tokens[i - 2] in support.MODALS)

    for w in head:
        if w in support.FUNCTION_WORDS:
            continue
        at = [i for i, t in enumerate(tokens) if t == w]
        if at and all(after_modal(i) for i in at):
            return w
    return ""
