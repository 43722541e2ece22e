"""Does what a sentence cites support it? The check every written sentence passes before a
user sees it (`search/written.py`): a writer model (1.5B) writes fluently and invents
("Millbrook is a farming village located in the United Kingdom"), so a sentence is kept
only when the sentences it cites hold

1. every name and number it states: each capitalised word (the first too, unless it is
   a function word: "The", "In"), each word with a digit, and in Chinese or Japanese each
   segmenter word of two characters or more that is not in the question: a name or a
   number the sources do not give is invented;
2. what it says: its content words (not the function words of `FUNCTION_WORDS`, nor the
   words of `FRAME_WORDS` that say how statements relate: "theme", "involves") are words
   of the cited sentences (`COVERAGE`: all of them), a word matching one that starts
   with the same five letters ("opposes", "opposed"). One word the sources lack is
   usually the invented one: "The company argues that restoring Kessel Marsh would
   protect Millbrook" where the source says Tobias Renn argued it;
3. its force: each modal verb it uses ("must", "could"), and a modal perfect ("must
   have"), is said there (`unsaid_modal`), and so is the word before a number it gives,
   where that word sets what the number says ("since 2019": `requalified`), and a cause
   it states with a function word ("because", "which is why") where one is stated there
   (`unsaid_cause`);
4. two names it relates, related there the same way round, not only given as
   alternatives ("MIT or Caltech or ... Stanford": `misrelated`); a word it
   hangs on a name ("Scrooge's sister", "the sister of Scrooge") hung on that name there,
   and a name it says another is ("Fred was Scrooge's niece") put in one statement with it
   there (`misattached`); a transcript's speaker it opens with, not said to do what their
   own line says of someone else ("DIO GONZALEZ is a mentor" of "DIO GONZALEZ: And she's
   also a mentor": `speaker_as_doer`);
5. no reading of its own: a frame word said as what something is ("which is a central
   theme of the story") is said so there (`reading`);
6. whose it is: what a cited sentence reports someone saying or thinking ("Mara Quill
   says the project began because of the Millbrook Flood") said with who says it, not as
   the text's fact (`reported`), as what it only asks is not said as a fact (`asks`).

`check_one` asks it of one cited sentence alone, as every written line is asked
(`search/line_checks.verdict`), after the tests of a garble (`garbles.py`).

The question's own words count as given: "What are the main themes?" makes "themes" no
invention. Measured on sentences the writer wrote, labelled by reading them beside what
they cite: see docs/writer.md.

What it deliberately does not do: understand negation or who did what to whom ("Greer
presented the plan" against "Greer opposed the plan" shares all but one word: that one
word is caught only where it is not in the sources: "presented" is, "opposed" was);
ask a model (as a YES/NO judge the 1.5B kept more unsupported sentences than this check,
the 0.5B dropped most supported ones: `scripts/eval_support.py --judge`); fix a sentence
(the caller drops it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .language.english import PREPOSITIONS
from .language.scripts import CJK

COVERAGE = 1.0
STEM = 5
# words that say how statements relate, not what happened: a sentence may add them (not
# "role": "covered the main role between Millbrook and Port Aldren" of "the main road")
FRAME_WORDS = frozenset("""
theme themes topic topics main key central focus focuses focused concern concerns
concerned involve involves involved include includes including discuss discusses
describe describes described relate relates related relationship issue issues
several various different both together while whereas however meanwhile overall
documents document text texts story stories mention mentions mentioned according
""".split())
OTHER_FUNCTION_WORDS = frozenset("""
le la les un une des du de et ou en au aux der die das ein eine und oder den dem des el
los las y o del al con por para que""".split())  # French, German, Spanish
FUNCTION_WORDS = frozenset("""
a an the and or but nor so yet of in on at to for from by with without about into onto
over under between among through during before after above below up down out off than
then as if because while though although whether which who whom whose what when where why
how that this these those there here it its it's they them their theirs he him his she
her hers we us our you your i me my mine is are was were be been being am has have had
do does did doing will would shall should can could may might must not no yes also too
very more most less least many much some any each every all both few other such own same
only just even still again ever never always often one ones s t""".split()) | OTHER_FUNCTION_WORDS
_WORD = re.compile(r"[^\W_]+")  # letters and digits: "_Bob" (markup for italics) is "Bob"


@dataclass(frozen=True)
class Support:
    ok: bool
    reason: str  # "" when ok; else what was missing ("name 'United Kingdom'", "coverage 0.50")


def _stem(word: str) -> str:
    return word[:STEM]


def _words(text: str) -> list[str]:
    if CJK.search(text):
        from .language.tokens import tokens

        return [t for t in tokens(text) if any(ch.isalnum() for ch in t)]
    return _WORD.findall(text)


def names_and_numbers(sentence: str) -> list[str]:
    """What the sentence states that a source must give word for word."""
    words = _words(sentence)
    if CJK.search(sentence):
        return [w for w in words if len(w) >= 2 or any(ch.isdigit() for ch in w)]
    return [w for i, w in enumerate(words) if _capitalised(w, i) or any(ch.isdigit() for ch in w)]


def _capitalised(word: str, i: int) -> bool:
    """A name's word: capitalised, and not just the sentence's first word ("The")."""
    return word[:1].isupper() and (i > 0 or word.lower() not in FUNCTION_WORDS)


def check(sentence: str, sources: list[str], question: str = "") -> Support:
    """Whether `sources` (the cited sentences) support `sentence`."""
    if not sources:
        return Support(False, "cites nothing")
    given_text = " ".join(sources)
    given = {w.lower() for w in _words(given_text)}
    asked = {w.lower() for w in _words(question)}
    given_stems = {_stem(w) for w in given | asked}
    for name in names_and_numbers(sentence):
        low = name.lower()
        if low not in given and low not in asked and low not in given_text.lower():
            return Support(False, f"name or number '{name}' not in what it cites")
    if name := unsaid_name(sentence, sources + [question]):
        return Support(False, f"name '{name}' not in what it cites")
    if modal := unsaid_modal(sentence, sources):
        return Support(False, f"'{modal}' not in what it cites")
    if cause := unsaid_cause(sentence, sources):
        return Support(False, f"'{cause}' says a cause, and what it cites says none")
    if moved := requalified(sentence, sources):
        return Support(False, f"'{moved}' not in what it cites")
    content = [w.lower() for w in _words(sentence)
               if w.lower() not in FUNCTION_WORDS and w.lower() not in FRAME_WORDS]
    if len(content) < 2:
        return Support(False, "says nothing")
    found = sum(1 for w in content if w in given or w in asked or _stem(w) in given_stems)
    share = found / len(content)
    if share < COVERAGE:
        return Support(False, f"coverage {share:.2f}")
    wrong = misrelated(sentence, sources)
    if wrong:
        return Support(False, f"'{wrong[0]}' and '{wrong[1]}' {wrong[2]}")
    if hung := misattached(sentence, sources):
        return Support(False, f"'{hung}' said of no name it cites")
    if other := speaker_as_doer(sentence, sources):
        return Support(False, f"says of {other[0]} what their line says of '{other[1]}'")
    if called := reading(sentence, given):
        return Support(False, f"calls something a {called}, which what it cites does not")
    return Support(True, "")


# a frame word said as what something is ("..., which is a central theme of the story"):
# a reading of the text, not a statement of it
# ... or "key" said as a noun ("which is a key to opening the heavy roll of dark stuff", of
# Joe opening a bundle, written cold in Carol's themes; no other of the 492 lines of
# docs/eval_runs/*.jsonl with what they cite)
_READING = re.compile(r"\b(?:is|are|was|were)\s+(?:(?:the\s+|a\s+|an\s+)?(?:main\s+|key\s+|central\s+)?"
                      r"(focus|theme|themes|topic|topics|concern|concerns|subject)\b"
                      r"|(?:the|a)\s+(key)\s+(?:to|for)\b)", re.IGNORECASE)


def reading(sentence: str, given: set[str]) -> str:
    """The frame word the sentence says something is ("is a central theme", "which is a
    key focus of the technology network", "is the main focus of the trust") where none
    of `given` (the cited sentences' lower-cased words) is that word: frame words may
    join what the sources say, not be said of it. On the labelled lines it finds 4, all
    unsupported; over the stored runs' shown lines, only such readings ("The growing
    healthcare cost is a concern for long periods of time")."""
    m = _READING.search(sentence)
    word = (m.group(1) or m.group(2)).lower() if m else ""
    return word if word and word not in given else ""


# the words that give a statement its force: a sentence may not add one
MODALS = frozenset("must could would should may might can cannot shall will".split())


def unsaid_modal(sentence: str, sources: list[str]) -> str:
    """A modal verb of the sentence that what it cites does not say, or a modal perfect it
    does not ("must have"), or "": the writer changed how sure or how binding a claim is
    ("Jonas Halvard decided that Aldren Harbour must have been dredged", of "... must be
    dredged"; "restoring Kessel Marsh could protect Millbrook", of "would protect"). Of the
    369 distinct written lines shown in the stored runs of issue 30, it finds those two;
    of the labelled ones, two unsupported that other tests drop too, and one supported."""
    words = [w.lower() for w in _WORD.findall(sentence)]
    given = [w.lower() for s in sources for w in _WORD.findall(s)]
    perfects = {(a, b) for a, b in zip(given, given[1:]) if b == "have"}
    for i, w in enumerate(words):
        if w not in MODALS:
            continue
        if w not in given:
            return w
        if words[i + 1:i + 2] == ["have"] and (w, "have") not in perfects:
            return f"{w} have"
    return ""


# a cause the sentence states with a function word (the content words that say one,
# "therefore", "caused", "due", are weighed as every content word is) ...
_CAUSE_SAID = re.compile(r"\b(?:because|so that|(?:is|was|are|were|that's|that is|which is|"
                         r"which was)\s+why)\b", re.IGNORECASE)
# ... and the words by which a source says there is one
CAUSE_WORDS = frozenset("""because since so therefore thus hence consequently why reason
reasons cause causes caused due result resulted led leads thanks""".split())


def unsaid_cause(sentence: str, sources: list[str]) -> str:
    """The words by which the sentence says one thing is the cause of another ("because",
    "which is why", "so that") where no cited sentence says a cause at all (`CAUSE_WORDS`),
    or "": the support check weighs content words, and "because" is a function word, so
    "Tobias Renn helped families because he was in Millbrook" passed of "Tobias Renn was in
    Millbrook on the night of the flood and helped families move to the village hall". In
    the stored runs of issue 30, the 1.5B wrote "The little Jackal also said that they had
    been together for a while, which was why they were in the same lion" (shown); over that
    stop's cold runs (Carol, the demo, 12 and 18 stories, ten podcast questions, four
    languages) it drops that line alone, and the labelled sets' figures are unchanged.
    Barring the words from the bound grammar instead, the 1.5B wrote garbles where it had
    written them ("..., which was a different relationship from the one they were in the
    same", kept). A cause said in other words ("X, so Y" for "Y because X") is left to the
    other tests."""
    m = _CAUSE_SAID.search(sentence)
    if not m:
        return ""
    given = {w.lower() for s in sources for w in _WORD.findall(s)}
    return "" if given & CAUSE_WORDS else m.group(0).lower()


# the words that set what a number says ("since 2019", "over 20,000")
NUMBER_QUALIFIERS = frozenset("""in since before after by until from over under about nearly
almost than at on to""".split())
_TOKEN = re.compile(r"[^\W_]+(?:[.,]\d+)*")  # a word, or a number whole ("20,000")


def requalified(sentence: str, sources: list[str]) -> str:
    """A number the sentence gives after a word of `NUMBER_QUALIFIERS` that no cited
    sentence puts before that number, as "that word number", or "": the writer changed
    what the number says ("Lena Castell has directed the Lantern Festival in 2019", of
    "since 2019"). Over the 369 distinct written lines shown in the stored runs of issue
    30 it finds none; none of the labelled ones either."""
    def read(text: str) -> list[str]:  # an article between changes nothing ("in the Z8000")
        return [w.lower() for w in _TOKEN.findall(text) if w.lower() not in ("the", "a", "an")]

    words = read(sentence)
    cited = [read(s) for s in sources]
    for i, w in enumerate(words[1:], 1):
        if not any(ch.isdigit() for ch in w) or words[i - 1] not in NUMBER_QUALIFIERS:
            continue
        at = [(c, j) for c in cited for j, x in enumerate(c) if x == w]
        if at and not any(j and c[j - 1] == words[i - 1] for c, j in at):
            return f"{words[i - 1]} {w}"
    return ""


def check_one(sentence: str, sources: list[str]) -> Support:
    """Whether one of `sources` alone supports `sentence`, the question's words not given:
    a short answer to a question of fact states what one sentence of the documents states.
    Checked as a topic's line is (`check`: the question's words given, the cited sentences
    together), the 1.5B's short answers to samples/carol_facts.jsonl passed wrong ones made
    of the question's words ("The clerk was Ebenezer Scrooge" for "Who is the clerk to
    Ebenezer Scrooge?") or of two sentences joined ("The clerk is Ebenezer Scrooge's
    nephew"). A false one made of one sentence's words still passes ("Fred was Scrooge's
    niece")."""
    if not sources:
        return Support(False, "cites nothing")
    verdicts = [check(sentence, [s]) for s in sources]
    said = [s for v, s in zip(verdicts, sources) if v.ok]
    if any((not asks(s) or asks(sentence)) and not reported(sentence, s) for s in said):
        return Support(True, "")
    if any(asks(s) and not asks(sentence) for s in said):
        return Support(False, "states as a fact what it cites only asks")
    if who := next((w for s in said if (w := reported(sentence, s))), ""):
        return Support(False, f"states as a fact what it cites as said or thought by '{who}'")
    return Support(False, "no one cited sentence says it: " + verdicts[0].reason)


_ASKED = re.compile(r"[?？¿]")

# verbs of saying: "A says/discusses ... B" is borne out by A's line of a transcript naming B
SAYING = frozenset("""say says said saying discuss discusses discussed discussing talk talks
talked talking explain explains explained explaining argue argues argued arguing describe
describes described describing note notes noted mention mentions mentioned tell tells told
recall recalls recalled suggest suggests suggested""".split())
# ... and of thinking: what follows such a verb is someone's ("Mara Quill says the project
# began ..."), in the European languages of the support check, not the text's (not the
# forms that are mostly nouns: "fear", "doubt", "claim", "estimate")
REPORTING = SAYING | frozenset("""claims claimed believe believes believed think thinks
thought insist insists insisted warn warns warned feared allege alleges alleged maintain
maintains maintained contend contends contended expect expects expected predict predicts
predicted estimated reckon reckons reckoned doubted feel feels felt
sagt sagte sagen meint meinte glaubt glaubte behauptet behauptete dit disait
affirme affirmait pense pensait estime croit dice dijo afirma afirmó cree creía piensa
говорит сказал сказала считает утверждает заявил заявила""".split())


def reported(sentence: str, source: str) -> str:
    """Who `source` says says or thinks all that `sentence` says, where `sentence` does not
    say so, or "": "The project began because of the Millbrook Flood." of "Mara Quill says
    the project began because of the Millbrook Flood." states a claim as a fact ("Mara
    Quill"). Each content word of the sentence is a word of the source after one of its
    verbs of `REPORTING`, none is a word before it (who says it), and the sentence has no
    such verb itself. Read by words, so a line of speech quoted with its tag ("'...!' said
    Scrooge's nephew") is not read here."""
    if CJK.search(sentence) or CJK.search(source):
        return ""
    mine = [w.lower() for w in _WORD.findall(sentence)]
    if not REPORTING.isdisjoint(mine):
        return ""
    content = {_stem(w) for w in mine if w not in FUNCTION_WORDS and w not in FRAME_WORDS}
    if not content:
        return ""
    words = _WORD.findall(source)
    low = [w.lower() for w in words]
    for v in range(1, len(low) - 1):
        if low[v] not in REPORTING or low[v - 1] in _NOT_REPORTING:
            continue
        before = {_stem(w) for w in low[:v]}
        after = {_stem(w) for w in low[v + 1:]}
        if content <= after and not content & before:
            return _sayer(words[:v])
    return ""


# a word before a verb of `REPORTING` that makes it no one's report: "wanted to say", "one
# thought on Marley", "the claim"
_NOT_REPORTING = frozenset("""to a an the one his her their my our your its this that no
every each any some""".split())
_SUBJECTS = frozenset("i we you he she they it".split())  # pronouns that say who


def _sayer(before: list[str]) -> str:
    """Who says it: the name or pronoun nearest before the verb ("he" of "Bob's voice was
    tremulous when he said ..."), else the words before it."""
    for k in range(len(before) - 1, -1, -1):
        if before[k].lower() in _SUBJECTS:
            return before[k]
        if before[k][:1].isupper() and before[k].lower() not in FUNCTION_WORDS:
            start = k
            while start and before[start - 1][:1].isupper():
                start -= 1
            return " ".join(before[start:k + 1])
    return " ".join(before)


def asks(text: str) -> bool:
    """A question is asked in `text`. A line stating what its sentence only asks is not
    said by it: "Joe said he took the rings and all with him lying there." of "'You don't
    mean to say you took 'em down, rings and all, with him lying there?' said Joe." (the
    woman took them)."""
    return bool(_ASKED.search(text))


RELATED_WITHIN = 8  # words between two names that a sentence relates directly
_CLAUSE = re.compile(r"[,;:.!?]")  # what ends a clause between two names
TITLES = ("Mr", "Mrs", "Ms", "Dr", "St")  # written with a full stop that ends no clause
_TIMES = frozenset("""january february march april may june july august september october
november december monday tuesday wednesday thursday friday saturday sunday""".split())


def unsaid_name(sentence: str, sources: list[str]) -> str:
    """A name of two or more words (capitalised, a space between each) that no cited
    sentence says in a row, or "": each word said somewhere is not the name ("the book
    Closing the Internet Gap" of "... Closing the Innovation Gap, ... of the Internet")."""
    said = [" " + " ".join(w.lower() for w in _WORD.findall(s)) + " " for s in sources]
    for run in spaced_runs(sentence):
        if len(run) >= 2 and not any(f" {' '.join(run).lower()} " in t for t in said):
            return " ".join(run)
    return ""


def spaced_runs(sentence: str) -> list[list[str]]:
    """The sentence's runs of capitalised words with one space between each ("Bob, Tiny
    Tim": "Bob", then "Tiny Tim")."""
    runs: list[list[str]] = []
    at = -1  # where the last capitalised word ended
    for i, m in enumerate(_WORD.finditer(sentence)):
        if not _capitalised(m.group(0), i):
            at = -1
            continue
        if at >= 0 and sentence[at:m.start()] == " ":
            runs[-1].append(m.group(0))
        else:
            runs.append([m.group(0)])
        at = m.end()
    return runs


_LIST_MARK = re.compile(r"[,;:()\[\]\"“”]")  # between two names: "no Oculus, Vive or ..."


def name_runs(sentence: str) -> list[tuple[int, int, str]]:
    """Runs of capitalised words (word positions [start, end), text): the names stated;
    not a word opening quoted speech ("'More shame for him'") nor one called to ("Fred!"),
    nor a month or a day. A comma or the like ends a run: "Oculus, Vive" are two names."""
    matches = list(_WORD.finditer(sentence))
    words = [m.group(0) for m in matches]
    runs: list[tuple[int, int, str]] = []
    for i, w in enumerate(words):
        quoted = sentence[:matches[i].start()].rstrip().endswith(tuple("'\"‘“«»:"))
        called = sentence[matches[i].end():].lstrip().startswith(("!", "?"))  # "..., Fred!"
        if _capitalised(w, i) and not quoted and not called and w.lower() not in _TIMES:
            listed = i and _LIST_MARK.search(sentence[matches[i - 1].end():matches[i].start()])
            if runs and runs[-1][1] == i and not listed:
                start, _end, text = runs[-1]
                runs[-1] = (start, i + 1, f"{text} {w}")
            else:
                runs.append((i, i + 1, w))
    return runs


def _roles_between(words: list[str]) -> bool:
    """Whether the words between two names relate them (a word not a function word: "gave
    the"), not just list them ("and the") or turn them round ("by": "was given by")."""
    low = [w.lower() for w in words]
    return (0 < len(low) <= RELATED_WITHIN and "by" not in low
            and any(w not in FUNCTION_WORDS for w in low))  # "Scrooge and the Phantom": listed


# the words between two names a sentence gives as alternatives ("MIT or Caltech or you know
# Stanford"): "or" (English, French, German, Spanish, Russian), an article, a filler of
# speech. "A or B" says each alone; "A and B" may relate them ("Scrooge and Marley were
# partners")
_OR = frozenset("or nor ou oder o или".split())
_ALTERNATIVES = _OR | frozenset("the a an you know i mean like".split())


def _alternatives(words: list[str]) -> bool:
    """Whether the words between two names of a cited sentence give them as alternatives:
    an "or", and nothing but `_ALTERNATIVES`."""
    return any(w in _OR for w in words) and all(w in _ALTERNATIVES for w in words)


def misrelated(sentence: str, sources: list[str], alternatives_only: bool = False
               ) -> tuple[str, str, str] | None:
    """Two names the sentence relates (A ... B, at most `RELATED_WITHIN` words apart with
    a word between that is not a function word) that what it cites does not relate: no
    cited sentence names both within `RELATED_WITHIN` words more than the sentence does
    ("Mrs. Cratchit kissed Peter" from "Mrs. Cratchit kissed him, ... and Peter and
    himself shook hands"), or every one naming both relates them the other way round
    (B ... A: "Saltmarsh Arts Collective gave the Port Aldren Town Council 20,000 pounds"
    where the council gave the collective). A transcript's speaker relates to all their
    line names when the sentence says they say it ("KEVIN SCOTT mentions Silicon Valley"
    of "KEVIN SCOTT: ... so Silicon Valley and ..."). Names are matched as words ("Mrs
    Cratchit" is "Mrs. Cratchit"). The pair and why, or None. Latin-script text only.
    The 1.5B, bound to the evidence's words, makes both: on the labelled sentences
    (scripts/eval_support.py) the first caught two the other tests kept and dropped none
    that was supported."""
    if CJK.search(sentence):
        return None
    spans = list(_WORD.finditer(sentence))
    words = [m.group(0) for m in spans]
    runs = name_runs(sentence)
    cited = [[w.lower() for w in _WORD.findall(s)] for s in sources]
    clauses = [_clause_of(s) for s in sources]
    for i, (_a0, a1, a) in enumerate(runs):
        for b0, _b1, b in runs[i + 1:]:
            wa, wb, apart = a.lower().split(), b.lower().split(), b0 - a1
            if set(wa) <= set(wb) or set(wb) <= set(wa):
                continue  # "Ebenezer Scrooge" and "Scrooge": one person
            if not _roles_between(words[a1:b0]) or _CLAUSE.search(
                    sentence[spans[a1 - 1].end():spans[b0].start()]):
                continue  # not related, or in two clauses ("Mrs. Cratchit kissed him, and Peter")
            pairs = [(x, y, k) for k, s in enumerate(cited) for x in name_at(s, wa)
                     for y in name_at(s, wb)]
            near = [(x, y, k) for x, y, k in pairs
                    if (y - x - len(wa) if x < y else x - y - len(wb)) <= apart + RELATED_WITHIN
                    and not (_apart(cited[k], clauses[k], x + len(wa), y) if x < y
                             else _apart(cited[k], clauses[k], y + len(wb), x))]
            # alternatives where it is cited ("... for MIT or Caltech or you know Stanford to
            # compete with those capabilities": "MIT and Caltech compete with Stanford"):
            # the relation is the sentence's own
            if near and all(_alternatives(cited[k][x + len(wa):y] if x < y
                                          else cited[k][y + len(wb):x]) for x, y, k in near):
                return a, b, "given only as alternatives in what it cites"
            if alternatives_only:
                continue
            pairs = [(x, y, cited[k]) for x, y, k in pairs]
            # a transcript's speaker ("WENCES CASARES: ... which is mostly Bitcoin and
            # Ether.") says all their line names: "WENCES CASARES discusses ... Bitcoin"
            if not near and _saying(words[a1:b0]) and any(
                    speaks(src, wa) and name_at(c, wb) for src, c in zip(sources, cited)):
                continue
            # B hung on A by a preposition ("a mural of the River Aldren for the 2023 Lantern
            # Festival": the mural is for the festival) is not A doing something to B
            if not near and words[a1].lower() not in PREPOSITIONS:
                return a, b, "related in nothing it cites"
            # each the other way round, and relating them (not "Owen Pike and Lena Castell")
            if pairs and all(y < x and _roles_between(s[y + len(wb):x]) for x, y, s in pairs):
                return a, b, "the other way round from what it cites"
    return None


def _saying(words: list[str]) -> bool:
    return any(w.lower() in SAYING for w in words)


def _spoken(source: str, name: list[str]) -> str | None:
    """What `source` says, where it is the line of a transcript's speaker `name` (lower
    case words): it opens with the name and a colon ("WENCES CASARES: Current narrative
    ..."); else None."""
    head, colon, said = source.lstrip(" \t'\"‘“-").partition(":")
    return said if colon and [w.lower() for w in _WORD.findall(head)] == name else None


def speaks(source: str, name: list[str]) -> bool:
    """Whether `source` is a line of the transcript's speaker `name` (lower case words)."""
    return _spoken(source, name) is not None


FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())


def in_first_person(text: str) -> bool:
    """Whether `text` says "I", "my", "we" or the like (English)."""
    return not FIRST_PERSON.isdisjoint(w.lower() for w in _WORD.findall(text))


# who a line of speech says did something, where it is not its speaker
OTHERS = frozenset("you your he him his she her it its they them their this that".split())


# words that join a heading's first name to another topic ("Wences Casares and Bitcoin
# Treasuries", "Kevin Scott on China"): it names two things, it does not say what one did
TOPIC_JOINS = frozenset("and or on about in at with vs".split())


def speaker_as_doer(sentence: str, sources: list[str],
                    heading: bool = False) -> tuple[str, str] | None:
    """A sentence that opens with a transcript's speaker and says they did or are what
    their own line (cited, and naming them only as its speaker: "DIO GONZALEZ: ...") says
    of someone else: "DIO GONZALEZ is a mentor and advocate for girls and women in tech"
    of "DIO GONZALEZ: And she's also a mentor and an advocate for girls and women in
    tech", "FEI-FEI LI started as a summer camp at Stanford" of "FEI-FEI LI: It started as
    a summer camp at Stanford". Who did it is the nearest person before the deed in their
    line: a pronoun or a name. In the first person ("KEVIN SCOTT: ... I'm still very, very
    bullish": "KEVIN SCOTT is bullish"), or where the sentence says they say it ("KEVIN
    SCOTT mentions ...", `SAYING`), their line bears it out. A `heading` ("DIO GONZALEZ as
    a Mentor and Advocate ...") is read the same way, unless it joins the name to another
    topic (`TOPIC_JOINS`). Returns the speaker and who their line says did it, or None."""
    if CJK.search(sentence):
        return None
    runs = name_runs(sentence)
    found = list(_WORD.finditer(sentence))
    words = [m.group(0) for m in found]
    if not runs or runs[0][0] != 0 or runs[0][1] >= len(words):
        return None
    _start, end, name = runs[0]
    speaker = name.lower().split()
    if _saying(words[end:end + 2]):
        return None  # "KEVIN SCOTT mentions ...", "KEVIN SCOTT also said ..."
    if heading and words[end].lower() in TOPIC_JOINS:
        return None  # "Wences Casares and Bitcoin Treasuries"
    deed = next((w.lower() for w in words[end:]
                 if w.lower() not in FUNCTION_WORDS and w.lower() not in FRAME_WORDS), None)
    spoken = [_spoken(s, speaker) for s in sources]
    own = [said for said in spoken if said is not None]
    if deed is None or not own or any(  # one that names them itself: the other checks judge
            name_at([w.lower() for w in _WORD.findall(s if said is None else said)], speaker)
            for s, said in zip(sources, spoken)):
        return None
    doer = None
    for line in own:
        said = _WORD.findall(line)
        low = [w.lower() for w in said]
        if deed not in low:
            continue
        for k in range(low.index(deed) - 1, -1, -1):
            if low[k] in FIRST_PERSON:
                return None  # their line bears it out
            if low[k] in OTHERS or (k and said[k][:1].isupper() and low[k] not in FUNCTION_WORDS):
                doer = doer or said[k]
                break
    return (sentence[:found[end - 1].end()], doer) if doer else None  # as written: "FEI-FEI LI"


def _apart(words: list[str], clauses: list[int], end: int, start: int) -> bool:
    """Whether a name ending before word `end` and one starting at word `start` stand in
    two clauses: a clause mark between them, after words that say something of the first
    ("the two young Cratchits kissed him, and Peter and himself shook hands" does not
    relate the Cratchits and Peter). Not a list ("no Oculus, no Vive, no Windows Mixed
    Reality"), nor a speaker and what they say ("KEVIN SCOTT: Yeah, Wences is ...")."""
    if end < 1 or clauses[end - 1] == clauses[start]:
        return False
    said = [w for w, c in zip(words[end:start], clauses[end:start]) if c == clauses[end - 1]]
    return any(w not in FUNCTION_WORDS for w in said)


_GOES_ON = frozenset({"and", "but", "then"})  # ", and hung his head": the subject goes on


def _clause_of(text: str) -> list[int]:
    """For each word of `text` (as `_WORD` finds them), the number of its clause: how many
    clause marks stand before it (the full stop of "Mr." and the like not one). A comma
    before "and", "but" or "then" and a word in lower case that is not a function word
    goes on with the same subject, so with the same clause ("Scrooge entered timidly, and
    hung his head before this Spirit": Scrooge hung his head); before a name, an article
    or a pronoun a new one begins ("... kissed him, and Peter and himself shook hands")."""
    found = list(_WORD.finditer(text))
    out, marks, at, last = [], 0, 0, ""
    for i, m in enumerate(found):
        gap = text[at:m.start()]
        if gap.startswith(".") and last in TITLES:
            gap = gap[1:]
        marks += len(_CLAUSE.findall(gap))
        if (gap.strip() == "," and m.group(0).lower() in _GOES_ON and i + 1 < len(found)
                and text[m.end():found[i + 1].start()] == " "
                and found[i + 1].group(0).islower()
                and found[i + 1].group(0) not in FUNCTION_WORDS):
            marks -= 1
        out.append(marks)
        at, last = m.end(), m.group(0)
    return out


def name_at(words: list[str], name: list[str]) -> list[int]:
    """Where the words of `name` stand in `words`, its last one singular or plural as
    well ("Cratchit" in "the two young Cratchits laughed")."""
    k = len(name)
    return [i for i in range(len(words) - k + 1) if words[i:i + k - 1] == name[:-1]
            and _same_name(words[i + k - 1], name[-1])] if k else []


def _same_name(a: str, b: str) -> bool:
    return a == b or a == b + "s" or b == a + "s"


ARTICLES = frozenset({"the", "a", "an"})
_MARKED = re.compile(r"[^\W_]+(?:['’]s(?![^\W_]))?|[,;:.!?\"'‘’“”«»()—–]|(?<= )-(?= )")
_COPULAS = frozenset("is was are were".split())
_OWNERS = frozenset("his her its their".split())
_NAMING = frozenset("known called named".split())
_LISTING = frozenset("and or nor".split())


def _tokens(text: str) -> list[tuple[str, bool, bool]]:
    """(word lower-cased without its "'s", possessive, capitalised) for each word, and
    ("", False, False) for each mark of punctuation."""
    out = []
    for t in _MARKED.findall(text):
        if not t[0].isalnum():
            out.append(("", False, False))
            continue
        poss = len(t) > 2 and t[-2] in "'’" and t[-1] == "s"
        word = t[:-2] if poss else t
        out.append((word.lower(), poss, word[:1].isupper()))
    return out


def _find(tokens: list[tuple[str, bool, bool]], name: list[str]) -> list[int]:
    """Where the words of `name` stand in `tokens` (the index of its last word)."""
    return [i + len(name) - 1 for i in name_at([w for w, _p, _c in tokens], name)]


def _attached(tokens: list[tuple[str, bool, bool]], name: list[str], role: str) -> bool:
    """Whether `tokens` say `role` of `name`: "Name's role" (two words between at most, no
    other "'s" nor mark between) or "role of Name" (or another preposition: "focus areas
    for AI"; two function words between at most: "in honour of its being Christmas
    Eve"), Name not possessive there ("the sister of Scrooge's niece" is the niece's); or
    "his role" after the name ("Scrooge had a fire, but his clerk's ...")."""
    ends = _find(tokens, name)
    for i, (word, _poss, _cap) in enumerate(tokens):  # "Scrooge had a fire, but his clerk's"
        if word in _OWNERS and any(e < i for e in ends) and any(
                _stem(w) == _stem(role) for w, _p, _c in tokens[i + 1:i + 3]):
            return True
    for end in ends:
        if tokens[end][1]:
            for j in range(end + 1, min(len(tokens), end + 4)):
                word, poss, _cap = tokens[j]
                if not word:
                    break
                if _stem(word) == _stem(role):
                    return True
                if poss:
                    break
        if tokens[end][1] and end + 1 < len(tokens) and not tokens[end + 1][0].endswith("ing"):
            continue  # "the sister of Scrooge's niece": the niece's ("of Peter's being": his)
        k = end - len(name)
        while k >= 0 and tokens[k][2] and not tokens[k][1] and tokens[k][0] \
                and tokens[k][0] not in FUNCTION_WORDS:
            k -= 1  # the name is the tail of a longer one ("Town Council" of "Port Aldren ...")
        top = k
        while k >= 0 and top - k < 3 and tokens[k][0] in FUNCTION_WORDS \
                and tokens[k][0] not in PREPOSITIONS:
            k -= 1  # "in honour of its being Christmas Eve"
        if k >= 1 and tokens[k][0] in PREPOSITIONS and _stem(tokens[k - 1][0]) == _stem(role):
            return True
    return False


def _identified(tokens: list[tuple[str, bool, bool]], a: list[str], b: list[str]) -> bool:
    """Whether `tokens` put names `a` and `b` in one statement of who is who: nothing
    between them but function words and at most one comma or dash ("Fezziwig, the
    master", "Belle was the girl"), no quote nor other word ("'... Fred,' hinted
    Scrooge's niece"), nor "and" ("the firm was known as Scrooge and Marley": two
    names listed)."""
    for x in _find(tokens, a):
        for y in _find(tokens, b):
            lo, hi = (x + 1, y - len(b) + 1) if x < y else (y + 1, x - len(a) + 1)
            between = tokens[lo:hi]
            marks = [w for w, _p, _c in between if not w]
            if (len(between) <= RELATED_WITHIN and len(marks) <= 1
                    and all(w in FUNCTION_WORDS and w not in _LISTING for w, _p, _c in between
                            if w)):
                return True
    return False


def misattached(sentence: str, sources: list[str]) -> str:
    """What the sentence says of a name that no cited sentence says of it: a word it hangs
    on the name ("Scrooge's sister", "the sister of Scrooge") that none hangs there (of
    "Scrooge's niece's sister": the sister is the niece's), or a name it says another is
    ("Fred was Scrooge's niece") that none puts in one statement with it (of "'I'm sure he
    is very rich, Fred,' hinted Scrooge's niece": Fred is spoken to), or says a name is
    something of itself ("Unity is the branch of Unity"). Latin-script text only. The
    phrase, or "". The 1.5B's short answers on Carol showed 7 such lines, all false, that
    the other tests kept; over the 379 written lines of the stored themed runs of issue 30
    it drops 4 (two of those seven, a podcast line labelled false, "Unity is the branch of
    Unity"), and of the labelled lines one more false one and no supported one
    (`scripts/eval_support.py`)."""
    if CJK.search(sentence):
        return ""
    line = _tokens(sentence)
    shown = [re.sub(r"['’]s$", "", t) for t in _MARKED.findall(sentence)]

    def said_at(start: int, end: int) -> str:  # a name as the sentence writes it
        return " ".join(shown[start:end])

    cited = [_tokens(s) for s in sources]
    runs: list[tuple[int, int]] = []  # [start, end) of each run of capitalised words
    for i, (word, _poss, cap) in enumerate(line):
        if cap and (i > 0 or word not in FUNCTION_WORDS) and word not in _TIMES:
            if runs and runs[-1][1] == i and not line[i - 1][1]:
                runs[-1] = (runs[-1][0], i + 1)
            else:
                runs.append((i, i + 1))
    for start, end in runs:
        name = [w for w, _p, _c in line[start:end]]
        said = said_at(start, end)
        role = ""
        if line[end - 1][1] and end < len(line) and line[end][0] \
                and line[end][0] not in FUNCTION_WORDS and not line[end][2]:
            role = line[end][0]  # "Scrooge's sister"
        k = start - 1
        if k >= 0 and line[k][0] in ARTICLES:
            k -= 1
        if not role and not line[end - 1][1] and k >= 1 and line[k][0] == "of" and line[k - 1][0] \
                and line[k - 1][0] not in FUNCTION_WORDS and not line[k - 1][2]:
            role = line[k - 1][0]  # "the sister of Scrooge"
        if role and role not in FRAME_WORDS and not any(_attached(t, name, role) for t in cited):
            return f"{role} of {said}"
        # "A was B ...", "A was also known as B": A named as B, or as what is B's
        nxt = end
        if nxt < len(line) and line[nxt][0] in _COPULAS:
            nxt += 1
            if nxt < len(line) and line[nxt][0] in ("also", "still"):
                nxt += 1
            if nxt < len(line) and line[nxt][0] in _NAMING:  # "was also known as B"
                nxt += 1 + (nxt + 1 < len(line) and line[nxt + 1][0] == "as")
            while nxt < len(line) and line[nxt][0] in ARTICLES:
                nxt += 1
            other = next(((s, e) for s, e in runs if s == nxt), None)
            if other is not None:
                b = [w for w, _p, _c in line[other[0]:other[1]]]
                if set(b) != set(name) and not any(_identified(t, name, b) for t in cited):
                    return f"{said} as {said_at(*other)}"
            # "Unity is the branch of Unity": A said to be something of A, in one clause
            for s0, e0 in runs:
                if (end < s0 <= end + 6 and [w for w, _p, _c in line[s0:e0]] == name
                        and all(w for w, _p, _c in line[end:s0])
                        and not any(len(_find(t, name)) > 1 for t in cited)):
                    return f"{said} as something of {said}"
    return ""
