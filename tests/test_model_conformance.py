"""One contract, every ChatModel: the same cases run against the scripted fake
(tests/fakes.py), the embedded model in-process through llama.cpp (`LlamaChatModel`), and
the embedded model served by llama-cpp-python's server (`RemoteChatModel`, the server
started by test_remote's `model_server`). The fake's cases are in the fast tier, the real
models' are end-to-end (e2e)."""

from __future__ import annotations

import inspect
import re

import pytest
from fakes import FakeChatModel
from test_remote import MODEL_ID, model_server

from graphrag_local.models import ChatModel, Request
from graphrag_local.models.protocol import YES_NO_GRAMMAR
from graphrag_local.search.selection import YES_NO
from graphrag_local.settings import ExtractSettings
from graphrag_local.stages.classify import HEAD_BIAS, type_options

JSON_GRAMMAR = 'root ::= "{\\"answer\\": \\"" [a-z ]{1,20} "\\"}"'
# (grammar, what it admits as a regular expression, a text it admits: the fake's reply)
GRAMMARS = [
    (YES_NO_GRAMMAR, r"YES|NO", "YES"),
    (JSON_GRAMMAR, r'\{"answer": "[a-z ]{1,20}"\}', '{"answer": "blue"}'),
    *[(f'root ::= "r{i}:" [a-z]{{1,8}}', rf"r{i}:[a-z]{{1,8}}", f"r{i}:ok") for i in range(5)],
]
ADMITTED = {grammar: example for grammar, _, example in GRAMMARS}
QUESTION = [{"role": "user", "content": "What colour is the sky on a clear day? Answer in JSON."}]
PROMPTS = ["Question: Is fire hot? Answer YES or NO.\nAnswer:",
           "Question: Is snow hot? Answer YES or NO.\nAnswer:",
           "Here, Port Aldren is a"]
CHOICES = [(" YES", " NO"), (" person", " city", " company")]

IMPLEMENTATIONS = ["fake", pytest.param("llama", marks=pytest.mark.e2e),
                   pytest.param("server", marks=pytest.mark.e2e)]


@pytest.fixture(scope="module", params=IMPLEMENTATIONS)
def model(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("GRAPHRAG_LOCAL_HOME", str(tmp_path_factory.mktemp("home")))
    if request.param == "fake":
        yield FakeChatModel(default=lambda messages, grammar, purpose: ADMITTED.get(grammar, "Blue."))
    elif request.param == "llama":
        from graphrag_local.models.llama import LlamaChatModel
        from graphrag_local.models.presets import get_preset, require

        preset = get_preset(None)
        m = LlamaChatModel(preset=preset, path=require(preset), n_threads=2)
        yield m
        m.close()
    else:
        from graphrag_local.models.server import RemoteChatModel

        with model_server("llama-cpp-python", tmp_path_factory.mktemp("server")) as (url, _):
            m = RemoteChatModel([url], MODEL_ID, n_ctx=4096, parallel=3)
            yield m
            m.close()
    mp.undo()


def test_it_has_the_protocol_attributes_and_signatures(model):
    for name in ChatModel.__annotations__:
        assert hasattr(model, name), name
    assert type(model.n_ctx) is int and model.n_ctx > 0
    assert type(model.parallel) is int and model.parallel > 0
    assert isinstance(model.exact_choice_bias, bool) and isinstance(model.name, str)
    for name in ("complete", "complete_many", "choose", "count_tokens", "prompt_tokens", "close"):
        want = list(inspect.signature(getattr(ChatModel, name)).parameters.values())[1:]
        have = list(inspect.signature(getattr(model, name)).parameters.values())
        assert [(p.name, p.kind, p.default) for p in have] == [
            (p.name, p.kind, p.default) for p in want], name


@pytest.mark.parametrize("grammar, admitted, _", GRAMMARS[:2])
def test_complete_under_a_grammar_returns_text_it_admits(model, grammar, admitted, _):
    before = len(model.calls)
    reply = model.complete(QUESTION, grammar=grammar, max_tokens=40, purpose="conformance")
    assert re.fullmatch(admitted, reply), reply
    assert len(model.calls) == before + 1
    rec = model.calls[-1]
    assert rec.purpose == "conformance" and rec.prompt_tokens > 0


def test_a_streamed_reply_is_the_pieces_it_streamed(model):
    pieces: list[str] = []
    before = len(model.calls)
    reply = model.complete(QUESTION, grammar=JSON_GRAMMAR, max_tokens=40, purpose="stream",
                           on_text=lambda piece: pieces.append(piece) and False)
    assert reply == "".join(pieces) and re.fullmatch(GRAMMARS[1][1], reply), reply
    assert len(model.calls) == before + 1 and model.calls[-1].purpose == "stream"


def test_complete_many_gives_one_reply_per_request_in_order(model):
    requests = [Request([{"role": "user", "content": f"Name an animal, number {i}."}], grammar,
                        16, f"many{i}") for i, (grammar, _, _) in enumerate(GRAMMARS[2:])]
    before = len(model.calls)
    replies = model.complete_many(requests)
    assert len(replies) == len(requests)
    for (_, admitted, _), reply in zip(GRAMMARS[2:], replies):
        assert re.fullmatch(admitted, reply), (admitted, reply)
    calls = model.calls[before:]
    assert [c.purpose for c in calls] == [r.purpose for r in requests]  # one record each
    assert all(c.prompt_tokens > 0 for c in calls)
    assert model.complete_many([]) == [] and len(model.calls) == before + len(requests)


@pytest.mark.parametrize("options", CHOICES)
def test_choose_returns_one_valid_index_per_prompt_in_one_record(model, options):
    before = len(model.calls)
    picks = model.choose(PROMPTS, options, purpose="conformance")
    assert len(picks) == len(PROMPTS)
    assert all(type(p) is int and 0 <= p < len(options) for p in picks)
    assert len(model.calls) == before + 1
    rec = model.calls[-1]
    assert rec.purpose == "conformance" and rec.finish_reason == "choice" and rec.prompt_tokens > 0


@pytest.mark.parametrize("options", CHOICES)
def test_a_large_bias_towards_an_option_chooses_it_for_every_prompt(model, options):
    for k in range(len(options)):
        bias = tuple(30.0 if i == k else -30.0 for i in range(len(options)))
        assert model.choose(PROMPTS, options, bias=bias, purpose="biased") == [k] * len(PROMPTS)


def test_token_counts(model):
    texts = ["Hello world", " YES", "Café owner Zoë Marchand supplies the Lantern Festival.",
             "line one\nline two\n\n  indented"]
    for text in texts:
        n = model.count_tokens(text)
        assert type(n) is int and n > 0, text
        assert model.prompt_tokens([{"role": "user", "content": text}]) >= n
        both = [{"role": "system", "content": "You answer briefly."},
                {"role": "user", "content": text}]
        assert model.prompt_tokens(both) >= n + model.count_tokens("You answer briefly.")


def project_choices():
    """Every choice the project makes: the entity-type words of `stages/classify.py`
    (biased for not-an-entity words and for the word a name ends with: any option may
    get a bias of its own), YES/NO (glean check; relevance, biased)."""
    s = ExtractSettings()
    opts = type_options(s.entity_types)
    yield "entity types", opts.options
    yield "YES/NO", YES_NO


def test_the_project_choices_mean_the_same_on_every_model(model):
    """`ChatModel.choose`: a model without exact_choice_bias biases token ids, which is the
    same as biasing options when no token of one option occurs in another. Checked with
    the model's own tokenizer for every choice the project makes."""
    tokens = getattr(model, "_option_tokens", None)
    if tokens is None:  # the fake: no tokens, and its bias is per option
        assert model.exact_choice_bias
        return
    for what, options in project_choices():
        owners: dict[int, set[int]] = {}
        for i, option in enumerate(options):
            for t in tokens(option):
                owners.setdefault(t, set()).add(i)
        shared = {t: sorted(options[i] for i in ix) for t, ix in owners.items() if len(ix) > 1}
        assert not shared, (what, shared)
    s = ExtractSettings()  # and no bias the project gives is clipped (+-30)
    assert max(HEAD_BIAS, abs(s.not_entity_bias), abs(s.doubtful_not_entity_bias)) < 30
