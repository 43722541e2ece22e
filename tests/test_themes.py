"""Theme selection for global and ts answers, and dynamic community selection, on a
hand-made sentence index whose vectors say exactly how near each sentence is to what."""

import numpy as np
import pytest

from graphrag_local.language.amounts import asks_amount
from graphrag_local.language.whole import asks_of_whole
from graphrag_local.schema import Chunk, Entity
from graphrag_local.search.common import IndexData
from graphrag_local.search.evidence import SentenceIndex
from graphrag_local.search.themes import (
    FOCUS_HIGH,
    FOCUS_LOW,
    PEAK_MARGIN,
    SELECTIVE_GROUPS,
    SPREAD_MARGIN,
    Group,
    as_reports,
    choose_themes,
    embedding_test,
    focus_of,
    peak_margin,
    report_rows,
    score_groups,
    select_dynamic,
    selectivity,
)
from graphrag_local.sentences import (
    near_duplicate,
    opens_with_pronoun,
    split_sentences,
    standalone,
)

pytestmark = pytest.mark.fast

# sentence: (document, entities, direction, text); directions are axes of a 6-d space
SENTENCES = [
    ("d1", ("Ann",), 0, "Ann founded the river trust in the town of Marsh End in 2015."),
    ("d1", ("Ann",), 0, "Ann leads the river trust and speaks for it at the council."),
    ("d1", ("Bo",), 1, "Bo builds boats in the old harbour of Marsh End for the fishing fleet."),
    ("d1", ("Bo",), 1, "Bo sold three boats to the fishing fleet of the north coast."),
    ("d2", ("Cy",), 2, "Cy paints murals of the river for the lantern festival every winter."),
    ("d2", ("Cy",), 3, "Cy chairs the festival committee that meets in the town hall."),
    ("d3", ("Di",), 4, "Di keeps the accounts of the council and publishes them each spring."),
]


def index(sentences: list[tuple] = SENTENCES) -> SentenceIndex:
    docs = sorted({d for d, *_ in sentences})
    chunks = {f"k{d}": Chunk(f"k{d}", d, f"{d}.txt", 0, 0, 10, 10, "") for d in docs}
    texts: dict[str, str] = {}
    rows = []
    for doc, _names, _axis, text in sentences:
        start = len(texts.get(doc, ""))
        texts[doc] = texts.get(doc, "") + text + " "
        rows.append({"chunk_id": f"k{doc}", "start": start, "end": start + len(text),
                     "entities": list(_names)})
    for doc, text in texts.items():
        c = chunks[f"k{doc}"]
        chunks[c.id] = Chunk(c.id, doc, c.path, 0, 0, 10, 10, text)
    matrix = np.zeros((len(sentences), 6), dtype=np.float32)
    for i, (_d, _n, axis, _t) in enumerate(sentences):
        matrix[i, axis] = 1.0
        matrix[i, 5] = 0.2  # what every sentence of the corpus shares
    named = sorted({n for _d, names, *_ in sentences for n in names})
    degree = {"Ann": 5, "Bo": 3, "Cy": 2, "Di": 1}
    entities = {n: Entity(n, n, "PERSON", "", (), degree=degree.get(n, 1)) for n in named}
    data = IndexData(entities=entities, relationships=[], claims=[], chunks=chunks, reports=[],
                     communities=[])
    return SentenceIndex(rows, matrix, data)


def group(s: SentenceIndex, key: str, names: tuple[str, ...], weight: float,
          children: tuple[str, ...] = ()) -> Group:
    return Group(key, key, None, s.rows_naming(names), weight, children,
                 members=frozenset(names))


def axis(*weights: float) -> np.ndarray:
    return np.asarray(weights, dtype=np.float32)


def test_focus_grows_with_the_nearness_of_the_best_sentence():
    assert focus_of(FOCUS_LOW - 0.1) == 0.0 and focus_of(FOCUS_HIGH + 0.1) == 1.0
    assert 0 < focus_of((FOCUS_LOW + FOCUS_HIGH) / 2) < 1


def test_a_collection_wide_question_ranks_by_weight_and_covers_the_documents():
    s = index()
    groups = [group(s, "trust", ("Ann",), 3.0), group(s, "boats", ("Bo",), 2.4),
              group(s, "festival", ("Cy",), 2.0), group(s, "accounts", ("Di",), 1.5)]
    q = axis(0, 0, 0, 0, 0, 1)  # near nothing in particular
    sel = choose_themes(score_groups(groups, s, q), s, max_themes=3, quotes_per_theme=1,
                        max_words=200)
    assert sel.focus == 0.0
    # the heaviest first; then those that bring a new document before the boats (d1 again)
    assert [t.group.key for t in sel.themes] == ["trust", "festival", "accounts"]
    assert {s.document[r] for t in sel.themes for r in t.rows} == {"d1", "d2", "d3"}


def test_a_focused_question_keeps_the_groups_near_the_best_and_their_nearest_sentence():
    s = index()
    groups = [group(s, "trust", ("Ann",), 3.0), group(s, "boats", ("Bo",), 2.6),
              group(s, "festival", ("Cy",), 2.0)]
    q = axis(0, 0, 0, 1, 0, 0.1)  # the festival committee
    sel = choose_themes(score_groups(groups, s, q), s, max_themes=3, quotes_per_theme=2,
                        max_words=200)
    assert sel.focus == 1.0
    assert [t.group.key for t in sel.themes] == ["festival"]
    assert s.text(sel.themes[0].rows[0]).startswith("Cy chairs the festival committee")


def test_a_focused_question_whose_nearest_sentences_are_spread_keeps_every_group_holding_one():
    s = index()
    # "the river": a sentence of the trust (d1) and one of the festival (d2) are equally
    # near it, though the festival's centroid is farther (its other sentence is not)
    groups = [group(s, "trust", ("Ann",), 3.0), group(s, "festival", ("Cy",), 2.0),
              group(s, "boats", ("Bo",), 2.6)]
    scored = score_groups(groups, s, axis(1, 0, 1, 0, 0, 0.1))
    sel = choose_themes(scored, s, max_themes=3, quotes_per_theme=1, max_words=200)
    assert sel.focus == 1.0
    assert {t.group.key for t in sel.themes} == {"trust", "festival"}  # not the boats


def spread_index(near: list[float]) -> SentenceIndex:
    """One sentence per document d0, d1, ...; sentence i is `near[i]` from the question
    (axis 0), and the rest of it lies on its own axis (no two documents alike)."""
    n = len(near)
    chunks: dict[str, Chunk] = {}
    rows = []
    matrix = np.zeros((n, 1 + n), dtype=np.float32)
    for i, x in enumerate(near):
        text = f"Person{i} talks about the topic of episode number {i}."
        chunks[f"k{i}"] = Chunk(f"k{i}", f"d{i}", f"d{i}.txt", 0, 0, 10, 10, text)
        rows.append({"chunk_id": f"k{i}", "start": 0, "end": len(text), "entities": [f"P{i}"]})
        matrix[i, 0], matrix[i, 1 + i] = x, np.sqrt(1 - x * x)
    entities = {f"P{i}": Entity(f"P{i}", f"P{i}", "PERSON", "", (), degree=1) for i in range(n)}
    data = IndexData(entities=entities, relationships=[], claims=[], chunks=chunks, reports=[],
                     communities=[])
    return SentenceIndex(rows, matrix, data)


def question(n: int) -> np.ndarray:
    q = np.zeros(1 + n, dtype=np.float32)
    q[0] = 1.0
    return q


def test_a_question_every_document_matches_about_equally_is_spread_and_widens_the_margin():
    # seven episodes each with a sentence near the question ("how often is AI discussed?")
    near = [0.68, 0.62, 0.55, 0.55, 0.54, 0.54, 0.30]
    spread = spread_index(near)
    assert peak_margin(spread, question(7)) == SPREAD_MARGIN
    # one episode holds the answer ("which firm is Reid Hoffman a partner of?")
    focused = spread_index([0.68, 0.40, 0.36, 0.34, 0.33, 0.30, 0.30])
    assert peak_margin(focused, question(7)) == PEAK_MARGIN
    # three documents: a median says nothing
    assert peak_margin(spread_index([0.68, 0.66, 0.65]), question(3)) == PEAK_MARGIN
    # the wider margin keeps every group holding a sentence within it of the best one
    groups = [Group(f"g{i}", f"g{i}", None, np.asarray([i]), 1.0, members=frozenset([f"P{i}"]))
              for i in range(7)]
    scored = score_groups(groups, spread, question(7))
    kept = {m: {t.group.key for t in choose_themes(
        scored, spread, max_themes=7, quotes_per_theme=1, max_words=500, margin=m).themes}
        for m in (PEAK_MARGIN, SPREAD_MARGIN)}
    assert kept[PEAK_MARGIN] == {"g0", "g1"}
    assert kept[SPREAD_MARGIN] == {"g0", "g1", "g2", "g3", "g4", "g5"}


def test_the_word_budget_shortens_themes_then_stops():
    s = index()
    groups = [group(s, k, (n,), w) for k, n, w in (("a", "Ann", 3), ("b", "Bo", 2), ("c", "Cy", 1))]
    sel = choose_themes(score_groups(groups, s, axis(0, 0, 0, 0, 0, 1)), s, max_themes=3,
                        quotes_per_theme=2, max_words=30)

    def words(sel):
        return sum(len(t.group.title.split()) + sum(len(s.text(r).split()) for r in t.rows)
                   for t in sel.themes)

    # one sentence under each theme first: two themes fit, a second sentence does not
    assert words(sel) <= 30 and len(sel.themes) == 2 and all(len(t.rows) == 1 for t in sel.themes)
    more = choose_themes(score_groups(groups, s, axis(0, 0, 0, 0, 0, 1)), s, max_themes=3,
                         quotes_per_theme=2, max_words=60)
    assert len(more.themes) == 3 and len(more.themes[0].rows) == 2 and words(more) <= 60


def test_dynamic_selection_descends_into_the_relevant_community_within_budget():
    s = index()
    roots = [group(s, "people", ("Ann", "Bo"), 3.0, ("ann", "bo")),
             group(s, "arts", ("Cy", "Di"), 2.0, ("cy", "di"))]
    kids = {"ann": group(s, "ann", ("Ann",), 2.0), "bo": group(s, "bo", ("Bo",), 1.5),
            "cy": group(s, "cy", ("Cy",), 1.0), "di": group(s, "di", ("Di",), 0.5)}

    def children(g):
        return [kids[k] for k in g.children]

    q = axis(0, 1, 0, 0, 0, 0.1)  # boats
    frontier, tests, trace, focus = select_dynamic(roots, children, s, q, embedding_test(),
                                                   budget=8)
    assert focus == 1.0 and [f.group.key for f in frontier] == ["bo"]
    assert tests == 4 and "people" in trace[1]  # 2 roots, then the 2 children of "people"
    frontier, tests, *_ = select_dynamic(roots, children, s, q, embedding_test(), budget=3)
    assert tests == 2 and [f.group.key for f in frontier] == ["people"]  # no room to descend
    # a collection-wide question descends into the heaviest community first, then the next
    frontier, tests, *_ = select_dynamic(roots, children, s, axis(0, 0, 0, 0, 0, 1),
                                         embedding_test(), budget=8)
    assert sorted(f.group.key for f in frontier) == ["ann", "bo", "cy", "di"] and tests == 6


def test_a_community_too_big_that_the_build_could_not_split_is_answered_by_its_threads():
    """A star (a hero related to everyone, as Scrooge is in Carol) stays one community at
    every level: dynamic selection reaches it through its threads, each member with the
    hub, the most told first; a community within the size limit is not split."""
    from graphrag_local.search import extractive

    told = {"Mo": 5, "Lu": 4, "Ik": 2}  # Ik: too little said of it to be a thread
    star = [("d1", ("Hal",), 0, f"Hal counted the coins in his cold office, hour {i}.")
            for i in range(3)]
    star += [(f"d{1 + k % 2}", ("Hal", m), 1 + k % 3, f"Hal met {m} at the gate, day {k}.")
             for m, n in told.items() for k in range(n)]
    s = index(star)
    hero = group(s, "hero", ("Hal", "Mo", "Lu", "Ik"), 3.0)
    threads = extractive.threads(hero, s, max_members=3)
    assert [(t.key, t.title, len(t.rows)) for t in threads] == [
        ("hero#Mo", "Hal and Mo", 5), ("hero#Lu", "Hal and Lu", 4)]
    assert threads[0].members == frozenset({"Hal", "Mo"}) and threads[0].level == 1
    assert extractive.threads(hero, s, max_members=4) == []  # small enough: not split
    # dynamic selection descends into the unsplit star only when told it splits
    q = axis(0, 0, 0, 0, 0, 1)
    frontier, tests, *_ = select_dynamic([hero], lambda g: threads, s, q, embedding_test(),
                                         budget=8)
    assert [f.group.key for f in frontier] == ["hero"] and tests == 1  # no children
    frontier, tests, *_ = select_dynamic([hero], lambda g: threads, s, q, embedding_test(),
                                         budget=8, splits=lambda g: len(g.members) > 3)
    assert [f.group.key for f in frontier] == ["hero#Mo", "hero#Lu"] and tests == 3


def test_a_statement_that_adds_nothing_is_a_near_duplicate_but_not_the_other_way_round():
    short, long_ = "Elena Voss is the mayor.", "Elena Voss is the mayor and leads the council."
    assert near_duplicate(short, long_) and not near_duplicate(long_, short)
    assert near_duplicate("The vote was held.", "The vote was held!")


def test_standalone_prefers_plain_statements_to_questions_dialogue_and_fragments():
    plain = "The Cratchit family drew round the hearth in a circle."
    assert standalone(plain) == 1.0
    assert standalone("'Is it?' said Scrooge to the Ghost of the past.") < 0.7
    assert standalone("What was merry Christmas to Scrooge?") < 0.6
    assert standalone("Tiny Tim.") < standalone(plain)


def test_standalone_sees_an_utterance_split_from_its_opening_quote_and_an_editors_note():
    """A sentence splitter cuts a speech into sentences; the later ones lack its opening
    quote but show who said it ("... ,' cried Bob"). An illustration's caption is the
    editor's, in brackets. Neither is the text speaking."""
    plain = "Joe went down on his knees and dragged out a large heavy roll of some dark stuff."
    assert standalone(plain) == 1.0
    assert standalone("Now, it wasn't,' cried Bob, 'for the sake of anything he might do.") <= 0.6
    assert standalone("Eh?' said old Joe, stopping in his work, and looking up at them.") <= 0.6
    assert standalone("C'est fini!» dit-il en regardant la porte du salon.") <= 0.6
    assert standalone('[Illustration: _"What do you call this?" said Joe, looking up._]') <= 0.6
    # a name after the quote is not who said it: "the Cratchits' house" is no utterance
    assert standalone("They went along the street to the Cratchits' house at last.") == 1.0
    assert standalone("'Ah!' Scrooge had said.") < 1.0  # opens with its quote, as before


def test_standalone_reads_questions_and_dialogue_in_chinese_and_japanese():
    """阿Q正传 asks with "？" (61 of its 767 sentences), none with "?", and quotes with “”;
    阿部一族 quotes with 「」, a stop inside the quote or none. Such sentences speak for a
    character, as in English, and rank after the narration."""
    from graphrag_local.sentences import asks

    narration = "阿Ｑ没有家，住在未庄的土谷祠里，也没有固定的职业，只给人家做短工。"
    assert standalone(narration) == 1.0
    assert asks("我怎么会有你这样的本家？") and asks("你姓赵么？”")
    assert standalone("我怎么会有你这样的本家？") < standalone(narration)
    assert standalone("赵太爷跳过去，给了他一个嘴巴，说道你怎么会姓赵！”") < standalone(narration)
    japanese = "忠利は長十郎と顔を見合わせていたのに、半分寝返りをするように脇を向いた。"
    assert standalone(japanese) == 1.0
    assert standalone("「それはいかんぞよ」こう言って忠利は長十郎と顔を見合わせていた。") < 1.0
    assert standalone("長十郎は忠利にもう一度殉死のお許しをお願いしたいと申し上げた」") < 1.0
    assert not asks("The Cratchits' goose was a marvel.") and not asks("他说：“好！”")


def test_scores_that_differ_in_the_last_bits_tie_and_the_earlier_row_wins():
    """Two CPU families give one sentence nearness scores ~1e-7 apart: such scores tie
    (settled at SCORE_DECIMALS) and a tie goes to the earlier row, so the ranking is the
    same everywhere (issue 29)."""
    from graphrag_local.search.evidence import SCORE_DECIMALS

    s = index()
    q = np.zeros(6, dtype=np.float32)
    q[0] = 1.0
    for nudge in (3e-7, -3e-7):  # row 1 a hair nearer, then a hair farther, than row 0
        s.matrix[1] = s.matrix[0]
        s.matrix[1, 0] += nudge
        assert s.nearest(q, 2).tolist() == [0, 1]
        sims = s.similarity(q)
        assert sims[0] == sims[1] and sims[0] == round(float(sims[0]), SCORE_DECIMALS)
    s.matrix[1, 0] += 1e-3  # a real difference still ranks
    assert s.nearest(q, 2).tolist() == [1, 0]


def test_a_groups_report_evidence_is_the_same_whatever_is_asked():
    """A written report's evidence (`report_rows`) does not depend on the question, so
    every collection-wide question that reaches the group reads the report written once;
    a theme whose evidence is mostly an earlier one's is left out (written twice)."""
    s = index()
    everyone = group(s, "all", ("Ann", "Bo", "Cy"), 3.0)
    rows = report_rows(everyone, s, 3, 200)
    assert len(rows) == 3 and len(set(rows)) == 3
    assert s.text(rows[0]).startswith("Ann")  # most about the group: its best-linked member
    assert report_rows(everyone, s, 1, 200) == rows[:1]
    assert len(report_rows(everyone, s, 3, 12)) == 1  # the first always; then within the words
    groups = [everyone, group(s, "ann", ("Ann",), 2.0), group(s, "cy", ("Cy",), 1.0)]
    picks = []
    for q in (axis(0, 0, 0, 0, 0, 1), axis(0, 0, 0.1, 0, 0, 1)):  # two collection-wide questions
        sel = choose_themes(score_groups(groups, s, q), s, max_themes=3, quotes_per_theme=1,
                            max_words=200)
        assert sel.focus < 0.75
        picks.append({t.group.key: t.rows for t in as_reports(sel, s, 3, 200).themes})
    assert picks[0] == picks[1] and picks[0]["all"] == rows
    # "ann" (the trust's two sentences) is kept only where "all" did not already take them
    assert all(2 * len(set(r) & set(rows)) <= len(r) for k, r in picks[0].items() if k != "all")


def test_a_sentence_opening_with_a_pronoun_is_a_groups_line_after_one_naming_its_subject():
    """"He left the room, and went upstairs ..." is Bob, whom only the sentence before it
    names: under a topic of Scrooge's nephew and Christmas, a reader took it for the
    nephew. A sentence opening with a third person pronoun (`opens_with_pronoun`) is a
    group's line after one that names whom it tells of, in any language of the index."""
    for he, named in (("He left the room and went upstairs, which was hung with Christmas.",
                       "Fred laughed at his uncle and wished him a merry Christmas."),
                      ("Il quitta la salle et monta, à Noël, dans la chambre au-dessus.",
                       "Fred rit de son oncle et lui souhaita un joyeux Noël.")):
        s = index([("d1", ("Christmas",), 0, he), ("d1", ("Fred", "Christmas"), 0, named)])
        topic = Group("t", "t", None, s.rows_naming(["Christmas"]), 1.0,
                      members=frozenset({"Christmas"}))
        assert s.text(report_rows(topic, s, 1, 200)[0]) == named
    assert opens_with_pronoun("'She kissed him,' said Bob.") and not opens_with_pronoun("Hello.")


def test_a_sentence_opening_with_which_is_a_groups_line_after_one_naming_its_subject():
    """"Which many people say is the most secure Bitcoin wallet in the world." (of Xapo,
    named in the question before it) was a podcast topic's quote. A statement opening with
    a relative pronoun goes on from the sentence before it, as one opening "He" does, a
    speaker's label read past; a question opening "Which" does not."""
    assert opens_with_pronoun("Which many people say is the most secure wallet in the world.")
    assert opens_with_pronoun("KEVIN SCOTT: Which is insane.")
    assert opens_with_pronoun("KEVIN SCOTT: He went home early that night.")
    assert not opens_with_pronoun("Which wallet is the most secure one in the world?")
    assert not opens_with_pronoun("Whichever way it goes, the wallet is safe.")
    which = "Which many people say is the most secure Bitcoin wallet in the world."
    named = "Xapo keeps its Bitcoin in vaults under the mountains of Switzerland."
    s = index([("d1", ("Bitcoin",), 0, which), ("d1", ("Bitcoin", "Xapo"), 0, named)])
    topic = Group("t", "t", None, s.rows_naming(["Bitcoin"]), 1.0,
                  members=frozenset({"Bitcoin"}))
    assert s.text(report_rows(topic, s, 1, 200)[0]) == named


def test_a_speakers_label_is_not_among_the_four_words_a_groups_line_needs():
    """"KEVIN SCOTT: Or the PC." was a topic's evidence, its label's words counted among
    the four a line needs (as the count by document does not count them,
    `tally.MIN_WORDS`). Its own three words say nothing of the group."""
    s = index([("d1", ("PC",), 0, "KIM LEE: Or the PC."),
               ("d1", ("PC",), 1, "The PC arrived at the harbour office in 1984.")])
    topic = Group("t", "t", None, s.rows_naming(["PC"]), 1.0, members=frozenset({"PC"}))
    assert [s.text(r) for r in report_rows(topic, s, 3, 200)] == [
        "The PC arrived at the harbour office in 1984."]



def test_a_question_a_guest_answers_is_said_by_the_answer():
    """8 of the 116 lines of the podcast's ten quoted answers were questions, the host's:
    "KEVIN SCOTT: And you were on the CPU design team for one of their microprocessors,
    right?" quoted where the guest's next turn says it ("JUDY ESTRIN: I was on the design
    team of the Z8 and Z8000."). The answer is quoted in the question's place: its turn's
    first sentence that says something of what was asked, unless a later one is much
    nearer. A reply that says nothing of it leaves the question as it is, and a question
    no one else answers (dialogue without speakers' labels) too."""
    question = "KIM LEE: And you were on the design team of the Zed chip, right?"
    s = index([("d1", ("Zed",), 0, question),
               ("d1", (), 0, "ANA RUIZ: I was on the design team of the Zed and its successor."),
               ("d1", (), 1, "I was part of the software group."),
               ("d1", ("Zed",), 2, "The Zed chip shipped in the spring of 1979 to Ohio."),
               ("d2", ("Zed",), 0, "KIM LEE: What did the Zed chip change for you then?"),
               ("d2", (), 0, "ANA RUIZ: Okay, we need to wrap up for today."),
               ("d3", ("Zed",), 0, "'Was the Zed chip on the team's table?' asked Kim."),
               ("d3", (), 0, "'It was on the design team's table,' said Ana.")])
    topic = Group("t", "t", None, s.rows_naming(["Zed"]), 1.0, members=frozenset({"Zed"}))
    said = [s.text(r) for r in report_rows(topic, s, 6, 400)]
    assert "ANA RUIZ: I was on the design team of the Zed and its successor." in said
    assert question not in said and "I was part of the software group." not in said
    assert "KIM LEE: What did the Zed chip change for you then?" in said
    assert "ANA RUIZ: Okay, we need to wrap up for today." not in said
    assert "'Was the Zed chip on the team's table?' asked Kim." in said
    assert s.reply(0) == [1, 2, 3] and s.reply(1) == [] and s.reply(4) == [5] and s.reply(6) == []


def test_a_question_the_asker_goes_on_from_is_said_by_the_answer_after_and_a_filler_is_not_one():
    """"CHRISTINA WARREN: One of the questions that you asked Andrew was, what technology is
    he most impressed by ... with AI?" then "I wanted to turn that back on you ..." and
    "KEVIN SCOTT: I'm excited that this trend ... more practical AI and machine learning
    solutions." A word of speech shared ("like") is not what was asked: "KEVIN SCOTT: So,
    you mean like the dogs from the Pixar film Up?" is not answered by "CHRISTINA WARREN:
    Yes, yes, yes, the small mailman smells like chocolate." (a joke)."""
    asked = "KIM LEE: One of the questions you asked was, which boats sold best in the north?"
    dogs = "KIM LEE: So, you mean like the dogs from the Zed film?"
    s = index([("d1", ("Zed",), 0, asked),
               ("d1", (), 1, "I wanted to turn that back on you."),
               ("d1", (), 0, "ANA RUIZ: The fishing boats sold best along the north coast."),
               ("d2", ("Zed",), 2, dogs),
               ("d2", (), 2, "ANA RUIZ: Yes, yes, the small mailman smells like chocolate.")])
    topic = Group("t", "t", None, s.rows_naming(["Zed"]), 1.0, members=frozenset({"Zed"}))
    said = [s.text(r) for r in report_rows(topic, s, 6, 400)]
    assert said == ["ANA RUIZ: The fishing boats sold best along the north coast.", dogs]

def test_a_group_whose_best_sentence_only_names_is_no_theme_of_a_question_nothing_answers():
    """The podcast's community of Surya Ganguli's two collaborators, whose one sentence is
    "Mickey Goldberg and Michael Shadlen.", was a topic of the answer on companies and
    startups (focus 0.29): it says nothing of them. Where no sentence answers the question
    closely, a group whose best sentence only names something (or is a formula) is left
    out; a question it answers closely keeps it."""
    rows = SENTENCES + [("d4", ("Mo", "Lu"), 4, "Mo Reed and Lu Hart.")]
    s = index(rows)
    groups = [group(s, "trust", ("Ann",), 3.0), group(s, "names", ("Mo",), 2.9),
              group(s, "festival", ("Cy",), 2.0), group(s, "accounts", ("Di",), 1.5)]
    wide = choose_themes(score_groups(groups, s, axis(0, 0, 0, 0, 0, 1)), s, max_themes=4,
                         quotes_per_theme=1, max_words=200)
    assert wide.focus == 0.0
    assert [t.group.key for t in wide.themes] == ["trust", "festival", "accounts"]
    close = axis(0, 0, 0, 0, 1, 0.1)  # "Who worked with him?": nearest the names (and Di's)
    near = choose_themes(score_groups(groups, s, close), s, max_themes=4,
                         quotes_per_theme=1, max_words=200)
    assert near.focus > 0.5 and "names" in [t.group.key for t in near.themes]


def test_a_formula_the_documents_all_say_is_a_groups_last_sentence():
    """A show's greeting said in every episode ("Hello and welcome to Behind the Tech.",
    once with a speaker's label) named the host's community and was quoted as its theme on
    the podcast's first question; a sentence every run of three words of which most
    documents say is a formula (`evidence.formulaic`) and is ranked last. A sentence
    said in three documents of five is not; nor is one that goes on to say more."""
    greeting = "Hello and welcome to the Harbour Show."
    rows = [("d1", ("Kim",), 0, "KIM LEE: " + greeting),
            ("d2", ("Kim",), 0, "Hello, and welcome to the Harbour Show!"),
            ("d3", ("Kim",), 0, greeting), ("d4", ("Kim",), 0, greeting),
            ("d5", ("Kim",), 0, greeting),
            ("d1", ("Kim",), 1, "Kim Lee founded the harbour radio station in 2004 with two friends."),
            ("d2", ("Ann",), 2, "Ann Holt is the mayor of Port Marsh."),
            ("d3", ("Ann",), 2, "Ann Holt is the mayor of Port Marsh."),
            ("d4", ("Ann",), 2, "Ann Holt is the mayor of Port Marsh."),
            ("d5", ("Kim",), 4, "Hello and welcome to the Harbour Show, where Kim Lee tells of his boats.")]
    s = index(rows)
    assert s.formulaic().tolist() == [True] * 5 + [False] * 5
    host = group(s, "host", ("Kim",), 2.0)
    assert s.text(report_rows(host, s, 1, 200)[0]).startswith("Kim Lee founded")


def test_a_short_sentence_most_of_which_the_documents_all_say_is_a_formula():
    """"KEVIN SCOTT: Hello everyone, welcome to Behind the Tech." headed the host's topic
    in a podcast answer, quoted: its "hello everyone welcome" is said once. A sentence of
    ten words or fewer most of whose runs of three the documents all say is a formula; a
    longer one is not, nor one that says a run of its own more often than not."""
    greeting = "Hello and welcome to the Harbour Show."
    rows = [(f"d{k}", ("Kim",), 0, greeting) for k in range(1, 6)]
    rows += [("d6", ("Kim",), 0, "KIM LEE: Hello everyone, welcome to the Harbour Show."),
             ("d6", ("Kim",), 1, "Hello friends, welcome to the Harbour Show tonight, "
              "where the boats of Port Marsh come in."),
             ("d6", ("Kim",), 1, "Kim says welcome to the Harbour Show."),
             ("d6", ("Kim",), 1, "Kim Lee founded the harbour radio station in 2004.")]
    s = index(rows)
    assert s.formulaic().tolist() == [True] * 6 + [False, True, False]


def test_local_quotes_first_the_sentences_naming_what_the_question_names():
    """Asked "Who is Scrooge's clerk?", local quoted "'Is it?' said Scrooge." first (Scrooge
    among the entities nearest the question) and the one sentence naming the clerk not at
    all: a sentence naming an entity the question names ranks `NAMED_BONUS` nearer."""
    from graphrag_local.search import extractive as ex
    from graphrag_local.settings import QuerySettings

    s = index()
    q = np.zeros(6, dtype=np.float32)
    q[1], q[2] = 0.6, 0.5  # nearer Bo's boats than Cy's murals
    a = ex.Answering("Who is Cy?", s._data, None, QuerySettings(quote_count=2), False, None,
                     0.0, lambda: None)
    first = lambda r: r.answer.splitlines()[0]  # noqa: E731
    assert first(ex.local(a, s, q, ["Bo", "Cy"])).startswith("- Bo ")
    assert first(ex.local(a, s, q, ["Bo", "Cy"], ("Cy",))).startswith("- Cy paints murals")


def test_local_quotes_a_sentence_of_an_entitys_text_unit_that_does_not_name_it():
    """The paper's local context is the entities' text units. Asked "In what year did
    Andrew Ng publish the first paper on inverse reinforcement learning?", local quoted only
    sentences naming him; the one with the year says "you" ("There was this inverse
    reinforcement learning work that you did and published the first paper in 2000."),
    in a chunk that names him. A sentence of another chunk naming none of them is not."""
    from graphrag_local.search import extractive as ex
    from graphrag_local.settings import QuerySettings

    s = index([("d1", ("Ann",), 0, "Ann founded the river trust in the town of Marsh End."),
               ("d1", (), 1, "She published the first river survey of the valley in 2000."),
               ("d2", (), 1, "The second survey of the valley was published in 2009."),
               ("d2", ("Bo",), 2, "Bo builds boats in the old harbour of Marsh End.")])
    q = np.zeros(6, dtype=np.float32)
    q[1] = 1.0  # nearest the surveys
    a = ex.Answering("When did Ann publish the first survey?", s._data, None,
                     QuerySettings(quote_count=2), False, None, 0.0, lambda: None)
    quoted = ex.local(a, s, q, ["Ann"], ("Ann",)).answer
    assert quoted.splitlines()[0].startswith("- She published the first river survey")
    assert "Ann founded" in quoted and "second survey" not in quoted


def test_drift_follows_an_entity_into_the_sentences_of_its_text_units():
    """DRIFT's follow-ups are local searches: each reads its entity's text units, so a
    sentence that says "you" of Andrew Ng ("... and published the first paper in 2000.")
    is reached from him (podcast eval facts, drift 8 to 10 of 12; Spanish 2 to 6 of 6). A
    title line among them ("The Harbour Dredging Vote") is quoted last."""
    from graphrag_local.schema import CommunityReport
    from graphrag_local.search import extractive as ex
    from graphrag_local.search.common import Report
    from graphrag_local.search.drift import drift_extractive
    from graphrag_local.settings import QuerySettings

    s = index([("d1", ("Ann",), 0, "Ann founded the river trust in the town of Marsh End."),
               ("d1", (), 1, "The Valley Survey"),
               ("d1", (), 1, "She published the first river survey of the valley in 2000."),
               ("d2", (), 1, "The second survey of the valley was published in 2009."),
               ("d2", ("Bo",), 2, "Bo builds boats in the old harbour of Marsh End.")])
    record = CommunityReport("c1", "c1", 0, "k", "ok", "", title="Ann", summary="", rating=5.0)
    q = np.zeros(6, dtype=np.float32)
    q[1] = 1.0  # nearest the surveys
    a = ex.Answering("When did Ann publish the first survey?", s._data, None,
                     QuerySettings(drift_quotes=2), False, None, 0.0, lambda: None)
    quoted = drift_extractive(a, s, q, [Report("R1", record, ("Ann",))]).answer
    lines = [line for line in quoted.splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- She published the first river survey")
    assert "second survey" not in quoted and "The Valley Survey" not in quoted


def test_a_short_question_is_quoted_after_every_statement():
    from graphrag_local.schema import Source
    from graphrag_local.search.extractive import Quote, choose_quotes, short

    assert short("'Is it?' said Scrooge.") and short("'What place is this?' asked Scrooge.")
    assert not short("'I am the Ghost of Christmas Past.'")
    assert not short("Why did the Trust oppose the plan when the council asked it to agree?")
    ranked = [Quote(t, Source("c", k, k + 1), ("S1",), 1.0 - k / 10) for k, t in enumerate(
        ["'Is it?' said Scrooge.", "The clerk promised that he would; and Scrooge walked out."])]
    assert [q.text for q in choose_quotes(ranked, 1)] == [ranked[1].text]


def test_a_question_about_an_entity_as_a_whole_is_answered_from_its_description_first():
    """Asked "Who is Jacob Marley?", local quoted "'Old Jacob Marley, tell me more!" and
    "O Jacob Marley!" first (nearest the question); his description opens "Old Marley was
    as dead as a door-nail." A question that asks something of him keeps the nearest."""
    from dataclasses import replace

    from graphrag_local.search import extractive as ex
    from graphrag_local.settings import QuerySettings

    s = index()
    data = s._data
    chairs = s.sources[5]  # "Cy chairs the festival committee ..."
    data.entities["Cy"] = replace(data.entities["Cy"], sources=(chairs,),
                                  aliases=(("Cyrus Vale", 2),))
    q = np.zeros(6, dtype=np.float32)
    q[2] = 1.0  # nearest "Cy paints murals ..."
    first = lambda question: ex.local(  # noqa: E731
        ex.Answering(question, data, None, QuerySettings(quote_count=2), False, None, 0.0,
                     lambda: None), s, q, ["Cy"], ("Cy",)).answer.splitlines()[0]
    assert first("Who is Cy?").startswith("- Cy chairs the festival committee")
    assert first("Who is Cyrus Vale?").startswith("- Cy chairs")  # by another of its names
    assert first("What does Cy paint?").startswith("- Cy paints murals")
    assert ex.asks_about("What is the Aldren Water Trust?",
                         replace(data.entities["Cy"], name="Aldren Water Trust"))


def test_a_piece_of_a_long_sentence_costs_the_words_of_the_whole_it_is_quoted_as():
    long = "Ann founded the river trust in the town of Marsh End, " * 6 + "and she leads it."
    pieces = [long[a:b] for a, b in split_sentences(long)]
    assert len(pieces) == 2
    s = index([("d1", ("Ann",), 0, pieces[0]), ("d1", ("Ann",), 0, pieces[1]),
               ("d2", ("Bo",), 1, "Bo builds boats in the old harbour of Marsh End.")])
    assert s.text(1) == pieces[1] and s.quoted(1) == long and s.quoted(2) == s.text(2)
    groups = [group(s, "Ann", ("Ann",), 2), group(s, "Bo", ("Bo",), 1)]

    def chosen(max_words):
        sel = choose_themes(score_groups(groups, s, axis(0, 0, 0, 0, 0, 1)), s, max_themes=2,
                            quotes_per_theme=1, max_words=max_words)
        return [(t.group.key, t.rows) for t in sel.themes]

    # Ann's theme quotes its last piece (15 words) as the whole sentence (70 words):
    # counted as the piece, Bo's theme would fit in 60 words
    assert chosen(60) == [("Ann", [1])]
    assert chosen(100) == [("Ann", [1]), ("Bo", [2])]


def selective_index(relevant: int, others: int) -> SentenceIndex:
    """One document and one sentence a group: `relevant` of them somewhat near axis 0 (and
    what all sentences share), the others on axes of their own."""
    rows, chunks, vectors = [], {}, []
    for i in range(relevant + others):
        text = (f"Person{i} did a thing in 1998 in the town of Place{i}." if i < relevant
                else f"Person{i} did thing number {i} in the town of Place{i}.")
        chunks[f"k{i}"] = Chunk(f"k{i}", f"d{i}", f"d{i}.txt", 0, 0, 10, 10, text)
        rows.append({"chunk_id": f"k{i}", "start": 0, "end": len(text), "entities": [f"P{i}"]})
        v = np.zeros(relevant + others + 2, dtype=np.float32)
        if i < relevant:
            v[0], v[-1] = 1.0, 0.2
        else:
            v[i + 1] = 1.0
        vectors.append(v / np.linalg.norm(v))
    entities = {f"P{i}": Entity(f"P{i}", f"P{i}", "PERSON", "", ()) for i in range(len(rows))}
    data = IndexData(entities=entities, relationships=[], claims=[], chunks=chunks, reports=[],
                     communities=[])
    return SentenceIndex(rows, np.stack(vectors), data)


def test_a_question_no_sentence_matches_closely_but_that_tells_groups_apart_ranks_them():
    """Over 24 Wikipedia articles, "Which documents are about music or film?" matched no
    sentence closely (focus 0) and was answered by the heaviest groups, a trade agreement
    first. Where its best groups lead the median one (`selectivity`), they come first,
    before heavier groups of documents not cited yet; "main topics" (no group leads) is
    still ranked by weight."""
    relevant, others = 3, 21
    s = selective_index(relevant, others)
    groups = [Group(f"g{i}", f"g{i}", None, np.array([i]), 1.0 if i < relevant else 3.0,
                    members=frozenset({f"P{i}"})) for i in range(relevant + others)]
    dims = relevant + others + 2
    asked = np.zeros(dims, dtype=np.float32)
    asked[0], asked[-1] = 0.15, 1.0  # its best sentence 0.34 near: no focus
    scored = score_groups(groups, s, asked)
    assert focus_of(max(x.peak for x in scored)) == 0.0
    assert selectivity(scored) == 1.0
    sel = choose_themes(scored, s, max_themes=5, quotes_per_theme=1, max_words=500)
    assert [t.group.key for t in sel.themes][:relevant] == ["g0", "g1", "g2"]
    assert sel.selective == 1.0
    flat = np.ones(dims, dtype=np.float32)  # near all alike: no lead
    assert selectivity(score_groups(groups, s, flat)) == 0.0
    sel = choose_themes(score_groups(groups, s, flat), s, max_themes=5, quotes_per_theme=1,
                        max_words=500)
    assert not {"g0", "g1", "g2"} & {t.group.key for t in sel.themes}  # by weight
    assert selectivity(score_groups(groups[:SELECTIVE_GROUPS - 1], s, asked)) == 0.0
    # told apart only by a lift (the relevant rows state a year a "when" question asks
    # for): measured without it, as focus is
    when = s.measured(flat, asks_amount("When did the people do these things?"))
    lifted = score_groups(groups, when, flat)
    assert max(x.relevance for x in lifted[:relevant]) > max(x.relevance for x in lifted[relevant:])
    assert selectivity(lifted) == 0.0


def test_a_question_asking_of_the_whole_collection_is_not_measured_for_focus_or_selectivity():
    """Over the podcast transcripts "What are the main themes?" led with a guest's talk of
    science fiction's themes (selectivity 0.97: seven episodes cited of ten) and "... of
    these podcasts?" with the episodes' sign-offs; over 24 Wikipedia articles "... of these
    documents?" with three groups (0.75). A question made only of what asks of the whole
    (`language.whole`) is answered by the groups' weight, as an unfocused one is; one that
    also names something is measured as before."""
    for q in ["What are the main themes?", "What are the main themes of these podcasts?",
              "What is this book about?", "Summarize these documents.",
              "Quels sont les thèmes principaux de ces documents ?",
              "¿Cuáles son los temas principales de estos documentos?",
              "Was sind die Hauptthemen dieser Dokumente?",
              "Каковы основные темы этих документов?",
              "这些文档的主要主题是什么？", "これらの文書の主なテーマは何ですか？"]:
        assert asks_of_whole(q), q
    for q in ["Which documents are about music or film?",
              "Who and what troubles the characters in these stories?",
              "What are the main themes of the podcasts on AI?",
              "What data sources are discussed?",
              "What recurring topics do tech leaders emphasize in their discussions?"]:
        assert not asks_of_whole(q), q
    relevant, others = 3, 21
    s = selective_index(relevant, others)
    groups = [Group(f"g{i}", f"g{i}", None, np.array([i]), 1.0 if i < relevant else 3.0,
                    members=frozenset({f"P{i}"})) for i in range(relevant + others)]
    asked = np.zeros(relevant + others + 2, dtype=np.float32)
    asked[0], asked[-1] = 0.15, 1.0
    scored = score_groups(groups, s, asked)
    assert selectivity(scored) == 1.0  # its frame words near three groups
    sel = choose_themes(scored, s, max_themes=5, quotes_per_theme=1, max_words=500,
                        focus=0.9, whole=True)
    assert sel.focus == 0.0 and sel.selective == 0.0
    assert not {"g0", "g1", "g2"} & {t.group.key for t in sel.themes}  # by weight


def test_a_groups_report_evidence_says_each_name_its_heading_says():
    """Carol's "Tiny Tim, Bob Cratchit and Christmas Day" was written from four sentences
    of Bob and Tiny Tim, and its topic named no Christmas Day. After its best sentence, a
    report's evidence takes the best one naming a name its heading says that none taken
    says yet (`_title_members`), then the rest by rank, as before."""
    s = index([("d1", ("Ann",), 0, "Ann founded the river trust in the town of Marsh End."),
               ("d1", ("Ann",), 0, "Ann leads the river trust and speaks for it at the council."),
               ("d1", ("Ann",), 0, "Ann wrote the river trust's first report on the floods."),
               ("d1", ("Bo",), 1, "Bo builds boats in the old harbour of Marsh End."),
               ("d1", ("Ann", "Cy"), 2, "Cy paints murals of the river that Ann asked for.")])
    names = frozenset({"Ann", "Bo", "Cy"})
    titled = Group("t", "Ann, Bo and Cy", None, s.rows_naming(names), 1.0, members=names)
    untitled = Group("t", "t", None, s.rows_naming(names), 1.0, members=names)
    rows = [s.text(r) for r in report_rows(titled, s, 3, 200)]
    before = [s.text(r) for r in report_rows(untitled, s, 3, 200)]
    assert before == ["Cy paints murals of the river that Ann asked for.",  # Bo unsaid
                      "Ann founded the river trust in the town of Marsh End.",
                      "Ann leads the river trust and speaks for it at the council."]
    assert rows == [before[0], "Bo builds boats in the old harbour of Marsh End.", before[1]]
