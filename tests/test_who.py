"""A question asking for a name (`language/who.py`), and the lift of the sentences naming
an entity it does not name (`SentenceIndex.naming_others`), on a hand-made index whose
vectors say how near each sentence is to the question."""

import numpy as np
import pytest
from fakes import near_index

from graphrag_local.language.who import asks_name
from graphrag_local.schema import Entity
from graphrag_local.search.evidence import NAME_LIFT, SentenceIndex

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("question", [
    "Who is the clerk to Ebenezer Scrooge?", "Whose wife is Mrs. Cratchit?",
    "What is the name of Scrooge's nephew?", "At which venture firm is Reid Hoffman a partner?",
    "Where did Bob Cratchit go down a slide?", "Wo liegt das Herrenhaus der Familie von Briest?",
    "Wessen einziges Kind war Hulda?", "Qui est le domestique de Phileas Fogg ?",
    "¿Quién es el escudero?", "Кто такой Пугачёв?", "阿Q的对手是谁？", "賊将は誰か？"])
def test_a_question_asking_for_a_name_is_told_in_each_language(question):
    assert asks_name(question)


@pytest.mark.parametrize("question", [
    "Why did the Trust oppose the dredging?", "How long has Marley been dead?",
    "What are the main themes of the story?", "What happened in the Millbrook Flood?",
    "Warum kam der Geist?", "Почему он ушёл?"])
def test_other_questions_ask_for_no_name(question):
    assert not asks_name(question)


# (sentence, nearness to the question, the entities it names)
NEAR = [("Mrs. Cratchit laid the cloth.", 0.9, ("Mrs Cratchit",)),
        ("His wife was dressed out but poorly.", 0.85, ()),
        ("Mrs. Cratchit smiled at Bob Cratchit.", 0.82, ("Mrs Cratchit", "Bob Cratchit")),
        ("The Cratchits sat down.", 0.7, ("Cratchits",)),
        ("Scrooge went to church.", 0.3, ("Scrooge",))]


def index() -> SentenceIndex:
    names = {n for _t, _x, e in NEAR for n in e}
    return near_index(" ".join(t for t, _x, _e in NEAR), NEAR,
                      {n: Entity(n, n, "PERSON", "", ("k",)) for n in names})


def test_a_sentence_naming_someone_the_question_does_not_ranks_above_near_ones():
    s, q = index(), np.asarray([1, 0, 0], dtype=np.float32)
    question = "Whose wife is Mrs. Cratchit?"
    assert [s.text(r) for r in s.nearest(q, 1)] == ["Mrs. Cratchit laid the cloth."]
    seen = s.naming_others(q, question)
    assert [seen.text(r) for r in seen.nearest(q, 2)] == [
        "Mrs. Cratchit smiled at Bob Cratchit.", "Mrs. Cratchit laid the cloth."]
    near = seen.similarity(q)
    assert near[2] == pytest.approx(0.82 + NAME_LIFT, abs=1e-4)  # Bob Cratchit: not asked of
    assert near[3] == pytest.approx(0.7 + NAME_LIFT, abs=1e-4)  # "Cratchits": not its words
    assert near[0] == pytest.approx(0.9, abs=1e-4)  # Mrs Cratchit: the question names her
    assert near[1] == pytest.approx(0.85, abs=1e-4)  # names no one
    assert s.similarity(q)[2] == pytest.approx(0.82, abs=1e-4)  # the index itself unchanged


def test_a_lift_leaves_how_near_the_question_is_to_each_group_as_it_was():
    """A group's peak (its best sentence's nearness, from which a question's focus is
    told) is the unlifted one: lifted, a broad "Who are the heroes of these stories?" read
    as a focused question (focus 0.62 instead of 0.22) and was answered from fewer stories."""
    from graphrag_local.language.amounts import asks_amount
    from graphrag_local.search.themes import Group, score_groups

    s, q = index(), np.asarray([1, 0, 0], dtype=np.float32)
    seen = s.naming_others(q, "Whose wife is Mrs. Cratchit?")
    both = seen.measured(q, asks_amount("How many Cratchits are there?"))
    for view in (seen, both):
        assert view.plain_similarity(q)[2] == pytest.approx(0.82, abs=1e-4)
        assert view.similarity(q)[2] == pytest.approx(0.82 + NAME_LIFT, abs=1e-4)
    group = Group("g", "Bob", None, np.asarray([2, 3]), 1.0)
    (scored,) = score_groups([group], seen, q)
    assert scored.peak == pytest.approx(0.82, abs=1e-4)
    assert scored.sims[0] == pytest.approx(0.82 + NAME_LIFT, abs=1e-4)  # ranked lifted
