import pytest

from graphrag_local.errors import ConfigError
from graphrag_local.prompts import PLACEHOLDER, PROMPT_NAMES, load_prompts

# what each stage passes to each prompt (kept in step with the stages by this test and
# by the stage tests, which render them for real)
STAGE_VALUES = {
    "extract_entities": {"entity_types", "text"},
    "glean_check": set(),
    "glean_continue": set(),
    "extract_relationships": set(),
    "extract_claims": {"claim_types", "entities", "text"},
    "summarize_descriptions": {"name", "descriptions"},
    "community_report": {"context", "max_findings"},
    "global_map": {"max_points", "question", "data"},
    "global_reduce": {"context", "history", "question"},
    "local_search": {"context", "history", "question"},
    "basic_search": {"context", "history", "question"},
    "type_entities": {"sentence", "name"},
    "glean_check_spans": {"sentences", "found", "doubtful"},
    "global_map_score": {"question", "statement"},
    "answer_lead": {"evidence", "question"},
    "write_answer": {"layout", "evidence", "question"},
    "drift_primer": {"question", "data", "max_followups"},
    "drift_followup": {"question", "original", "context", "max_followups"},
    "community_relevance": {"question", "report"},
    "eval_describe": {"excerpts"},
    "eval_personas": {"description", "n"},
    "eval_tasks": {"description", "persona", "n"},
    "eval_questions": {"description", "persona", "task", "n"},
    "eval_judge": {"criterion", "definition", "question", "answer_a", "answer_b"},
}


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_prompt_placeholders_match_what_stages_pass(name):
    prompts = load_prompts()
    assert set(PLACEHOLDER.findall(prompts.texts[name])) == STAGE_VALUES[name]
    prompts.render(name, **{k: "x" for k in STAGE_VALUES[name]})


def test_variable_text_comes_last_for_kv_cache_reuse():
    text = load_prompts().texts["extract_entities"]
    assert text.index("{text}") > text.index("-Example-")
    assert text.rstrip().endswith("Output:")


def test_map_prompt_shares_its_prefix_across_map_calls():
    """Map calls differ only in their data, which comes last: the KV cache keeps the rest."""
    text = load_prompts().texts["global_map"]
    assert text.rstrip().endswith("{data}") and text.index("{question}") < text.index("{data}")


def test_cloze_prompts_end_with_the_slot_the_model_fills():
    """Choice prompts put the varying text last and end where the model chooses, so the
    few-shot prefix stays in the KV cache across every choice."""
    texts = load_prompts().texts
    assert texts["type_entities"].rstrip().endswith("Here, {name} is a")
    assert texts["global_map_score"].rstrip().endswith("Score:")
    assert texts["glean_check_spans"].rstrip().endswith("Answer:")


def test_wrong_placeholders_are_rejected():
    with pytest.raises(ConfigError):
        load_prompts().render("extract_entities", text="x")


def test_project_prompts_override(tmp_path):
    (tmp_path / "glean_check.txt").write_text("Custom check?")
    assert load_prompts(tmp_path).texts["glean_check"] == "Custom check?"
