"""A question asking for an amount or a time, the sentences that state one
(`language/amounts.py`), and their lift in the index as such a question sees it
(`SentenceIndex.measured`), on a hand-made index whose vectors say how near each sentence
is to the question."""

import numpy as np
import pytest
from fakes import near_index

from graphrag_local.language.amounts import (
    COUNT,
    LONG,
    MONEY,
    WHEN,
    asks_amount,
    states_amount,
)
from graphrag_local.search.evidence import AMOUNT_LIFT, SentenceIndex

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("question, kind, counted", [
    ("How long has Marley been dead?", LONG, ""),
    ("How old is Tiny Tim?", LONG, ""),
    ("In what year did Andrew Ng write the paper?", WHEN, ""),
    ("When did the Millbrook Flood happen?", WHEN, ""),
    ("How many homes did the flood damage?", COUNT, "homes"),
    ("How much money did the council give the trust?", MONEY, ""),
    ("How much does Bob Cratchit earn a week?", MONEY, ""),
    ("How much flour is left?", COUNT, ""),
    ("Wann kam der Geist?", WHEN, ""),
    ("Wie viele Häuser wurden beschädigt?", COUNT, "häuser"),
    ("En quelle année la maison était-elle habitée ?", WHEN, ""),
    ("¿Con qué edad frisaba nuestro hidalgo?", LONG, ""),
    ("Сколько рублей я проиграл Зурину?", COUNT, "рублей"),
    ("细川忠利是什么时候死的？", WHEN, ""),
    ("細川忠利は何歳で亡くなったか？", LONG, ""),
])
def test_a_question_asking_for_an_amount_or_a_time_is_told_with_its_kind(question, kind, counted):
    asked = asks_amount(question)
    assert asked is not None and (asked.kind, asked.counted) == (kind, counted)


@pytest.mark.parametrize("question", [
    "Who founded the Aldren Water Trust?", "Why did the river flood?",
    "What are the main themes of the story?", "Wer ist Effi?", "阿Q是谁？"])
def test_other_questions_ask_for_no_amount(question):
    assert asks_amount(question) is None


def test_a_sentence_states_the_kind_of_value_asked():
    long = asks_amount("How long has Marley been dead?")
    assert states_amount("'Mr. Marley has been dead these seven years,' Scrooge replied.", long)
    assert states_amount("... his seven-years'-dead partner that afternoon.", long)
    assert states_amount("Lena Castell has directed the festival since 2019.", long)
    assert states_amount("The festival took place from 18 August to 20 August 2023.", long)
    assert states_amount("他在这里住了七年。", long)
    assert not states_amount("Marley was dead, to begin with.", long)
    assert not states_amount("'Half past,' said Scrooge.", long)  # a number, no length
    assert not states_amount("So Martha hid, with at least three feet of comforter.", long)
    when = asks_amount("In what year did he publish the first paper?")
    for text in ["There was this work, and you published the first paper in 2000.",
                 "JUDY ESTRIN: I think in '79 or '80.", "It was on a Tuesday.",
                 "It was as long as this seven Christmas Eves ago."]:
        assert states_amount(text, when), text
    assert not states_amount("He published many papers with his two students.", when)
    spirits = asks_amount("How many spirits visit Scrooge?")
    assert states_amount("'You will be haunted,' resumed the Ghost, 'by Three Spirits.'", spirits)
    assert not states_amount("He went down a slide twenty times.", spirits)  # not spirits
    money = asks_amount("How much money did the council give?")
    assert states_amount("The council gave the collective 20,000 pounds.", money)
    assert states_amount("... it will cost more than $6 billion to secure it.", money)
    assert states_amount("'my clerk, with fifteen shillings a week ...'", money)
    assert not states_amount("No one gave anything.", money)  # "one" is a pronoun as often
    # a date or a count is no sum: for the sample's "How much money did the Port Aldren
    # Town Council give the Aldren Water Trust?", drift quoted both above "The Port Aldren
    # Town Council funds the River Aldren Restoration Project."
    assert not states_amount("Mara Quill founded the Aldren Water Trust in 2015.", money)
    assert not states_amount("The Port Aldren Town Council has nine members.", money)
    flour = asks_amount("How much flour is left?")
    assert states_amount("Two bags were left.", flour)  # a count: any number


# (sentence, nearness to the question)
NEAR = [("Marley was dead, to begin with.", 0.9),
        ("There is no doubt that Marley was dead.", 0.85),
        ("'Mr. Marley has been dead these seven years,' Scrooge replied.", 0.8),
        ("Scrooge knew he was dead.", 0.75),
        ("The bell struck twelve, and he had worked seven years for it.", 0.3)]


def index() -> SentenceIndex:
    return near_index(" ".join(t for t, _ in NEAR), NEAR)


def test_a_sentence_stating_the_amount_asked_ranks_above_near_ones_that_do_not():
    s, q = index(), np.asarray([1, 0, 0], dtype=np.float32)
    asked = asks_amount("How long has Marley been dead?")
    assert [s.text(r) for r in s.nearest(q, 1)] == ["Marley was dead, to begin with."]
    measured = s.measured(q, asked)
    assert [measured.text(r) for r in measured.nearest(q, 2)] == [
        "'Mr. Marley has been dead these seven years,' Scrooge replied.",
        "Marley was dead, to begin with."]
    near = measured.similarity(q)
    assert near[2] == pytest.approx(0.8 + AMOUNT_LIFT, abs=1e-4)
    assert near[4] == pytest.approx(0.3 + AMOUNT_LIFT, abs=1e-4)  # lifted, still far
    assert near[0] == pytest.approx(0.9, abs=1e-4)
    assert s.similarity(q)[2] == pytest.approx(0.8, abs=1e-4)  # the index itself unchanged
