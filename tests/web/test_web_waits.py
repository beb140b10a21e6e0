"""Every wait of the browser tests is for something the page announces, bounded and
named (issue 34; tests/README.md, "Writing a test that stays correct in parallel").
A static check over tests/web/*.py, so that a new sleep-style wait fails here:

- no `wait_for_timeout`, and no `time.sleep` / `asyncio.sleep` unless it paces a
  client or a poll of an outside process (a comment starting `# paces` on its
  line or the line above says which);
- no page script that waits on a timer (`setTimeout`, `setInterval`): a page
  script waits on the page's own events;
- no `evaluate` of a script that awaits (async, a promise): Playwright's evaluate
  has no bound, a promise that never settles hangs the test; `browser_kit.settle`
  runs it with one, and names what it waited for;
- `wait_for_function` only in browser_kit's `wait_js` and `wait_view`, which name
  what they waited for when it never comes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)
SLEEPS = re.compile(r"\b(wait_for_timeout|time\.sleep|asyncio\.sleep)\(")
TIMERS = re.compile(r"\b(setTimeout|setInterval)\s*\(")
AWAITS = re.compile(r"\basync\b|\bawait\b|Promise|\.then\(")
WAIT_FUNCTION_AT = {("browser_kit.py", "wait_js"), ("browser_kit.py", "wait_view")}


def _strings(tree: ast.AST) -> dict[str, str]:
    """The module's names bound to text (a constant, or constants joined with +)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            text = _text(node.value, out)
            if isinstance(target, ast.Name) and text is not None:
                out[target.id] = text
    return out


def _text(node: ast.AST, known: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, known), _text(node.right, known)
        return None if left is None and right is None else (left or "") + (right or "")
    return None


def _function_at(tree: ast.AST, line: int) -> str:
    best = ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end:
                best = node.name  # the innermost one is visited last
    return best


def problems(path: Path) -> list[str]:
    src = path.read_text(encoding="utf-8")
    lines = src.splitlines()
    tree = ast.parse(src)
    known = _strings(tree)
    found = []
    for i, line in enumerate(lines):
        if SLEEPS.search(line.split("#", 1)[0]):
            marked = [line, lines[i - 1] if i else ""]
            if not any(re.search(r"#\s*paces\b", m) for m in marked):
                found.append(f"{path.name}:{i + 1}: a sleep that waits for time: {line.strip()}")
    for node in ast.walk(tree):
        text = _text(node, known)
        if isinstance(node, ast.Constant) and text and TIMERS.search(text):
            found.append(f"{path.name}:{node.lineno}: a page script waits on a timer")
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        if name == "evaluate" and node.args:
            script = _text(node.args[0], known)
            if script is not None and AWAITS.search(script):
                found.append(f"{path.name}:{node.lineno}: evaluate awaits a promise with no "
                             "bound (browser_kit.settle)")
        if name == "wait_for_function":
            where = (path.name, _function_at(tree, node.lineno))
            if where not in WAIT_FUNCTION_AT:
                found.append(f"{path.name}:{node.lineno}: wait_for_function with no name for "
                             "what it waits for (browser_kit.wait_js)")
    return found


def test_no_browser_test_waits_for_a_guessed_time() -> None:
    found = [p for path in FILES for p in problems(path)]
    assert found == [], "\n".join(found)


def test_the_check_finds_each_kind_of_guessed_wait(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text(
        "import time\n"
        "LATER = '''async () => { await new Promise((r) => setTimeout(r, 500)); }'''\n"
        "def test(page):\n"
        "    page.wait_for_timeout(500)\n"
        "    time.sleep(1)\n"
        "    page.evaluate(LATER)\n"
        "    page.evaluate('async () => await window.crisp.language(\"ar\")')\n"
        "    page.wait_for_function('() => window.ready')\n"
        "    # paces the client's retries\n"
        "    time.sleep(0.2)\n",
        encoding="utf-8",
    )
    found = problems(bad)
    kinds = [p.split(": ", 1)[1].split(" (")[0].split(":")[0] for p in found]
    assert kinds == [
        "a sleep that waits for time",
        "a sleep that waits for time",
        "a page script waits on a timer",
        "evaluate awaits a promise with no bound",
        "evaluate awaits a promise with no bound",
        "wait_for_function with no name for what it waits for",
    ], found
