"""Whether a written line stands on what it cites (issue 30): not looping, garbled or cut
(`garbles.py`, `GARBLES`), and one cited sentence saying all it says (`support.check_one`);
and, in a focused answer, whether it says something of what was asked (`asked_about`).

What it deliberately does not do: read the writer's reply (`written.py` does, line by
line, with the tests that need the writer or the answer: unlikely tokens, a line read
again, a line that retells another)."""

from __future__ import annotations

from collections.abc import Callable

from .. import garbles, support
from ..sentences import words
from .bound import cut


def said_of(text: str) -> frozenset[str]:
    """The content words of `text` (three letters or more, not function words), by their
    first five letters ("knocker", "knock" alike)."""
    return frozenset(w[:5] for w in words(text)
                     if w.isalpha() and len(w) >= 3 and w not in support.FUNCTION_WORDS)


def asked_about(question: str, evidence: list[str]) -> frozenset[str]:
    """The question's content words that its evidence says: a focused answer's line says
    one of them, or it is beside the question. Written from a focused answer's evidence,
    the 1.5B answered Carol's "What did Scrooge see in the knocker on his door?" with "The
    Ghost smiled thoughtfully, and waved its own hand." alone (true; the knocker's sentence
    was its evidence too), and "Who chairs the Greywater Fishing Cooperative?" with, after
    the answer, "Tobias Renn is the chief engineer of the Aldren Water Trust.": of the 72
    lines kept in the sample's and Carol's fact answers (global and drift), 5 such, none
    holding the asked fact. Only where the question is about one thing (its best sentence
    near it: `themes.focus_of`), and in English: a broad question's answer may answer it
    in other words. A name of several words counts by its last, the word it names a thing
    by: "Who founded the Aldren Water Trust?" is not asked about "Port Aldren" ("The
    Greywater Fishing Cooperative represents thirty fishing families in Port Aldren." was
    kept under it), and "the Trust" says it."""
    said = frozenset().union(*(said_of(t) for t in evidence)) if evidence else frozenset()
    names = support.spaced_runs(question)
    modifiers = said_of(" ".join(w for run in names for w in run[:-1]))
    heads = said_of(" ".join(run[-1] for run in names))
    return (said_of(question) - (modifiers - heads)) & said


# the tests of a garble (`garbles.py`) a line is read by after its loops and its cut, in
# order, each with why a line it finds is dropped ("{}": what it found)
GARBLES: tuple[tuple[Callable[[str, list[str]], str | bool], str], ...] = (
    (garbles.cut_short, "ends inside a phrase of what it cites"),
    (garbles.stops_at_opening, "ends on '{}', the opening of a clause it leaves out"),
    (garbles.miscased, "writes '{}' with a capital where what it cites does not (garbled)"),
    (garbles.gapped, "leaves a word out of what it cites ('{}')"),
    (garbles.beheaded, "leaves '{}' out of what it cites, and says the rest of another thing"),
    (garbles.swapped, "turns '{}' of a phrase it cites (garbled)"),
    (garbles.misspelt, "turns '{}' of a phrase it cites (garbled)"),
    (garbles.unjoined, "runs '{}' together where what it cites joins them (garbled)"),
    (garbles.dangles, "ends on a verb that needs more"),
    (garbles.stutters, "says '{}' twice in a row (garbled)"),
    (garbles.says_again, "says '{}' again a few words on (garbled)"),
    (lambda text, _cited: garbles.names_only(text), "names something and says nothing of it"),
    (lambda text, _cited: garbles.says_little(text),
     "names nothing and says too little to stand alone"),
    (lambda text, _cited: garbles.leans_back(text),
     "ends on '{}' and does not say what it is"),
    (garbles.verbless, "has no verb: it is not a sentence"),
    (garbles.attribution_only, "says who spoke and not what they said"),
    (garbles.misnumbered, "puts 'a' before a plural ('{}', garbled)"),
    (garbles.article_before, "puts '{}' together, an article before a word that takes none (garbled)"),
    (garbles.label_as_address,
     "opens with '{}', who speaks in what it cites, as if speaking to them (garbled)"),
    (garbles.addressee_as_subject,
     "tells of '{}', whom what it cites only speaks to"),
    (garbles.speech_left_out, "ends on '{}' and leaves out what was said"),
    (garbles.reflexive_subject,
     "says '{}' of one who does something, and not who (garbled)"),
    (garbles.relative_swapped, "says '{}' where what it cites says where or when"),
    (lambda text, _cited: garbles.asks_flatly(text),
     "asks a question as if it stated something (garbled)"),
    (garbles.truncated_name, "says '{}', a name cut short of what it cites"),
)


def verdict(text: str, sources: list[str], bound: bool = True) -> tuple[bool, str]:
    """Whether a written line stands on the sentences it cites (`sources`), and if not,
    why: not looping, garbled or cut, and one cited sentence saying all it says
    (`support.check_one`). Checked against all it cites together (`support.check`), the
    bound 1.5B's lines passed joins of two or three sentences that none says: of 91
    labelled (docs/eval_runs/writer_bound_labels.jsonl: Carol's themes, two questions on
    12 stories, three on the podcast), the lines kept were 77% supported, on Carol 11 of
    16 ("The Ghost had an expectation that the conduct of Jacob ..." of "he had an
    expectation ..." and "... the death of Jacob"); held to one sentence, 87% (88% with
    `support.misattached`), on Carol 11 of 12, and 45 of the 53 supported lines kept
    instead of 49 (`scripts/eval_support.py`)."""
    if garbles.loops(text):
        return False, "repeats itself"
    if doubled := garbles.doubled_name(text, sources=sources):
        return False, f"says '{doubled}' twice (garbled)"
    if bound and cut(text):
        return False, "cut off at the word limit"
    for test, reason in GARBLES:
        if found := test(text, sources):
            return False, reason.format(found)
    checked = support.check_one(text, sources)
    return checked.ok, checked.reason
