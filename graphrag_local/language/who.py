"""Whether a question asks for a name (who, whose, where, which, "what is the name"), in
the languages of the index's documents. The sentences nearest such a question are often
about what it names: "What is the name of Scrooge's nephew?" is nearest to sentences of
Scrooge and his nephew, not to the one naming Fred; "At which venture firm is Reid Hoffman
a partner?" to sentences of Reid Hoffman, not to the one naming Greylock. Search then
ranks a sentence naming an entity the question does not name above near ones that name
none (`search/evidence.SentenceIndex.naming_others`).

Deliberately by the question's words only: the answer's type (person, place) is not
asked of the tiny model, whose entity types are at chance on such choices ("Christmas
Eve" is a PERSON on Carol)."""

from __future__ import annotations

import re

_WHO = re.compile(
    r"\b(?:who|whom|whose|where|which|what (?:is|was|are|were) the names?"
    r"|wer|wem|wen|wessen|wo|woher|wohin|welche[rsmn]?"
    r"|qui|o[uù]|quel(?:le)?s?"
    r"|qui[eé]n(?:es)?|d[oó]nde|cu[aá]l(?:es)?"
    r"|кто|кого|кому|кем|чей|чья|чьё|чьи|где|куда|откуда|как(?:ой|ая|ое|ие|ом|ого))(?!\w)"
    r"|谁|誰|哪|什么地方|だれ|どこ|どの|何という",
    re.IGNORECASE)


def asks_name(question: str) -> bool:
    """Whether `question` asks for a name: "Who is the clerk to Ebenezer Scrooge?",
    "Whose wife is Mrs. Cratchit?", "At which venture firm ...?", "Wo liegt ...?", "Кто
    ...?", "谁 ...?"."""
    return bool(_WHO.search(question))
