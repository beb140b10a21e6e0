"""The shipped Dockerfile and docker-compose.yml, built and run for real.

.ci/container-check prepares a private rootful podman with podman-compose and
stand-ins for the two base images, then runs this module; anywhere else it
skips, saying so (the other tests/ops modules check the same files without an
engine). The stack is the compose file as shipped: the check adds only build
arguments (the CA base), CRISP_PUBLISH (a free loopback port) and
.ci/compose.podman.yml (drops `start_interval`, which podman 4.3 cannot take).

Everything goes through the published port, as a phone would: health and
readiness, a room created and played over its websocket, and the same room
after the app is stopped with SIGTERM (its sockets closed with 1012) and
restarted by its restart policy, after Redis is killed with SIGKILL (the
append-only file brings it back), and after `down` and `up` on the same volume.
The tests run in file order and share one stack and one game.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from ._player import (
    Player,
    Seat,
    create_room,
    game_state,
    http,
    join_room,
    my_turn,
    play_turn,
    play_until_a_discard,
    settled,
    start_game,
)
from ._replay import free_port, http_get
from ._stack import Stack, podman, run

COMPOSE = os.environ.get("CONTAINER_CHECK_COMPOSE", "")
OVERRIDE = os.environ.get("CONTAINER_CHECK_OVERRIDE", "")
BUILD_ARGS = os.environ.get("CONTAINER_CHECK_BUILD_ARGS", "").split()

pytestmark = pytest.mark.container
if not COMPOSE:
    pytest.skip(
        "the container check runs from .ci/container-check (root, podman; docs/deploy.md)",
        allow_module_level=True,
    )

PROJECT = "crisp"  # docker-compose.yml's `name:`
VOLUME = f"{PROJECT}_redis-data"
APP_UID = 10001  # the Dockerfile's USER


@dataclass
class Running:
    stack: Stack
    http: str  # http://127.0.0.1:<published port>
    ws: str


@dataclass
class Game:
    """One room in play, left waiting for `turn` (see _player.settled)."""

    code: str
    turn: Seat
    other: Seat
    state: dict[str, Any]


def _wait_ready(base: str, timeout_s: float = 30) -> None:
    """`/readyz` through the published port: the app answers and Redis answers it."""
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = http_get(f"{base}/readyz")[0]
            if last == 200:
                return
        except OSError as err:
            last = err
        time.sleep(0.3)
    raise AssertionError(f"/readyz not 200 within {timeout_s} s: {last}")


def _process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants, from the host's /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, []))
    return tree


def _uids(pid: int) -> list[int]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return [int(v) for v in line.split()[1:]]
    raise AssertionError(f"no Uid line for {pid}")


def _wait_restarted(stack: Stack, service: str, old_pid: int, timeout_s: float = 30) -> None:
    """The restart policy brings the service back: running again, a new process."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = stack.inspect(service)["State"]
        if state["Running"] and state["Pid"] not in (0, old_pid):
            return
        time.sleep(0.3)
    raise AssertionError(f"{service} was not restarted within {timeout_s} s: {state}")


def _same_room(running: Running, game: Game) -> Player:
    """Reconnect the seat the table waits for: the room is as it was left."""
    player = Player(running.ws, game.turn)
    assert game_state(player.view) == game.state
    return player


# --- fixtures ---------------------------------------------------------------


@pytest.fixture(scope="module")
def running(repo: Path) -> Iterator[Running]:
    """Build the image and start the stack; `down -v` at the end."""
    port = free_port()
    files = [repo / "docker-compose.yml"] + ([Path(OVERRIDE)] if OVERRIDE else [])
    stack = Stack(
        compose_cmd=[COMPOSE],
        files=files,
        project_dir=repo,
        project=PROJECT,
        env={"CRISP_PUBLISH": f"127.0.0.1:{port}"},
    )
    stack.compose("build", *[f"--build-arg={arg}" for arg in BUILD_ARGS], timeout_s=600)
    try:
        stack.compose("up", "-d")
        stack.wait_healthy("redis")
        stack.wait_healthy("app")
        yield Running(stack, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}")
    finally:
        stack.compose("down", "--volumes", timeout_s=120)


@pytest.fixture(scope="module")
def game(running: Running) -> Game:
    """A room created and played through the published port: start, ready, and
    one turn (draw from the stock, discard)."""
    host_seat = create_room(running.http, "Ana")
    guest_seat = join_room(running.http, host_seat.code, "Bo")
    host, guest = Player(running.ws, host_seat), Player(running.ws, guest_seat)
    try:
        start_game(host, guest)
        first, second = (host, guest) if my_turn(host)(host.view) else (guest, host)
        waiting = play_until_a_discard(first, second)
        other = guest if waiting is host else host
        view = waiting.wait(settled(waiting), what="handing the turn on")
        kinds = {e["kind"] for e in host.events + guest.events}
        assert {"round_started", "drew", "discarded"} <= kinds, kinds
        return Game(host_seat.code, waiting.seat, other.seat, game_state(view))
    finally:
        host.close()
        guest.close()


# --- the files, as Compose reads them -----------------------------------------


def test_compose_config_is_what_operators_get(repo: Path) -> None:
    """`config` of the shipped file alone: Redis private with AOF on a named
    volume, the app on port 8000, CRISP_PUBLISH interpolated."""
    env = {k: v for k, v in os.environ.items() if k != "CRISP_PUBLISH"}
    argv = [COMPOSE, "-f", str(repo / "docker-compose.yml"), "config"]
    config = yaml.safe_load(run(argv, env=env, cwd=repo))
    assert config["name"] == PROJECT
    redis, app = config["services"]["redis"], config["services"]["app"]
    assert "ports" not in redis, "Redis has no password: never published"
    command = redis["command"] if isinstance(redis["command"], str) else " ".join(redis["command"])
    assert "--appendonly yes" in command
    assert "redis-data:/data" in [str(v) for v in redis["volumes"]] or any(
        isinstance(v, dict) and v.get("source") == "redis-data" and v.get("target") == "/data"
        for v in redis["volumes"]
    ), redis["volumes"]
    assert "redis-data" in config["volumes"]
    assert [str(p) for p in app["ports"]] == ["8000:8000"]
    assert app["healthcheck"]["start_interval"] == "1s"
    published = yaml.safe_load(run(argv, env={**env, "CRISP_PUBLISH": "127.0.0.1:8001"}, cwd=repo))[
        "services"
    ]["app"]["ports"]
    assert [str(p) for p in published] == ["127.0.0.1:8001:8000"]


# --- the image and the running stack ------------------------------------------


def test_image_keeps_healthcheck_user_and_cmd(running: Running) -> None:
    """Built in Docker's format (BUILDAH_FORMAT=docker): an OCI image would have
    lost the HEALTHCHECK."""
    image = json.loads(podman("image", "inspect", running.stack.inspect("app")["ImageName"]))[0]
    config = image["Config"]
    assert config["User"] == f"{APP_UID}:{APP_UID}"
    assert config["Cmd"] == ["crisp", "serve"]
    assert config["StopSignal"] == "SIGTERM"
    assert "CRISP_HOST=0.0.0.0" in config["Env"]
    health = image.get("Healthcheck") or config.get("Healthcheck") or {}
    assert "/healthz" in " ".join(health.get("Test", [])), image.get("Healthcheck")


def test_healthy_and_ready_through_the_published_port(running: Running) -> None:
    for service in ("redis", "app"):
        assert running.stack.inspect(service)["State"]["Health"]["Status"] == "healthy"
    assert http_get(f"{running.http}/healthz")[0] == 200
    assert http_get(f"{running.http}/readyz")[0] == 200
    status, _, page = http_get(f"{running.http}/")
    assert status == 200 and b"<html" in page.lower()


def test_app_runs_as_non_root(running: Running) -> None:
    pid = running.stack.inspect("app")["State"]["Pid"]
    tree = _process_tree(pid)
    commands = {p: Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ") for p in tree}
    assert any(b"crisp" in c for c in commands.values()), commands
    for p in tree:
        assert set(_uids(p)) == {APP_UID}, f"{commands[p]!r} runs with uids {_uids(p)}"
    assert running.stack.exec("app", "id", "-u").strip() == str(APP_UID)


def test_redis_private_append_only_on_the_named_volume(running: Running) -> None:
    stack = running.stack
    assert podman("port", stack.container("redis")).strip() == "", "Redis is published"
    assert podman("port", stack.container("app")).split() == [
        "8000/tcp",
        "->",
        running.http.removeprefix("http://"),
    ]
    assert stack.exec("redis", "redis-cli", "CONFIG", "GET", "appendonly").split() == [
        "appendonly",
        "yes",
    ]
    mounts = [
        (m.get("Type"), m.get("Name"), m.get("Destination"))
        for m in stack.inspect("redis")["Mounts"]
    ]
    assert ("volume", VOLUME, "/data") in mounts, mounts


# --- a game, and the room surviving restarts ------------------------------------


def test_room_created_and_played_over_the_published_port(game: Game) -> None:
    assert game.state["status"] == "playing"
    assert game.state["discard_count"] >= 1 and game.state["discard_top"]
    assert game.state["turn"]["player"] == game.turn.player_id


def test_sigterm_closes_sockets_with_1012_and_the_room_survives_the_restart(
    running: Running, game: Game
) -> None:
    stack = running.stack
    waiting, other = _same_room(running, game), Player(running.ws, game.other)
    pid = stack.inspect("app")["State"]["Pid"]
    os.kill(pid, signal.SIGTERM)  # what `docker stop` sends (init: true forwards it)
    try:
        assert waiting.wait_closed(timeout_s=15) == 1012
        assert other.wait_closed(timeout_s=15) == 1012
    finally:
        waiting.close()
        other.close()
    _wait_restarted(stack, "app", pid)  # restart: unless-stopped
    stack.wait_healthy("app")
    _wait_ready(running.http)
    _same_room(running, game).close()
    logs = stack.logs("app")
    assert "Traceback" not in logs, logs[-3000:]
    assert any(
        json.loads(line).get("event") == "shutdown"
        for line in logs.splitlines()
        if line.startswith("{")
    ), logs[-3000:]


def test_room_survives_redis_sigkill(running: Running, game: Game) -> None:
    stack = running.stack
    pid = stack.inspect("redis")["State"]["Pid"]
    os.kill(pid, signal.SIGKILL)  # no chance to save: only the append-only file remains
    _wait_restarted(stack, "redis", pid)  # restart: unless-stopped
    stack.wait_healthy("redis")
    _wait_ready(running.http)
    stack.wait_healthy("app")
    _same_room(running, game).close()


def test_room_survives_down_and_up_on_the_same_volume(running: Running, game: Game) -> None:
    stack = running.stack
    stack.compose("down")
    assert stack.containers() == []
    assert json.loads(podman("volume", "inspect", VOLUME))[0]["Name"] == VOLUME
    stack.compose("up", "-d")
    stack.wait_healthy("redis")
    stack.wait_healthy("app")
    _wait_ready(running.http)
    player = _same_room(running, game)
    try:
        assert play_turn(player)[0] == "draw"  # and the room still plays
    finally:
        player.close()
    status, room = http(running.http, "GET", f"/api/rooms/{game.code}")
    assert status == 200 and room["status"] == "playing", room
