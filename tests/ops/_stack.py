"""Drive the compose stack of the container check (.ci/container-check).

podman-compose runs the compose file; podman itself does what compose has no
verb for: health checks on demand (without systemd podman runs none on a
timer), signals, and inspecting containers, images and volumes.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def run(
    argv: list[str],
    env: dict[str, str] | None = None,
    timeout_s: float = 120,
    cwd: Path | None = None,
) -> str:
    """Run a command; its stdout. Fails with the command's whole output."""
    proc = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"`{shlex.join(argv)}` exited {proc.returncode}:\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc.stdout


def podman(*args: str, timeout_s: float = 120) -> str:
    return run(["podman", *args], timeout_s=timeout_s)


@dataclass
class Stack:
    """The compose project `project` from `files`, with `env` for interpolation."""

    compose_cmd: list[str]
    files: list[Path]
    project_dir: Path
    project: str
    env: dict[str, str] = field(default_factory=dict)

    def compose(self, *args: str, timeout_s: float = 300, files: list[Path] | None = None) -> str:
        argv = [*self.compose_cmd]
        for path in files if files is not None else self.files:
            argv += ["-f", str(path)]
        return run(
            [*argv, *args],
            env={**os.environ, **self.env},
            timeout_s=timeout_s,
            cwd=self.project_dir,
        )

    def containers(self, service: str | None = None) -> list[str]:
        """The names of the project's containers (of one service), running or not."""
        labels = [f"com.docker.compose.project={self.project}"]
        if service is not None:
            labels.append(f"com.docker.compose.service={service}")
        filters = [arg for label in labels for arg in ("--filter", f"label={label}")]
        return podman("ps", "--all", "--format", "{{.Names}}", *filters).split()

    def container(self, service: str) -> str:
        """The name of the service's one container."""
        names = self.containers(service)
        assert len(names) == 1, f"service {service}: containers {names}"
        return names[0]

    def inspect(self, service: str) -> dict[str, Any]:
        data: list[dict[str, Any]] = json.loads(podman("inspect", self.container(service)))
        return data[0]

    def exec(self, service: str, *argv: str) -> str:
        return podman("exec", self.container(service), *argv)

    def wait_healthy(self, service: str, timeout_s: float = 60) -> float:
        """Run the service's health check until it passes; the seconds it took."""
        name = self.container(service)
        started = time.monotonic()
        deadline = started + timeout_s
        last = ""
        while True:
            proc = subprocess.run(
                ["podman", "healthcheck", "run", name], capture_output=True, text=True, timeout=30
            )
            last = (proc.stdout + proc.stderr).strip()
            if proc.returncode == 0:
                break
            if time.monotonic() > deadline:
                logs = podman("logs", "--tail", "40", name)
                raise AssertionError(
                    f"{service} not healthy after {timeout_s} s (last: {last}):\n{logs}"
                )
            time.sleep(0.5)  # poll interval of `podman healthcheck run`
        status = self.inspect(service)["State"]["Health"]["Status"]
        assert status == "healthy", f"{service}: health check passed, status {status!r}"
        return time.monotonic() - started

    def logs(self, service: str) -> str:
        name = self.container(service)
        proc = subprocess.run(["podman", "logs", name], capture_output=True, text=True, timeout=30)
        return proc.stdout + proc.stderr
