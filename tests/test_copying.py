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
