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

import asyncio
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

from tests.support.play import drive, simple_policy
from tests.support.player import Player
from tests.support.rooms import start_game, table
from tests.support.servers import LiveServer

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
# What only play changes in a view (not presence, not the viewer's own fields).
GAME_FIELDS = (
    "code",
    "status",
    "round",
    "dealer",
    "turn",
    "stock_count",
    "discard_top",
    "discard_count",
    "options",
    "host",
)


class Published(LiveServer):
    """The stack, as a phone reaches it: the app's published port."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"


@dataclass
class Running:
    stack: Stack
    server: Published


@dataclass
class Game:
    """A room in play, left waiting for the seat `turn` (see `_settled`)."""

    code: str
    turn: tuple[str, str]  # (player id, token) of the seat the table waits for
    other: tuple[str, str]
    state: dict[str, Any]


def _state(view: dict[str, Any]) -> dict[str, Any]:
    state = {k: view.get(k) for k in GAME_FIELDS}
    state["players"] = [(p["id"], p["name"], p["seat"], p["total"]) for p in view["players"]]
    return state


def _settled(pid: str) -> Any:
    """`pid`'s turn, nothing drawn yet, no crisp window open: the table waits for
    that player alone, and no timer can change it (no draw limit is set)."""

    def check(v: dict[str, Any]) -> bool:
        crisp = v.get("crisp") or {}
        return (
            v["status"] == "playing"
            and (v["turn"] or {}).get("player") == pid
            and v["turn"].get("drawn_from") is None
            and crisp.get("window") is None
            and not crisp.get("windows")
        )

    return check


def _patient(p: Player, v: dict[str, Any], now: int) -> dict[str, Any] | None:
    """tests.support's simple policy, never calling crisp: the round goes on."""
    action = simple_policy(p, v, now)
    return None if action is not None and action["type"] == "crisp" else action


async def _same_room(server: Published, game: Game) -> Player:
    """Reconnect the seat the table waits for: the room is as it was left."""
    player = await Player.join(server, game.code, *game.turn)
    assert not player.closed, f"hello refused with {player.close_code}: the room is gone"
    assert _state(player.view) == game.state
    return player


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
        time.sleep(0.3)  # poll interval of /readyz
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
        time.sleep(0.3)  # poll interval of `podman inspect`
    raise AssertionError(f"{service} was not restarted within {timeout_s} s: {state}")


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
        yield Running(stack, Published(port))
    finally:
        stack.compose("down", "--volumes", timeout_s=120)


async def _play(server: Published) -> Game:
    code, players = await table(server, 2)
    try:
        await start_game(players)
        first = next(p for p in players if p.view["turn"]["player"] == p.pid)
        second = next(p for p in players if p is not first)
        # One whole turn: draw from the stock, then discard or swap (the policy plays
        # either on a real shuffle; a King is played first, R6.3), until the turn passes.
        await drive(first, _patient, lambda p: p.view["turn"]["player"] != p.pid)
        view = await second.wait_view(_settled(second.pid), what="the turn handed on")
        kinds = {e["kind"] for e in first.events()}
        assert {"round_started", "drew"} <= kinds, kinds
        assert kinds & {"discarded", "swapped"}, kinds  # the turn's card on the pile
        return Game(code, (second.pid, second.token), (first.pid, first.token), _state(view))
    finally:
        for p in players:
            await p.close()


@pytest.fixture(scope="module")
def game(running: Running) -> Game:
    """A room created and played through the published port: `hello`, `start`,
    `ready`, and one turn of `draw` and `discard`."""
    return asyncio.run(_play(running.server))


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
    base = running.server.base
    assert http_get(f"{base}/healthz")[0] == 200
    assert http_get(f"{base}/readyz")[0] == 200
    status, _, page = http_get(f"{base}/")
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
        running.server.base.removeprefix("http://"),
    ]
    assert stack.exec("redis", "redis-cli", "CONFIG", "GET", "appendonly").split() == [
        "appendonly",
        "yes",
    ]
    assert stack.exec("redis", "redis-cli", "CONFIG", "GET", "maxmemory-policy").split() == [
        "maxmemory-policy",
        "noeviction",
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
    assert game.state["turn"]["player"] == game.turn[0]


async def test_sigterm_closes_sockets_with_1012_and_the_room_survives_the_restart(
    running: Running, game: Game
) -> None:
    stack, server = running.stack, running.server
    players = [await _same_room(server, game), await Player.join(server, game.code, *game.other)]
    pid = stack.inspect("app")["State"]["Pid"]
    os.kill(pid, signal.SIGTERM)  # what `docker stop` sends (init: true forwards it)
    try:
        assert [await p.wait_closed(timeout=15) for p in players] == [1012, 1012]
    finally:
        for p in players:
            await p.close()
    _wait_restarted(stack, "app", pid)  # restart: unless-stopped
    stack.wait_healthy("app")
    _wait_ready(server.base)
    await (await _same_room(server, game)).close()
    logs = stack.logs("app")
    assert "Traceback" not in logs, logs[-3000:]
    assert any(
        json.loads(line).get("event") == "shutdown"
        for line in logs.splitlines()
        if line.startswith("{")
    ), logs[-3000:]


async def test_room_survives_redis_sigkill(running: Running, game: Game) -> None:
    stack, server = running.stack, running.server
    pid = stack.inspect("redis")["State"]["Pid"]
    os.kill(pid, signal.SIGKILL)  # no chance to save: only the append-only file remains
    _wait_restarted(stack, "redis", pid)  # restart: unless-stopped
    stack.wait_healthy("redis")
    _wait_ready(server.base)
    stack.wait_healthy("app")
    await (await _same_room(server, game)).close()


async def test_room_survives_down_and_up_on_the_same_volume(running: Running, game: Game) -> None:
    stack, server = running.stack, running.server
    stack.compose("down")
    assert stack.containers() == []
    assert json.loads(podman("volume", "inspect", VOLUME))[0]["Name"] == VOLUME
    stack.compose("up", "-d")
    stack.wait_healthy("redis")
    stack.wait_healthy("app")
    _wait_ready(server.base)
    player = await _same_room(server, game)
    try:
        await player.wait_legal("draw")  # and the game goes on
        answer = await player.act("draw", source="stock")
        assert answer["type"] == "update" and player.view["turn"]["drawn_from"] == "stock"
    finally:
        await player.close()
    # A joiner is refused now, as in any started game: the room knows it is in play.
    async with server.http() as client:
        refused = await client.post(f"/api/rooms/{game.code}/players", json={"name": "Late"})
    assert refused.status_code == 409, refused.text
