"""German capitalises every noun, so a capital letter says nothing about a name there.
What does: whether the word is a form of a common noun. The list is german-nouns
(~100,000 nouns with all their inflected forms, from the German Wiktionary, CC BY-SA
4.0): a word that is a form of a noun listed as a plain noun ("Zeit", "Jahre",
"Augen"), or a compound ending in one ("Kirchhofsmauer"), is not a name; one listed only
as a first name, surname or place ("Hertha", "Berlin"), or not listed ("Effi",
"Innstetten"), may be. A word that is both a noun and a surname ("Stein") counts as a
noun: in German text the noun is the likelier reading. Measured on Effi Briest
chapters 1-3: the rule based on a preceding article caught 2 of 14 mentions of "Zeit";
the list catches them all. Loaded on first use (about a second), for German text only."""

from __future__ import annotations

import csv
from functools import lru_cache

_NAMES = ("Vorname", "Nachname", "Toponym", "Eigenname")


@lru_cache(maxsize=1)
def common_nouns() -> frozenset[str]:
    """Every form (case-folded) of every German noun that is no name."""
    from importlib.resources import files

    forms: set[str] = set()
    with files("german_nouns").joinpath("nouns.csv").open(encoding="utf-8") as f:
        rows = csv.reader(f)
        header = next(rows)
        form_columns = [i for i, h in enumerate(header) if h.startswith(("nominativ", "genitiv",
                                                                         "dativ", "akkusativ"))]
        for row in rows:
            if not row or len(row) < 2:
                continue
            if any(k in row[1] for k in _NAMES):
                continue
            words = {row[0]} | {row[i] for i in form_columns if i < len(row) and row[i]}
            forms.update(w.casefold() for w in words if " " not in w)
    return frozenset(forms)


def is_common_noun(word: str, shortest_part: int = 4) -> bool:
    """`word` is a form of a common noun, or a compound of two ("Kirchhofs" + "mauer",
    the linking "s", "e" or "n" allowed)."""
    nouns = common_nouns()
    word = word.casefold()
    if word in nouns:
        return True
    if "-" in word:
        return False  # "Hohen-Cremmen": a hyphenated name
    for i in range(shortest_part, len(word) - shortest_part + 1):
        head, tail = word[:i], word[i:]
        if tail in nouns and (head in nouns or (head[-1] in "sen" and head[:-1] in nouns)):
            return True
    return False


# titles: nouns that belong to the name after them ("Frau von Briest", "Baron Innstetten")
TITLES = frozenset("frau herr herrn fräulein baron baronin graf gräfin fürst fürstin major "
                   "hauptmann pastor doktor professor kantor landrat geheimrat onkel tante "
                   "vetter kaiser kaiserin könig königin prinz prinzessin".split())


_CONNECTORS = frozenset("von vom der des den dem die das und zu zur zum van de".split())


def name_pieces(span: str) -> list[str]:
    """A capitalised run cut at its common nouns: "Obamas Sonderberaterin Kori Schulman" ->
    ["Obamas", "Kori Schulman"], "Hauptstadt Belgrad" -> ["Belgrad"], "Schicksal der
    Republik" -> []. A noun after a capitalised adjective stays ("Vereinigten Staaten",
    "Republikanischen Partei"); so does a one-word span (the cleaning decides about it)."""
    words = span.split()
    if len(words) < 2:
        return [span]
    pieces: list[list[str]] = [[]]
    for i, w in enumerate(words):
        adjective_before = i > 0 and words[i - 1][:1].isupper() and not is_common_noun(
            words[i - 1]) and words[i - 1].lower().endswith(("en", "er", "es", "e"))
        if w.lower() in _CONNECTORS:
            pieces[-1].append(w)
        elif is_common_noun(w) and not adjective_before and w.casefold() not in TITLES:
            pieces.append([])
        else:
            pieces[-1].append(w)
    out = []
    for p in pieces:
        while p and p[0].lower() in _CONNECTORS:
            p.pop(0)
        while p and p[-1].lower() in _CONNECTORS:
            p.pop()
        if p and not all(w.casefold() in TITLES for w in p):
            out.append(" ".join(p))
    return out
