"""Replay a Dockerfile build stage on the host, and small process/HTTP helpers.

`replay_stage` runs a stage's ENV, ARG, WORKDIR, COPY and RUN lines as written,
with every absolute container path re-rooted under a temporary directory (so
`/opt/venv` becomes `<tmp>/fs/opt/venv`). It needs the stage's RUN lines to
refer to such paths through variables (`"$VIRTUAL_ENV"`), which the Dockerfile
does. Build-only flags such as `--mount=type=cache` are dropped: the host's own
pip cache plays that part. Instructions the replay cannot honour make it fail
rather than silently diverge from a real build.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import shlex
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from crisp.bench.procs import Proc, http_ok, wait_until
from crisp.bench.procs import free_port as free_port  # the ops tests take it from here

from ._dockerfile import Dockerfile, DockerIgnore, Instruction, Stage, substitute

# Variables of the test runner's own environment that must not reach a replay
# or a server started from the replayed venv.
_LEAKY = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "CONDA_PREFIX")


def clean_host_env() -> dict[str, str]:
    """os.environ without CRISP_* settings and without the runner's venv/paths."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRISP_")}
    for key in _LEAKY:
        env.pop(key, None)
    return env


@dataclass
class Replay:
    """The outcome of replaying a stage: fake root, host-side env, workdir."""

    root: Path
    env: dict[str, str]
    container_env: dict[str, str]
    workdir: Path
    log: list[str]

    def host_path(self, container_path: str) -> Path:
        return self.root / container_path.lstrip("/")


def _reroot_value(raw: str, host_env: dict[str, str], root: Path) -> str:
    if raw.startswith("/") and ":" not in raw and "$" not in raw:
        return str(root / raw.lstrip("/"))
    return substitute(raw, host_env)


def _apply_env(inst: Instruction, replay: Replay) -> None:
    words = shlex.split(inst.args, posix=True)
    if words and "=" not in words[0]:
        words = [f"{words[0]}={' '.join(words[1:])}"]
    host_updates: dict[str, str] = {}
    container_updates: dict[str, str] = {}
    for word in words:
        key, _, raw = word.partition("=")
        # Values see the environment as it was before this instruction.
        host_updates[key] = _reroot_value(raw, replay.env, replay.root)
        container_updates[key] = substitute(raw, replay.container_env)
    replay.env.update(host_updates)
    replay.container_env.update(container_updates)


def _copy_tree(src: Path, dest: Path, context: Path, ignore: DockerIgnore) -> None:
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(context).as_posix()
        if ignore.ignored(rel) or not path.is_file():
            continue
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


def _apply_copy(inst: Instruction, replay: Replay, context: Path, ignore: DockerIgnore) -> None:
    if "from" in inst.flags:
        raise AssertionError(f"line {inst.line}: COPY --from is not replayable in this stage")
    words = inst.exec_form() or shlex.split(inst.args)
    *sources, dest_raw = words
    dest_raw = substitute(dest_raw, replay.container_env)
    dest = replay.host_path(dest_raw) if dest_raw.startswith("/") else replay.workdir / dest_raw
    matched: list[Path] = []
    for src in sources:
        hits = sorted(context.glob(src)) if any(c in src for c in "*?[") else [context / src]
        hits = [
            h for h in hits if h.exists() and not ignore.ignored(h.relative_to(context).as_posix())
        ]
        if not hits and not any(c in src for c in "*?["):
            raise AssertionError(
                f"line {inst.line}: COPY source {src!r} is missing from the build context "
                "(absent, or excluded by .dockerignore)"
            )
        matched.extend(hits)
    into_dir = dest_raw.endswith("/") or len(sources) > 1 or any(p.is_dir() for p in matched)
    for path in matched:
        if path.is_dir():
            _copy_tree(path, dest, context, ignore)
        else:
            target = dest / path.name if into_dir else dest
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    replay.log.append(f"COPY {' '.join(sources)} -> {dest}")


def _apply_run(inst: Instruction, replay: Replay) -> None:
    unknown = set(inst.flags) - {"mount", "network"}
    if unknown:
        raise AssertionError(f"line {inst.line}: RUN flags {sorted(unknown)} not replayable")
    argv = inst.exec_form() or ["/bin/sh", "-c", inst.args]
    replay.workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    proc = subprocess.run(
        argv,
        cwd=replay.workdir,
        env=replay.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    replay.log.append(f"RUN ({time.monotonic() - started:.1f}s) {inst.args[:120]}")
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise AssertionError(
            f"Dockerfile line {inst.line}: RUN exited {proc.returncode}:\n{inst.args}\n{tail}"
        )


def replay_stage(stage: Stage, context: Path, root: Path, global_args: dict[str, str]) -> Replay:
    """Run one build stage's instructions on the host under the fake root `root`."""
    ignore = DockerIgnore.read(context / ".dockerignore")
    replay = Replay(
        root=root,
        env=clean_host_env(),
        container_env=dict(global_args),
        workdir=root,
        log=[],
    )
    for inst in stage.instructions:
        if inst.cmd == "ENV":
            _apply_env(inst, replay)
        elif inst.cmd == "ARG":
            key, _, default = inst.args.partition("=")
            value = default.strip().strip("\"'") or global_args.get(key.strip(), "")
            replay.env[key.strip()] = value
            replay.container_env[key.strip()] = value
        elif inst.cmd == "WORKDIR":
            path = substitute(inst.args.strip(), replay.container_env)
            replay.workdir = (
                replay.host_path(path) if path.startswith("/") else replay.workdir / path
            )
            replay.workdir.mkdir(parents=True, exist_ok=True)
        elif inst.cmd == "COPY":
            _apply_copy(inst, replay, context, ignore)
        elif inst.cmd == "RUN":
            _apply_run(inst, replay)
        elif inst.cmd == "LABEL":
            continue
        else:
            raise AssertionError(
                f"line {inst.line}: {inst.cmd} in stage {stage.name!r} is not replayable here"
            )
    return replay


# --- processes and HTTP ---------------------------------------------------


@contextlib.contextmanager
def stub_http(statuses: dict[str, int]) -> Iterator[int]:
    """A loopback HTTP server answering GET path -> status (404 otherwise)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = statuses.get(self.path, 404)
            body = b"ok" if status < 400 else b"not ok"
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def http_get(url: str, timeout: float = 3.0) -> tuple[int, dict[str, str], bytes]:
    """GET a loopback URL: (status, headers, body); HTTP errors are returned too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def wait_http_ok(url: str, proc: Proc | subprocess.Popen[bytes], deadline_s: float) -> None:
    """Poll `url` until it answers 200, failing early if `proc` exits."""
    popen = proc.proc if isinstance(proc, Proc) else proc
    wait_until(popen, lambda: http_ok(url), deadline_s, f"answering 200 at {url}")


# --- running the image's CMD from a replayed venv ---------------------------


def cli_exists(repo: Path) -> bool:
    return (repo / "crisp" / "cli.py").exists()


def runtime_env(dockerfile: Dockerfile, replay: Replay, repo: Path, port: int) -> dict[str, str]:
    """The final stage's ENV as the process in the container sees it, re-rooted."""
    host = clean_host_env()
    env = dockerfile.final.env({"PATH": host["PATH"]})
    venv_c = dockerfile.stage("builder").env()["VIRTUAL_ENV"]
    venv_h = replay.env["VIRTUAL_ENV"]
    env = {k: v.replace(venv_c, venv_h) for k, v in env.items()}
    env["CRISP_WEB_DIR"] = str(repo / "web")  # what COPY web/ puts at /app/web
    env["CRISP_PORT"] = str(port)
    return {**host, **env}


def start_server(argv: list[str], env: dict[str, str], cwd: Path) -> Proc:
    """The image's CMD `argv` from the replayed venv (its PATH in `env`)."""
    exe = shutil.which(argv[0], path=env["PATH"])
    assert exe, f"{argv[0]} not found on the image's PATH"
    return Proc("server", [exe, *argv[1:]], env, cwd=cwd)


def stop_server(proc: Proc, timeout: float = 20) -> tuple[int, str]:
    """SIGTERM, as `docker stop` sends it; returns (exit code, all output)."""
    if not proc.stop(timeout):
        raise AssertionError(f"no exit {timeout}s after SIGTERM:\n{proc.tail()}")
    assert proc.returncode is not None
    return proc.returncode, proc.output()
