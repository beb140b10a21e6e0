"""The shape of crisp/store and crisp/bench (issue 22): imports in one direction (no
circle, type-only imports included, sub-packages' modules too), no module over 400
lines, no folder over 20 modules, the contract's `save` written once; and
`TimedStore` reports every call it passes on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from crisp.store import OPS, MemoryStore, StoreUnavailable, TimedStore

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("crisp/store", "crisp/bench")
MAX_LINES = 400
MAX_MODULES = 20


def _module_name(path: Path, package: str) -> str:
    """`path`'s module name inside `package`: "run", "soak.run"; a sub-package's
    `__init__.py` is the sub-package ("soak"), the package's own is "__init__"."""
    parts = path.relative_to(ROOT / package).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _modules(package: str) -> dict[str, Path]:
    """Every module of `package`, its sub-packages' included, by `_module_name`."""
    return {_module_name(p, package): p for p in sorted((ROOT / package).rglob("*.py"))}


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` that the module at `path` imports (at any level,
    under TYPE_CHECKING too), by `_module_name`: `from .procs import x` is the
    sub-package `procs` unless `procs.x` is a module of its own."""
    dotted = package.replace("/", ".")
    here = [dotted, *path.relative_to(ROOT / package).parent.parts]
    known = set(_modules(package))
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y / from . import x / from ..x import y
                base = ".".join(here[: len(here) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            names = [f"{mod}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if not name.startswith(dotted + "."):
                continue
            parts = name[len(dotted) + 1 :].split(".")
            for n in range(len(parts), 0, -1):  # the longest prefix that is a module
                if (leaf := ".".join(parts[:n])) in known:
                    found.add(leaf)
                    break
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_modules_import_in_one_direction(package: str) -> None:
    graph = {name: _imports(p, package) - {name} for name, p in _modules(package).items()}
    graph.pop("__init__", None)  # the package's face: it may name every module
    graph.pop("__main__", None)
    for deps in graph.values():
        deps.discard("__init__")
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            raise AssertionError(f"import circle in {package}: {' -> '.join([*path, node])}")
        if node in done:
            return
        for dep in sorted(graph.get(node, ())):
            visit(dep, [*path, node])
        done.add(node)

    for node in graph:
        visit(node, [])


@pytest.mark.parametrize("package", PACKAGES)
def test_no_folder_over_20_modules(package: str) -> None:
    """Issue 22: a folder of more than 20 modules is split into sub-packages by job."""
    folders = [ROOT / package, *(p.parent for p in (ROOT / package).rglob("*/__init__.py"))]
    big = {str(f.relative_to(ROOT)): n for f in folders
           if (n := len(list(f.glob("*.py")))) > MAX_MODULES}  # fmt: skip
    assert not big, f"over {MAX_MODULES} modules: {big}"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_over_400_lines(package: str) -> None:
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / package).rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}  # fmt: skip
    assert not long, f"over {MAX_LINES} lines: {long}"


def test_base_imports_no_backend() -> None:
    assert _imports(ROOT / "crisp/store/base.py", "crisp/store") == set()


def test_save_is_written_once_and_backends_implement_its_half() -> None:
    """`Store.save`'s signature stands in base.py only; each backend writes `_save`."""
    for path in (ROOT / "crisp/store").glob("*.py"):
        tree = ast.parse(path.read_text())
        saves = [n for n in ast.walk(tree)
                 if isinstance(n, ast.AsyncFunctionDef) and n.name == "save"]  # fmt: skip
        assert len(saves) == (1 if path.name == "base.py" else 0), path.name


async def test_timed_store_reports_each_call_with_its_room_and_failure() -> None:
    reports: list[tuple[str, str | None, float, str | None]] = []

    class Down(MemoryStore):
        async def load(self, code: str) -> None:
            raise StoreUnavailable("redis: connection refused")

    store = TimedStore(Down(), lambda *r: reports.append(r))
    assert await store.create("K7QX", "{}") is True
    assert await store.save("K7QX", 1, "{}", message="m", deadline_ms=5) == 2
    with pytest.raises(StoreUnavailable):
        await store.load("K7QX")
    assert await store.ping() is True
    assert [(op, code, error) for op, code, _, error in reports] == [
        ("create", "K7QX", None), ("save", "K7QX", None),
        ("load", "K7QX", "redis: connection refused"), ("ping", None, None)]  # fmt: skip
    assert all(seconds >= 0 for _, _, seconds, _ in reports)
    assert {"create", "save", "load", "ping"} <= set(OPS)
    await store.close()
