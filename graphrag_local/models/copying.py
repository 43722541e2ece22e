"""What keeps a writer from copying its evidence: a rule the decoder applies to each token
it is about to take (`decode.Decoder._pick`).

A reply's written lines ("- ..."; not its headings) may not repeat `Avoid.words` words in
a row of any of the texts they were written from: a token that would complete such a run
is not taken, and the best other token the grammar admits is. A word counts from its
first characters ("Scro" of "Scrooge"), so the run is stopped before the word is spelled
out rather than after. Words are `\\w+` runs, compared lower-cased: the rule is for
languages written with spaces (a line in Chinese or Japanese is one "word" to it, and it is
not asked there). A run that one of `Avoid.free` says is not held to it (a short sentence
of the evidence, which the writer may say as it is: `search/replies.guarded`).

With `Avoid.repeats`, a line may not say a run of that many of its own words twice either
(a loop: "Scrooge's niece indignantly said, Scrooge's niece indignantly said"), its words
counted with their apostrophes ("niece's" one word).

Nor may a line begin a name of a source where the name, spelled out, would finish such a
run (`_starts_name`): stopped at the run's last word, a name once begun went into another
word ("the mayor of Port Although" for "... of Port Aldren").

This module does not import llama_cpp; it works on text."""

from __future__ import annotations

import re

from .protocol import Avoid

_WORD = re.compile(r"\w+")
_SAID = re.compile(r"\w+(?:['’]\w+)*")  # a word with its apostrophes, for `_loops`


def _names(text: str) -> list[tuple[int, int]]:
    """Where the names of `text` start (counted in its `\\w+` words, from 0) and how many
    words each is: two or more capitalised words with one space between ("Port Aldren Town
    Council", "Tiny Tim")."""
    found, start, prev_end, count = [], -1, -1, 0
    for i, m in enumerate(_WORD.finditer(text)):
        if m.group()[0].isupper():
            if not (count and text[prev_end:m.start()] == " "):
                if count >= 2:
                    found.append((start, count))
                start, count = i, 0
            count += 1
        else:
            if count >= 2:
                found.append((start, count))
            count = 0
        prev_end = m.end()
    if count >= 2:
        found.append((start, count))
    return found


class CopyGuard:
    def __init__(self, avoid: Avoid):
        n = self.words = avoid.words
        self.repeats = avoid.repeats
        self.next: dict[tuple[str, ...], set[str]] = {}  # n-1 words -> the words after them
        # by a name's length in words (its first words count too), the words before it ->
        # its first word: begun there, the name would finish a run of n
        self.names: dict[int, dict[tuple[str, ...], set[str]]] = {}
        self._text, self._copied = "", False  # the last text asked about, and whether it copies
        free = {tuple(w[i:i + n]) for text in avoid.free for w in [_WORD.findall(text.lower())]
                for i in range(len(w) - n + 1)}  # runs a line may say (`Avoid.free`)
        for text in avoid.texts:
            words = _WORD.findall(text.lower())
            for i in range(len(words) - n + 1):
                if tuple(words[i:i + n]) not in free:
                    self.next.setdefault(tuple(words[i:i + n - 1]), set()).add(words[i + n - 1])
            for i, count in _names(text):
                for length in range(2, count + 1):
                    if 0 < n - length <= i and tuple(words[i - n + length:i + length]) not in free:
                        self.names.setdefault(length, {}).setdefault(
                            tuple(words[i - n + length:i]), set()).add(words[i])

    def copies(self, text: str) -> bool:
        """Whether the last line of `text` ends on `words` words in a row of a source, or on
        a run of `repeats` words it said before (its last word possibly begun only)."""
        line = text[text.rfind("\n") + 1:]
        if not line.startswith("- "):
            return False
        words = _WORD.findall(line.lower())
        if self.repeats and self._loops(_SAID.findall(line[2:].lower()),
                                        _WORD.match(line[-1]) is not None):
            return True
        if self._starts_name(words, _WORD.match(line[-1]) is not None):
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
        that, spelled out, would finish a run of `words` words of it ("Port", after "Elena
        Voss is the mayor of", of "Elena Voss is the mayor of Port Aldren")."""
        last = words[-1] if words else ""
        for length, before in self.names.items():
            k = self.words - length
            if len(words) > k and (firsts := before.get(tuple(words[-k - 1:-1]))):
                if any(f.startswith(last) for f in firsts) if open_word else last in firsts:
                    return True
        return False

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

    def bans(self, text: str, piece: str) -> bool:
        """Whether appending `piece` to `text` makes a copy that `text` was not (`text` is
        the same for every token weighed at one step: read once)."""
        if text != self._text:
            self._text, self._copied = text, self.copies(text)
        return bool(piece) and not self._copied and self.copies(text + piece)
