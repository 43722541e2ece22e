"""Names cleaned and aliases resolved after extraction (`stages/aliases.py`): one entity
per person, ambiguous short names kept apart, common words dropped."""

import pytest

from graphrag_local.schema import EntityRecord, RelationshipRecord
from graphrag_local.stages.aliases import (
    WordStats,
    clean_name,
    rename_records,
    resolve_records,
    word_stats,
)

pytestmark = pytest.mark.fast

CORPUS = (
    "Ebenezer Scrooge kept the office. Scrooge was tight-fisted, and Mr. Scrooge knew it. "
    "Perhaps Scrooge thought so. Whereat Scrooge smiled. Uncle Scrooge, said his nephew. "
    "Bob Cratchit, his clerk, went home. Mrs. Cratchit and Martha Cratchit waited for Bob, "
    "and the Cratchits ate. Cratchit smiled. God bless us, every one. Come in, come in, come! "
    "Have I the pleasure? I have. Perhaps it is, whereat I laugh, perhaps. The Aldren Water Trust (AWT) protects the river; the AWT is old. "
    "The Halvard Shipping Company owns ships, and Halvard Shipping sails them. The Evil "
    "Spirit fled and the Spirit stayed; a spirit of the evil kind. Spirit, said he. Spirit "
    "and Spirit again, with the Spirit. In his evil heart. The evil and the evil."
)


def rec(name, type_="PERSON", chunk="c1", n=1):
    return EntityRecord(name, type_, "", chunk, ((0, 10),) * n)


def resolved(records, doc_of=None):
    doc_of = doc_of or {"c1": "d1", "c2": "d2"}
    return resolve_records(records, doc_of, word_stats([CORPUS]))


def test_word_stats_tell_sentence_starts_from_capitals_inside_sentences():
    s = word_stats(["Perhaps it rained. It was perhaps wet, said Scrooge to Scrooge."])
    assert s.upper_mid["perhaps"] == 0 and s.lower["perhaps"] == 1
    assert s.upper_mid["scrooge"] == 2 and s.upper_mid["it"] == 0


def test_cleaning_drops_sentence_initial_words_repeats_pronouns_and_common_words():
    stats = word_stats([CORPUS])
    assert clean_name("Perhaps Scrooge", stats) == "Scrooge"
    assert clean_name("Whereat Scrooge", stats) == "Scrooge"
    assert clean_name("Scrooge Scrooge", stats) == "Scrooge"
    assert clean_name("Have I", stats) is None and clean_name("Come", stats) is None
    assert clean_name("Port Aldren", WordStats()) == "Port Aldren"
    assert clean_name("Mrs Cratchit", stats) == "Mrs Cratchit"
    assert clean_name("Ebenezer Scrooge", stats) == "Ebenezer Scrooge"  # not a common word
    assert clean_name("O Jacob Marley", stats) == "Jacob Marley"  # a vocative "O"
    assert clean_name("O God", stats) == "God"


def test_an_english_preposition_alone_is_no_name():
    """"Behind", of the podcast's "Behind the Tech" (said capitalised in every episode's
    opening, so capitalised more often than not), was an entity of 24 relationships."""
    stats = word_stats(["Welcome to Behind the Tech. Behind the Tech is a podcast. "
                        "It is Behind the Tech again, and the work behind it."])
    assert clean_name("Behind", stats) is None
    assert clean_name("Behind the Tech", stats) == "Behind the Tech"
    assert clean_name("Upton", stats) == "Upton"


def test_one_person_one_node_with_aliases_and_their_mentions():
    r = resolved([rec("Ebenezer Scrooge"), rec("Scrooge", n=5), rec("Mr Scrooge"),
                  rec("Uncle Scrooge", n=2), rec("Perhaps Scrooge")])
    assert set(r.rename.values()) == {"Ebenezer Scrooge"}
    assert dict(r.aliases["Ebenezer Scrooge"]) == {
        "Scrooge": 5, "Mr Scrooge": 1, "Uncle Scrooge": 2, "Perhaps Scrooge": 1}


def test_a_person_known_by_kin_is_not_a_full_name_of_the_one_whose_kin():
    """"Scrooge's nephew" is someone else than Scrooge: "Scrooge" still joins "Ebenezer
    Scrooge", the one full name whose surname it is, and the nephew stays apart."""
    r = resolved([rec("Ebenezer Scrooge"), rec("Scrooge", n=5), rec("Scrooge's nephew", n=3),
                  rec("Scrooge's niece")])
    assert r.rename["scrooge"] == "Ebenezer Scrooge"
    assert r.rename["scrooge s nephew"] == "Scrooge's nephew"
    assert r.rename["scrooge s niece"] == "Scrooge's niece"


def test_ambiguous_and_titled_names_stay_apart():
    r = resolved([rec("Bob Cratchit"), rec("Martha Cratchit"), rec("Mrs Cratchit"),
                  rec("Cratchit"), rec("Cratchits"), rec("Bob", n=3)])
    assert r.rename["bob"] == "Bob Cratchit"
    assert r.rename["mrs cratchit"] == "Mrs Cratchit"  # her title says it is not Bob
    assert r.rename["cratchit"] == r.rename["cratchits"] not in ("Bob Cratchit", "Martha Cratchit")
    assert r.rename["martha cratchit"] == "Martha Cratchit"


def test_a_surname_with_its_joined_forms_is_judged_over_all_their_documents():
    # "Mr Cratchit" is only in d1, where Bob is the one Cratchit; "Cratchit" (joined with
    # it) is also in d2, where Peter Cratchit is: the surname fits two people, stays apart
    r = resolved([rec("Bob Cratchit", chunk="c1"), rec("Bob Cratchit", chunk="c2"),
                  rec("Peter Cratchit", chunk="c2"), rec("Mr Cratchit", chunk="c1"),
                  rec("Cratchit", chunk="c1"), rec("Cratchit", chunk="c2")])
    assert r.rename["cratchit"] == r.rename["mr cratchit"] == "Cratchit"
    # in one document only, with one Cratchit there, the same names are Bob's
    r = resolved([rec("Bob Cratchit", chunk="c1"), rec("Peter Cratchit", chunk="c2"),
                  rec("Mr Cratchit", chunk="c1"), rec("Cratchit", chunk="c1")])
    assert r.rename["cratchit"] == r.rename["mr cratchit"] == "Bob Cratchit"


def test_a_sentence_connective_is_no_first_name():
    # "Whereat" only ever starts a sentence, once: the corpus alone cannot tell it from a
    # given name, and "Whereat Scrooge" would make "Scrooge" fit two people
    text = "Whereat Scrooge smiled. Then Ebenezer Scrooge sat, and Scrooge and Mr. Scrooge."
    records = [rec("Ebenezer Scrooge", chunk="c1"), rec("Whereat Scrooge", chunk="c2"),
               rec("Scrooge", chunk="c1"), rec("Scrooge", chunk="c2"), rec("Mr Scrooge", chunk="c2")]
    r = resolve_records(records, {"c1": "d1", "c2": "d2"}, word_stats([text]))
    assert r.rename["scrooge"] == r.rename["mr scrooge"] == "Ebenezer Scrooge"
    assert r.rename["whereat scrooge"] == "Ebenezer Scrooge"


def test_mrs_and_miss_of_one_name_are_two_people():
    r = resolved([rec("Mrs Fezziwig"), rec("Miss Fezziwig")])
    assert r.rename["mrs fezziwig"] != r.rename["miss fezziwig"]


def test_titles_are_peoples_old_bohumin_is_another_place():
    r = resolved([rec("Old Fezziwig"), rec("Fezziwig"), rec("Bohumín", "GEO"),
                  rec("Old Bohumín", "GEO"), rec("New Bohumín", "GEO")])
    assert r.rename["old fezziwig"] == r.rename["fezziwig"]
    assert len({r.rename["bohumín"], r.rename["old bohumín"], r.rename["new bohumín"]}) == 3


def test_a_surname_crosses_documents_a_given_name_does_not():
    r = resolved([rec("Ebenezer Scrooge", chunk="c1"), rec("Scrooge", chunk="c2"),
                  rec("Ebenezer", chunk="c2")])
    assert r.rename["scrooge"] == "Ebenezer Scrooge" and r.rename["ebenezer"] == "Ebenezer"


def test_acronyms_organisation_heads_and_types():
    r = resolved([rec("Aldren Water Trust", "ORGANIZATION"), rec("AWT", "ORGANIZATION"),
                  rec("Halvard Shipping Company", "ORGANIZATION"),
                  rec("Halvard Shipping", "ORGANIZATION"), rec("Halvard", "LOCATION"),
                  rec("Evil Spirit"), rec("Spirit", n=9)])
    assert r.rename["awt"] == "Aldren Water Trust"
    assert r.rename["halvard shipping"] == "Halvard Shipping Company"
    assert r.rename["halvard"] == "Halvard"  # a place is never an alias of a company
    assert r.rename["spirit"] == "Spirit"  # "Evil" is no given name


def test_dotted_acronyms_and_an_organisations_head_word_alone_join_it():
    r = resolved([rec("United States", "LOCATION"), rec("U.S", "LOCATION"),
                  rec("Project Gutenberg Literary Archive Foundation", "ORGANIZATION"),
                  rec("Foundation", "ORGANIZATION", n=5),
                  rec("Aldren Water Trust", "ORGANIZATION"), rec("Greywater Land Trust", "ORGANIZATION"),
                  rec("Trust", "ORGANIZATION"), rec("Council", "ORGANIZATION", chunk="c2"),
                  rec("Port Aldren Town Council", "ORGANIZATION")])
    assert r.rename["u s"] == "United States"
    assert r.rename["foundation"] == "Project Gutenberg Literary Archive Foundation"
    assert r.rename["trust"] == "Trust"  # two trusts: it stays apart
    assert r.rename["council"] == "Council"  # the only council is in another document


def test_renamed_records_lose_self_loops_and_names_that_are_no_names():
    ents = [rec("Ebenezer Scrooge"), rec("Scrooge"), rec("Have I"), rec("Bob Cratchit")]
    rels = [RelationshipRecord("Scrooge", "Ebenezer Scrooge", "s", 1, "c1"),
            RelationshipRecord("Scrooge", "Bob Cratchit", "s", 1, "c1"),
            RelationshipRecord("Have I", "Bob Cratchit", "s", 1, "c1")]
    r = resolved(ents)
    e, rel = rename_records(ents, rels, r)
    assert [x.name for x in e] == ["Ebenezer Scrooge", "Ebenezer Scrooge", "Bob Cratchit"]
    assert [(x.source, x.target) for x in rel] == [("Ebenezer Scrooge", "Bob Cratchit")]
    assert r.dropped == 1


def test_a_russian_word_that_only_starts_the_sentence_is_not_part_of_the_name():
    """'Беспокойство Савельича' (Savelich's anxiety) at a sentence start: 'беспокойство'
    is written in lower case in another form ('с беспокойством'), and no parse of it is a
    name, so it is dropped; 'Вера' (a first name, though 'вера' is a word) stays."""
    stats = word_stats(["С беспокойством я выпрыгнул из кибитки. Беспокойство Савельича "
                        "очень меня тронуло. Моя вера была сильна. Вера Павловна пришла. "
                        "Белогорская крепость стояла."])
    assert clean_name("Беспокойство Савельич", stats) == "Савельич"
    assert clean_name("Вера Павловна", stats) == "Вера Павловна"
    assert clean_name("Белогорская крепость", stats) == "Белогорская крепость"


def test_french_and_german_titles_are_titles():
    """'M.' (Monsieur) and 'Fräulein' are titles: 'M. Phileas Fogg' is Phileas Fogg, so
    'Fogg' fits one full name and joins it; 'Effi' joins 'Effi Briest', while 'Fräulein
    Effi' (a woman's title) goes only to a full name written with it."""
    r = resolved([rec("Phileas Fogg", n=3), rec("M. Phileas Fogg"), rec("Fogg", n=4),
                  rec("Mr Fogg", n=2)])
    assert set(r.rename.values()) == {"Phileas Fogg"}
    r = resolved([rec("Effi Briest", n=2), rec("Effi", n=5), rec("Fräulein Effi")])
    assert r.rename["effi"] == "Effi Briest"
    assert r.rename["fräulein effi"] == "Fräulein Effi"


def test_japanese_given_names_join_the_full_name_and_a_shared_surname_does_not():
    """Japanese writes '竹内数馬' (Takeuchi Kazuma) with no space: the dictionary's surname and
    given-name tags split it, so '数馬' joins it; '阿部' fits two men of the Abe family and
    stays its own, and '阿部一族' (the Abe clan: surname + common noun) is not a person."""
    text = ("竹内数馬は忠利の近習であった。数馬は若かった。高見権右衛門が来た。権右衛門は笑った。"
            "阿部権兵衛と阿部弥一右衛門は兄弟である。阿部一族は屋敷に籠った。阿部は強い。")
    records = [rec("竹内数馬", n=2), rec("数馬", n=5), rec("高見権右衛門"), rec("権右衛門", n=3),
               rec("阿部権兵衛"), rec("阿部弥一右衛門"), rec("阿部", n=4),
               rec("阿部一族", "ORGANIZATION")]
    r = resolve_records(records, {"c1": "d1"}, word_stats([text]))
    assert r.rename["数馬"] == "竹内数馬"
    assert r.rename["権右衛門"] == "高見権右衛門"
    assert r.rename["阿部"] == "阿部"
    assert r.rename["阿部一族"] == "阿部一族"
    assert r.aliases["竹内数馬"] == {"数馬": 5}


def test_a_name_left_without_its_head_word_is_no_name():
    """Of Carol's "First of Exchange" (a bill) extraction kept "of Exchange", an entity (a
    place) of its own. A lower-case "de" or "van" begins names: they stay names."""
    stats = word_stats(["Three days after sight of this First of Exchange pay him. "
                        "It was the first time. He met van Gogh and de Gaulle."])
    assert clean_name("of Exchange", stats) is None
    assert clean_name("First of Exchange", stats) == "First of Exchange"
    assert clean_name("van Gogh", stats) and clean_name("de Gaulle", stats)


def test_a_word_mostly_typed_otherwise_is_no_persons_given_name():
    """Carol's "Christmas" (42 of 46 mentions an event, 4 a person) went into "Christmas
    Eves" (one mention, typed a person), the one person's full name it begins; a name typed
    a person in most of its mentions still goes to its full name."""
    r = resolved([rec("Christmas", "EVENT", n=42), rec("Christmas", n=4),
                  rec("Christmas Eves"), rec("Bob Cratchit"), rec("Bob", n=3),
                  rec("Bob", "EVENT")])
    assert r.rename["christmas"] == "Christmas"
    assert r.rename["bob"] == "Bob Cratchit"


def test_a_drawn_out_name_is_the_name_and_a_pronoun_run_into_a_verb_is_none():
    """Carol's "Scro-o-o-o-oge" (Fred's guessing game) was an entity of its own, in the
    heading "Fred and Scro-o-o-o-oge"; "He'd", once at the head of a line of verse, was one
    of a story's three key entities ("Fox, He'd and Red Hen")."""
    r = resolved([rec("Ebenezer Scrooge"), rec("Scrooge", n=5), rec("Scro-o-o-o-oge")])
    assert r.rename["scro o o o oge"] == "Ebenezer Scrooge"
    assert r.aliases["Ebenezer Scrooge"]["Scro-o-o-o-oge"] == 1
    stats = word_stats(["He'd have the little Rid Hin. She'll go. Anna Aardvark came."])
    assert clean_name("He'd", stats) is None and clean_name("She'll", stats) is None
    r = resolved([rec("Anna Aardvark"), rec("Aardvark")])
    assert r.rename["anna aardvark"] == "Anna Aardvark"


def test_a_transcripts_speaker_is_a_person_however_extraction_typed_the_name():
    """The fast method types names by their head word: the podcasts' "Kevin Scott" and
    "Kevin" were both UNKNOWN, so "Kevin" was no one's given name, and headings read "Kevin,
    Bill and CEO". "KEVIN SCOTT:" opening his lines says he is a person."""
    text = ("KEVIN SCOTT: Hi everyone, I'm Kevin Scott.\n../REID HOFFMAN: Thanks, Kevin.\n"
            "KEVIN SCOTT: Reid founded LinkedIn with friends; Microsoft bought LinkedIn.\n")
    stats = word_stats([text])
    assert stats.speakers == {"kevin scott", "reid hoffman"}
    records = [rec("Kevin Scott", "UNKNOWN"), rec("Kevin", "UNKNOWN", n=3),
               rec("Reid", "UNKNOWN"), rec("Microsoft", "UNKNOWN"),
               rec("Microsoft Research", "UNKNOWN")]
    r = resolve_records(records, {"c1": "d1"}, stats)
    assert r.rename["kevin"] == "Kevin Scott"
    assert r.rename["reid"] == "Reid"  # "Reid Hoffman" speaks, but extraction never named him
    assert r.rename["microsoft"] == "Microsoft"  # no one speaks as "Microsoft Research"
    r = resolve_records(records, {"c1": "d1"}, word_stats(["Kevin Scott said hi. Kevin left."]))
    assert r.rename["kevin"] == "Kevin"  # no speaker, no type: no one's given name
    # a speaker's hyphenated given name alone is that speaker, however it was typed
    text = "FEI-FEI LI: Hello.\nKEVIN SCOTT: When Fei-Fei and I met, Fei-Fei Li said hi.\n"
    records = [rec("Fei-Fei Li"), rec("Fei-Fei", "ORGANIZATION", n=2), rec("Mary-Ann", "PERSON")]
    r = resolve_records(records, {"c1": "d1"}, word_stats([text]))
    assert r.rename["fei fei"] == "Fei-Fei Li" and r.rename["mary ann"] == "Mary-Ann"
    r = resolve_records(records, {"c1": "d1"}, word_stats(["Fei-Fei and Fei-Fei Li."]))
    assert r.rename["fei fei"] == "Fei-Fei"  # no speaker: types must agree, as before


def test_a_full_name_with_words_that_say_who_is_that_person():
    """The podcasts' openings say "Microsoft CTO Kevin Scott" and "Kevin Scott Chief
    Technology Officer" once each: two more people beside "Kevin Scott", so "Kevin" fitted
    two full names and stayed its own entity (degree 31, beside Kevin Scott's 34)."""
    text = ("KEVIN SCOTT: Hi, I'm your host, Kevin Scott Chief Technology Officer for "
            "Microsoft. Microsoft CTO Kevin Scott met Reid. Kevin Scott laughed, and Kevin "
            "said the chief of staff and the officer agreed. Андрей Петрович Гринёв и "
            "Андрей Петрович.")
    records = [rec("Kevin Scott", n=5), rec("Kevin", n=4), rec("Microsoft CTO Kevin Scott"),
               rec("Kevin Scott Chief Technology Officer"), rec("Андрей Петрович Гринёв"),
               rec("Андрей Петрович", n=3)]
    r = resolve_records(records, {"c1": "d1"}, word_stats([text]))
    for name in ("kevin", "microsoft cto kevin scott", "kevin scott chief technology officer"):
        assert r.rename[name] == "Kevin Scott"  # shown by the name, not the description
    # one more word that is no common word is part of a name: the surname, another person
    assert r.rename["андрей петрович гринёв"] == "Андрей Петрович Гринёв"
    assert r.rename["андрей петрович"] == "Андрей Петрович"
    # words after a name that are not an office's name something else
    r = resolve_records([rec("Port Aldren", n=3), rec("Port Aldren Town Council")], {"c1": "d1"},
                        word_stats(["The Port Aldren Town Council met in Port Aldren."]))
    assert r.rename["port aldren town council"] == "Port Aldren Town Council"
    # in different documents, nothing joins
    r = resolve_records([rec("Kevin Scott", chunk="c1"), rec("Microsoft CTO Kevin Scott", chunk="c2")],
                        {"c1": "d1", "c2": "d2"}, word_stats([text]))
    assert r.rename["microsoft cto kevin scott"] == "Microsoft CTO Kevin Scott"
