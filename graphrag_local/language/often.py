"""Whether a question asks how often something comes up, or where it comes up most, and
what that something is: "How often do guests mention collaboration with other companies?"
(collaboration with other companies), "Which guests speak the most about educational
technology?" (educational technology), "What are the most frequently mentioned challenges
in the tech industry?" (challenges in the tech industry). Such a question is answered
first by a count of the passages about it, by document (`search/tally.py`): themes alone
do not say how often, and answered so, "Which guests speak the most about educational
technology?" got ten topics, one on a Bitcoin wallet.

What is counted is the question's words after what it is asked of ("about", "of",
"mention", "discuss", ...), without its frame ("compared to other topics", "in their
interviews"): embedded whole, the question is nearest the host's own questions ("How did
you start in tech as a kid?").

English only, deliberately: the counting rests on the embedder's nearness, and the
embedder reads English. A question in another language is answered without a count."""

from __future__ import annotations

import re

_ASKS = re.compile(
    r"\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\b"
    r"|\b(?:most|more|less)\s+(?:often|frequently)\b"
    r"|\bfrequently\s+(?:mention|mentions|mentioned|discuss|discusses|discussed|talk|talks"
    r"|speak|speaks|cite|cites|cited|raise|raises|raised)\b"
    r"|\b(?:speak|speaks|spoke|talk|talks|talked|write|writes|wrote|say|says|said|mention"
    r"|mentions|mentioned|discuss|discusses|discussed)\s+(?:the\s+)?most\b",
    re.IGNORECASE)
# what the counted thing follows: the first of these after the question's "how often"
# (a verb's object before a preposition's: "members of the council mention flooding")
_PIVOT = re.compile(
    r"\b(?:about|regarding|concerning|mention|mentions|mentioned|mentioning|discuss"
    r"|discusses|discussed|discussing|cite|cites|cited|raise|raises|raised|address"
    r"|addresses|addressed)\s+", re.IGNORECASE)
_OF = re.compile(r"\b(?:of|on)\s+", re.IGNORECASE)
_AUXILIARY = re.compile(r"^\s*(?:do|does|did|is|are|was|were|has|have|had)\s+", re.IGNORECASE)
# "What obstacles do guests frequently mention ...?": the verb's object is what it opens with
_OPENING = re.compile(r"^\s*(?:what|which)\s+(?P<thing>.+?)\s+(?:do|does|did|are|is|were|was"
                      r"|have|has)\s", re.IGNORECASE)
_NO_OBJECT = re.compile(r"^\s*(?:when|while|and|in|during|as|\?|$)", re.IGNORECASE)
# the question's frame after the counted thing
_FRAME = re.compile(
    r"\s+(?:(?:arise|arises|arose|come|comes|came|appear|appears|appeared|occur|occurs"
    r"|occurred|happen|happens|happened|feature|features|featured|show|shows)\b"
    r"|compared\s+(?:to|with)\b"
    r"|(?:in|during|across|throughout)\s+(?:their|the|these|his|her|our|all)?\s*"
    r"(?:conversations?|discussions?|interviews?|episodes?|documents?|podcasts?|talks?"
    r"|texts?|stories|story|books?|articles?)\b"
    r"|(?:broached|presented|brought|raised|discussed|mentioned|talked)\b).*$",
    re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:the|a|an|any|some|specific|particular|topic|issue|subject"
                      r"|importance|idea|question)\s+(?:of\s+)?)+", re.IGNORECASE)


def asked_often(question: str) -> str:
    """What `question` asks how often it comes up ("educational technology"), or "" when
    it does not ask so (or says nothing of what)."""
    asks = _ASKS.search(question)
    if asks is None:
        return ""
    rest = question[asks.end():]
    opening = _OPENING.match(question[:asks.start()])
    if opening is not None and _NO_OBJECT.match(rest):
        rest = opening.group("thing")
    elif (pivot := _PIVOT.search(rest) or _OF.search(rest)) is not None:
        rest = rest[pivot.end():]
    else:  # "How often does the Lantern Festival come up?"
        rest = _AUXILIARY.sub("", rest)
    topic = _FRAME.sub("", rest.strip().rstrip("?.!").strip())
    topic = _LEADING.sub("", topic).strip(" ,;:")
    return topic if re.search(r"\w{3}", topic) else ""
