"""The shipped nginx example (deploy/nginx.conf) in front of a run's server
processes, on loopback: `crisp bench --proxy nginx`.

The file is used as shipped except for what a loopback run must change, the
same changes tests/ops/test_proxy.py makes: a self-signed certificate instead
of Let's Encrypt's paths, loopback ports, no IPv6 listener, one `server` line
per process in the `upstream` block; and, because every client of a benchmark
comes from 127.0.0.1, the per-address connection cap (`limit_conn`, 64) is
raised to the run's socket count, and nginx gets descriptors for all of them
(`worker_connections`). It needs the source tree (deploy/ is not installed)."""

from __future__ import annotations

import re
import shutil
import ssl
import subprocess
from pathlib import Path

from .child import Proc
from .ports import HOST, free_port
from .services import http_ok

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"


def nginx_binary() -> str:
    path = shutil.which("nginx", path="/usr/sbin:/sbin:/usr/bin:/usr/local/sbin")
    if not path:
        raise RuntimeError("nginx not found (apt-get install nginx-light)")
    return path


def bench_config(conf: str, work: Path, https: int, http: int, upstreams: list[int],
                 connections: int) -> Path:  # fmt: skip
    """The main nginx.conf for a loopback run of deploy/nginx.conf's text `conf`
    (written under `work`); returns its path."""
    cert, key = work / "cert.pem", work / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=cards.example.com", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)  # fmt: skip
    conf = conf.replace("/etc/letsencrypt/live/cards.example.com/fullchain.pem", str(cert))
    conf = conf.replace("/etc/letsencrypt/live/cards.example.com/privkey.pem", str(key))
    servers = "".join(f"    server {HOST}:{port} max_fails=3 fail_timeout=10s;\n"
                      for port in upstreams)  # fmt: skip
    conf, n = re.subn(r"    server 127\.0\.0\.1:8000 [^\n]*\n", servers, conf)
    if n != 1:
        raise RuntimeError("deploy/nginx.conf: no `server 127.0.0.1:8000 ...` upstream line")
    conf = re.sub(r"limit_conn crisp_addr \d+;", f"limit_conn crisp_addr {connections};", conf)
    (work / "crisp.conf").write_text(on_loopback(conf, https, http))
    names = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp_dirs = "".join(f"    {name}_temp_path {work}/{name};\n" for name in names)
    main = work / "nginx.conf"
    main.write_text(
        f"worker_processes 1;\nworker_rlimit_nofile {4 * connections + 1024};\n"
        f"pid {work}/nginx.pid;\nerror_log {work}/error.log warn;\n"
        f"events {{\n    worker_connections {2 * connections + 512};\n}}\n"
        f"http {{\n    access_log off;\n{temp_dirs}    include {work}/crisp.conf;\n}}\n")
    return main


class Nginx(Proc):
    """nginx with the shipped configuration, on https://127.0.0.1:`port`."""

    def __init__(self, port: int, cmd: list[str], work: Path) -> None:
        super().__init__("nginx", cmd, {}, cwd=work)
        self.port = port
        self.base = f"https://{HOST}:{port}"


def start_nginx(upstreams: list[int], work: Path, connections: int) -> Nginx:
    """nginx in front of the processes on `upstreams` (ports), ready once it answers
    /healthz through TLS."""
    binary = nginx_binary()
    https, http = free_port(), free_port()
    conf = (DEPLOY / "nginx.conf").read_text()
    main = bench_config(conf, work, https, http, upstreams, connections)
    check = subprocess.run([binary, "-t", "-c", str(main), "-p", str(work)],
                           capture_output=True, text=True)  # fmt: skip
    if check.returncode != 0:
        raise RuntimeError(f"nginx -t: {check.stderr}")
    proxy = Nginx(https, [binary, "-c", str(main), "-p", str(work), "-g", "daemon off;"], work)
    proxy.wait_until(lambda: http_ok(proxy.base + "/healthz", verify=False), 15,
                     "answering through TLS")  # fmt: skip
    return proxy


def on_loopback(conf: str, https: int, http: int) -> str:
    """deploy/nginx.conf's `listen` lines on loopback IPv4 at these ports (its IPv6
    lines dropped), as the tests and the bench run it."""
    lines = []
    for line in conf.splitlines():
        if re.match(r"\s*listen \[::\]:", line):
            continue  # loopback IPv4 only
        line = re.sub(r"listen 443 ", f"listen {HOST}:{https} ", line)
        line = re.sub(r"listen 80;", f"listen {HOST}:{http};", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def insecure_tls() -> ssl.SSLContext:
    """A client TLS context that accepts the run's self-signed certificate."""
    tls = ssl.create_default_context()
    tls.check_hostname = False
    tls.verify_mode = ssl.CERT_NONE
    return tls
