"""docker-compose.yml and deploy/docker-compose.caddy.yml, checked without Docker.

The files are read with PyYAML; the healthcheck commands are run for real
against stub servers, and (once crisp/cli.py exists and redis-server is on
PATH) the app's compose environment is run against a real Redis with the
compose healthcheck deciding readiness.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

from crisp.bench.procs import start_redis

from ._dockerfile import Dockerfile
from ._replay import (
    Replay,
    clean_host_env,
    cli_exists,
    free_port,
    runtime_env,
    start_server,
    stop_server,
    stub_http,
    wait_http_ok,
)

READYZ = "/readyz"


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):  # the KEY=value list form
        env = dict(item.partition("=")[::2] for item in env)
    return {k: str(v) for k, v in env.items()}


def _healthcheck_argv(service: dict) -> list[str]:
    test = service["healthcheck"]["test"]
    if isinstance(test, str):
        return ["/bin/sh", "-c", test]
    kind, *rest = test
    assert kind in ("CMD", "CMD-SHELL"), test
    return rest if kind == "CMD" else ["/bin/sh", "-c", rest[0]]


def _published_container_ports(service: dict) -> list[str]:
    out = []
    for port in service.get("ports", []):
        if isinstance(port, dict):
            out.append(str(port["target"]))
        else:
            out.append(str(port).split("/")[0].rsplit(":", 1)[-1])
    return out


def _named_volume(service: dict, target: str) -> str:
    for vol in service.get("volumes", []):
        if isinstance(vol, dict):
            if vol.get("target") == target and vol.get("type", "volume") == "volume":
                return str(vol["source"])
        else:
            source, _, rest = str(vol).partition(":")
            if rest.split(":")[0] == target and not source.startswith((".", "/", "~")):
                return source
    raise AssertionError(f"no named volume mounted at {target}")


# --- docker-compose.yml -------------------------------------------------------


def test_services_exist(compose: dict) -> None:
    assert {"redis", "app"} <= set(compose["services"])


def test_redis_private_persistent_and_healthchecked(compose: dict) -> None:
    redis = compose["services"]["redis"]
    assert str(redis["image"]).startswith("redis:7")
    assert "ports" not in redis, "Redis has no password: never publish it on the host"
    command = redis["command"]
    command = command if isinstance(command, str) else " ".join(command)
    assert "--appendonly yes" in command
    # a memory bound that cannot evict a live room without a word (issue 23)
    assert "--maxmemory 1gb" in command and "--maxmemory-policy noeviction" in command
    volume = _named_volume(redis, "/data")
    assert volume in (compose.get("volumes") or {}), "declare the data volume at top level"
    argv = _healthcheck_argv(redis)
    assert "redis-cli" in " ".join(argv) and "ping" in " ".join(argv)
    assert redis.get("restart") in ("unless-stopped", "always")


def test_redis_healthcheck_needs_pong(compose: dict, tmp_path: Path) -> None:
    """The shell healthcheck fails on an error reply, e.g. -LOADING while starting."""
    argv = _healthcheck_argv(compose["services"]["redis"])
    fake = tmp_path / "redis-cli"
    env = {**clean_host_env(), "PATH": f"{tmp_path}:/usr/bin:/bin"}
    fake.write_text("#!/bin/sh\necho PONG\n")
    fake.chmod(0o755)
    assert subprocess.run(argv, env=env).returncode == 0
    fake.write_text("#!/bin/sh\necho 'LOADING Redis is loading the dataset in memory'\n")
    assert subprocess.run(argv, env=env).returncode != 0


def test_app_wiring(compose: dict) -> None:
    app = compose["services"]["app"]
    build = app["build"]
    assert (build if isinstance(build, str) else build.get("context", ".")) == "."
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    env = _env(app)
    url = urllib.parse.urlsplit(env["CRISP_REDIS_URL"])
    assert (url.scheme, url.hostname, url.port or 6379) == ("redis", "redis", 6379)
    assert env.get("CRISP_HOST", "0.0.0.0") == "0.0.0.0"
    assert "8000" in _published_container_ports(app)
    assert app["restart"] in ("unless-stopped", "always")
    assert "stop_grace_period" in app
    assert not any(k.startswith("CRISP_TEST") for k in env)


def test_app_healthcheck_hits_readyz_with_python(compose: dict) -> None:
    argv = _healthcheck_argv(compose["services"]["app"])
    assert argv[0] == "python" and READYZ in " ".join(argv)
    assert "curl" not in " ".join(argv) and "wget" not in " ".join(argv)
    assert "$" not in " ".join(argv), "compose would interpolate $ (write $$)"


def test_app_healthcheck_follows_readyz(compose: dict) -> None:
    argv = [sys.executable, *_healthcheck_argv(compose["services"]["app"])[1:]]
    env = clean_host_env()
    with stub_http({READYZ: 200}) as port:
        assert subprocess.run(argv, env={**env, "CRISP_PORT": str(port)}).returncode == 0
    with stub_http({READYZ: 503, "/healthz": 200}) as port:
        assert (
            subprocess.run(
                argv, env={**env, "CRISP_PORT": str(port)}, capture_output=True
            ).returncode
            == 1
        )


def test_app_published_where_crisp_publish_says(compose: dict) -> None:
    """docs/deploy.md: CRISP_PUBLISH (e.g. in .env) is the host side of the
    app's port; unset, port 8000 on every interface as before."""
    (spec,) = compose["services"]["app"]["ports"]
    assert spec == "${CRISP_PUBLISH:-8000}:8000"


def test_healthchecks_answer_within_seconds_of_start(compose: dict) -> None:
    """start_interval (Docker 25+): during start_period the checks run every
    second, so `app` starts soon after Redis is up and is healthy soon after
    it is ready, instead of a whole interval later."""
    for name in ("redis", "app"):
        check = compose["services"][name]["healthcheck"]
        start, interval = _seconds(check["start_interval"]), _seconds(check["interval"])
        assert start <= 2 < interval, (name, check)
        assert _seconds(check["start_period"]) >= 5 * start, (name, check)


def _seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration).groups()  # type: ignore[union-attr]
    return float(number) * units[unit]


def test_fixed_project_name(compose: dict, compose_caddy: dict) -> None:
    # docs/deploy.md's backup commands name the volume crisp_redis-data.
    assert compose["name"] == compose_caddy["name"] == "crisp"


# --- deploy/docker-compose.caddy.yml --------------------------------------------


def test_caddy_variant_stays_in_step(compose: dict, compose_caddy: dict) -> None:
    base, proxied = compose["services"], compose_caddy["services"]
    assert proxied["redis"] == base["redis"], "same redis service, so the same data"
    app = dict(proxied["app"])
    assert "ports" not in app, "scaled app containers cannot share a host port"
    assert app.pop("build") == ".."
    expected = {k: v for k, v in base["app"].items() if k not in ("ports", "build")}
    assert {k: v for k, v in app.items() if k != "environment"} == {
        k: v for k, v in expected.items() if k != "environment"
    }
    env, base_env = _env(app), _env(base["app"])
    assert {k: env.get(k) for k in base_env} == base_env
    assert set(compose_caddy["volumes"]) >= set(compose["volumes"])


def test_caddy_service_publishes_tls_and_mounts_caddyfile(compose_caddy: dict, repo: Path) -> None:
    caddy = compose_caddy["services"]["caddy"]
    assert {"80", "443"} <= set(_published_container_ports(caddy))
    mounts = [str(v) for v in caddy["volumes"]]
    assert any(m.startswith("./Caddyfile:/etc/caddy/Caddyfile") for m in mounts)
    assert (repo / "deploy" / "Caddyfile").is_file()
    assert _named_volume(caddy, "/data") in compose_caddy["volumes"]


# --- the compose app environment against a real Redis ---------------------------


def _poll_exit(argv: list[str], env: dict[str, str], want_ok: bool, within_s: float) -> int:
    """Run a healthcheck until it passes (want_ok) or fails; its last exit code."""
    deadline = time.monotonic() + within_s
    while True:
        code = subprocess.run(argv, env=env, capture_output=True, timeout=10).returncode
        if (code == 0) == want_ok or time.monotonic() > deadline:
            return code
        time.sleep(0.5)  # poll interval of the healthcheck


def test_compose_app_readiness_follows_redis(
    dockerfile: Dockerfile,
    builder_replay: Replay,
    compose: dict,
    repo: Path,
    tmp_path: Path,
) -> None:
    """The app's compose environment and healthcheck, against a real Redis that
    goes away and comes back (as when the redis container restarts)."""
    if not cli_exists(repo):
        pytest.skip("crisp/cli.py not written yet: nothing to serve")
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not on PATH")
    app_port = free_port()
    redis = start_redis()
    redis_port = redis.port
    app = None
    try:
        env = runtime_env(dockerfile, builder_replay, repo, app_port)
        compose_env = _env(compose["services"]["app"])
        url = urllib.parse.urlsplit(compose_env["CRISP_REDIS_URL"])
        compose_env["CRISP_REDIS_URL"] = url._replace(netloc=f"127.0.0.1:{redis_port}").geturl()
        compose_env["CRISP_PORT"] = str(app_port)
        env.update(compose_env)
        cmd = dockerfile.final.last("CMD").exec_form()  # type: ignore[union-attr]
        app = start_server(cmd, env, cwd=tmp_path)
        wait_http_ok(f"http://127.0.0.1:{app_port}/healthz", app, deadline_s=30)
        check = _healthcheck_argv(compose["services"]["app"])
        assert _poll_exit(check, env, want_ok=True, within_s=10) == 0, "not ready with Redis up"
        redis.stop()
        assert _poll_exit(check, env, want_ok=False, within_s=15) != 0, "ready without Redis"
        redis = start_redis(port=redis_port)
        assert _poll_exit(check, env, want_ok=True, within_s=20) == 0, "no recovery after Redis"
    finally:
        redis.stop()
        if app is not None:
            stop_server(app, timeout=30)
