"""Lighthouse on the web client with *applied* mobile throttling (a benchmark, not a test).

    python -m crisp.bench.lighthouse              # starts `crisp serve` on a free port
    python -m crisp.bench.lighthouse --url http://127.0.0.1:8000 --runs 3

Runs `npx lighthouse` (installed from npm on first use; set LIGHTHOUSE to another
command) with Debian's Chromium (CHROME_PATH, default /usr/bin/chromium), the
mobile form factor and `--throttling-method=devtools`: the 150 ms round trip
(562.5 ms per request as Lighthouse applies it), 1.6 Mbps and the 4x slower CPU
are applied to the page for real, not simulated. Measures the home page and
`/r/CODE` of a room created over HTTP (first load, empty cache), prints one line
per page and run, and the median of each figure. Exits 0 whatever the figures;
exits 2 when Lighthouse or Chromium is missing. The figures are in
docs/web-client.md ("Performance").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LIGHTHOUSE = shlex.split(os.environ.get("LIGHTHOUSE", "npx -y lighthouse@12.8.2"))
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --no-first-run --disable-quic"
AUDITS = {
    "FCP": ("first-contentful-paint", "s"),
    "LCP": ("largest-contentful-paint", "s"),
    "SI": ("speed-index", "s"),
    "TBT": ("total-blocking-time", "ms"),
    "CLS": ("cumulative-layout-shift", ""),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def crisp_serve() -> Iterator[str]:
    """`python -m crisp serve` on a free port (in-memory store), until the block ends."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRISP_")}
    env["CRISP_LOG_LEVEL"] = "warning"
    cmd = [sys.executable, "-m", "crisp", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(base + "/healthz", timeout=1).close()
                break
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def create_room(base: str) -> str:
    req = urllib.request.Request(
        base + "/api/rooms",
        data=json.dumps({"name": "Bench"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=5) as res:
        return str(json.load(res)["code"])


def lighthouse(url: str) -> dict[str, Any]:
    """One Lighthouse run on `url`; its JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            *LIGHTHOUSE,
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            "--form-factor=mobile",
            "--throttling-method=devtools",
            "--only-categories=performance,accessibility,best-practices,seo",
            f"--chrome-flags={CHROME_FLAGS}",
        ]
        env = {**os.environ, "CHROME_PATH": CHROME}
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        return dict(json.loads(out.read_text()))


def figures(report: dict[str, Any]) -> dict[str, float]:
    audits = report["audits"]
    out: dict[str, float] = {name: 100.0 * (cat["score"] or 0)
                             for name, cat in report["categories"].items()}
    for short, (audit, unit) in AUDITS.items():
        value = float(audits[audit].get("numericValue", "nan"))  # nan: the audit failed
        out[short] = value / 1000 if unit == "s" else value
    out["KiB"] = audits["total-byte-weight"]["numericValue"] / 1024
    out["requests"] = len(audits["network-requests"]["details"]["items"])
    out["cpu"] = report["environment"]["benchmarkIndex"]
    return out


def line(label: str, f: dict[str, float]) -> str:
    return (
        f"{label:<10} perf {f['performance']:5.0f}  FCP {f['FCP']:.2f} s  LCP {f['LCP']:.2f} s"
        f"  SI {f['SI']:.2f} s  TBT {f['TBT']:.0f} ms  CLS {f['CLS']:.3f}"
        f"  a11y {f['accessibility']:.0f}  bp {f['best-practices']:.0f}  seo {f['seo']:.0f}"
        f"  {f['KiB']:.0f} KiB in {f['requests']:.0f} requests  (CPU index {f['cpu']:.0f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start `crisp serve`)")
    parser.add_argument("--runs", type=int, default=3, help="runs per page (median printed)")
    args = parser.parse_args()
    if not Path(CHROME).exists() or not shutil.which(LIGHTHOUSE[0]):
        print(f"needs {LIGHTHOUSE[0]} and Chromium at {CHROME}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        base = args.url.rstrip("/") if args.url else stack.enter_context(crisp_serve())
        pages = {"/": "/", "/r/CODE": f"/r/{create_room(base)}"}
        for label, path in pages.items():
            runs = [figures(lighthouse(base + path)) for _ in range(args.runs)]
            for f in runs:
                print(line(label, f), flush=True)
            median = {k: statistics.median(f[k] for f in runs) for k in runs[0]}
            print(line(f"{label} med", median), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
