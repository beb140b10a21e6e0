"""The policy reads the engine's public view only (R17.1): its modules import nothing
of the engine but the package's public names, and nothing of the server or store."""

from __future__ import annotations

import ast
from pathlib import Path

import crisp.engine

BOTS = Path(__file__).resolve().parents[2] / "crisp" / "bots"
REFEREE = {"selfplay.py"}  # the bot-only table of `crisp simulate`: it holds the state


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    tree = ast.parse(path.read_text())
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
    return out


def test_r17_1_policy_modules_use_only_the_engines_public_names() -> None:
    modules = sorted(p for p in BOTS.glob("*.py") if p.name not in REFEREE)
    assert {p.name for p in modules} >= {"memory.py", "policy.py", "normal.py", "easy.py"}
    public = set(crisp.engine.__all__)
    for path in modules:
        for module, names in _imports(path):
            assert not module.startswith(("crisp.server", "crisp.store")), (path.name, module)
            if module.startswith("crisp.engine"):
                assert module == "crisp.engine", (path.name, module)
                assert set(names) <= public, (path.name, names)
            if module.startswith("crisp.") and not module.startswith("crisp.engine"):
                raise AssertionError(f"{path.name} imports {module}")
