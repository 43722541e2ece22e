"""What keeps a writer from copying its evidence: a rule the decoder applies to each token
it is about to take (`decode.Decoder._pick`).

A reply's written lines ("- ..."; not its headings) may not repeat `Avoid.words` words in
a row of any of the texts they were written from: a token that would complete such a run
is not taken, and the best other token the grammar admits is. A word counts from its
first characters ("Scro" of "Scrooge"), so the run is stopped before the word is spelled
out rather than after. Words are `\\w+` runs, compared lower-cased: the rule is for
languages written with spaces (a line in Chinese or Japanese is one "word" to it, and it is
not asked there).

With `Avoid.repeats`, a line may not say a run of that many of its own words twice either
(a loop: "Scrooge's niece indignantly said, Scrooge's niece indignantly said"), its words
counted with their apostrophes ("niece's" one word); and, with `Avoid.plain` (the function
words), it may not become what the check drops as a loop (`looping`, which
`garbles.loops` applies to every written line): bound to one sentence's words, the 1.5B
wrote "Scrooge's niece indignantly said, Scrooge's niece." ("scrooge s niece" twice: the
check splits words at apostrophes) and "The Ghost had an unaltered future that would be
unaltered by the future of his future.", both dropped after they were written.

This module does not import llama_cpp; it works on text."""

from __future__ import annotations

import re
from collections import Counter

from .protocol import Avoid

_WORD = re.compile(r"\w+")
_SAID = re.compile(r"\w+(?:['’]\w+)*")  # a word with its apostrophes, for `_loops`


def looping(words: list[str], plain: frozenset[str]) -> bool:
    """Whether a line of these lower-cased `\\w+` words loops: it says a run of three words
    twice (two of them not `plain`: "Scrooge's nephew said, Scrooge's nephew said") or three
    times ("as a as a as a"), or a word not `plain` three times ("The cooperative is
    cooperative, which is a cooperative ..."). A run of function words and one other said
    twice is how sentences go ("when he told them this, and trembled more when he said
    that ..."): 7 of the 44 lines dropped as loops in the stored runs were such, none said it
    three times."""
    runs = Counter(tuple(words[i:i + 3]) for i in range(len(words) - 2))
    if any(n >= 3 or n == 2 and sum(w not in plain for w in run) >= 2
           for run, n in runs.items()):
        return True
    content = Counter(w for w in words if w not in plain)
    return any(n >= 3 for n in content.values())


def _names(text: str) -> list[tuple[int, int]]:
    """Where the names of `text` start (as its `\\w+` words, counted from 0) and how many
    words each is: two or more capitalised words with one space between ("Port Aldren Town
    Council", "Tiny Tim")."""
    found, start, prev_end, count = [], -1, -1, 0
    for i, m in enumerate(_WORD.finditer(text)):
        joined = start >= 0 and text[prev_end:m.start()] == " "
        if m.group()[0].isupper():
            if not joined:
                if count >= 2:
                    found.append((start, count))
                start, count = i, 0
            count += 1
        else:
            if count >= 2:
                found.append((start, count))
            start, count = -1, 0
        prev_end = m.end()
    if count >= 2:
        found.append((start, count))
    return found


class CopyGuard:
    def __init__(self, avoid: Avoid):
        n = self.words = avoid.words
        self.repeats = avoid.repeats
        self.plain = avoid.plain
        self.next: dict[tuple[str, ...], set[str]] = {}  # n-1 words -> the words after them
        # the words before a name of a source -> the name's first word, by the name's length
        # in words: began there, the name would finish a run of n
        self.names: dict[int, dict[tuple[str, ...], set[str]]] = {}
        self.doubled: set[str] = set()  # the words a source says twice in a row ("Fei Fei")
        self._text, self._copied = "", False  # the last text asked about, and whether it copies
        for text in avoid.texts:
            words = _WORD.findall(text.lower())
            self.doubled.update(a for a, b in zip(words, words[1:]) if a == b)
            for i in range(len(words) - n + 1):
                self.next.setdefault(tuple(words[i:i + n - 1]), set()).add(words[i + n - 1])
            for i, count in _names(text):
                for length in range(2, count + 1):  # the name, or its first words
                    if 0 < n - length <= i:
                        self.names.setdefault(length, {}).setdefault(
                            tuple(words[i - n + length:i]), set()).add(words[i])

    def copies(self, text: str, begun: bool = True) -> bool:
        """Whether the last line of `text` ends on `words` words in a row of a source, or on
        a run of `repeats` words it said before (its last word possibly begun only), or is
        a loop (`looping`; its last word taken as begun only if `begun`)."""
        line = text[text.rfind("\n") + 1:]
        if not line.startswith("- "):
            return False
        words = _WORD.findall(line.lower())
        open_word = _WORD.match(line[-1]) is not None
        if self.repeats and self._loops(_SAID.findall(line[2:].lower()), open_word):
            return True
        if self.plain and self._looping(line[2:], open_word and begun):
            return True
        if self.plain and self._stutters(words, open_word and begun):
            return True
        if self._starts_name(words, open_word):
            return True
        if len(words) < self.words:
            return False
        after = self.next.get(tuple(words[-self.words:-1]))
        if not after:
            return False
        last = words[-1]
        if _WORD.match(line[-1]):  # a word still being written
            return any(w.startswith(last) for w in after)
        return last in after

    def _starts_name(self, words: list[str], open_word: bool) -> bool:
        """Whether the line's last word (possibly begun only) begins a name of a source
        whose words, spelled out, would finish a run of `words` words of it: stopped at its
        last word, a name once begun went into another word ("the mayor of Port Although"
        for "... Port Aldren")."""
        last = words[-1] if words else ""
        for length, before in self.names.items():
            k = self.words - length
            if len(words) > k and (firsts := before.get(tuple(words[-k - 1:-1]))):
                if any(f.startswith(last) for f in firsts) if open_word else last in firsts:
                    return True
        return False

    def _stutters(self, words: list[str], open_word: bool) -> bool:
        """Whether the line's last word (possibly begun only) says the word before it again,
        as no source does: the check drops such a line (`garbles.stutters`: "the few few
        ...", "very very"), 6 of the podcast's 75 dropped lines."""
        if len(words) < 2 or words[-2] in self.doubled:
            return False
        return words[-2].startswith(words[-1]) if open_word else words[-2] == words[-1]

    def _loops(self, words: list[str], open_word: bool) -> bool:
        """Whether the line's last `repeats` words are a run it said before (its last word
        possibly begun only)."""
        k = self.repeats
        if len(words) <= k:
            return False
        *head, last = words[-k:]
        for i in range(len(words) - k):
            run = words[i:i + k]
            if run[:-1] == head and (run[-1].startswith(last) if open_word else run[-1] == last):
                return True
        return False

    def _looping(self, said: str, open_word: bool) -> bool:
        """Whether the line's text (up to its citations) is a loop (`looping`), its last
        word, if begun only, taken as any word it said before that begins so."""
        words = _WORD.findall(said.split("[", 1)[0].lower())
        if not words:
            return False
        if not open_word or "[" in said:
            return looping(words, self.plain)
        *head, last = words
        return any(looping(head + [w], self.plain) for w in set(head) if w.startswith(last))

    def bans(self, text: str, piece: str) -> bool:
        """Whether appending `piece` to `text` makes a copy that `text` was not (`text` is
        the same for every token weighed at one step: read once)."""
        if text != self._text:  # a loop already there is one of whole words ("Scrooge's"
            # before a token is no word begun: "s" would be "said" said a third time)
            self._text, self._copied = text, self.copies(text, begun=False)
        return bool(piece) and not self._copied and self.copies(text + piece)
