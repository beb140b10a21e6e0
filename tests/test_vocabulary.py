"""One Python vocabulary (issue 22): every wire name of `crisp/` is written once,
per game (issue 35).

The wire names are the values of the enums that define them: the engine's
`ActionType`, `EventKind`, `BotLevel`, `Status`, `Source`, `SlotLabel`
(crisp/engine/vocabulary.py) and `ErrorCode` (crisp/engine/errors.py), the
server's `MessageType` and `ServerErrorCode` (crisp/server/wire/vocabulary.py).
Every other module uses the members (they are `StrEnum`s: equal to their text,
serialised as it). This test reads every module of `crisp/` (its AST: docstrings
are prose, not code) and fails when a string constant equal to a wire name
stands anywhere but in the module that defines it: write `EventKind.ROUND_OVER`,
not "round_over". (`CloseCode` is an `IntEnum`: its numbers are not scanned.)

Per game (issue 35): a game package `crisp/games/<id>/` other than Crisp's has
its own `vocabulary.py` whose `StrEnum`s hold that game's words, and its modules
are held to those words only (two games may both say "ready": each writes it
once), a word where a field name stands being a field; so is the generic table
(crisp/table/vocabulary.py). The rest of `crisp/`
(the table, the server, the seam, Crisp's adapter) is held to the table's and
Crisp's words, as before.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from enum import StrEnum
from pathlib import Path

from crisp.engine import errors, vocabulary
from crisp.server.wire import vocabulary as server_vocabulary

ROOT = Path(__file__).resolve().parents[1]
CRISP = ROOT / "crisp"
GAMES = CRISP / "games"
CRISP_GAME = GAMES / "crisp"  # Crisp's adapter: Crisp's words are the table's (above)

DEFINED_IN: dict[str, tuple[type[StrEnum], ...]] = {
    "crisp/engine/vocabulary.py": (vocabulary.ActionType, vocabulary.EventKind,
                                   vocabulary.BotLevel, vocabulary.Status, vocabulary.Source,
                                   vocabulary.SlotLabel),
    "crisp/engine/errors.py": (errors.ErrorCode,),
    "crisp/server/wire/vocabulary.py": (server_vocabulary.MessageType,
                                        server_vocabulary.ServerErrorCode),
}

# Field names of the protocol that are also wire names: the view's `options`,
# `crisp` (the crisp window), `stock` and `discard` (a table's piles); a player's
# `connected`, `away` and `ready`; an event's `discarded` (the card a swap put on
# the pile) and `timeout` (a draw timer's move, R14.2); an HTTP error body's
# `error`. As a field name (a dict display's key, a subscript, the key of
# `.get`/`.pop`/`.setdefault`) such a word names a field, not the value: only
# there is it not counted.
FIELDS = frozenset({"options", "crisp", "stock", "discard", "connected", "away", "ready",
                    "discarded", "timeout", "error"})  # fmt: skip

# A word that is a wire name but means something else in one module, and why.
# Keep this short: prefer the enum member, or a name of its own, to an entry here.
OTHER_MEANING: dict[tuple[str, str], str] = {
    ("crisp", "crisp/cli.py"): "the program's name (`prog`)",
    ("crisp", "crisp/bench/procs/services.py"): "`python -m crisp serve`",
    ("crisp", "crisp/bench/lighthouse.py"): "`python -m crisp serve`",
    ("crisp", "crisp/bench/cli.py"): "the bench's target `crisp` (beside `floor`)",
    ("crisp", "crisp/bench/run.py"): "the bench's target `crisp` (beside the floors)",
    ("crisp", "crisp/bench/stalled.py"): "`python -m crisp bench`",
    ("error", "crisp/bench/stalled.py"): "a log level (CRISP_LOG_LEVEL of the server)",
    ("crisp", "crisp/bench/report.py"): "the bench's target `crisp` (a column's title)",
    ("crisp", "crisp/bench/matrix.py"): "the bench's target `crisp` (a report's key)",
    ("error", "crisp/server/ops/settings.py"): "a log level (CRISP_LOG_LEVEL)",
    ("error", "crisp/bench/run.py"): "a log level (CRISP_LOG_LEVEL of the servers)",
    ("error", "crisp/bench/floor.py"): "a log level (uvicorn's)",
    ("ready", "crisp/server/http/api.py"): "/readyz's body, {\"status\": \"ready\"}",
    ("start", "crisp/bench/traced.py"): "a gc callback's phase (Python's gc.callbacks)",
    ("game_started", "crisp/server/rooms/changes.py"): "a log event's name (docs/deploy.md, logs)",
    ("joined", "crisp/server/rooms/changes.py"): "a log line's verb (\"P2 joined\")",
    ("stock", "crisp/engine/rounds.py"): "DEAL_FIELDS: the state's fields a deal fills",
    ("discard", "crisp/engine/rounds.py"): "DEAL_FIELDS: the state's fields a deal fills",
    ("http_error", "crisp/server/wire/schema.py"): "the schema's name of the HTTP error "
                                                   "body, not the code",
    ("crisp", "crisp/games/registry.py"): "the default game's id (`DEFAULT`)",
    ("bad_message", "crisp/games/api.py"): "`BadMessage`'s protocol code: the seam "
                                           "imports no game's vocabulary",
}


# Modules written apart from Crisp on purpose, which import none of its words: the
# outside floor (issue 38: the same definition as the floor, no code shared).
APART = frozenset({CRISP / "bench" / "outside_floor.py"})


def game_packages() -> dict[Path, Path]:
    """Each package of its own vocabulary -> its vocabulary module: every game's but
    Crisp's, and the generic table's (crisp/table: the words every game's table says,
    which Crisp's engine still writes for its own rooms)."""
    packages = [pkg for pkg in sorted(GAMES.iterdir()) if pkg.is_dir() and pkg != CRISP_GAME]
    return {pkg: pkg / "vocabulary.py" for pkg in [*packages, CRISP / "table"]
            if (pkg / "vocabulary.py").is_file()}


def game_names(vocabulary: Path) -> dict[str, str]:
    """A game's words (every `StrEnum` value assigned in its vocabulary module, read
    from its AST) -> that module."""
    rel = vocabulary.relative_to(ROOT).as_posix()
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(vocabulary.read_text())):
        if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id == "StrEnum" for b in node.bases):
            for item in node.body:
                if (isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
                        and isinstance(item.value.value, str)):
                    out[item.value.value] = rel
    return out


def table_modules() -> list[Path]:
    """The modules held to the table's and Crisp's words: all but the other games'."""
    others = list(game_packages())
    return [p for p in sorted(CRISP.rglob("*.py"))
            if not any(p.is_relative_to(g) for g in others) and p not in APART]


def wire_names() -> dict[str, str]:
    """Each wire name -> the module that defines it."""
    out: dict[str, str] = {}
    for module, enums in DEFINED_IN.items():
        for enum in enums:
            for member in enum:
                assert out.setdefault(member.value, module) == module, member.value
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _field_positions(tree: ast.AST) -> set[int]:
    """The string constants standing where a field name stands."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            found.add(id(node.slice))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get", "pop", "setdefault") and node.args):
            found.add(id(node.args[0]))
    return found


def literals(path: Path, names: dict[str, str],
             field_names: frozenset[str] | None = FIELDS) -> list[tuple[str, int]]:
    """The wire names written as string constants in the module at `path`; one of
    `field_names` (None: any) where a field name stands is a field, not counted."""
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree)
    fields = _field_positions(tree)
    return [(node.value, node.lineno) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names and id(node) not in skip
            and not ((field_names is None or node.value in field_names)
                     and id(node) in fields)]  # fmt: skip


def scan(paths: list[Path], names: dict[str, str] | None = None,
         field_names: frozenset[str] | None = FIELDS) -> dict[str, dict[str, list[int]]]:
    """Wire name -> module -> lines, for every literal outside OTHER_MEANING."""
    names = wire_names() if names is None else names
    found: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        for value, line in literals(path, names, field_names):
            if (value, rel) not in OTHER_MEANING:
                found[value][rel].append(line)
    return found


def test_each_wire_name_is_written_in_the_module_that_defines_it_only() -> None:
    names = wire_names()
    found = scan(table_modules())
    elsewhere = {value: {m: lines for m, lines in modules.items() if m != names[value]}
                 for value, modules in found.items()}  # fmt: skip
    elsewhere = {value: modules for value, modules in elsewhere.items() if modules}
    assert not elsewhere, (
        "wire names written as literals outside their enum's module (use the member): "
        f"{dict(sorted((v, dict(m)) for v, m in elsewhere.items()))}")
    for value, module in names.items():  # and each one is written where it is defined
        assert module in found[value], (value, module)


def test_each_game_writes_its_words_in_its_vocabulary_only() -> None:
    for package, words in game_packages().items():
        names = game_names(words)
        # a game's view fields and event fields often share its words ("gave", "laid"):
        # where a field name stands, a word is a field
        found = scan(sorted(package.rglob("*.py")), names, field_names=None)
        elsewhere = {value: {m: lines for m, lines in modules.items() if m != names[value]}
                     for value, modules in found.items()}  # fmt: skip
        elsewhere = {value: modules for value, modules in elsewhere.items() if modules}
        assert not elsewhere, (
            f"{package.name}: its words written as literals outside its vocabulary: "
            f"{dict(sorted((v, dict(m)) for v, m in elsewhere.items()))}")


def test_the_exceptions_are_still_needed() -> None:
    """An entry of OTHER_MEANING whose word left its module goes too."""
    names = wire_names()
    for (value, module), why in OTHER_MEANING.items():
        assert why and value in names, value
        assert any(v == value for v, _ in literals(ROOT / module, names)), (value, module)


def test_a_new_literal_is_caught(tmp_path: Path) -> None:
    """What the sweep holds against: a module of its own writing an event kind."""
    module = tmp_path / "crisp" / "late.py"
    module.parent.mkdir()
    module.write_text('"""round_over, in a docstring, is prose."""\n\n'
                      'def over(e):\n    return e["kind"] == "round_over"\n')
    names = wire_names()
    assert literals(module, names) == [("round_over", 4)]
    assert literals(CRISP / "engine" / "vocabulary.py", names)  # the definitions themselves
