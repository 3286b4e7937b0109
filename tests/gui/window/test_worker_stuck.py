"""A job stuck where it cannot check its cancel flag: Cancel still answers, closing still closes."""
from __future__ import annotations

import threading

import pytest

import gui.worker as worker
from gui.worker import TaskRunner


@pytest.fixture
def gate():
    # the stuck job waits on this; released at teardown so the abandoned thread ends too
    event = threading.Event()
    yield event
    event.set()


def _stuck(gate: threading.Event, entered: threading.Event):
    def job(_cancel):
        yield 0
        entered.set()
        gate.wait(60)  # a read that blocks: the flag is never looked at
        yield 1
        return "late"
    return job


def test_cancel_answers_while_a_job_is_stuck(qtbot, monkeypatch, gate):
    monkeypatch.setattr(worker, "CANCEL_GRACE_MS", 100)
    runner = TaskRunner()
    entered = threading.Event()
    late = []
    runner.finished.connect(late.append)
    assert runner.start("stuck read", _stuck(gate, entered))
    assert entered.wait(5)
    with qtbot.waitSignal(runner.abandoned, timeout=5000), qtbot.waitSignal(runner.errored, timeout=5000) as error:
        runner.cancel()
    assert error.args[0].startswith("cancelled")
    assert not runner.is_busy()
    # free again at once, and the stuck job's late result is never reported
    with qtbot.waitSignal(runner.finished, timeout=5000) as done:
        assert runner.start("next", lambda _c: iter(()))
    gate.set()
    qtbot.wait(100)
    assert done.args == [None] and late == [None]


def test_wait_is_bounded_and_abandons_a_stuck_job(qtbot, gate):
    runner = TaskRunner()
    entered = threading.Event()
    assert runner.start("stuck read", _stuck(gate, entered))
    assert entered.wait(5)
    with qtbot.waitSignal(runner.abandoned, timeout=5000) as blocker:
        assert runner.wait(50) is False
    assert blocker.args == ["stuck read"] and not runner.is_busy()


def test_closing_the_window_does_not_wait_forever(qtbot, window, monkeypatch, gate, capsys):
    import gui.window.main_window as main_window

    monkeypatch.setattr(main_window, "CLOSE_WAIT_MS", 100)
    entered = threading.Event()
    assert window.tasks.start("Measuring acceptance", _stuck(gate, entered))
    assert entered.wait(5)
    assert window.close()
    assert not window.tasks.is_busy()
    err = capsys.readouterr().err
    assert "'Measuring acceptance' did not stop" in err and err.count("\n") == 1
