"""The server's structure holds (issue 22; docs/architecture.md, "the map"): each
folder imports only the folders below it, no module imports its own package's
parent's siblings upward, no import circle, and no folder or file outgrows a
sitting (20 modules, 400 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "crisp" / "server"
# what each folder of the server may import of the server (docs/architecture.md)
MAY_IMPORT: dict[str, set[str]] = {
    "wire": set(),
    "ops": {"wire"},
    "edge": {"ops", "wire"},
    "rooms": {"edge", "ops", "wire"},
    "sockets": {"rooms", "edge", "ops", "wire", "context"},
    "http": {"sockets", "rooms", "edge", "ops", "wire", "context"},
}
# and what each may import of the rest of crisp (`games`: the game interface and the
# registry, issue 35; `table`: the generic table a room of any game but Crisp holds;
# a game and the table import nothing of the server)
MAY_IMPORT_CRISP: dict[str, set[str]] = {
    "wire": {"engine", "store", "games", "table"},
    "ops": {"engine", "store", "games"},
    "edge": {"engine", "store", "games"},
    "rooms": {"engine", "store", "bots", "games", "table"},
    "sockets": {"engine", "store", "bots", "games", "table"},
    "http": {"engine", "store", "bots", "games", "table"},
}


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_each_folder_imports_only_the_folders_below_it() -> None:
    wrong = []
    for folder, allowed in MAY_IMPORT.items():
        for path in sorted((SERVER / folder).glob("*.py")):
            for name in _imports(path):
                parts = name.split(".")
                if parts[:2] == ["crisp", "server"] and len(parts) > 2:
                    target = parts[2]
                    if target != folder and target in {*MAY_IMPORT, "context", "app", "main"} \
                            and target not in allowed:
                        wrong.append(f"{path.relative_to(ROOT)} imports {name}")
                elif parts[0] == "crisp" and len(parts) > 1 and parts[1] != "server" \
                        and parts[1] not in MAY_IMPORT_CRISP[folder]:
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_engine_and_store_import_nothing_else_of_crisp() -> None:
    for package, allowed in (("engine", {"engine"}), ("store", {"store"})):
        for path in (ROOT / "crisp" / package).glob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "crisp" and len(parts) > 1:
                    assert parts[1] in allowed, f"{path.relative_to(ROOT)} imports {name}"


def test_no_server_folder_or_file_outgrows_a_sitting() -> None:
    for folder in [SERVER, *(p for p in SERVER.iterdir() if p.is_dir() and p.name in MAY_IMPORT)]:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= 20, folder
        for path in modules:
            lines = len(path.read_text().splitlines())
            assert lines <= 400, f"{path.relative_to(ROOT)}: {lines} lines"


def test_each_server_folder_says_what_it_holds_and_may_import() -> None:
    for folder in MAY_IMPORT:
        doc = ast.get_docstring(ast.parse((SERVER / folder / "__init__.py").read_text()))
        assert doc and "May import" in doc, folder
