"""Fixtures for the deployment tests: the parsed Dockerfile and compose files,
and one replay of the Dockerfile's builder stage per test run (shared by the
xdist workers)."""

from __future__ import annotations

import fcntl
import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from ._dockerfile import Dockerfile, parse
from ._replay import Replay, replay_stage

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return parse((REPO / "Dockerfile").read_text())


@pytest.fixture(scope="session")
def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


@pytest.fixture(scope="session")
def compose_caddy() -> dict:
    return yaml.safe_load((REPO / "deploy" / "docker-compose.caddy.yml").read_text())


@pytest.fixture(scope="session")
def builder_replay(
    dockerfile: Dockerfile, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> Replay:
    """The builder stage run as written on this machine, in a fresh plain venv.

    Takes ~25 s of CPU (pip installing the runtime lock; the first run on a machine
    also downloads it). Made once per test run, not once per xdist worker: the first
    worker to need it replays the stage into the run's own temporary folder (the
    parent of the workers' `basetemp`s) under a file lock, and writes what the
    replay left (`Replay`, as JSON); the others wait for the lock and read it. The
    tests only read the venv and start servers from it."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # .../pytest-N/popen-gwK: pytest-N is this run's alone
        shared = shared.parent
    root, done = shared / "image-fs", shared / "image-fs.json"
    with open(shared / "image-fs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if done.exists():
            return _load(done)
        if root.exists():  # a replay that failed part-way in another worker
            shutil.rmtree(root)
        root.mkdir()
        replay = replay_stage(dockerfile.stage("builder"), REPO, root, dockerfile.global_args)
        done.write_text(json.dumps({**asdict(replay), "root": str(replay.root),
                                    "workdir": str(replay.workdir)}))  # fmt: skip
        return replay


def _load(path: Path) -> Replay:
    data = json.loads(path.read_text())
    return Replay(root=Path(data["root"]), env=data["env"], container_env=data["container_env"],
                  workdir=Path(data["workdir"]), log=data["log"])  # fmt: skip
