"""A question asking for a reason, and the sentences beside its nearest ones
(`language/reasons.py`, `SentenceIndex.explained`), on a hand-made sentence index whose
vectors say exactly how near each sentence is to the question."""

import numpy as np
import pytest
from fakes import near_index

from graphrag_local.language.reasons import asks_why
from graphrag_local.search.evidence import REASON_MARGIN, SentenceIndex

pytestmark = pytest.mark.fast


def test_a_question_asking_for_a_reason_is_told_in_each_language():
    for q in ["Why did the Trust oppose the dredging?", "How come the road closed?",
              "What caused the flood?", "Warum kam der Geist?", "Pourquoi est-il parti ?",
              "¿Por qué se fue?", "Почему он ушёл?", "他为什么走了？", "彼はなぜ去ったのか"]:
        assert asks_why(q), q
    for q in ["Who founded the Aldren Water Trust?", "How many homes did the flood damage?",
              "When did the vote take place?", "Did Whyte Street flood?"]:
        assert not asks_why(q), q


# chunk text, then (sentence, nearness to the question) in order
TEXT = ("The trust opposes the plan. Ann argues the plan would harm the river.\n\n"
        "Bo builds boats in the harbour.\n\n"
        "'You are fettered. Tell me why?'\n\n"
        "'I wear the chain I forged in life,' replied the Ghost.")
NEAR = [("The trust opposes the plan.", 0.9), ("Ann argues the plan would harm the river.", 0.3),
        ("Bo builds boats in the harbour.", 0.5), ("'You are fettered.", 0.4),
        ("Tell me why?'", 0.6),
        ("'I wear the chain I forged in life,' replied the Ghost.", 0.2)]


def index() -> SentenceIndex:
    return near_index(TEXT, NEAR)


def test_a_reason_beside_the_nearest_sentence_ranks_just_below_it():
    s, q = index(), np.asarray([1, 0, 0], dtype=np.float32)
    plain = [s.text(r) for r in s.nearest(q, 3)]
    assert "Ann argues the plan would harm the river." not in plain
    explained = s.explained(q)
    near = explained.similarity(q)
    assert [explained.text(r) for r in explained.nearest(q, 2)] == [
        "The trust opposes the plan.", "Ann argues the plan would harm the river."]
    assert near[1] == pytest.approx(0.9 - REASON_MARGIN, abs=1e-4)
    # not across a paragraph ("Bo builds boats" keeps its own nearness) ...
    assert near[2] == pytest.approx(0.5, abs=1e-4)
    # ... but for the answer to a question that ends one
    assert near[5] == pytest.approx(0.6 - REASON_MARGIN, abs=1e-4)
    assert near[3] == pytest.approx(0.6 - REASON_MARGIN, abs=1e-4)  # and the question's own
    assert s.similarity(q)[1] == pytest.approx(0.3, abs=1e-4)  # the index itself unchanged
