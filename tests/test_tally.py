"""Questions asking how often something comes up: what they ask of (`language/often.py`),
and the count of the sentences about it by document (`search/tally.py`), on a small index
whose sentence vectors are set by hand."""

from pathlib import PurePosixPath

import numpy as np
import pytest

from graphrag_local.language.often import asked_often
from graphrag_local.schema import Chunk, Document
from graphrag_local.search import tally
from graphrag_local.search.common import IndexData, SearchResult
from graphrag_local.search.evidence import SentenceIndex

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("question,topic", [
    # the paper's podcast questions
    ("How frequently do discussions about artificial intelligence arise compared to other "
     "topics?", "artificial intelligence"),
    ("Which guests speak the most about educational technology?", "educational technology"),
    ("What are the most frequently mentioned challenges in the tech industry?",
     "challenges in the tech industry"),
    ("Do any guests frequently mention specific companies or startups during their "
     "interviews?", "companies or startups"),
    ("How often is the topic of user data security broached in conversations?",
     "user data security"),
    ("How often do guests mention collaboration with other companies or industry rivals?",
     "collaboration with other companies or industry rivals"),
    ("How often is the issue of funding presented as a critical concern in technological "
     "advancement?", "funding"),
    ("What barriers to growth do leaders frequently mention and how do they propose "
     "overcoming them?", "barriers to growth"),
    ("How often do members of the council mention flooding?", "flooding"),
    ("How often does the Lantern Festival come up?", "Lantern Festival"),
    ("How frequently is Marley mentioned?", "Marley"),
    ("How often do foxes appear in these stories?", "foxes"),
    # which documents: where it comes up
    ("Which guests discuss the topic of diversity and inclusion in tech?",
     "diversity and inclusion in tech"),
    ("Which stories mention a king?", "king"),
    ("Which documents describe the flood?", "flood"),
    ("Which episodes feature conversations about technology's role in education?",
     "technology's role in education"),
    ("Which guests are athletes?", ""),  # what they are, not what they say
    ("Which people talk to Scrooge?", ""),  # people, not the documents they are in
    # a frequency the documents state, or a count of events: not what they say how often
    ("How often does the council meet?", ""),
    ("How many times does Scrooge see a ghost?", ""),
    ("Which documents talk the most about the dredging?", "dredging"),
    # not asked how often
    ("What are the main themes of the story?", ""),
    ("What are the most important themes?", ""),
    ("What personal anecdotes or stories do tech leaders often share?", ""),
    ("Who talks most?", ""),
    ("Wie oft wird das Festival erwähnt?", ""),  # asked as English: German has its rules
])
def test_what_a_question_asks_how_often_of(question, topic):
    assert asked_often(question) == topic


@pytest.mark.parametrize("question,language,topic", [
    ("Wie oft wird der Hafen erwähnt?", "de", "Hafen"),
    ("Welche Dokumente sprechen am meisten über den Hafen?", "de", "Hafen"),
    ("Was sind die Hauptthemen?", "de", ""),
    ("Wie oft trifft sich der Rat?", "de", ""),  # a frequency the documents state
    ("Welche Dokumente sprechen über den Hafen?", "de", "Hafen"),
    ("Quels documents parlent du festival ?", "fr", "festival"),
    ("¿Qué documentos hablan del festival?", "es", "festival"),
    ("Какие истории упоминают короля?", "ru", "короля"),
    ("哪些文档提到了港口？", "zh", "港口"),
    ("Combien de fois le conseil se réunit-il ?", "fr", ""),
    ("Combien de fois le port est-il mentionné ?", "fr", "port"),
    ("À quelle fréquence parle-t-on de la pêche ?", "fr", "pêche"),
    ("Quels documents parlent le plus du festival ?", "fr", "festival"),
    ("Quels sont les thèmes principaux ?", "fr", ""),
    ("¿Cuántas veces se menciona el puerto?", "es", "puerto"),
    ("¿Con qué frecuencia se habla de la pesca?", "es", "pesca"),
    ("Как часто упоминается порт?", "ru", "порт"),
    ("Как часто говорится о порте?", "ru", "порте"),
    ("港口被提到了多少次？", "zh", "港口"),
    ("文档中多常提到港口？", "zh", "港口"),
    ("这些文档的主要主题是什么？", "zh", ""),
    ("港は何回言及されていますか？", "ja", "港"),
    ("これらの文書の主なテーマは何ですか？", "ja", ""),
    ("How often is the port mentioned?", "it", ""),  # a language without its rules
])
def test_what_a_question_in_another_language_asks_how_often_of(question, language, topic):
    assert asked_often(question, language) == topic


SENTENCES = [  # (document, nearness to the topic, text)
    ("d1", 0.80, "The festival brought the whole town to the harbour."),
    ("d1", 0.60, "Lanterns for the festival were made by every school."),
    ("d1", 0.10, "The council met on Tuesday about the roads."),
    ("d2", 0.50, "The painter showed a mural at the festival in August."),
    ("d2", 0.95, "Festival!"),  # too short to say anything of it
    ("d3", 0.20, "Boats were repaired in the winter yard."),
    ("d3", 0.90, "# The Festival"),  # a heading: not a sentence about it
    ("d3", 0.30, "They said that the festival ran late."),  # named, though not near
]


def index(sentences=SENTENCES) -> SentenceIndex:
    docs = sorted({d for d, *_ in sentences})
    texts = {d: " ".join(t for dd, _x, t in sentences if dd == d) for d in docs}
    chunks = {f"k{d}": Chunk(f"k{d}", d, f"{d}.txt", 0, 0, 10, 10, texts[d]) for d in docs}
    rows, at = [], {d: 0 for d in docs}
    for d, _x, text in sentences:
        rows.append({"chunk_id": f"k{d}", "start": at[d], "end": at[d] + len(text),
                     "entities": []})
        at[d] += len(text) + 1
    # unit vectors whose first coordinate is the nearness to the topic (1, 0, 0)
    matrix = np.asarray([[x, np.sqrt(1 - x * x), 0.0] for _d, x, _t in sentences], np.float32)
    documents = {d: Document(d, f"{d}_notes.txt", f"{d}_notes", "", "utf-8") for d in docs}
    data = IndexData(entities={}, relationships=[], claims=[], chunks=chunks, reports=[],
                     communities=[], documents=documents)
    return SentenceIndex(rows, matrix, data)


TOPIC = np.asarray([1.0, 0.0, 0.0], np.float32)


def test_the_sentences_near_the_topic_are_counted_by_document_most_first():
    s = index()
    t = tally.count(s, TOPIC, "the festival")
    assert t.sentences == 4 and t.documents == 3
    assert [(c.document, c.sentences) for c in t.counts] == [("d1", 2), ("d2", 1), ("d3", 1)]
    assert s.text(t.counts[1].nearest).startswith("The painter")  # not "Festival!"
    text, quotes = tally.shown(t, s._data, s)
    assert '**How often "the festival" comes up, and where** (quoted)' in text
    assert ("4 sentences about it (naming it, or by the embedder 0.45 or nearer), 66.7% of the 6"
            " statements, in 3 of the 3 documents") in text
    assert "- *d1 notes* (2): The festival brought the whole town to the harbour. [S1]" in text
    assert [q.text for q in quotes] == ["The festival brought the whole town to the harbour.",
                                        "The painter showed a mural at the festival in August.",
                                        "They said that the festival ran late."]


@pytest.mark.parametrize("topic,text,named", [
    ("foxes", "At last the old Fox thought out a way.", True),
    ("kings", "I am going to Madrid, to see the King.", True),
    ("the cities", "The city slept.", True),
    ("Lantern Festival", "The lantern festivals of the coast.", True),
    ("boxes", "The boxer won.", False),
    ("Lantern Festival", "The lantern was lit for the festival.", False),
    ("collaboration with other companies or industry rivals", "Rivals collaborate.", False),
    ("Hafen|de", "Die Schiffe des Hafens.", True),
    ("Hafen|de", "Die Hafenmauer.", False),
    ("порте|ru", "Корабли вошли в гавань порта.", True),
    ("порт|ru", "Он взял портфель.", False),
    ("港口|zh", "船停在港口里。", True),
])
def test_a_sentence_names_a_topic_by_its_words_singular_or_plural(topic, text, named):
    from graphrag_local.stages.ground import normalise

    topic, _, language = topic.partition("|")
    pattern = tally.naming(topic, language or "en")
    assert bool(pattern and pattern.search(normalise(text))) is named


def test_where_no_passage_is_near_enough_it_says_so_and_quotes_the_nearest():
    far = [(d, x * 0.5, t.replace("festival", "fair").replace("Festival", "Fair"))
           for d, x, t in SENTENCES]  # 0.40 at most, but the short one and the heading
    s = index(far)
    t = tally.count(s, TOPIC, "the festival")
    assert t.sentences == 0 and not t.counts
    text, quotes = tally.shown(t, s._data, s)
    assert "No sentence of the 3 documents is about it" in text
    assert "- The nearest (0.40): The fair brought the whole town" in text
    assert len(quotes) == 1


def test_the_count_says_what_share_of_the_statements_it_is():
    """"How frequently do discussions about artificial intelligence arise compared to other
    topics?" was answered "51 sentences about it ... in 6 of the 10 documents", which
    compares with nothing. The count says what share it is of the statements that could
    count (the headings, formulas and sentences of fewer than four words left out: 6 of
    these 8), in the question's language's way of writing a percentage."""
    s = index()
    t = tally.count(s, TOPIC, "the festival")
    assert (t.sentences, t.counted) == (4, 6)
    assert tally.share(4, 6) == "66.7%" and tally.share(4, 6, "de") == "66,7\u00a0%"
    assert tally.share(1, 4872) == "<0.1%" and tally.share(0, 10) == "0.0%"
    text, _quotes = tally.shown(t, s._data, s, "fr")
    assert "4 phrases le nomment (66,7\u00a0% des 6)" in text
    result = SearchResult("How often?", "global", "", no_answer=True)
    assert tally.prefixed(result, text, [], t, s._data).tally["of_sentences"] == 6


def test_the_count_goes_before_the_answer_and_its_sentences_among_the_sources():
    s = index()
    t = tally.count(s, TOPIC, "the festival")
    text, quotes = tally.shown(t, s._data, s)
    result = SearchResult("How often does the festival come up?", "global", "**Themes**\n- x [S3]",
                          no_answer=False)
    tally.prefixed(result, text, quotes, t, s._data)
    assert result.answer.startswith("**How often") and result.answer.endswith("- x [S3]")
    assert {c.ref for c in result.citations if c.cited} == {"S1", "S2", "S3"}
    assert result.tally["by_document"][0] == {"document": "d1_notes.txt", "sentences": 2,
                                              "nearest": 0.8}


def test_the_words_most_documents_labels_share_are_left_out_of_the_count():
    """The podcast's files are named "ep05_EP-05__Behind_the_Tech_Kevin_Scott_Podcast_with_
    Danielle_Feinberg.txt": the count names the episode "ep05 EP-05 Danielle Feinberg", not
    the show's name ten times over. Titles that share no run of two words stay whole."""
    def data(paths: list[str], title: str = "") -> IndexData:
        docs = {f"d{i}": Document(f"d{i}", p, title or PurePosixPath(p).stem, "", "utf-8")
                for i, p in enumerate(paths)}
        return IndexData(entities={}, relationships=[], claims=[], chunks={}, reports=[],
                         communities=[], documents=docs)

    shows = data(["ep01_Harbour_Show_with_Ann_Holt.txt", "ep02_Harbour_Show_with_Bo_Ray.txt",
                  "ep03_Harbour_Show_with_Cy.txt", "ep04_Harbour_Show_with_Di.txt",
                  "ep05_Extra.txt"])
    assert list(tally.labels(shows).values()) == ["ep01 Ann Holt", "ep02 Bo Ray", "ep03 Cy",
                                                   "ep04 Di", "ep05 Extra"]
    two = data(["a_Harbour_Show_1.txt", "b_Harbour_Show_2.txt"])  # (fewer than three)
    assert list(tally.labels(two).values()) == ["a Harbour Show 1", "b Harbour Show 2"]
