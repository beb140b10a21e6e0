"""A child process of `crisp bench` or of the test suite: its own session, killed if
this process dies (Linux), its output kept in a file; readiness polling and stops."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

# Looked up now, not in the child: between fork and exec only the call itself is safe.
_prctl = ctypes.CDLL(None).prctl if sys.platform == "linux" else None


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: SIGKILL it when the parent dies."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def wait_until(
    proc: subprocess.Popen[Any], ready: Callable[[], bool], timeout: float, what: str
) -> None:
    """Poll `ready` until it is true; RuntimeError if `proc` exits first or `timeout`
    seconds pass (`what` names the awaited condition in the message)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if ready():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"not {what} after {timeout:g} s")
        time.sleep(0.05)
    raise RuntimeError(f"exited with {proc.returncode} before {what}")


class Proc:
    """A child process in its own session (killed if we die), its output in a file:
    `log` if given, else a temporary file."""

    def __init__(
        self,
        name: str,
        cmd: list[str],
        env: Mapping[str, str],
        *,
        cwd: str | Path | None = None,
        log: str | Path | None = None,
        cleanup: str | None = None,
    ) -> None:
        self.name = name
        self.cleanup = cleanup  # a directory removed once the process is stopped
        self._final = ""
        self.log: TextIO = (
            open(log, "w+")  # noqa: SIM115
            if log
            else tempfile.TemporaryFile("w+", prefix=f"crisp-{name}-")  # noqa: SIM115
        )
        self.proc = subprocess.Popen(
            cmd, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent if _prctl is not None else None,
        )  # fmt: skip

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def poll(self) -> int | None:
        return self.proc.poll()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        """Everything the process wrote (so far, or until it was stopped)."""
        if self.log.closed:
            return self._final
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def tail(self, n: int = 3000) -> str:
        return self.output()[-n:]

    def wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        """Poll `ready` until it is true; RuntimeError (with the output's tail) if the
        process exits first or `timeout` seconds pass; the process is then stopped."""
        try:
            wait_until(self.proc, ready, timeout, what)
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{self.name}: {exc}:\n{self.tail()}") from None

    def kill(self) -> None:
        """SIGKILL the process and its group (a crash: nothing cleaned up) and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._release()

    def stop(self, timeout: float = 10.0) -> bool:
        """SIGTERM the process; SIGKILL its whole group if it has not exited after
        `timeout` seconds. True if it exited on SIGTERM (or had already exited)."""
        clean = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                clean = False
        with contextlib.suppress(ProcessLookupError):  # whatever is left of the group
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        self._release()
        return clean

    def _release(self) -> None:
        """Keep the output, close its file, remove `cleanup`."""
        if not self.log.closed:
            self._final = self.output()
            self.log.close()
        if self.cleanup:
            shutil.rmtree(self.cleanup, ignore_errors=True)
            self.cleanup = None
