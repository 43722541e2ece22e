"""Batched decoding with the real model: several grammar-constrained replies decoded as
parallel sequences in one llama.cpp context, forced text appended without decoding steps,
and the call records the build sums. (Speed is measured by scripts/bench_batch.py.)"""

import json
from dataclasses import replace

import pytest

from graphrag_local.models import Avoid, Request
from graphrag_local.models.llama import LlamaChatModel
from graphrag_local.models.presets import get_preset, require

pytestmark = pytest.mark.e2e
GRAMMAR = 'root ::= "{\\"answer\\": \\"" [a-z ]{1,24} "\\", \\"sure\\": " ("true" | "false") "}"'


@pytest.fixture(scope="module")
def model():
    preset = get_preset(None)
    m = LlamaChatModel(preset=replace(preset, parallel=4), path=require(preset))
    yield m
    m.close()


def test_batched_replies_follow_their_grammar_with_forced_text(model):
    topics = ["cats", "the sea", "rivers", "bread", "winter", "music"]
    requests = [Request([{"role": "user", "content": f"Say something about {t}, as JSON."}],
                        GRAMMAR, 40, "test") for t in topics]
    before = len(model.calls)
    replies = model.complete_many(requests)
    calls = model.calls[before:]
    assert len(replies) == len(calls) == 6
    for reply in replies:
        data = json.loads(reply)
        assert set(data) == {"answer", "sure"} and isinstance(data["sure"], bool)
    # '{"answer": "' and '", "sure": ' are forced: appended without a decoding step each
    assert all(c.forced_tokens >= 4 for c in calls)
    assert all(c.completion_tokens + c.forced_tokens <= 40 for c in calls)


def test_a_batch_of_the_same_request_gives_the_same_reply(model):
    request = Request([{"role": "user", "content": "Name a colour, as JSON."}], GRAMMAR, 40, "t")
    replies = model.complete_many([request] * 4)
    assert len(set(replies)) == 1
    alone = model.complete(request.messages, grammar=GRAMMAR, max_tokens=40)
    assert json.loads(alone)  # one sequence decodes through the same decoder


def test_a_reply_read_again_gets_the_log_probabilities_of_its_tokens(model):
    """`reread` (a written line read again beside its source, `replies.reread_reply`): one
    pass gives each token's log-probability, as decoding it token by token does, and a
    reply the model would write reads as likelier than the same words garbled."""
    import numpy as np

    messages = [{"role": "user", "content": "Say what this sentence tells, shorter:\n"
                 "Hannah Greer opposed the plan to dredge Aldren Harbour in 2022."}]
    text = "Hannah Greer opposed the plan to dredge the harbour."
    got = model.reread(messages, text)
    prompt, _stop = model._tokens(messages)
    ids = model._llm.tokenize(text.encode(), add_bos=False, special=False)
    assert len(got) == len(ids) and all(lp <= 0 for lp in got)
    one_by_one = []
    for k, token in enumerate(ids):
        model._feed(prompt + ids[:k])
        z = np.asarray(model._last_logits(), dtype=np.float64)
        z = z - z.max()
        one_by_one.append(z[token] - np.log(np.exp(z).sum()))
    # (batched sums round differently: a token misplaced would be off by nats, not tenths)
    assert np.allclose(got, one_by_one, atol=0.5)
    garbled = model.reread(messages, "Hannah harbour the Greer dredge opposed plan to the.")
    assert sum(garbled) < sum(got)
    assert model.complete_many([Request(messages, None, 8, "t")] * 2)  # the batch still works


def test_asking_the_grammar_about_the_best_tokens_first_picks_what_the_whole_mask_picks(
        model, monkeypatch):
    """`Decoder._greedy_among_best` finds the token the whole-vocabulary mask would: the
    same replies with it and without it (ASK_FIRST above the vocabulary turns it off),
    under a grammar that rejects the model's favourite often."""
    from graphrag_local.models import decode

    grammar = 'root ::= ("otter" | "heron" | "reed" | "mud" | "tide") (" " ("otter" | "heron" | "reed" | "mud" | "tide")){3,12} "."'
    requests = [Request([{"role": "user", "content": f"Describe {t} in a few words."}],
                        grammar, 40, "test") for t in ("a river", "a harbour", "winter")]
    asked = []
    real = decode.Decoder._greedy_among_best
    monkeypatch.setattr(decode.Decoder, "_greedy_among_best",
                        lambda self, job, logits: asked.append(1) or real(self, job, logits))
    fast = model.complete_many(requests)
    assert asked  # the grammar did reject the argmax, so the shortcut was asked
    monkeypatch.setattr(decode, "ASK_FIRST", 10 ** 9)
    assert model.complete_many(requests) == fast


def test_a_guarded_reply_sampled_above_temperature_0_copies_no_run_of_its_source(model):
    """The copy guard holds at any temperature (a preset's, or a retry's: `attempt` 1 and 2
    sample at 0.5 or more), one reply or several together: sampled by llama.cpp's own
    chain, the model said the whole sentence again (the marks: tests/test_copying.py)."""
    import re

    source = ("Tobias Renn designed new earth banks for the River Aldren at Millbrook after "
              "the flood of October 2022.")
    messages = [{"role": "user", "content": "Repeat this sentence exactly, as a line starting "
                 f"with a dash:\n{source}"}]
    words = re.findall(r"\w+", source.lower())
    runs = {tuple(words[i:i + 5]) for i in range(len(words) - 4)}
    request = Request(messages, 'root ::= "- " [^\\n]{1,150} "\\n"', 40, "write",
                      Avoid((source,), 5), mark_unlikely=True)
    for attempt in (0, 1, 2):
        for n in (1, 2):
            for reply in model.complete_many([request] * n, attempt=attempt):
                said = re.findall(r"\w+", reply.lower())
                assert reply.startswith("- ") and not any(
                    tuple(said[i:i + 5]) in runs for i in range(len(said) - 4)), (attempt, reply)
