"""The web client's pure parts under Node's test runner (no browser): applyUpdate
and expire (web/js/update.js), the close-code outcomes (net/socket.js), the seat order and
seat tags (render/parts.js), and the translations as they read (i18n.test.mjs:
every counted string for the counts 0-12 in every language, plural categories,
no Latin word in Arabic, fallback order, bidi isolation). The tests themselves
are in tests/web/js/*.test.mjs.

Without `node` this skips, except when `CI` is set, where it fails."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NODE = os.environ.get("CRISP_NODE") or shutil.which("node")


def test_web_units_pass_under_node() -> None:
    if NODE is None:
        if os.environ.get("CI"):
            pytest.fail("node not found (CI is set: the web unit tests must run)")
        pytest.skip("node not found")
    files = sorted(str(p) for p in (HERE / "js").glob("*.test.mjs"))
    assert files
    run = subprocess.run(
        [NODE, "--test", "--test-reporter=tap", *files],
        cwd=HERE.parents[1],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.M)
    assert passed and int(passed.group(1)) > 0 and "\n# fail 0\n" in run.stdout, run.stdout[-3000:]
