"""The service's limits without a model or an index: at most `max_waiting` questions wait
for the models (more are refused at once, 429), one waits at most `wait_seconds` (503),
and every place taken is given back, whatever the question's fate."""

import threading

import pytest

from graphrag_local.serve.service import Busy, IndexService, Limits


class Session:
    def __init__(self, release: threading.Event | None = None):
        self.release, self.asked = release, []

    def ask(self, question, **_):
        self.asked.append(question)
        if self.release is not None:
            self.release.wait(10)
        if question == "boom":
            raise KeyError("boom")
        return f"answer to {question}"


def service(tmp_path, session, **limits) -> IndexService:
    s = IndexService(tmp_path, limits=Limits(**limits))
    s.session = lambda fresh=False: session  # no index: the session stands in
    return s


def test_a_full_queue_is_refused_at_once_and_places_are_given_back(tmp_path):
    release = threading.Event()
    s = service(tmp_path, Session(release), max_waiting=2, wait_seconds=10)
    answering = threading.Thread(target=s.ask, args=("first", "basic"))
    answering.start()
    while not s._lock.locked():
        pass
    s.admit()
    s.admit()  # two waiting: the limit
    with pytest.raises(Busy) as refused:
        s.admit()
    assert refused.value.full and refused.value.retry_after > 0 and s.waiting == 2
    waiters = [threading.Thread(target=s.ask, args=(q, "basic"), kwargs={"admitted": True})
               for q in ("second", "third")]
    for t in waiters:
        t.start()
    release.set()
    for t in [answering, *waiters]:
        t.join(10)
    assert s.waiting == 0 and not s._lock.locked()
    assert s.ask("fourth", "basic") == "answer to fourth"


def test_a_question_that_waited_too_long_is_refused_and_gives_its_place_back(tmp_path):
    s = service(tmp_path, Session(), max_waiting=4, wait_seconds=0.05)
    with s._lock:  # another question holds the models
        with pytest.raises(Busy) as refused:
            s.ask("late", "basic")
    assert not refused.value.full and refused.value.retry_after > 0
    assert s.waiting == 0 and s.ask("next", "basic") == "answer to next"


def test_a_failing_question_gives_the_models_back(tmp_path):
    s = service(tmp_path, Session(), max_waiting=1, wait_seconds=1)
    with pytest.raises(KeyError):
        s.ask("boom", "basic")
    assert s.waiting == 0 and not s._lock.locked()
