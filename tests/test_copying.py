"""The copy guard (models/copying.py): what the decoder asks of each token a writer's line
is about to take, on text (the real writer under it runs in tests/test_e2e_written.py)."""

from graphrag_local.models import Avoid
from graphrag_local.models.copying import CopyGuard

SOURCE = "Mrs. Cratchit kissed him, his daughters kissed him, and Peter shook hands."


def test_a_line_may_not_complete_a_run_of_its_sources_words():
    guard = CopyGuard(Avoid((SOURCE,), 4))
    line = "## Home\n- Mrs. Cratchit kissed"
    assert guard.bans(line, " him")  # "mrs cratchit kissed him": four in a row
    assert guard.bans(line, " hi")  # stopped at the word's first letters
    assert not guard.bans(line, " Bob")
    assert not guard.bans("- Mrs. Cratchit", " kissed")  # three
    assert not guard.bans(line, ",")  # not a word: the run does not grow


def test_headings_are_free_and_case_does_not_hide_a_copy():
    guard = CopyGuard(Avoid((SOURCE,), 4))
    assert not guard.bans("## Mrs. Cratchit kissed", " him")
    assert guard.bans("- MRS CRATCHIT KISSED", " HIM")


def test_a_line_that_already_copies_is_not_held_there():
    """Should the run be there already (a retry, or text the grammar forced), the guard
    bans nothing more: it stops runs being made, it does not trap a line."""
    guard = CopyGuard(Avoid((SOURCE,), 3))
    assert guard.copies("- his daughters kissed")
    assert not guard.bans("- his daughters kissed", " [1]")


def test_a_line_may_not_say_a_run_of_its_own_words_twice():
    """`Avoid.repeats`: bound to one sentence's words, the 1.5B looped ("Scrooge's niece
    indignantly said, Scrooge's niece indignantly said"); the guard stops the run's last
    word at its first letters, and a word said twice in other company is no loop."""
    guard = CopyGuard(Avoid((SOURCE,), 8, 3))
    line = "- Scrooge's niece indignantly said, Scrooge's niece"
    assert guard.bans(line, " indignantly") and guard.bans(line, " ind")
    assert not guard.bans(line, " laughed")
    assert not guard.bans("- About About", " About") and guard.bans("- About About About",
                                                                     " About")
    assert not guard.bans("- Bob said that Bob", " laughed")  # "Bob" twice, no run
    assert not CopyGuard(Avoid((SOURCE,), 8)).bans(line, " indignantly")  # not asked


def test_a_name_that_would_finish_a_run_of_a_source_is_not_begun():
    """Stopped at the run's last word's first letters, a name once begun went into another
    word ("the mayor of Port Although"): the guard stops such a run before the name."""
    from graphrag_local.models.copying import _names

    source = "Elena Voss is the mayor of Port Aldren and leads the Port Aldren Town Council."
    assert _names(source) == [(0, 2), (6, 2), (11, 4)]
    assert _names("Scrooge's nephew, Fred. Tiny Tim") == [(4, 2)]  # not "Fred. Tiny"
    guard = CopyGuard(Avoid((source,), 8))
    assert guard.bans("- Elena Voss is the mayor of", " Port")
    assert guard.bans("- Elena Voss is the mayor of", " Po")  # at its first letters
    assert not guard.bans("- Elena Voss is the mayor of", " the")
    assert not guard.bans("- Voss is the mayor of", " Port")  # seven words with the name
    assert guard.bans("- Aldren and leads the", " Port")  # four of the Town Council's name


def test_the_decoder_asks_the_guard_about_a_token_without_its_padding():
    """llama-cpp-python gives a token's piece padded with NULs: asked about "Scro\\0\\0...",
    the guard saw no word being written and let runs finish that it should have stopped
    at their first letters."""
    from types import SimpleNamespace

    from graphrag_local.models.decode import Decoder

    model = SimpleNamespace(token_to_piece=lambda _token: b" Scro" + bytes(27))
    decoder = SimpleNamespace(llm=SimpleNamespace(_model=model), eos=0)
    job = SimpleNamespace(guard=CopyGuard(Avoid(("Ebenezer Scrooge said hello",), 2)),
                          text="- Ebenezer")
    assert Decoder._guarded(decoder, job, 7)


def test_a_guarded_job_sampled_above_temperature_0_passes_the_guard_and_marks_what_it_took():
    """Above temperature 0 a writer's job is sampled by the decoder (`Decoder._sampled`),
    not by llama.cpp's chain, which knows neither the guard nor the marks: the token the
    guard bans is never taken, and one the model gave under `UNLIKELY_P` is marked."""
    import ctypes
    from types import SimpleNamespace

    import numpy as np

    from graphrag_local.models.decode import Decoder, Job

    pieces = [b" Port", b" the", b" a", b" Aldren", b"."]
    logits = (ctypes.c_float * 5)(12.0, 5.0, 4.9, 1.0, 0.5)  # " Port" near certain
    lib = SimpleNamespace(llama_get_logits_ith=lambda _ctx, _i: ctypes.cast(
        logits, ctypes.POINTER(ctypes.c_float)))
    model = SimpleNamespace(token_to_piece=lambda t: pieces[t] + bytes(8))
    decoder = SimpleNamespace(lib=lib, ctx=None, n_vocab=5, top_k=40, top_p=0.95, eos=4,
                              llm=SimpleNamespace(_model=model))
    for name in ("_sampled", "_greedy", "_guarded"):
        setattr(decoder, name, getattr(Decoder, name).__get__(decoder))
    source = "Elena Voss is the mayor of Port Aldren and the leader of the Town Council."
    taken = set()
    for seed in range(20):
        job = Job([], None, 10, [], guard=CopyGuard(Avoid((source,), 8)), mark=True,
                  text="- Elena Voss is the mayor of", temperature=0.8,
                  rng=np.random.default_rng(seed))
        token = Decoder._pick(decoder, job, 0, 1.0)
        taken.add(token)
        assert token != 0 and job.unlikely == [len(job.text)]
    assert taken <= {1, 2} and len(taken) == 2  # sampled: " the" or " a"
    # greedy, the same job takes the best the guard admits
    job = Job([], None, 10, [], guard=CopyGuard(Avoid((source,), 8)), mark=True,
              text="- Elena Voss is the mayor of")
    assert Decoder._pick(decoder, job, 0, 1.0) == 1
