"""Extractive content: sentences with offsets, mentions and co-occurrence, the model's
typing choices (with a scripted chooser), descriptions, reports chosen from evidence, the
faithfulness check, and the choice trie. Real-model behaviour is in test_e2e."""

import pytest
from fakes import FakeChatModel

from graphrag_local import faithfulness
from graphrag_local.models.llama import _OptionTrie
from graphrag_local.prompts import load_prompts
from graphrag_local.schema import (
    Chunk,
    CommunityReport,
    Document,
    Entity,
    Finding,
    Relationship,
    Source,
)
from graphrag_local.search.common import IndexData
from graphrag_local.search.extractive import sentence_quote
from graphrag_local.sentences import (
    LONG_CHARS,
    MAX_CHARS,
    is_statement,
    near_duplicate,
    split_sentences,
    unlabelled,
    whole_sentence,
)
from graphrag_local.stages.chunk import chunk_documents, chunk_sentences
from graphrag_local.stages.classify import ClassifyOptions, classify_chunk, type_names, type_options
from graphrag_local.stages.communities import Cluster
from graphrag_local.stages.describe import Evidence, describe_entity, describe_relationship
from graphrag_local.stages.findings import CommunityEvidence, extractive_report, title_of
from graphrag_local.stages.mentions import cooccurrence, fast_extraction, guess_type, names_in
from graphrag_local.tokenizer import corpus_encoding

TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "EVENT")
TEXT = (
    "# The Aldren Water Trust\n\n"
    "The Aldren Water Trust is a charity based in Port Aldren. Mara Quill founded the Aldren "
    "Water Trust in 2015. Mr. Renn met Dr. Voss at St. Mary's. Port Aldren Town Council funds "
    "the River Aldren Restoration Project. Farmers drained the marsh."
)


def doc_and_chunk(text=TEXT):
    doc = Document("d1", "trust.md", "Trust", text, "utf-8")
    chunks = chunk_documents([doc], corpus_encoding(), 600, 100)
    return doc, chunks[0], chunk_sentences([doc], chunks)


# --- sentences and chunks ----------------------------------------------------------------


def test_sentences_keep_offsets_headings_and_abbreviations():
    spans = split_sentences(TEXT)
    texts = [TEXT[a:b] for a, b in spans]
    assert texts[0] == "# The Aldren Water Trust"
    assert "Mr. Renn met Dr. Voss at St. Mary's." in texts
    assert all(TEXT[a:b] == t for (a, b), t in zip(spans, texts))
    assert not is_statement(texts[0]) and is_statement(texts[1])


def test_a_speakers_turn_starts_a_sentence():
    """A transcript's turns, one a line: a turn cut off with a dash, or one ending in a
    stage note, does not run on into the next speaker's."""
    text = ("KEVIN SCOTT: I mean, I remember there was this- \nANDREW NG: He's in a league "
            "of his own.\nDANIELLE FEINBERG: Uh-huh. (affirmative) \n[MUSIC] KEVIN SCOTT: So, "
            "was this Turbo Pascal?\nHe wrote it in\nPascal on a Mac.")
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "KEVIN SCOTT: I mean, I remember there was this-",
        "ANDREW NG: He's in a league of his own.",
        "DANIELLE FEINBERG: Uh-huh. (affirmative)",
        "[MUSIC] KEVIN SCOTT: So, was this Turbo Pascal?",
        "He wrote it in\nPascal on a Mac."]
    assert unlabelled("[MUSIC] KEVIN SCOTT: So, was this Turbo Pascal?") == (
        "So, was this Turbo Pascal?")
    assert unlabelled("He wrote it in Pascal: on a Mac.") == "He wrote it in Pascal: on a Mac."


def test_a_stray_relative_path_before_a_sentence_is_no_part_of_it():
    """Nine of the paper's ten podcast transcripts open "../ANDREW NG: With the rise of
    technology ...": an answer quoted it so, and the speaker went unread. A "../" or "./"
    before a capital or a bracket is left out of the sentence (still a piece of the
    document's text); one inside a sentence, or before a lower-case word, is kept."""
    from graphrag_local.sentences import label_of

    text = ("../ANDREW NG: With the rise of technology comes power.\n"
            "KEVIN SCOTT: Hi everyone.\n\n./[MUSIC] See ../docs for more.\n\n./configure runs first.")
    found = [text[a:b] for a, b in split_sentences(text)]
    assert found == ["ANDREW NG: With the rise of technology comes power.",
                     "KEVIN SCOTT: Hi everyone.", "[MUSIC] See ../docs for more.",
                     "./configure runs first."]
    assert label_of(found[0]) == "ANDREW NG"


def test_long_sentence_is_cut_at_a_clause():
    text = "This is long, " * 40 + "and it ends here."
    spans = split_sentences(text, max_chars=120)
    assert len(spans) > 3 and all(b - a <= 120 for a, b in spans)
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "")


def test_a_piece_of_a_long_sentence_is_quoted_whole():
    # Carol's 417 characters: cut at a clause, no piece said whose clerk Bob Cratchit is
    long = ("Perhaps it was his sympathy with all poor men, " * 5 + "that led him straight "
            "to Scrooge's clerk's; for there he went, and took Scrooge with him, holding to "
            "his robe; and on the threshold the Spirit smiled, and stopped to bless Bob "
            "Cratchit's dwelling with the sprinkling of his torch.")
    assert MAX_CHARS < len(long) <= LONG_CHARS
    text = "Scrooge sat alone. " + long + " The end came."
    spans = split_sentences(text)
    cut = [text[a:b] for a, b in spans]
    assert len(cut) == 4 and cut[2][0].islower()  # stored in pieces
    assert not any("clerk" in piece and "Cratchit" in piece for piece in cut)
    assert [text[slice(*whole_sentence(text, a, b))] for a, b in spans] == [
        "Scrooge sat alone.", long, long, "The end came."]
    # a chunk may begin inside a sentence: from its first character, no sentence is whole
    inside = long[40:]
    a, b = split_sentences(inside)[0]
    assert whole_sentence(inside, a, b, at_start=False) == (a, b)
    assert whole_sentence(inside, a, b) != (a, b)
    a, b = split_sentences(" " + inside)[0]  # a chunk's text often begins with a space
    assert whole_sentence(" " + inside, a, b, at_start=False) == (a, b)
    # ... nor one running to its last character that does not end like a sentence
    clipped = text[: text.index(" holding to his robe")]
    a, b = split_sentences(clipped)[-1]
    assert whole_sentence(clipped, a, b) == (a, b)
    assert whole_sentence(clipped + " and so on.", a, b) != (a, b)
    over = "Word, " * 120 + "end."  # over LONG_CHARS: its pieces stay pieces
    assert all(whole_sentence(over, a, b) == (a, b) for a, b in split_sentences(over))

    # an answer quotes the piece it chose as the whole sentence, citing the piece's chunk
    chunk = Chunk("k1", "d1", "carol.txt", 0, 0, 200, 200, text)
    data = IndexData(entities={}, relationships=[], claims=[], chunks={"k1": chunk}, reports=[],
                     communities=[])
    quote = sentence_quote(data, Source("k1", *spans[1]), 0.5)
    assert quote.text == long and quote.source == Source("k1", *spans[1])
    assert sentence_quote(data, Source("k1", *spans[0]), 0.5).text == "Scrooge sat alone."


def test_chunks_know_their_place_and_sentences_theirs():
    text = "\n\n".join(f"Sentence number {i} names Mara Quill once." for i in range(400))
    doc = Document("d", "a.txt", "a", text, "utf-8")
    chunks = chunk_documents([doc], corpus_encoding(), 120, 20)
    sentences = chunk_sentences([doc], chunks)
    assert len(chunks) > 5
    for c in chunks:
        assert doc.text[c.start_char : c.end_char] == c.text
    by_id = {c.id: c for c in chunks}
    assert len(sentences) == 400  # each sentence once, in the chunk that holds it whole
    assert all(by_id[s.chunk_id].text[s.start : s.end] == s.text for s in sentences)


def test_near_duplicates():
    assert near_duplicate("Mara Quill founded the Trust.", "Mara Quill founded the trust")
    assert not near_duplicate("Mara Quill founded the Trust.", "Tobias Renn joined the Trust.")


# --- mentions, co-occurrence, the fast method --------------------------------------------


def test_a_title_line_is_quoted_only_after_every_whole_sentence():
    """Basic's answer to "Why did the Aldren Water Trust oppose the dredging?" quoted the
    sample's title line "The Harbour Dredging Vote" among its sentences."""
    from graphrag_local.schema import Source
    from graphrag_local.search.extractive import Quote, choose_quotes

    def quote(text: str, k: int) -> Quote:
        return Quote(text, Source("c", k, k + 1), ("S1",), 1.0 - k / 10)

    ranked = [quote("The Harbour Dredging Vote", 0), quote("The Trust opposes the plan.", 1),
              quote("Mara Quill argues that dredging would damage the river.", 2)]
    assert [q.text for q in choose_quotes(ranked, 2)] == [ranked[1].text, ranked[2].text]
    assert choose_quotes(ranked, 3)[-1].text == "The Harbour Dredging Vote"  # when it is all
    caption = quote("[Illustration: _Bob Cratchit went down a slide on Cornhill, at the end "
                    "of a lane of boys_]", 0)  # a long line is no heading, however it ends
    assert choose_quotes([caption, *ranked[1:]], 1) == [caption]


def test_a_cry_of_a_word_or_two_is_quoted_only_after_every_whole_sentence():
    """Basic's answer to "Who is the clerk to Ebenezer Scrooge?" on Carol's staves began
    "Ebenezer!" and quoted "Christmas, Ebenezer!" third: near the name, they say nothing."""
    from graphrag_local.schema import Source
    from graphrag_local.search.extractive import Quote, choose_quotes

    def quote(text: str, k: int) -> Quote:
        return Quote(text, Source("c", k, k + 1), ("S1",), 1.0 - k / 10)

    ranked = [quote("Ebenezer!", 0), quote("'No,' said Scrooge, 'no.", 1),
              quote("Christmas, Ebenezer!", 2),
              quote("'There's another fellow,' muttered Scrooge: 'my clerk, with fifteen "
                    "shillings a week.'", 3)]
    assert [q.text for q in choose_quotes(ranked, 2)] == [ranked[1].text, ranked[3].text]
    assert [q.text for q in choose_quotes(ranked, 4)][2:] == ["Ebenezer!", "Christmas, Ebenezer!"]
    # a speaker's label is not what is said: local's first quote for "What is the title of
    # Reid Hoffman's most recent book?" on the podcast was "REID HOFFMAN: Lawyer."
    reply = [quote("REID HOFFMAN: Lawyer.", 0),
             quote("CHRISTINA WARREN: Today we hear from the author Reid Hoffman.", 1)]
    assert [q.text for q in choose_quotes(reply, 2)] == [reply[1].text, reply[0].text]


def test_longest_name_wins_and_is_not_also_its_part():
    text = "The River Aldren Restoration Project restores the River Aldren."
    assert names_in(text, ["River Aldren", "River Aldren Restoration Project"]) == [
        "River Aldren Restoration Project", "River Aldren"]
    assert names_in("The River Aldren Restoration Project began.", ["River Aldren",
                    "River Aldren Restoration Project"]) == ["River Aldren Restoration Project"]


def test_cooccurrence_links_names_of_one_sentence_described_by_it():
    _, chunk, sentences = doc_and_chunk()
    named = [names_in(s.text, ["Mara Quill", "Aldren Water Trust", "Port Aldren"])
             if is_statement(s.text) else [] for s in sentences]
    rels = cooccurrence(sentences, named, chunk.id)
    pairs = {(r.source, r.target) for r in rels}
    assert ("Aldren Water Trust", "Port Aldren") in pairs and ("Mara Quill", "Aldren Water Trust") in pairs
    for r in rels:
        (a, b), = r.spans
        assert chunk.text[a:b] == r.description  # the sentence itself


def test_fast_method_needs_no_model_and_types_by_head_word():
    _, chunk, sentences = doc_and_chunk()
    x = fast_extraction(chunk, sentences, TYPES, "k")
    types = {e.name: e.type for e in x.entities}
    assert types["Port Aldren Town Council"] == "ORGANIZATION"
    assert types["Mara Quill"] == "UNKNOWN"
    assert guess_type("Millbrook Flood", TYPES) == "EVENT"
    assert guess_type("Scrooge's nephew", TYPES) == "PERSON"  # a person known by kin
    assert guess_type("Big Brother", TYPES) == "UNKNOWN"  # a capitalised kin word is a name's
    assert x.relationships and all(r.spans for r in x.relationships)


# --- the model's typing choices ----------------------------------------------------------


def chooser(types):
    """Picks, for each typing prompt, the first option word of the name's scripted type."""
    def choose(prompt, options, purpose):
        if purpose == "glean_check":
            return " YES"
        name = prompt.rsplit("Here, ", 1)[1].rsplit(" is a", 1)[0]
        wanted = types.get(name, "")
        opts = type_options(TYPES)
        return next(o for o, t in zip(opts.options, opts.types) if t == wanted and o in options)
    return choose


def test_typing_asks_in_the_names_sentence_and_drops_no_entity():
    _, chunk, sentences = doc_and_chunk()
    model = FakeChatModel(chooser=chooser({"Mara Quill": "PERSON", "Aldren Water Trust": "ORGANIZATION",
                                           "Port Aldren": "LOCATION"}))
    opts = ClassifyOptions(TYPES, 1, -1.5, 1.0)
    x = classify_chunk(model, load_prompts(), chunk, sentences, opts, "k")
    kept = {e.name: e.type for e in x.entities}
    assert kept == {"Mara Quill": "PERSON", "Aldren Water Trust": "ORGANIZATION", "Port Aldren": "LOCATION"}
    first = [a for a in model.asked if "Here, Mara Quill is a" in a["prompt"]][0]
    assert "Mara Quill founded the Aldren Water Trust in 2015. Here, Mara Quill is a" in first["prompt"]
    assert x.gleanings == 1 and any(a["purpose"] == "glean" for a in model.asked)  # "Farmers"
    mara = next(e for e in x.entities if e.name == "Mara Quill")
    assert [chunk.text[a:b] for a, b in mara.spans] == ["Mara Quill founded the Aldren Water Trust in 2015."]
    assert all(r.description in chunk.text for r in x.relationships)


def test_without_the_gleaning_check_the_doubtful_spans_are_typed_straight_away():
    """A preset whose model answers the gleaning YES/NO at chance (the embedded ones) skips
    it: the doubtful spans ("Farmers") are typed, each with its not-an-entity choice."""
    _, chunk, sentences = doc_and_chunk()
    types = {"Mara Quill": "PERSON", "Farmers": ""}
    asked = FakeChatModel(chooser=chooser(types))
    x = classify_chunk(asked, load_prompts(), chunk, sentences,
                       ClassifyOptions(TYPES, 1, -1.5, 1.0, glean_check=False), "k")
    purposes = [a["purpose"] for a in asked.asked]
    assert "glean_check" not in purposes and "glean" in purposes
    assert x.gleanings == 1 and "Farmers" not in {e.name for e in x.entities}
    assert any("Here, Farmers is a" in a["prompt"] for a in asked.asked if a["purpose"] == "glean")
    no_glean = FakeChatModel(chooser=chooser(types))
    classify_chunk(no_glean, load_prompts(), chunk, sentences,
                   ClassifyOptions(TYPES, 0, -1.5, 1.0, glean_check=False), "k")
    assert {a["purpose"] for a in no_glean.asked} == {"type"}  # max_gleanings = 0: none


def test_a_name_is_not_typed_by_its_own_inner_words_and_its_head_is_favoured():
    _, chunk, sentences = doc_and_chunk()
    model = FakeChatModel()
    type_names(model, load_prompts(), ("Port Aldren Town Council", "Mara Quill"), chunk.text,
               sentences, TYPES, -1.5, "type")
    calls = {a["prompt"].rsplit("Here, ", 1)[1]: a for a in model.asked}
    council = calls["Port Aldren Town Council is a"]
    assert " town" not in council["options"] and " port" not in council["options"]
    assert " town" in calls["Mara Quill is a"]["options"]


def test_choose_options_form_a_prefix_free_trie_with_forced_steps():
    toks = {" 1\n": [5, 1, 9], " 10\n": [5, 1, 0, 9], " 2\n": [5, 2, 9]}
    trie = _OptionTrie(tuple(toks), (), toks.get)
    assert list(trie.root.children) == [5]  # the space is forced
    assert set(trie.root.children[5].children) == {1, 2}
    with pytest.raises(ValueError, match="prefix-free"):
        _OptionTrie((" a", " ab"), (), {" a": [1], " ab": [1, 2]}.get)


# --- descriptions and reports ------------------------------------------------------------


def ev(text, i, names=()):
    return Evidence(Source("c", i, i + len(text)), text, (0, i), tuple(names))


def test_description_puts_the_subject_sentence_first_without_repeats_within_budget():
    es = [ev("Port Aldren funds what Mara Quill does.", 0, ["Port Aldren", "Mara Quill"]),
          ev("Mara Quill founded the Trust in 2015.", 50, ["Mara Quill"]),
          ev("Mara Quill founded the trust in 2015", 100, ["Mara Quill"]),
          ev("Mara Quill is the director of the Trust and " + "x " * 200 + "end.", 150, ["Mara Quill"])]
    text, sources = describe_entity("Mara Quill", es, 120)
    assert text.startswith("Mara Quill founded the Trust in 2015.")
    assert text.count("founded") == 1 and len(text) <= 120
    assert sources[0] == es[1].source


def test_description_opens_on_a_statement_about_the_entity_by_any_of_its_names():
    # Carol's words: the niece's harp sentence, naming Scrooge and "Scrooge's niece", had
    # opened Scrooge's description; dialogue ("'Dick Wilkins ...' said Scrooge") tells little
    es = [ev("Scrooge's niece played well upon the harp a simple little air, which had "
             "been familiar to the child who fetched Scrooge from the boarding-school.", 0,
             ["Ebenezer Scrooge", "Scrooge's niece"]),
          ev("'Dick Wilkins, to be sure!' said Scrooge to the Ghost.", 200,
             ["Ebenezer Scrooge", "Dick Wilkins", "Ghost"]),
          ev("Scrooge was his sole executor, his sole friend, and sole mourner.", 300,
             ["Ebenezer Scrooge"]),
          ev("Oh! But he was a tight-fisted hand at the grindstone, Scrooge!", 400,
             ["Ebenezer Scrooge"])]
    text, sources = describe_entity("Ebenezer Scrooge", es, 80, aliases=("Scrooge", "Mr Scrooge"))
    assert text == "Scrooge was his sole executor, his sole friend, and sole mourner."
    assert sources == (es[2].source,)
    # without that sentence none opens on his name (the niece's opens on hers), and the
    # niece is no second entity of his: the shorter statement leads
    text, _ = describe_entity("Ebenezer Scrooge", es[:2] + es[3:], 300, aliases=("Scrooge",))
    assert text.startswith("Oh! But he was")
    # the niece's own description opens on her sentence: there she is the subject
    text, _ = describe_entity("Scrooge's niece", es, 200)
    assert text.startswith("Scrooge's niece played")


def test_a_relationship_is_described_by_statements_before_dialogue():
    es = [ev("'I don't,' said Scrooge.", 0, ["Scrooge", "Ghost"]),
          ev("Scrooge and the Ghost again stood side by side in the open air.", 50,
             ["Scrooge", "Ghost"])]
    text, _ = describe_relationship(es, 70)
    assert text.startswith("Scrooge and the Ghost again stood")
    # of neighbouring sentences ("It beckoned Scrooge to approach." beside one naming
    # Marley), the one naming both ends first
    pair = [ev("It beckoned Scrooge to approach, which he did.", 0, ["Scrooge"]),
            ev("The firm was known as Scrooge and Marley.", 60, ["Scrooge", "Marley"])]
    text, _ = describe_relationship(pair, 50, ("Scrooge", "Marley"))
    assert text == "The firm was known as Scrooge and Marley."


def test_report_is_chosen_from_evidence_with_sources_and_no_repeats():
    members = ("Ann", "Bob", "Cy")
    sentences = [ev("Ann leads Bob.", 0, ["Ann", "Bob"]), ev("Ann leads Bob!", 20, ["Ann", "Bob"]),
                 ev("Cy helps Ann.", 40, ["Cy", "Ann"]), ev("Bob sings.", 60, ["Bob"]),
                 ev("Ann is tall.", 80, ["Ann"])]
    e = CommunityEvidence(members, {"Ann": 3, "Bob": 2, "Cy": 1}, sentences,
                          {"Ann leads Bob.", "Cy helps Ann."})
    r = extractive_report(Cluster("c", 0, "", members), e, [], "k", max_findings=3,
                          max_summary_chars=40)
    assert r.title == title_of(members, e.degree) == "Ann, Bob and Cy"
    assert r.summary.startswith("Ann leads Bob") and r.summary_sources
    said = [r.summary] + [f.summary for f in r.findings]
    assert not any(near_duplicate(a, b) for i, a in enumerate(said) for b in said[i + 1 :])
    assert all(f.sources and f.explanation == "" for f in r.findings)
    assert r.rating_by == "graph" and "computed from the graph" in r.rating_explanation


# --- the faithfulness check --------------------------------------------------------------


def test_faithfulness_finds_invented_text_repeats_and_bad_sources():
    doc, chunk, _ = doc_and_chunk()
    good = "Mara Quill founded the Aldren Water Trust in 2015."
    at = chunk.text.index(good)
    src = Source(chunk.id, at, at + len(good))
    ents = [Entity("e1", "Mara Quill", "PERSON", good, (chunk.id,), 1, (src,)),
            Entity("e2", "Port Aldren", "LOCATION", "The city of Port Aldren is in Ireland.", (chunk.id,))]
    rels = [Relationship("r1", "Mara Quill", "Port Aldren", good, 1, 1, 1, (chunk.id,), (src,))]
    report = CommunityReport("c", "c", 0, "k", "ok", "", title="T", summary=good,
                             findings=(Finding(good, "", (src,)), Finding(good + " ", "", (src,)),
                                       Finding("Made up.", "", ()),
                                       Finding(good, "", (Source(chunk.id, 0, 5),))))
    r = faithfulness.check([doc], [chunk], ents, rels, [report])
    assert r["fields"]["entity_descriptions"] == {"sentences": 2, "verbatim": 1, "near_verbatim": 0,
                                                  "traceable_share": 0.5, "verbatim_share": 0.5}
    assert "Ireland" in r["unknown_examples"]
    assert r["duplicated_findings"] == 2 and r["findings_without_source"] == 1
    assert r["bad_sources"] == 1
    assert len(faithfulness.breaches(r)) == 4


def test_faithfulness_of_a_clean_extractive_index_is_total():
    doc, chunk, _ = doc_and_chunk()
    good = "Mara Quill founded the Aldren Water Trust in 2015."
    at = chunk.text.index(good)
    src = Source(chunk.id, at, at + len(good))
    ents = [Entity("e1", "Mara Quill", "PERSON", good, (chunk.id,), 1, (src,))]
    r = faithfulness.check([doc], [chunk], ents, [], [])
    assert r["traceable_share"] == r["verbatim_share"] == 1.0 and not faithfulness.breaches(r)


def test_a_chunk_source_points_into_its_chunk():
    _, chunk, sentences = doc_and_chunk()
    assert isinstance(chunk, Chunk)
    assert all(chunk.text[s.start : s.end] == s.text for s in sentences)


# --- the extractive build and its answers, with a scripted model -------------------------

SAMPLE_TYPES = {"Mara Quill": "PERSON", "Tobias Renn": "PERSON", "Elena Voss": "PERSON",
                "Jonas Halvard": "PERSON", "Aldren Water Trust": "ORGANIZATION",
                "Port Aldren": "LOCATION", "River Aldren": "LOCATION", "Millbrook": "LOCATION",
                "Millbrook Flood": "EVENT", "Halvard Shipping Company": "ORGANIZATION"}


def scripted_choices(prompt, options, purpose):
    if purpose in ("type", "glean"):
        return chooser(SAMPLE_TYPES)(prompt, options, purpose)
    if purpose == "glean_check":
        return " NO"
    if purpose == "map":  # helpful when the statement names the Trust
        return " 90\n" if "Trust" in prompt.rsplit("Statement:", 1)[1] else " 0\n"
    raise AssertionError(purpose)


def extractive_build(docs, index, model, method="standard"):
    from test_pipeline import make_build

    from graphrag_local.settings import Settings

    return make_build(docs, index, model, settings=Settings(content="extractive", method=method))


@pytest.fixture(scope="module")
def extractive_index(tmp_path_factory):
    from conftest import copy_corpus

    from graphrag_local.pipeline import run_build

    base = tmp_path_factory.mktemp("extractive")
    docs = copy_corpus(base / "docs")
    model = FakeChatModel(chooser=scripted_choices)
    summary = run_build(extractive_build(docs, base / "idx", model))
    return {"base": base, "docs": docs, "index": base / "idx", "summary": summary, "model": model}


def test_extractive_build_stores_only_sentences_of_the_documents(extractive_index):
    from graphrag_local.store import Store

    s = extractive_index["summary"]
    assert set(s["llm_calls_by_stage"]) == {"extract"}  # descriptions and reports: no model
    assert s["faithfulness"]["verbatim_share"] == 1.0 and not [w for w in s["warnings"] if "BUG" in w]
    assert s["entities"] == len(SAMPLE_TYPES) and s["reports"] >= 1
    store = Store(extractive_index["index"])
    chunks = {c["id"]: c["text"] for c in store.read("chunks")}
    import json

    for e in store.read("entities"):
        sources = json.loads(e["sources_json"])
        assert sources and " ".join(chunks[c][a:b] for c, a, b in sources) == e["description"]
    for r in store.read("community_reports"):
        for f in json.loads(r["findings_json"]):
            (c, a, b), = f["sources"]
            assert chunks[c][a:b] == f["summary"]


def test_extractive_build_reruns_free_and_resumes_to_the_same_tables(extractive_index, tmp_path):
    from test_pipeline import tables

    from graphrag_local.errors import InjectedFailure
    from graphrag_local.pipeline import run_build

    docs, idx = extractive_index["docs"], extractive_index["index"]
    again = run_build(extractive_build(docs, idx, FakeChatModel()))
    assert again["llm_calls"] == 0
    crashed = tmp_path / "crashed"
    with pytest.raises(InjectedFailure):
        run_build(extractive_build(docs, crashed, FakeChatModel(chooser=scripted_choices, fail_after=20)))
    resumed = run_build(extractive_build(docs, crashed, FakeChatModel(chooser=scripted_choices)))
    assert 0 < resumed["llm_calls"] < extractive_index["summary"]["llm_calls"]
    assert tables(crashed) == tables(idx)


def test_fast_method_builds_without_any_model_call(extractive_index, tmp_path):
    from graphrag_local.pipeline import run_build

    model = FakeChatModel()  # any call would fail the test
    s = run_build(extractive_build(extractive_index["docs"], tmp_path / "fast", model, "fast"))
    assert model.calls == [] and s["llm_calls"] == 0
    assert s["entities"] > len(SAMPLE_TYPES) and s["reports"] >= 1
    assert s["faithfulness"]["verbatim_share"] == 1.0 and s["method"] == "fast"


def test_extractive_answers_quote_sentences_with_their_sources(extractive_index):
    from fakes import HashEmbedder

    from graphrag_local.query import Session
    from graphrag_local.search.extractive import LEAD_MARK
    from graphrag_local.settings import Settings

    model = FakeChatModel(chooser=scripted_choices, default=lambda m, g, p: "The Trust is old.")
    s = Session(extractive_index["index"], Settings(), load_prompts(), lambda: model,
                HashEmbedder)
    assert s.content == "extractive"  # from the index's manifest, not the settings
    corpus = " ".join(" ".join(p.read_text() for p in sorted(extractive_index["docs"].iterdir())).split())
    for method in ("basic", "local", "global", "ts", "drift"):
        res = s.ask("Who founded the Aldren Water Trust?", method=method)
        quotes = [line for line in res.answer.splitlines() if line.startswith("- ")]
        heads = [line for line in res.answer.splitlines() if line.startswith("**")]
        assert 1 <= len(quotes) <= 16, method
        for line in quotes:
            sentence, refs = line[2:].rsplit(" [", 1)
            assert sentence in corpus, (method, sentence)
            assert refs.rstrip("]")
        cited = {c.ref for c in res.citations if c.cited}
        for head in heads:  # a theme's heading carries its report's ref (ts: a document)
            ref = head.rsplit("[", 1)[1].rstrip("]") if head.endswith("]") else ""
            assert not ref or ref in cited, (method, head)
        assert all(c.cited for c in res.citations if c.kind == "chunk")
        assert res.calls == [] and not model.calls, method  # the extractive answer needs no model
    led = s.ask("Who founded the Aldren Water Trust?", method="basic", lead=True)
    assert led.answer.startswith(f"{LEAD_MARK} The Trust is old.")


def test_an_entity_alone_that_many_sentences_describe_gets_a_report(tmp_path):
    """No relationship found for a story's hero: a community of one, which gets a report
    (else no global answer reaches the story) when enough sentences describe it."""
    from dataclasses import replace

    from test_pipeline import make_build

    from graphrag_local.pipeline import run_build
    from graphrag_local.settings import ReportSettings, Settings
    from graphrag_local.store import Store

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "thumb.md").write_text(
        "Tom Thumb lived in a tiny house by the mill. Tom Thumb rode a grey mouse to the "
        "market every week. Tom Thumb sang to the birds each morning. Tom Thumb slept in a "
        "walnut shell lined with moss. Ada Byron met Charles Babbage at a dinner in London.")
    base = Settings(content="extractive", method="fast")

    def titles(settings, name):
        summary = run_build(make_build(docs, tmp_path / name, FakeChatModel(), settings=settings))
        return summary, sorted(r["title"] for r in Store(tmp_path / name).read("community_reports"))

    summary, reported = titles(base, "default")
    assert "Tom Thumb" in reported and len(reported) == 2 and summary["llm_calls"] == 0
    _summary, reported = titles(replace(base, reports=ReportSettings(alone_sentences=5)), "five")
    assert "Tom Thumb" not in reported and len(reported) == 1


def test_drift_shows_two_reports_of_one_title_as_one_block():
    """A community carried down a level unchanged is two reports of one title (Carol's
    "Ebenezer Scrooge, Ghost and Spirit", R30 and R10): one heading, under the first ref."""
    from types import SimpleNamespace

    from graphrag_local.schema import Source
    from graphrag_local.search.drift import report_blocks
    from graphrag_local.search.extractive import Quote

    quotes = [Quote(f"Sentence {i}.", Source("c", i, i + 1), ("S1",), 0.5) for i in range(4)]
    scrooge = SimpleNamespace(ref="R30", title="Ebenezer Scrooge, Ghost and Spirit (+34 more)")
    again = SimpleNamespace(ref="R10", title="Ebenezer Scrooge, Ghost and Spirit (+34 more)")
    ghosts = SimpleNamespace(ref="R36", title="Ghost of Christmas Present and Ghost of Jacob Marley")
    blocks = report_blocks(quotes, [scrooge, ghosts, again, scrooge])
    assert [(h, ref, [q.text for q in qs]) for h, ref, qs in blocks] == [
        ("Ebenezer Scrooge, Ghost and Spirit", "R30", ["Sentence 0.", "Sentence 2.", "Sentence 3."]),
        ("Ghost of Christmas Present and Ghost of Jacob Marley", "R36", ["Sentence 1."])]
