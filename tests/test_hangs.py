"""The watchdog of a hung test (tests/support/hangs.py, issue 28)."""

from __future__ import annotations

import time
import weakref
from pathlib import Path

import greenlet
import pytest

from tests.support import hangs


def test_a_block_still_running_leaves_its_threads_and_greenlets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hangs, "ARTIFACTS", tmp_path)

    def parked_in_a_greenlet() -> None:  # as a browser test waits on Playwright
        assert greenlet.getcurrent().parent is not None
        greenlet.getcurrent().parent.switch()

    parked = greenlet.greenlet(parked_in_a_greenlet)
    parked.switch()

    class Gone:
        pass

    gone = Gone()
    dead = weakref.proxy(gone)  # a weak proxy to nothing among the objects walked
    del gone
    with hangs.watched("tests/x.py::test_hung", hang_s=0.05):
        deadline = time.monotonic() + 10  # the watchdog's thread writes the report
        while not hangs.report() and time.monotonic() < deadline:
            time.sleep(0.01)  # polls a file another thread writes
    text = hangs.report()
    assert text.startswith("tests/x.py::test_hung: still running after")
    assert "--- thread" in text and "--- greenlet" in text
    assert "parked_in_a_greenlet" in text  # the suspended greenlet's own frame
    hangs.clear()
    assert hangs.report() == ""
    del dead


def test_a_block_that_ends_in_time_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hangs, "ARTIFACTS", tmp_path)
    with hangs.watched("tests/x.py::test_quick", hang_s=0.5):
        pass
    time.sleep(0.6)  # past the watchdog's time: it must have stood down
    assert hangs.report() == ""
