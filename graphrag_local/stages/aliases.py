"""One entity, one node: the names extraction found, cleaned and resolved to one canonical
name per entity, after extraction and before the graph. No model; rules over the corpus's
own words, stated here so that a user can predict them.

Cleaning (corpus-wide word statistics: how often a word is written in lower case, and
how often capitalised other than at a sentence start):
- a word repeated ("Scrooge Scrooge") is one word;
- a first word never capitalised inside a sentence anywhere in the corpus, and written in
  lower case somewhere, is dropped from a longer name ("Perhaps Scrooge" -> "Scrooge";
  "Have I" -> "I" -> nothing); titles are kept ("Mrs. Cratchit"); so is the vocative
  "O" ("O Jacob Marley" -> "Jacob Marley", "O God" -> "God"); a name starting with a
  lower-case "of" ("of Exchange", of Carol's "First of Exchange") lost its head: no name;
- a one-word name written in lower case at least as often as capitalised inside a
  sentence is a common word, not a name ("Us", "Come"); so are the pronoun "I" and an
  English preposition ("Behind", of a podcast's "Behind the Tech");
- Chinese: a word that follows a demonstrative or classifier in a quarter of its
  mentions in the corpus ("一个尼姑") is a common noun;
- German capitalises every noun: there, a one-word name that is a form of a common noun
  ("Zeit", "Jahre"; `language/german.py`) is no name;
- Russian inflects names: forms of one name ("Савельич", "Савельича", "Савельичем")
  are that name in the nominative (pymorphy3's lemma of a word it parses as a first
  name, surname, patronymic, place or organisation).

Aliases. A name's *core* is its words without leading titles and honorifics ("Mr.",
"Master", "old", "Uncle") and without a possessive "s". A core of two or more words is
a full name. A one-word core goes to the person's full name (no "of", "the", ...; a
first word that is no common word, unlike "Evil Spirit") whose surname or given name it
is, when at least half of its mentions were typed as a person (`PERSON_SHARE`: not
"Christmas", an event; or as the full name was, where a transcript's speaker names it:
"KEVIN SCOTT:" makes "Kevin Scott" a person's name however it was typed) and exactly one
full name fits:
- within a document, among the full names of that document;
- across documents (a stricter bar), surnames only, and only when exactly one full name
  of the whole corpus fits;
- a name with a title that says who it is ("Mrs.", "Miss", "Lady") goes only to a full
  name written with that same title: "Mrs. Cratchit" never becomes "Bob Cratchit";
- a name that fits several full names ("Cratchit": Bob, Martha, Peter) stays its own
  entity;
- a person named by whose kin they are ("Scrooge's nephew") is no full name of that one:
  "Scrooge" still goes to "Ebenezer Scrooge".
A transcript speaker's given names without the surname, in a document of theirs, are
that speaker whatever their type ("Fei-Fei" of "FEI-FEI LI: ...", typed an organisation).
A person's full name with words around it that say who they are (before it, two or more
or a common word; after it, an office's) is that person where the full name stands alone
in the same document ("Microsoft CTO Kevin Scott" is "Kevin Scott", and shown so, its
most mentioned form).
Also: the same core with compatible titles is one entity ("Master Peter Cratchit",
"Peter Cratchit"); a name that is another name plus "s" is that name ("Cratchits"); an
acronym of a full name in the same document is that name ("AWT", "U.S."); an
organisation's name without its last word ("Halvard Shipping" of "Halvard Shipping
Company") is that name, and so is its last word alone ("the Trust", "the Foundation")
when exactly one organisation of its documents ends with it.
Japanese writes names without a space: a name the dictionary reads as a surname and a
given name ("竹内数馬") is those two words here, when the corpus mostly reads that surname
as one (MeCab also takes '平生', "usually", for a surname), so "数馬" joins "竹内数馬".
The canonical name is the longest full form, the one written most often.
Otherwise types must agree (a person is never an alias of a place); an entity's type is
then the majority of its records' types."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from ..language.english import KIN, MORE_PREPOSITIONS, OFFICES, PREPOSITIONS
from ..language.german import is_common_noun
from ..language.names import counted, ja_person_words
from ..language.scripts import HAN, ja_tagger
from .ground import normalise

HONORIFICS = frozenset(
    "mr mrs ms miss mister master sir dame lady lord madam madame mme mlle monsieur m mm "
    "messieurs herr frau fraulein fräulein prinz prinzessin señor senor señora senora don "
    "dona signor signora dr doctor prof professor rev reverend fr father mother brother "
    "sister uncle aunt cousin old young "
    "little poor dear saint st king queen prince princess president general colonel "
    "captain major lieutenant sergeant judge bishop".split()
)
FEMALE = frozenset("mrs ms miss dame lady madam madame mme mlle frau fraulein fräulein "
                   "prinzessin señora senora dona signora mother sister aunt queen "
                   "princess".split())
ORG_HEADS = frozenset("company co corporation corp inc ltd llc plc group trust society "
                      "association foundation institute council committee".split())
CONNECTORS = frozenset("of the and for de del da van von der du la le & y".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?…]['\"’”»)\]]*\s*$|^\s*$|[\n]\s*[\n]")
PRONOUNS = frozenset({"i"})
# English prepositions alone are no names: "Behind" (of the podcast's "Behind the Tech",
# said capitalised in every episode's opening) was an entity of 24 relationships, in
# community titles ("Behind, Microsoft and Kevin Scott")
NOT_NAMES_ALONE = PREPOSITIONS | MORE_PREPOSITIONS
# a name starting with this word, in lower case, lost its head word: of "First of
# Exchange" (a bill, once in Carol) extraction kept "of Exchange", a place. English only:
# "de Gaulle", "van Gogh" and "von Briest" are names as they stand
HEADLESS = frozenset({"of"})
# a one-word name goes to a person's full name only if at least this share of its mentions
# were typed a person: "Christmas" (42 of its 46 mentions an event) was taken into "Christmas
# Eves", once typed a person, the one full name starting with it; of the aliases the rule
# made in Carol, the 12 and 18 stories, the podcast, German, French, Spanish and Russian
# indexes, every other one was typed a person in 86-100% of its mentions
PERSON_SHARE = 0.5
# a pronoun run into a verb is no name: "He'd" (once, at the head of a line of verse in
# one of the 18 stories, so never seen in lower case) was an entity of the Red Hen's story
_CONTRACTION = re.compile(
    r"^(i|you|he|she|it|we|they|that|there|here|who|what|where|let)['’](d|ll|s|ve|re|m)$")
# a name drawn out ("Scro-o-o-o-oge", Fred's party game in Carol) is the name: its
# letters without the hyphens, a letter drawn over three or more parts written twice
_DRAWN_OUT = re.compile(r"(\w)(?: \1){2,}")  # on a normalised name: its hyphens are spaces
# a transcript's line that begins with a name in capitals and a colon ("KEVIN SCOTT: Hi
# everyone", "../ANDREW NG: With the rise of ...") is that person speaking: the name is a
# person's, however extraction typed it (the fast method types by head word, so the
# podcasts' names were all UNKNOWN and "Kevin", "Reid", "Christina" no one's given name)
_SPEAKER = re.compile(r"^\W{0,4}([A-Z][A-Z'’.-]*(?: [A-Z][A-Z'’.-]*){1,3}):", re.MULTILINE)
VOCATIVES = frozenset({"O"})  # "O Jacob Marley!": written as is, never a name's first word
# English words that open a sentence and never a name. Most are written in lower case
# elsewhere in any corpus, which `clean_name` sees; the rare ones ("Whereat Scrooge
# smiled", once in the book) are not, and would stand as a second Scrooge.
CONNECTIVES = frozenset(
    "whereat whereupon thereupon hereupon wherefore therefore however meanwhile moreover "
    "nevertheless nonetheless furthermore hence thus accordingly indeed besides then when "
    "whereas although though because unless until while whilst and but or nor so yet also "
    "perhaps otherwise".split()
)


@dataclass
class WordStats:
    """How each word (case-folded) is written in the corpus."""

    lower: Counter = field(default_factory=Counter)  # written in lower case
    upper_mid: Counter = field(default_factory=Counter)  # capitalised, not at a sentence start
    languages: set = field(default_factory=set)  # of the texts counted
    lower_lemmas: Counter = field(default_factory=Counter)  # Russian: lemmas written lower
    chinese: str = ""  # the Chinese texts joined, for the classifier rule (`language/names.py`)
    ja_surnames: frozenset = frozenset()  # Japanese: words read as a surname in most contexts
    speakers: frozenset = frozenset()  # names a transcript's lines begin with ("KEVIN SCOTT:")


def word_stats(texts) -> WordStats:
    from ..language.detect import detect_language

    stats = WordStats()
    chinese: list[str] = []
    japanese: list[str] = []
    texts = list(texts)
    for text in texts:
        language = detect_language(text)
        stats.languages.add(language)
        if language == "zh":
            chinese.append(text)
        if language == "ja":
            japanese.append(text)
        last = 0
        start = True
        for m in _WORD.finditer(text):
            gap = text[last : m.start()]
            if any(ch in gap for ch in ".!?…:\n\"“”'‘’(«»„—–") and (
                    re.search(r"[.!?…:]\W*$", gap) or "\n" in gap
                    or gap.strip()[:1] in "\"“'‘(«»„—–"):
                start = True
            word = m.group()
            key = word.casefold()
            if word[0].islower():
                stats.lower[key] += 1
                if language == "ru" and _CYRILLIC.search(word):
                    stats.lower_lemmas[_lemma(key)] += 1
            elif not start:
                stats.upper_mid[key] += 1
            start = False
            last = m.end()
    stats.chinese = "\n".join(chinese)
    stats.ja_surnames = surnames(japanese)
    stats.speakers = frozenset(normalise(m.group(1)) for text in texts
                               for m in _SPEAKER.finditer(text))
    return stats


def surnames(texts: list[str]) -> frozenset:
    """Words the dictionary reads as a surname in most of the places the texts write them
    (MeCab also reads '平生', "usually", as one before a given name: '平生忠利')."""
    tagger = ja_tagger(required=False) if texts else None
    if tagger is None:
        return frozenset()
    read, as_surname = Counter(), Counter()
    for text in texts:
        for w in tagger(text):
            read[w.surface] += 1
            as_surname[w.surface] += w.feature.pos4 == "姓"
    return frozenset(w for w, n in as_surname.items() if n * 2 > read[w])


def _key(word: str) -> str:
    """A word as `word_stats` counts it."""
    return word.casefold().strip(".,;:'’\"")


def clean_name(name: str, stats: WordStats) -> str | None:
    """The name as it should stand, or None when it is no name at all (see above)."""
    words = [w for i, w in enumerate(name.split()) if i == 0 or w != name.split()[i - 1]]
    if len(words) > 1 and words[0] in HEADLESS:
        return None  # "of Exchange", of "First of Exchange": its head was left out
    while len(words) > 1:
        if words[0] in VOCATIVES:
            words = words[1:]
            continue
        first = _key(words[0])
        rest = normalise(" ".join(words[1:]))
        if first in HONORIFICS:
            break
        if first in CONNECTIVES:
            words = words[1:]
            continue
        if _CYRILLIC.search(first) and _proper_russian(first):
            break  # "Вера Павловна", though "вера" (faith) is a word too
        if stats.upper_mid[first] == 0 and (stats.lower[first] > 0 or rest in PRONOUNS
                                            or _common_russian_word(first, stats)):
            words = words[1:]
        else:
            break
    if stats.chinese and len(words) == 1 and counted(words[0], stats.chinese):
        return None  # "尼姑": after "一个", "这", "小" in the corpus, a common noun
    if len(words) == 1:
        key = _key(words[0])
        if key in PRONOUNS or key in NOT_NAMES_ALONE or _CONTRACTION.match(key) or (
                stats.lower[key] >= 2 and stats.lower[key] >= stats.upper_mid[key]):
            return None
        if "de" in stats.languages and (key in HONORIFICS or is_common_noun(key)):
            return None  # a German noun ("Zeit"), or a title alone ("Frau", "Baron")
    cleaned = " ".join(words).strip()
    return cleaned or None


@dataclass
class Name:
    """One distinct name (by normalised key) as extraction found it."""

    key: str
    surface: Counter  # its spellings, by mentions
    types: Counter
    docs: set[str]
    mentions: int = 0

    @property
    def type(self) -> str:
        return min(self.types, key=lambda t: (-self.types[t], t))

    @property
    def spelled(self) -> str:
        return min(self.surface, key=lambda s: (-self.surface[s], s))


def core(key: str, ja_surnames: frozenset = frozenset()) -> tuple[frozenset[str], tuple[str, ...]]:
    """(title words, the rest) of a normalised name, drawn in ("Scro-o-o-o-oge" is
    "scrooge": `_drawn_in`). Japanese writes a name with no space
    and the surname first: a name the dictionary reads as surname + given name, with a
    surname of `ja_surnames`, is the two words in the order the rules below read ("数馬",
    "竹内"), so that its last word is the surname."""
    words = _drawn_in(key).split()
    if ja_surnames and len(words) == 1 and HAN.search(key):
        parts = ja_person_words(key)
        if parts and parts[0] in ja_surnames:
            words = [parts[1], parts[0]]
    if len(words) > 1 and words[-1] == "s":  # a possessive, "scrooge s"
        words = words[:-1]
    titles = []
    while len(words) > 1 and words[0] in HONORIFICS:
        titles.append(words.pop(0))
    return frozenset(titles), tuple(words)


def _drawn_in(key: str) -> str:
    """A normalised name as it is spelled when not drawn out ("scro o o o oge" ->
    "scrooge"); any other name as it is."""
    if not _DRAWN_OUT.search(key):
        return key
    return _DRAWN_OUT.sub(lambda m: m.group(1) * 2, key)


def _female(titles: frozenset[str]) -> bool:
    return bool(titles & FEMALE)


def _initials(tokens: tuple[str, ...]) -> str:
    return "".join(t[0] for t in tokens if t not in CONNECTORS and t)


def resolve(names: dict[str, Name], stats: WordStats | None = None) -> dict[str, str]:
    """key -> the key of its canonical name (itself for a canonical name)."""
    stats = stats or WordStats()
    cores = {k: core(k, stats.ja_surnames) for k in names}
    parent = {k: k for k in names}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def union(a: str, b: str) -> None:  # b joins a's entity
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    def same_type(a: str, b: str) -> bool:
        return names[a].type == names[b].type

    # the same core with compatible titles; titles are people's ("Old Fezziwig" is
    # Fezziwig, "Old Bohumín" is not Bohumín)
    by_core: dict[tuple[str, ...], list[str]] = {}
    for k, (_titles, words) in cores.items():
        by_core.setdefault(words, []).append(k)
    for ks in by_core.values():
        ks.sort(key=lambda k: (len(cores[k][0]), k))
        for k in ks[1:]:
            titles, first = cores[k][0], cores[ks[0]][0]
            if not same_type(ks[0], k):
                continue
            if names[k].type == "PERSON" and titles & FEMALE == first & FEMALE or titles == first:
                union(ks[0], k)
    full = [k for k, (_t, words) in cores.items() if len(words) >= 2]
    # plural of another name; acronym of a full name; organisation without its head word
    for k, n in names.items():
        if k.endswith("s") and k[:-1] in names and same_type(k[:-1], k):
            union(k[:-1], k)
        spelled = n.spelled
        if spelled.isupper() and 2 <= len(spelled) <= 6 and " " not in spelled:
            letters = k.replace(" ", "")  # "U.S." is "u s"
            fits = [f for f in full if names[f].docs & n.docs
                    and _initials(cores[f][1]) == letters and len(cores[f][1]) >= 2]
            if len({find(f) for f in fits}) == 1:
                union(fits[0], k)
    for f in full:
        words = cores[f][1]
        if names[f].type == "ORGANIZATION" and words[-1] in ORG_HEADS and len(words) > 2:
            short = " ".join(words[:-1])
            if short in names and names[short].type in ("ORGANIZATION", "UNKNOWN"):
                union(f, short)
    # an organisation's head word alone ("the Foundation", "the Trust") is the one
    # organisation of its documents whose name ends with it
    for k, (_titles, words) in cores.items():
        if len(words) == 1 and words[0] in ORG_HEADS and names[k].types["ORGANIZATION"]:
            heads = {find(f) for f in full if names[f].type == "ORGANIZATION"
                     and cores[f][1][-1] == words[0] and names[f].docs & names[k].docs}
            if len(heads) == 1:
                union(heads.pop(), k)
    # a one-word core: the one person's full name whose surname or given name it is
    def person(f: str) -> bool:  # typed so, or a transcript's speaker whatever its type
        return names[f].type == "PERSON" or f in stats.speakers

    def kin(f: str) -> bool:  # "Scrooge's nephew" is someone else than Scrooge
        ws = cores[f][1]
        return ws[-1] in KIN and "s" in ws[:-1]

    people = [f for f in full if person(f) and not kin(f)
              and not set(cores[f][1]) & CONNECTORS and not _common(cores[f][1][0], stats)]

    def fits(k: str, f: str, surname_only: bool) -> bool:
        titles, (word,) = cores[k]
        ws = cores[f][1]
        hit = ws[-1] == word or (not surname_only and ws[0] == word)
        typed = names[k].types[names[f].type] + (
            names[k].types["PERSON"] if names[f].type != "PERSON" else 0)
        if not hit or typed < PERSON_SHARE * names[k].mentions:
            return False
        return not _female(titles) or titles <= cores[f][0]

    # a person's full name with words before or after it that say who they are, in a
    # document where the full name stands alone too ("Microsoft CTO Kevin Scott", "Kevin
    # Scott Chief Technology Officer", once each in the podcasts' openings; "L'honorable
    # Gauthier Ralph") is that person; so "Kevin" fits one. One more word that is no
    # common word is a name's part ("Андрей Петрович Гринёв" of "Андрей Петрович"), and
    # words after it that are not an office's name something else ("Port Aldren Town
    # Council" of "Port Aldren", both typed a person by a tiny model): not so.
    by_words: dict[tuple[str, ...], list[str]] = {}
    for g in people:
        by_words.setdefault(cores[g][1], []).append(g)
    for f in people:  # (its shorter runs of words looked up, not every pair compared)
        ws = cores[f][1]
        for part in {p for n in range(2, len(ws)) for p in (ws[:n], ws[-n:])}:
            for g in by_words.get(part, ()):
                if _described(ws, part, stats) and names[f].docs & names[g].docs:
                    union(g, f)

    # a transcript speaker's given names without the surname ("Fei-Fei" of "FEI-FEI LI:", a
    # hyphenated given name, read here as two words, and typed an organisation by a tiny
    # model) in a document of theirs: that speaker, whatever its type, where one fits
    speaking = [f for f in full if f in stats.speakers]
    for k, (_titles, words) in cores.items():
        if len(words) < 2 or k in stats.speakers:
            continue
        fit = {find(f) for f in speaking if len(words) < len(cores[f][1])
               and cores[f][1][:len(words)] == words and names[f].docs & names[k].docs}
        if len(fit) == 1:
            union(fit.pop(), k)

    # judged as a group: the names already joined ("Cratchit", "Mr Cratchit", "Cratchits")
    # go together, and the full names that fit are those of every document any of them is
    # in (else "Mr Cratchit", in one document with Bob only, would take "Cratchit" of the
    # chapter where Peter Cratchit is too)
    short: dict[str, list[str]] = {}
    for k, (_titles, words) in cores.items():
        if len(words) == 1 and len(cores[find(k)][1]) == 1:
            short.setdefault(find(k), []).append(k)
    def one(fs: list[str]) -> str | None:  # the one person they fit
        roots = {find(f) for f in fs}
        return roots.pop() if len(roots) == 1 else None

    for ks in short.values():
        docs = set().union(*(names[k].docs for k in ks))
        local = [f for f in people if names[f].docs & docs and any(fits(k, f, False) for k in ks)]
        if not local:
            local = [f for f in people if any(fits(k, f, True) for k in ks)]  # anywhere
        target = one(local)
        if target is not None:
            union(target, ks[0])
    return {k: find(k) for k in names}


def _common(word: str, stats: WordStats) -> bool:
    """A word the corpus writes in lower case at least as often as capitalised inside a
    sentence: "Evil" of "Evil Spirit" is no given name."""
    return stats.lower[word] > 0 and stats.lower[word] >= stats.upper_mid[word]


def _described(longer: tuple[str, ...], name: tuple[str, ...], stats: WordStats) -> bool:
    """Whether a full name's words are another full name's with words that say who they
    are: before it, two or more ("microsoft cto kevin scott", "kevin scott") or a word the
    corpus writes in lower case at least as often as capitalised; after it, words of an
    office ("kevin scott chief technology officer"; not "port aldren town council")."""
    n = len(name)
    if not 2 <= n < len(longer):
        return False
    if longer[:n] == name:
        return bool(set(longer[n:]) & OFFICES)
    extra = longer[:-n] if longer[-n:] == name else ()
    return len(extra) >= 2 or (len(extra) == 1 and _common(extra[0], stats))


def canonical_names(names: dict[str, Name], roots: dict[str, str],
                    ja_surnames: frozenset = frozenset(),
                    stats: WordStats | None = None) -> dict[str, str]:
    """key -> the name its entity is shown by: the longest full form (most words after
    titles), untitled before titled, the most mentioned, then alphabetical; but not a full
    name with more words around a more mentioned one ("Kevin Scott", not "Microsoft CTO
    Kevin Scott")."""
    stats = stats or WordStats()
    groups: dict[str, list[str]] = {}
    for k, r in roots.items():
        groups.setdefault(r, []).append(k)
    out = {}
    for members in groups.values():
        cores = {k: core(k, ja_surnames) for k in members}
        shown = [k for k in members if not any(
            _described(cores[k][1], cores[m][1], stats)
            and names[m].mentions > names[k].mentions for m in members)]
        best = min(shown, key=lambda k: (-len(cores[k][1]), len(cores[k][0]),
                                         -names[k].mentions, k))
        spelled = names[best].spelled
        for k in members:
            out[k] = spelled
    return out


@dataclass(frozen=True)
class Resolved:
    rename: dict[str, str | None]  # normalised name as found -> its entity's name (None: dropped)
    aliases: dict[str, Counter]  # entity name -> its other spellings, by mentions
    dropped: int  # names that were no names


def resolve_records(entities, doc_of: dict[str, str], stats: WordStats) -> Resolved:
    """Clean and resolve the names of extracted entity records (`doc_of`: chunk id ->
    document id)."""
    cleaned: dict[str, str | None] = {}
    inflected = "ru" in stats.languages
    for e in entities:
        if e.name not in cleaned:
            c = clean_name(e.name, stats)
            cleaned[e.name] = nominative(c) if c and inflected else c
    names: dict[str, Name] = {}
    for e in entities:
        c = cleaned[e.name]
        if c is None or not normalise(c):
            continue
        n = names.setdefault(normalise(c), Name(normalise(c), Counter(), Counter(), set()))
        count = max(1, len(e.spans))
        n.surface[e.name if normalise(e.name) == normalise(c) else c] += count
        n.types[e.type] += count
        n.docs.add(doc_of.get(e.chunk_id, e.chunk_id))
        n.mentions += count
    roots = resolve(names, stats)
    shown = canonical_names(names, roots, stats.ja_surnames, stats)
    rename: dict[str, str | None] = {}
    aliases: dict[str, Counter] = {}
    for e in entities:
        c = cleaned[e.name]
        target = shown.get(normalise(c)) if c else None
        rename[normalise(e.name)] = target
        if target is not None and normalise(e.name) != normalise(target):
            aliases.setdefault(target, Counter())[e.name] += max(1, len(e.spans))
    dropped = sum(1 for v in cleaned.values() if v is None)
    return Resolved(rename, aliases, dropped)


def rename_records(entities, relationships, resolved: Resolved):
    """The records under their entities' names; records of names that are no names, and
    relationships between two names of one entity, dropped."""
    from dataclasses import replace

    out_e = [replace(e, name=resolved.rename[normalise(e.name)]) for e in entities
             if resolved.rename.get(normalise(e.name))]
    out_r = []
    for r in relationships:
        a, b = resolved.rename.get(normalise(r.source)), resolved.rename.get(normalise(r.target))
        if a and b and normalise(a) != normalise(b):
            out_r.append(replace(r, source=a, target=b))
    return out_e, out_r


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_PROPER = ("Name", "Surn", "Patr", "Geox", "Orgn", "Trad")


def nominative(name: str) -> str:
    """A Russian name in the nominative: each word pymorphy3 can parse as a proper noun
    (first name, surname, patronymic, place, organisation, trade mark) replaced by that
    parse's nominative, capitalised ("Марьи Ивановны" -> "Марья Ивановна"); anything
    else as is."""
    if not _CYRILLIC.search(name):
        return name
    morph = _morph()
    words = []
    for word in name.split():
        lemma = word
        if word[:1].isupper():
            for p in morph.parse(word):
                if any(g in p.tag for g in _PROPER):
                    form = p.inflect({"nomn"})  # keeps gender: "Ивановны" -> "Ивановна"
                    lemma = form.word if form else p.normal_form
                    lemma = lemma[:1].upper() + lemma[1:]
                    break
        words.append(lemma)
    return " ".join(words)


@lru_cache(maxsize=65536)
def _lemma(word: str) -> str:
    """pymorphy3's dictionary form of a Russian word ("беспокойством" -> "беспокойство")."""
    return _morph().parse(word)[0].normal_form


def _common_russian_word(key: str, stats: WordStats) -> bool:
    """A Russian word that starts a name only because it starts the sentence
    ("Беспокойство Савельича ..."): some form of it is written in lower case in the
    corpus ("с беспокойством") and no parse of it is a proper noun."""
    if not stats.lower_lemmas or not _CYRILLIC.search(key):
        return False
    return stats.lower_lemmas[_lemma(key)] > 0 and not _proper_russian(key)


@lru_cache(maxsize=65536)
def _proper_russian(word: str) -> bool:
    """Some parse of the word is a first name, surname, patronymic, place or organisation."""
    return any(g in p.tag for p in _morph().parse(word) for g in _PROPER)


def _morph():
    global _MORPH
    if _MORPH is None:
        import pymorphy3

        _MORPH = pymorphy3.MorphAnalyzer()
    return _MORPH


_MORPH = None
