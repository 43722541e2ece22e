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
    """`word` is a form of a common noun, or a compound whose last part is one."""
    nouns = common_nouns()
    word = word.casefold()
    if word in nouns:
        return True
    if "-" in word:
        return False  # "Hohen-Cremmen": a hyphenated name
    return any(word[i:] in nouns for i in range(3, len(word) - shortest_part + 1))
