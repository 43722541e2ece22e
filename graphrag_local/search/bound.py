"""The bound grammar of a written line (`query.writer_bound`, on by default): a line the
writer writes may use only the words of one sentence of the evidence it was given (which it
then cites first), the function words and the relating words (`support.FUNCTION_WORDS`,
`support.FRAME_WORDS`; negations and words about the text excluded), as a trie-shaped GBNF;
in Chinese or Japanese, the characters of its evidence. The writer still chooses which
words, in what order, and what to leave out; a clause ends on a word that can end it, not
on "the", "of", "could" or "was" (`_clause`; in Japanese, not on a particle). And `cut`:
whether a line was ended by a word limit rather than by the writer.

What it deliberately does not do: decide whether a line is true (`support.check` does,
after), or bind a topic's first heading in alphabetic scripts (a heading names a topic; it
is checked for names its evidence lacks in `written.py`); one worded again because it was
only names is (`title_grammar`)."""

from __future__ import annotations

import re

from .. import garbles, support
from ..language.detect import detect_language
from ..language.scripts import KANA

# a number whole ("400,000", "2.5"), or a word with its apostrophes ("Scrooge's")
_VOCAB_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W_]+(?:['’][^\W_]+)*")
# a hyphenated word whole ("Half-Chick", "rope-end"): without it, a line could write
# "Half" but not "-Chick", and the 1.5B ended "... the queer little Half."
_COMPOUND = re.compile(r"[^\W_]+(?:['’][^\W_]+)*(?:-[^\W_]+(?:['’][^\W_]+)*)+")
# words a written sentence may use whatever it cites (what the support check ignores),
# less the negations: "not" is a claim of its own
NEGATIONS = frozenset({"not", "no", "nor", "never", "nothing", "none", "neither"})
# relating words a line may not use: they talk of the text, not of what it says. Given
# them, the 1.5B wrote "The text describes a man who lived on the Total Abstinence
# Principle, which is also related to the Christmas theme" (the check ignores them)
ABOUT_THE_TEXT = frozenset("""theme themes topic topics documents document text texts story
stories mention mentions mentioned according describe describes described""".split())
BOUND_WORDS = 34  # a bound line's words at most: a line this long was cut, or runs on
# function characters a bound Chinese or Japanese line may add
CJK_CHARS = "的了是在和与他她它们也都这那个有为被把对从到中上下就又而"

TITLE_CHARS = 80  # a written heading's characters at most, but its first (the grammars' bound)


def _literal(word: str) -> str:
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _char_class(chars: str) -> str:
    esc = "".join("\\" + c if c in "]\\^-[" else c for c in sorted(set(chars)))
    return f"[{esc}]"


def vocabulary(text: str) -> list[str]:
    """The word forms a sentence citing `text` may use: its words as written, lower-cased
    and capitalised (a sentence may start with any of them), a hyphenated one whole and
    in its parts."""
    out: dict[str, None] = {}
    for w in _VOCAB_WORD.findall(text) + _COMPOUND.findall(text):
        base = re.sub(r"['’]s$", "", w)  # "Scrooge's" gives "Scrooge" too
        for form in (w, w.lower(), w[:1].upper() + w[1:], base, base.lower(),
                     base[:1].upper() + base[1:]):
            out[form] = None
    return list(out)


ABBREVIATIONS = tuple(t + "." for t in support.TITLES)  # words with a full stop inside a line


def _trie(words: list[str]) -> str:
    """A GBNF expression matching exactly `words`, as a trie: alternatives that share a
    prefix share it, so llama.cpp follows a few grammar stacks at a word's start, not one
    a word (with ~500 words as plain alternatives, every masked step cost ~1 s)."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def expr(node: dict) -> str:
        alts, end = [], "" in node
        for ch, child in sorted((k, v) for k, v in node.items() if k):
            label = ch
            while len(child) == 1 and "" not in child:  # a chain: one literal
                (nxt, child), = child.items()
                label += nxt
            rest = expr(child) if any(k for k in child) else ""
            alts.append(_literal(label) + (" " + rest if rest else ""))
        body = alts[0] if len(alts) == 1 and not end else "(" + " | ".join(alts) + ")"
        return body + ("?" if end and alts else "")

    return expr(root)


def _cased(words: frozenset[str]) -> set[str]:
    """Each word as it is and with a capital (a line may start with it)."""
    return {f for w in words for f in (w, w[:1].upper() + w[1:])}


def _line_words(text: str, common: frozenset[str], foreign: bool) -> set[str]:
    """The words a line written from `text` may use: its own, and (but in a language other
    than English) the common ones."""
    words = set(vocabulary(text)) if foreign else set(vocabulary(text)) | _cased(common)
    return words | {a for a in ABBREVIATIONS if a in text}


# a group's words at most: up to this less one that cannot end a clause, then one that can.
# With 3, "who was the head" could not be written and the 1.5B wrote "who was theirs head"
GROUP_WORDS = 6
# a clause's such groups at most: a clause the old word limit (16) let be written can be
# (with 8, the 1.5B wrote "... if you, as a bank in the U." where it had written "... if
# you are a bank, such as ACH in the U.")
CLAUSE_GROUPS = 16


def _clause(i: int, words: set[str], open_words: frozenset[str]) -> list[str]:
    """The rules of a line written from evidence `i` with `words`: one or two clauses (a
    comma between), each a run of groups of up to `GROUP_WORDS` - 1 words that cannot end
    it (`open_words`: "the", "of", "and", "could", "was") and one that can. A clause so
    ends on a word that ends it, whatever the writer meant to say: before, it was cut at
    the grammar's word limit or stopped on an open word ("... the tiny door at the.",
    "... so that the children could."), and the check dropped it (`cut`)."""
    ends = {w for w in words if w.lower() not in open_words and not w.endswith(".")}  # "Mr."
    opens = words - ends
    rules = [f"n{i} ::= {_trie(sorted(ends))}"]
    group = f"n{i}"
    if opens:
        rules.append(f"o{i} ::= {_trie(sorted(opens))}")
        group = f'(o{i} " "){{0,{GROUP_WORDS - 1}}} n{i}'
    rules.append(f"g{i} ::= {group}")
    rules.append(f't{i} ::= g{i} (" " g{i}){{1,{CLAUSE_GROUPS - 1}}} '
                 f'("," " " g{i} (" " g{i}){{0,{CLAUSE_GROUPS - 1}}})? "."')
    return rules


def bound_grammar(evidence: list[str], ids: list[int], themed: bool, max_lines: int,
                  cjk: bool = False, languages: frozenset[str] = frozenset()) -> str:
    """GBNF where a line is written only with the words of one evidence sentence of `ids`, the
    function words and the relating words (`support.FUNCTION_WORDS`, `support.FRAME_WORDS`,
    less `ABOUT_THE_TEXT`), and nothing else; it ends with that sentence's number and up to
    two more of `ids`. The writer still chooses which words, in what order, and what to
    leave out: it writes, but a name, a number or a content word its evidence lacks cannot
    be written (the 1.5B wrote "a farming village located in the United Kingdom" where no
    source said so). Whether what a line cites holds its words is the support check's to
    say. In Chinese or Japanese a line is bound to the characters of its evidence; in
    another language than English, to its evidence's words alone, and so is a topic's
    heading. `languages`: the index's; an English-only index is not asked which language
    each evidence is in (that loads a language model, 0.5 s)."""
    # the relating words but those that talk of the text rather than of what it says
    common = (support.FUNCTION_WORDS | support.FRAME_WORDS) - NEGATIONS - ABOUT_THE_TEXT
    rules = [
        f"id ::= {' | '.join(chr(34) + str(i) + chr(34) for i in sorted(ids, reverse=True))}",
        'cite ::= "[" id "]"',
    ]
    given = " ".join(evidence[i - 1] for i in ids)
    foreign = False  # evidence in a language written with spaces, not English
    if cjk:
        # Chinese function characters for a Chinese text only: given them, the 1.5B wrote
        # Japanese mixed with Chinese ("隙尚的亡くなったとき")
        chars = "".join(c for c in given if c.isalnum()) + ("" if KANA.search(given)
                                                               else CJK_CHARS)
        rules.append(f"word ::= {_char_class(chars)}")
        if KANA.search(given):  # a Japanese line does not end mid-clause (`cut`)
            ends = "".join(c for c in chars if c not in JA_CLAUSE_ENDS)
            rules.append(f"wend ::= {_char_class(ends)}")
            rules.append('text ::= word{5,79} wend "。"')
        else:
            rules.append('text ::= word{6,80} "。"')
        rules.append('line ::= "- " text " " cite cite? cite? "\\n"')
    else:
        own = set(vocabulary(given))
        # the function and relating words are English ones (and a few French, German and
        # Spanish): given them over German evidence, the 1.5B wrote English around German
        # nouns ("Effi was very concerned about the Docken being in the Korb"); evidence in
        # another language gives its own words only, and a heading of them
        foreign = languages != {"en"} and detect_language(given) != "en"
        # a line is written from one sentence: its words (and the common ones), ending with
        # its number, then up to two more. Bound to all of a topic's words, the 1.5B joined
        # what its sentences keep apart ("The Ghost had an expectation that the conduct of
        # Jacob ..." of "he had an expectation ..." and "... the death of Jacob"); one
        # sentence a line (with the loop guard, `replies.LOOP_WORDS`), the podcast's ten
        # answers kept 91 of 167 written sentences, not 77, the 12 stories' three 45 of 60,
        # not 40, Carol's themes 12 of 20 as before
        # at most one comma: given ", " between any words, the 1.5B chained clause after
        # clause ("X kissed Peter, X kissed his daughters, ...") until it looped or was cut
        # in English, not the other languages' function words but where the evidence says
        # them: given them, the 1.5B wrote "which is a very un at all gingerbread boy", "la
        # la", and "die" is a word of English the check does not weigh
        mine = common if foreign else common - support.OTHER_FUNCTION_WORDS
        alts = []
        for i in ids:
            words = _line_words(evidence[i - 1], mine, foreign)
            # in English, nor on another language's article the common words hold ("der")
            # but where the evidence says it ("they die")
            said = {w.lower() for w in vocabulary(evidence[i - 1])}
            rules += _clause(i, words, CUT_WORDS_OTHER if foreign
                             else CLAUSE_OPEN | (CUT_WORDS_OTHER - said))
            alts.append(f't{i} " [{i}]"')
        rules.append(f'line ::= "- " ({" | ".join(alts)}) cite? cite? "\\n"')
    if themed:
        # in Chinese or Japanese a heading too is made of its evidence's characters (the
        # 1.5B headed Japanese topics in Chinese: "鹿之助的故事")
        title = "word{2,24}" if cjk else rf'[^\n\[\]#-] [^\n\[\]#.]{{0,{TITLE_CHARS}}}'
        if foreign:  # the evidence's own words, starting and ending on a content word: not
            # a question ("Are there any episode where ...") nor a phrase cut short
            content = {w for w in own if w.lower() not in support.FUNCTION_WORDS}
            rules.append(f"cword ::= {_trie(sorted(content))}")
            rules.append(f"tword ::= {_trie(sorted(own))}")
            title = 'cword (" " tword){0,6} " " cword'
        rules += [f"title ::= {title}",
                  f'root ::= "## " title "\\n" line{{1,{max_lines}}}']
    else:
        rules.append(f"root ::= line{{1,{max_lines}}}")
    return "\n".join(rules) + "\n"


# words a heading worded again does not use: it names a subject, it is not a clause nor
# anyone's own words (given them, the 1.5B headed a line "Christina Warren is a colleague")
NOT_IN_TITLE = garbles.AUXILIARIES | frozenset(
    "i me my mine myself you your yours we us our he him his himself she her hers herself "
    "they them their theirs themselves".split())


def title_words(text: str, foreign: bool = False) -> tuple[set[str], set[str]]:
    """The words a heading worded again from `text` may open and end on (its content
    words), and all it may use (those, its function words and, in English, the common
    ones), none of `NOT_IN_TITLE`."""
    own = {w for w in vocabulary(text) if w.lower() not in NOT_IN_TITLE and not clause_word(w)}
    content = {w for w in own if w.lower() not in support.FUNCTION_WORDS
               and w.lower() not in ABOUT_THE_TEXT}
    common = set() if foreign else _cased(
        {w for w in support.FUNCTION_WORDS - support.OTHER_FUNCTION_WORDS - NEGATIONS - NOT_IN_TITLE
         if not clause_word(w)})
    return content, own | common


def clause_word(word: str) -> bool:
    """A function word or pronoun with its verb ("There's", "I'm", "that's"): it opens a
    clause, not a heading (given it, the 1.5B headed "There's the corner where the Ghost
    of Christmas Present sat!" "There's the Corner Where the Ghost")."""
    parts = re.split(r"['’]", word.lower(), maxsplit=1)
    return len(parts) == 2 and (parts[0] in support.FUNCTION_WORDS or parts[0] in NOT_IN_TITLE)


_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[^\w\s]")
# a name's title is said before the name ("Mrs. Cratchit"): a heading ending on one ("Little
# Tim and Mrs") left the name out
_TITLES = frozenset(t.lower() for t in support.TITLES)
_POSSESSIVE = re.compile(r"['’]s$", re.I)


def inside_words(text: str) -> frozenset[str]:
    """The words (lower case) `text` says only before another content word: a phrase's
    modifiers, its noun after them ("enthusiastic" of "... this enthusiastic person"), a
    possessive's word ("student" of "... many a PHD student's reading list"). A heading
    ending on one ends inside a phrase (`headings.ends_inside`)."""
    tokens = [_POSSESSIVE.sub("", t.lower()) for t in _TOKEN.findall(text)]
    inside: dict[str, bool] = {}
    for t, after in zip(tokens, tokens[1:] + [""]):
        if t[:1].isalnum():
            inside[t] = inside.get(t, True) and bool(
                after[:1].isalnum() and after not in support.FUNCTION_WORDS)
    return frozenset(t for t, yes in inside.items() if yes)


def ends_phrase(word: str, inside: frozenset[str]) -> bool:
    """Whether a heading may end on `word`: not a possessive (said before its noun), a
    name's title (`_TITLES`) nor one of `inside` (a text's `inside_words`). The title
    grammar's last word is one, and `headings.ends_inside` reads a heading written
    otherwise by it."""
    return (not _POSSESSIVE.search(word) and word.lower() not in inside
            and word.rstrip(".").lower() not in _TITLES)


def title_grammar(text: str, foreign: bool = False) -> str:
    """GBNF of a heading worded again from what a topic shows (`written.retitle`): "## "
    and two to six words of `text` (and, in English, the function words), opening on a
    content word of `text` and ending on one it ends a phrase on somewhere (not one of
    `inside_words`, nor a possessive), none of `NOT_IN_TITLE`. Its names are so what the
    topic says, and its other words too: it names what the reader sees. Ending where it
    liked, the 1.5B ended 7 of the 12 retitles refused on the podcast's ten answers inside
    a phrase ("Toy Story dedication to creating best"): they were refused after, not kept
    from. A possessive is said before its noun: ended on "student" of "... many a PHD
    student's reading list", the 1.5B headed that text "Artificial Intelligence Papers by
    PHD Student"."""
    content, words = title_words(text, foreign)
    inside = inside_words(text)
    ends = {w for w in content if ends_phrase(w, inside)}
    if not ends:
        return ""
    return "\n".join([
        f"cword ::= {_trie(sorted(content))}",
        f"tword ::= {_trie(sorted(words))}",
        f"eword ::= {_trie(sorted(ends))}",
        'root ::= "## " cword (" " tword){0,4} " " eword "\\n"',
    ]) + "\n"


# words a sentence does not end on (English): a bound line may not end on one (the grammar's
# clauses end on another word: `_clause`), and a line that does was cut (`cut`). Before the
# grammar kept to it, 21 of the 134 lines dropped in the stored runs (Carol's themes, the
# podcast's ten answers, the 12 and 18 stories' three) ended so, "... the tiny door at the.",
# "... so that the children could."
CUT_WORDS = frozenset("""
a an the and or but nor of to for from by with without about into onto between among
through during than as if because though although whether which who whom whose
that these those its their his my our your at when where could would should can may
might must shall will s""".split())
# an English clause, by grammar, ends on none of these, nor on the open ends of a phrase
# ("in", "on": `garbles.OPEN_ENDS`) or a verb that needs more ("was": `garbles.dangles`).
# Given only `CUT_WORDS`, the 1.5B ended a clause on "in" and went on after a comma ("...
# the vibrant entrepreneurial scene in, for the most of China."). A line written otherwise
# that ends so is read by the garble tests, which let it where what it cites ends so too
# ("the house he lived in.", "... as he was.")
CLAUSE_OPEN = (CUT_WORDS | garbles.OPEN_ENDS | garbles.AUXILIARIES
               | frozenset("upon like via per such every".split()))
# and in French, German, Spanish and Russian evidence: their articles, conjunctions and
# the prepositions that do not end a clause (not German's "an", "auf", "mit": "Er hörte
# auf."; not for English: "... they die.", "... a con.")
CUT_WORDS_OTHER = frozenset("""
le la les un une des du de et au aux ou mais der die das den dem ein eine einen einem einer
eines und oder dass el los las y del al con por para que и в во на с со к ко по за из от до
для о об а но или""".split())
# those that are English words too: an English line may end on one ("... they die.")
_CUT_ELSEWHERE = CUT_WORDS_OTHER - {"die", "con", "den"}
# "while" ends a sentence after an article only ("all the while", "for a while")
_WHILE = re.compile(r"\b(?:the|a)\s+while\W*$", re.IGNORECASE)


JA_CLAUSE_ENDS = "がてでとにをはのもばへや、"  # a Japanese line ending on one ends mid-clause


def cut(text: str) -> bool:
    """A bound line the grammar's word limit ended: at the limit, or on a word that cannot
    end a sentence ("... growing strong and.", "本庄は丹後国の者で。"). The grammar ends
    a line on another word (`_clause`); this reads a line written without it."""
    if KANA.search(text):
        return text.rstrip("。").endswith(tuple(JA_CLAUSE_ENDS))
    words = re.findall(r"\w+", text)
    if len(words) >= BOUND_WORDS:
        return True
    last = words[-1].lower() if words else ""
    if last == "while":
        return not _WHILE.search(text)
    return last in CUT_WORDS or last in _CUT_ELSEWHERE
