"""deploy/Caddyfile and deploy/nginx.conf.

Always: static checks of what a proxy in front of Crisp must do (websocket
upgrade headers, Host kept, long read timeout, TLS, /metrics kept internal).
Where the binaries exist (they are not part of CI's install): `caddy adapt`
parses the Caddyfile, and nginx runs deploy/nginx.conf for real (ports and
certificate paths swapped for a self-signed certificate on loopback) in front of
the server started from the Dockerfile's replayed venv, with a room created and
a websocket game connection opened through it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from crisp.bench.procs.proxy import insecure_tls, on_loopback

from ._dockerfile import Dockerfile
from ._replay import (
    Replay,
    cli_exists,
    free_port,
    runtime_env,
    start_server,
    stop_server,
    wait_http_ok,
)


@pytest.fixture(scope="module")
def nginx_conf(repo: Path) -> str:
    return (repo / "deploy" / "nginx.conf").read_text()


@pytest.fixture(scope="module")
def caddyfile(repo: Path) -> str:
    return (repo / "deploy" / "Caddyfile").read_text()


def _location(conf: str, prefix: str) -> str:
    m = re.search(r"location\s+" + re.escape(prefix) + r"\s*\{(.*?)\n\s*\}", conf, re.S)
    assert m, f"no location {prefix}"
    return m.group(1)


def _seconds(value: str) -> int:
    m = re.fullmatch(r"(\d+)([smhd]?)", value)
    assert m, value
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


# --- static -----------------------------------------------------------------


def test_nginx_passes_websocket_upgrades(nginx_conf: str) -> None:
    assert re.search(r"map\s+\$http_upgrade\s+\$connection_upgrade", nginx_conf)
    ws = _location(nginx_conf, "/ws/")
    assert "proxy_http_version 1.1;" in ws
    assert "proxy_set_header Upgrade $http_upgrade;" in ws
    assert "proxy_set_header Connection $connection_upgrade;" in ws
    assert re.search(r"proxy_set_header Host \$(http_host|host);", ws)
    assert "X-Forwarded-Proto" in ws and "X-Forwarded-For" in ws
    timeout = re.search(r"proxy_read_timeout\s+(\w+);", ws)
    assert timeout and _seconds(timeout.group(1)) >= 300, "idle game sockets need > 60 s"


def test_nginx_tls_redirect_and_private_metrics(nginx_conf: str) -> None:
    assert re.search(r"listen\s+443\s+ssl", nginx_conf)
    assert "ssl_certificate " in nginx_conf and "ssl_certificate_key " in nginx_conf
    assert "return 301 https://$host$request_uri;" in nginx_conf
    assert "return 404" in _location(nginx_conf, "= /metrics")


def test_caddyfile_proxies_every_app_container(caddyfile: str, compose_caddy: dict) -> None:
    body = re.sub(r"#.*", "", caddyfile)
    assert "{$CRISP_DOMAIN" in body
    assert re.search(r"dynamic a \{\s*name app\s*port 8000", body)
    assert "app" in compose_caddy["services"]
    assert re.search(r"@internal path /metrics", body) and "respond @internal 404" in body
    # No header_up/Host rewriting: Caddy keeps Host and upgrades websockets itself.
    assert "header_up Host" not in body


# --- with the real binaries, where present -------------------------------------


def test_caddyfile_adapts_as_shipped(repo: Path, tmp_path: Path) -> None:
    """The shipped file, unchanged, on the installed Caddy (Debian 12's is 2.6: the
    file must not use what only later releases know, e.g. stream_close_delay)."""
    caddy = shutil.which("caddy")
    if not caddy:
        pytest.skip("caddy is not installed (apt-get install caddy)")
    env = {**os.environ, "CRISP_DOMAIN": "cards.example.com", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.run(
        [caddy, "adapt", "--config", str(repo / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    adapted = json.loads(proc.stdout)
    route_text = json.dumps(adapted)
    assert '"cards.example.com"' in route_text
    assert '"dynamic_upstreams"' in route_text
    assert "stream_close_delay" not in route_text  # a comment there, for Caddy 2.7+


def test_caddyfile_says_which_caddy_it_needs(caddyfile: str) -> None:
    assert "Caddy 2.6" in caddyfile
    active = [line for line in caddyfile.splitlines() if not line.strip().startswith("#")]
    assert not any("stream_close_delay" in line for line in active)


def _nginx_test_config(conf: str, tmp: Path, https: int, http: int, app: int) -> Path:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    openssl = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    subj = ["-subj", "/CN=cards.example.com", "-keyout", str(key), "-out", str(cert)]
    subprocess.run([*openssl, *subj], check=True, capture_output=True)
    conf = conf.replace("/etc/letsencrypt/live/cards.example.com/fullchain.pem", str(cert))
    conf = conf.replace("/etc/letsencrypt/live/cards.example.com/privkey.pem", str(key))
    conf = on_loopback(conf, https, http)
    conf = conf.replace("server 127.0.0.1:8000 ", f"server 127.0.0.1:{app} ")
    (tmp / "crisp.conf").write_text(conf)
    temp_dirs = "\n".join(
        f"    {name}_temp_path {tmp}/{name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main = tmp / "nginx.conf"
    main.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;\nevents {{}}\n"
        + f"http {{\n    access_log off;\n{temp_dirs}\n    include {tmp}/crisp.conf;\n}}\n"
    )
    return main


def _start_app(
    dockerfile: Dockerfile, replay: Replay, repo: Path, cwd: Path, port: int
) -> subprocess.Popen[bytes]:
    env = runtime_env(dockerfile, replay, repo, port)
    env["CRISP_HOST"] = "127.0.0.1"
    cmd = dockerfile.final.last("CMD").exec_form()  # type: ignore[union-attr]
    app = start_server(cmd, env, cwd=cwd)
    wait_http_ok(f"http://127.0.0.1:{port}/healthz", app, deadline_s=30)
    return app


def _stop_proxy(proxy: subprocess.Popen[bytes], sig: int) -> None:
    if proxy.poll() is None:
        os.killpg(proxy.pid, sig)
        try:
            proxy.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proxy.pid, signal.SIGKILL)
            proxy.wait()


def _exercise_proxy(
    proxy: subprocess.Popen[bytes], https: int, http: int, log: Path, redirect_code: int
) -> None:
    """What a phone does through the proxy: page, room, game socket."""
    from websockets.sync.client import connect

    tls = insecure_tls()
    base = f"https://127.0.0.1:{https}"
    deadline = time.monotonic() + 15
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", context=tls, timeout=2) as r:
                assert r.status == 200
            break
        except OSError:
            detail = log.read_text() if log.exists() else ""
            assert proxy.poll() is None, f"proxy exited:\n{detail[-3000:]}"
            assert time.monotonic() < deadline, f"proxy never answered:\n{detail[-3000:]}"
            time.sleep(0.2)  # poll interval of /healthz through the proxy

    # Plain HTTP is redirected to HTTPS.
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener.open(f"http://127.0.0.1:{http}/r/ABCD", timeout=5)
    assert redirect.value.code == redirect_code
    assert redirect.value.headers["Location"].startswith("https://127.0.0.1")

    with pytest.raises(urllib.error.HTTPError) as hidden:
        urllib.request.urlopen(f"{base}/metrics", context=tls, timeout=5)
    assert hidden.value.code == 404

    # A room, then a game connection through the proxy, as a browser on this
    # page would open it: wss, with the page's Origin (same-origin check).
    req = urllib.request.Request(
        f"{base}/api/rooms",
        data=json.dumps({"name": "Ana"}).encode(),
        headers={"Content-Type": "application/json", "Origin": base, "Accept-Encoding": "gzip"},
        method="POST",
    )
    with urllib.request.urlopen(req, context=tls, timeout=5) as resp:
        assert resp.status == 201
        body = resp.read()
        if resp.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        room = json.loads(body)
    uri = f"wss://127.0.0.1:{https}/ws/{room['code']}"
    headers = {"Accept-Encoding": "gzip, deflate, br, zstd"}  # as browsers send it
    with connect(uri, ssl=tls, origin=base, additional_headers=headers, open_timeout=10) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        update = json.loads(ws.recv(timeout=10))
    assert update["type"] == "update"
    assert update["view"]["code"] == room["code"]
    assert update["view"]["you"] == room["player_id"]


def test_nginx_conf_in_front_of_the_server(
    dockerfile: Dockerfile,
    builder_replay: Replay,
    nginx_conf: str,
    repo: Path,
    tmp_path: Path,
) -> None:
    nginx = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if not nginx or not shutil.which("openssl"):
        pytest.skip("nginx or openssl is not installed (apt-get install nginx-light)")
    if not cli_exists(repo):
        pytest.skip("crisp/cli.py not written yet: nothing to proxy")
    https, http, app_port = free_port(), free_port(), free_port()
    main = _nginx_test_config(nginx_conf, tmp_path, https, http, app_port)
    syntax = subprocess.run(
        [nginx, "-t", "-c", str(main), "-p", str(tmp_path)], capture_output=True, text=True
    )
    assert syntax.returncode == 0, syntax.stderr
    app = _start_app(dockerfile, builder_replay, repo, tmp_path, app_port)
    proxy = subprocess.Popen(
        [nginx, "-c", str(main), "-p", str(tmp_path), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _exercise_proxy(proxy, https, http, tmp_path / "error.log", redirect_code=301)
    finally:
        _stop_proxy(proxy, signal.SIGQUIT)
        stop_server(app, timeout=30)


def test_caddyfile_on_the_host_in_front_of_the_server(
    dockerfile: Dockerfile,
    builder_replay: Replay,
    caddyfile: str,
    repo: Path,
    tmp_path: Path,
) -> None:
    """deploy/Caddyfile as docs/deploy.md says to use it with Caddy on the host:
    the reverse_proxy block replaced by `reverse_proxy 127.0.0.1:8000`."""
    caddy = shutil.which("caddy")
    if not caddy:
        pytest.skip("caddy is not installed (apt-get install caddy)")
    if not cli_exists(repo):
        pytest.skip("crisp/cli.py not written yet: nothing to proxy")
    https, http, app_port = free_port(), free_port(), free_port()
    text = re.sub(
        r"\treverse_proxy \{.*?\n\t\}\n",
        f"\treverse_proxy 127.0.0.1:{app_port}\n",
        caddyfile,
        flags=re.S,
    )
    assert f"reverse_proxy 127.0.0.1:{app_port}" in text
    # Local test settings only: own ports, a local CA, nothing outside tmp_path.
    global_options = (
        "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n"
        f"\thttp_port {http}\n\thttps_port {https}\n"
        f"\tstorage file_system {{\n\t\troot {tmp_path}/caddy-data\n\t}}\n}}\n\n"
    )
    config = tmp_path / "Caddyfile"
    config.write_text(global_options + text)
    env = {
        **os.environ,
        "CRISP_DOMAIN": "127.0.0.1",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    log = tmp_path / "caddy.log"
    app = _start_app(dockerfile, builder_replay, repo, tmp_path, app_port)
    with log.open("wb") as log_file:
        proxy = subprocess.Popen(
            [caddy, "run", "--config", str(config), "--adapter", "caddyfile"],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
            start_new_session=True,
        )
    try:
        _exercise_proxy(proxy, https, http, log, redirect_code=308)
    finally:
        _stop_proxy(proxy, signal.SIGTERM)
        stop_server(app, timeout=30)
