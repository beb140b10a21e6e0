"""The seam's imports (design.md "Many games behind one table"): the interface
imports nothing of crisp, a game imports only the interface and its own package
(never the server, the store, the table or another game; Crisp's adapter also
its engine and bots, until they move into it), and the table only the games'
interface and registry."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CRISP = ROOT / "crisp"
GAMES = CRISP / "games"


def crisp_imports(path: Path) -> set[str]:
    """The modules of crisp a module imports, relative imports resolved."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    if path.name == "__init__.py":
        package = path.relative_to(ROOT).parts[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            out.add(name)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {name for name in out if name == "crisp" or name.startswith("crisp.")}


def test_the_interface_and_the_registry_import_no_game_and_no_server() -> None:
    assert crisp_imports(GAMES / "api.py") == set()
    assert crisp_imports(GAMES / "registry.py") <= {"crisp.games.api"}


def test_a_game_imports_only_the_interface_and_its_own_package() -> None:
    wrong = []
    for package in sorted(p for p in GAMES.iterdir() if p.is_dir() and p.name != "__pycache__"):
        own = f"crisp.games.{package.name}"
        allowed = {"crisp.games.api", "crisp.games.registry", own}
        if package.name == "crisp":  # the adapter, over the engine and bots it will hold
            allowed |= {"crisp", "crisp.engine", "crisp.bots"}
        for path in sorted(package.rglob("*.py")):
            for name in crisp_imports(path):
                if not any(name == a or name.startswith(a + ".") for a in allowed):
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_the_table_imports_only_the_games_interface_and_registry() -> None:
    wrong = [f"{path.relative_to(ROOT)} imports {name}"
             for path in sorted((CRISP / "table").rglob("*.py"))
             for name in crisp_imports(path)
             if not (name.startswith("crisp.table") or name in {"crisp.games",
                                                                 "crisp.games.api",
                                                                 "crisp.games.registry"})]
    assert wrong == []
