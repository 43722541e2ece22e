"""English closed-class words that more than one stage reads."""

from __future__ import annotations

# prepositions (and "like", "as"): the words the support check reads as linking a name to
# what follows (`support.py`, `garbles.py`), and that the alias stage takes for no name
# when one stands alone (`stages/aliases.py`, with the rarer ones of `MORE_PREPOSITIONS`)
PREPOSITIONS = frozenset("""of for at in on to from with near into onto about over under beside
through during after before since until across along around between among against toward
towards upon within without like as""".split())
# the rest of the class, rarer between two names: not read by the check
MORE_PREPOSITIONS = frozenset("""above amid behind below beneath besides beyond despite except
inside outside past throughout underneath unlike""".split())
# nouns of kin and household that, after a name's possessive, name a person: one the text
# may never name otherwise ("Scrooge's niece"), or names less often than so (Carol's
# "Scrooge's nephew", 17 sentences, against "Fred", 9) (`stages/ground.py`); such a name
# is no full name of the one whose kin it is (`stages/aliases.py`)
KIN = frozenset("""nephew niece wife husband sister brother father mother son daughter uncle
aunt cousin widow grandfather grandmother grandson granddaughter clerk partner servant
housekeeper maid""".split())
