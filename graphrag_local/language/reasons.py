"""Whether a question asks for a reason, in the languages of the index's documents. A
reason is seldom said in the sentence nearest such a question, which restates what is
asked about ("The Aldren Water Trust opposes a plan to dredge Aldren Harbour."), but
beside it ("Mara Quill argues that dredging would damage the mouth of the River
Aldren."): search then reads the sentences around its nearest ones too
(`search/evidence.SentenceIndex.explained`)."""

from __future__ import annotations

import re

_WHY = re.compile(
    r"\b(?:why|how come|for what reason|what (?:caused|causes|made|makes|led to|leads to)"
    r"|warum|wieso|weshalb|weswegen|pourquoi|por ?qu[eé]|почему|отчего|зачем)(?!\w)"
    r"|为什么|為什麼|为何|為何|なぜ|どうして", re.IGNORECASE)


def asks_why(question: str) -> bool:
    """Whether `question` asks for a reason ("Why did the Trust oppose the dredging?",
    "Warum ...?", "Почему ...?", "为什么 ...?")."""
    return bool(_WHY.search(question))
