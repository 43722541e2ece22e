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
# the pronoun "I" contracted: never part of a name, so it ends a run of capitalised words
# ("at Purdue I'm like ..." is no name "Purdue I'm") (`stages/ground.py`)
I_CONTRACTED = frozenset("I'm I've I'll I'd I’m I’ve I’ll I’d".split())
# words after which "I" is a number, not the pronoun: "World War I", "Part I", "Henry I"
# (`stages/ground.py`; elsewhere an "I" followed by a lower-case word is the pronoun:
# "in London I think ...", "on the Google Brain Team I feel ...")
NUMBERED = frozenset("""War Part Chapter Book Volume Vol Act Scene Stave Phase Type Class Title
Article Section Schedule Appendix Annex Exhibit Level Stage Grade Tier Round Series Mark Model
Henry Edward George Charles James William Richard John Mary Elizabeth Anne Victoria Louis
Philip Peter Catherine Napoleon Napoléon Alexander Nicholas Frederick Francis Ferdinand Leo
Pius Gregory Paul Otto Wilhelm Carlos Felipe Juan Isabella Pedro Alfonso Robert David Malcolm
Constantine Justinian Darius Ptolemy""".split())
# words of a job or office: after a person's name, words that say who they are ("Kevin
# Scott Chief Technology Officer"), not an institution named after them ("Port Aldren Town
# Council", "the Kevin Scott Foundation") (`stages/aliases.py`)
OFFICES = frozenset("""officer director president chief executive founder cofounder ceo cto
cfo coo chairman chairwoman chair professor manager head lead engineer scientist researcher
partner advocate editor author host producer anchor correspondent reporter secretary minister
senator governor mayor""".split())
