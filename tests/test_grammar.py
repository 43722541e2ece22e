import json

import pytest
from pydantic import ValidationError

from graphrag_local.models.grammar import (
    extraction_grammar,
    relationships_grammar,
    schema_to_grammar,
)
from graphrag_local.models.structured import (
    claims_model,
    extraction_model,
    max_reply_tokens,
    report_model,
    schema_of,
)

llama_cpp = pytest.importorskip("llama_cpp")


def parses(grammar: str) -> bool:
    llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
    return True


def test_schema_grammars_parse_and_bound_strings():
    for model in (
        report_model(8, 400, 240),
        claims_model(("FACT", "DISPUTE"), 6, 48, 120),
        extraction_model(("PERSON",), 5, 5, 40, 100),
        extraction_model(("PERSON",), 5, 5, 40, 100, ("Mara Quill", 'A "quoted" name')),
    ):
        g = schema_to_grammar(schema_of(model))
        assert parses(g)
        assert "char{1," in g and "{0,20}" not in g
    assert "char ::= [^\"\\\\\\x7F\\x00-\\x1F]" in g  # no raw control characters in strings


def test_report_grammar_enumerates_rating_and_bounds_findings():
    g = schema_to_grammar(schema_of(report_model(8, 400, 240)))
    assert '"0" | "1"' in g and '"10"' in g
    assert '("," ws d-finding){0,7}' in g


def test_extraction_grammar_lists_each_name_once_in_order():
    names = ("Mara Quill", "Aldren Water Trust", 'The "Quote" Co')
    g = extraction_grammar(names, ("PERSON", "ORGANIZATION"), 100)
    assert parses(g)
    assert "first0 ::= ent0 next1 | first1" in g
    assert "next2 ::= \",\" ws ent2 next3 | next3" in g
    assert 'next3 ::= ws "]"' in g
    assert g.count('"\\"Mara Quill\\""') == 1  # only in ent0: each name at most once
    assert '"\\"relationships\\"" ":" ws "[" ws "]"' in g  # relationships come later


def test_relationships_grammar_connects_only_given_entities():
    g = relationships_grammar(("Mara Quill", "Port Aldren"), 10, 100)
    assert parses(g)
    assert 'name ::= "\\"Mara Quill\\"" | "\\"Port Aldren\\""' in g
    assert 'strength ::= "10" | [1-9]' in g and "{0,9}" in g


def test_reply_bound_follows_schema_bounds():
    small = max_reply_tokens(schema_of(extraction_model(("PERSON",), 2, 2, 20, 50)))
    big = max_reply_tokens(schema_of(extraction_model(("PERSON",), 12, 12, 48, 160)))
    assert 0 < small < big


def test_pydantic_models_reject_out_of_range_values():
    model = extraction_model(("PERSON",), 2, 2, 20, 50, ("Mara Quill",))
    ok = {"entities": [{"name": "Mara Quill", "type": "PERSON", "description": "leads"}],
          "relationships": []}
    model.model_validate_json(json.dumps(ok))
    bad = dict(ok, relationships=[{"source": "Mara Quill", "target": "Mara Quill",
                                    "description": "x", "strength": 23486975}])
    with pytest.raises(ValidationError):
        model.model_validate_json(json.dumps(bad))
