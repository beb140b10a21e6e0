"""The web client's wire vocabulary (issue 22), without a browser:

- web/js/protocol.js is the one module of web/js that writes a wire name: no other
  module has a string (or a close code) that is a message type, action type, event
  kind, status, source, slot, computer level, error code or close code of the
  server's vocabulary, nor one of the client's own codes; they import protocol.js's
  frozen tables instead;
- per game (issue 35, as tests/test_vocabulary.py on the Python side): the shell
  and Crisp's module (web/js/games/crisp) are held to Crisp's wire names above
  (web/js/protocol.js, games/crisp/protocol.js); any other game's module
  web/js/games/<id>/ is held to its own words only, each written once in its
  games/<id>/protocol.js (its statuses, actions, event kinds, pile names...), a
  word where a field name stands (an object's key, a subscript) being a field;
- those tables are the server's: each has the names and values of the Python enum
  of the same name (crisp/engine/vocabulary.py, crisp/engine/errors.py,
  crisp/server/wire/vocabulary.py), the client knows every event kind, status and
  error code the server may send and every close code docs/protocol-additions.md
  documents;
- the schema at `GET /api/protocol.json` (the app built in-process) lists the same
  event kinds, message types, statuses, sources, slots, levels and error codes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import httpx
import pytest

from crisp.engine.errors import ErrorCode as EngineErrorCode
from crisp.engine.vocabulary import ActionType, BotLevel, EventKind, SlotLabel, Source, Status
from crisp.server.app import create_app
from crisp.server.wire.vocabulary import CloseCode, MessageType, ServerErrorCode
from tests.web.js_source import (
    PROTOCOL_JS,
    ROOT,
    WEB_JS,
    Literal,
    js_files,
    literals,
    protocol_table,
    protocol_tables,
    tokens,
    vocabulary_files,
)

# protocol.js's tables that are the server's enums, name for name.
SAME_AS_SERVER: dict[str, type[Enum]] = {
    "MessageType": MessageType,
    "ActionType": ActionType,
    "EventKind": EventKind,
    "Status": Status,
    "Source": Source,
    "Slot": SlotLabel,
    "BotLevel": BotLevel,
}
# The client's own codes: never on the wire, and not the wire's values either.
CLIENT_ONLY = ("ClientError", "ClientEvent")

# Strings that are the page's own names even where they spell a wire name: a CSS
# class (`{class: 'lobby'}`), a test id, the argument of scrollIntoView.
PAGE_NAME_KEYS = {"class", "data-testid", "block"}
# Keys whose string values are the page's names in a game's module: a pile's CSS
# class and test id.
GAME_PAGE_NAME_KEYS = {"extraClass", "testid"}
# Module-level declarations whose strings are not wire names, and why.
NOT_WIRE_DECLS = {
    ("games/crapette/moves.js", "TABLE_PILE"): "the table's own pile names, from the viewer's "
                                               "side (`me:crapette`, `op:waste`)",
    ("events.js", "PUBLIC_FIELDS"): "an event's field names (`options`)",
    ("games/crisp/events.js", "PUBLIC_FIELDS"): "an event's field names (`discarded`, `timeout`)",
    ("games/crisp/actions.js", "BUTTON_FOR_KEY"): "test ids of the buttons keys click (`stock`)",
    ("games/crisp/help.js", "SECTIONS"): "the sections of How to play (i18n keys `help.<id>.*`)",
    ("games/crapette/help.js", "SECTIONS"): "the sections of How to play (i18n keys)",
    ("games/cribbage/help.js", "SECTIONS"): "the sections of How to play (i18n keys)",
}


def server_error_codes() -> dict[str, str]:
    """Every error code the server may send, by its enum name (the engine's and the server's)."""
    codes = {m.name: str(m.value) for m in EngineErrorCode}
    for m in ServerErrorCode:
        assert m.name not in codes, m.name
        codes[m.name] = str(m.value)
    return codes


def wire_names() -> dict[str | int, str]:
    """Every wire name, value -> the table that names it; close codes as numbers
    (but 1000, which is also a second in milliseconds: `/ 1000`)."""
    names: dict[str | int, str] = {}
    for enum in (*SAME_AS_SERVER.values(), EngineErrorCode, ServerErrorCode):
        for member in enum:
            names.setdefault(str(member.value), enum.__name__)
    for code in CloseCode:
        if code != CloseCode.NORMAL:
            names[int(code)] = "CloseCode"
    for table in CLIENT_ONLY:
        for value in protocol_table(table).values():
            names[value] = table
    return names


def is_page_name(lit: Literal, game: bool = False) -> bool:
    module = lit.path.relative_to(WEB_JS).as_posix() if lit.path.is_relative_to(WEB_JS) else ""
    keys = PAGE_NAME_KEYS | GAME_PAGE_NAME_KEYS if game else PAGE_NAME_KEYS
    return lit.key in keys or (module, lit.decl) in NOT_WIRE_DECLS


GAMES_JS = WEB_JS / "games"
CRISP_JS = GAMES_JS / "crisp"  # Crisp's module: Crisp's words are the shell's (above)


def game_modules() -> dict[Path, Path]:
    """Each game's module folder but Crisp's -> its protocol.js (its words)."""
    return {d: d / "protocol.js" for d in sorted(GAMES_JS.iterdir())
            if d.is_dir() and d != CRISP_JS}


def game_wire_names(protocol: Path) -> dict[str | int, str]:
    """A game's words: every string its protocol.js writes -> that module."""
    rel = protocol.relative_to(ROOT).as_posix()
    return {lit.value: rel for lit in literals(protocol) if isinstance(lit.value, str)}


def field_positions(path: Path) -> set[tuple[int, str]]:
    """(line, string) of the strings standing where a field name stands: an object's
    key (`{'left': 1}`), a subscript (`p['left']`)."""
    toks = tokens(path.read_text(encoding="utf-8"))
    found = set()
    for n, tok in enumerate(toks):
        if tok.kind != "str" or not isinstance(tok.value, str):
            continue
        before = toks[n - 1] if n else None
        after = toks[n + 1] if n + 1 < len(toks) else None
        key = (after is not None and after.kind == "punct" and after.value == ":"
               and before is not None and before.value in ("{", ","))
        subscript = (before is not None and before.value == "[" and n >= 2
                     and (toks[n - 2].kind == "ident" or toks[n - 2].value in (")", "]"))
                     and after is not None and after.value == "]")
        if key or subscript:
            found.add((tok.line, tok.value))
    return found


def written_names(path: Path, names: dict[str | int, str], game: bool = False,
                  excused: set[tuple[str, str | None]] | None = None) -> list[str]:
    """The wire names of `names` written in the module at `path` (a game's module:
    but where a field name stands)."""
    fields = field_positions(path) if game else set()
    out = []
    for lit in literals(path):
        if lit.value not in names or (lit.line, lit.value) in fields:
            continue
        if is_page_name(lit, game):
            if excused is not None:
                excused.add((lit.path.relative_to(WEB_JS).as_posix(), lit.decl))
        else:
            where = lit.where() if path.is_relative_to(ROOT) else f"{path.name}:{lit.line}"
            out.append(f"{where}: {lit.value!r} ({names[lit.value]})")
    return out


def test_protocol_js_is_the_only_module_that_writes_a_wire_name() -> None:
    names = wire_names()
    assert len(names) > 100
    files = js_files()
    assert PROTOCOL_JS in files and len(files) > 30
    written: list[str] = []
    excused: set[tuple[str, str | None]] = set()
    vocabulary = vocabulary_files()
    games = game_modules()
    for path in files:
        if path in vocabulary or any(path.is_relative_to(g) for g in games):
            continue
        written += written_names(path, names, excused=excused)
    assert written == [], "import these from web/js/protocol.js:\n" + "\n".join(written)
    for folder, protocol in games.items():
        assert protocol in vocabulary, f"{folder.name}: no games/{folder.name}/protocol.js"
        own = game_wire_names(protocol)
        assert own, protocol
        written = [w for path in sorted(folder.rglob("*.js")) if path != protocol
                   for w in written_names(path, own, game=True, excused=excused)]
        assert written == [], (f"import these from web/js/games/{folder.name}/protocol.js:\n"
                               + "\n".join(written))
    # every declaration excused still holds such a name (the list has no stale line)
    assert set(NOT_WIRE_DECLS) <= excused, set(NOT_WIRE_DECLS) - excused
    # and the vocabulary modules write every name the client knows of
    own = {lit.value for path in vocabulary for lit in literals(path)}
    known = {v for table in protocol_tables() for v in protocol_table(table).values()}
    assert known <= own and len(known) > 90


def test_a_game_module_writing_its_own_word_is_caught(tmp_path: Path) -> None:
    """What the per-game sweep holds against: a Crapette module writing an event kind
    inline; the same word as a field name is a field."""
    own = game_wire_names(GAMES_JS / "crapette" / "protocol.js")
    assert "crapette_top" in own and "lobby" in own
    late = tmp_path / "late.js"
    late.write_text("export const top = (ev) => ev.kind === 'crapette_top';\n"
                    "export const f = (ev) => ({ 'crapette_top': ev['crapette_top'] });\n",
                    encoding="utf-8")
    found = written_names(late, own, game=True)
    assert len(found) == 1 and "late.js:1: 'crapette_top'" in found[0], found


def test_the_scanner_tells_a_literal_from_the_rest() -> None:
    """What the check above relies on: comments, templates, regular expressions."""
    src = r'''
      // a comment's 'quote'
      /* 'another' */ const A = { class: 'x', n: 4403 / 2, re: /['"]/g, s: "it's" };
      const B = `plain`; const C = `a ${ok ? 'yes' : `no ${'deep'}`} b`;
    '''
    strings = [(t.value, t.line) for t in tokens(src) if t.kind == "str"]
    assert strings == [("x", 3), ("it's", 3), ("plain", 4), ("yes", 4), ("deep", 4)]
    assert [t.value for t in tokens(src) if t.kind == "regex"] == ["/['\"]/g"]
    assert [t.value for t in tokens(src) if t.kind == "num"] == [4403, 2]
    found = literals(WEB_JS / "render" / "lobby.js")
    assert any(lit.value == "lobby" and lit.key == "class" for lit in found)


@pytest.mark.parametrize("table", sorted(SAME_AS_SERVER))
def test_each_table_has_the_names_and_values_of_the_servers_enum(table: str) -> None:
    js = protocol_table(table)
    server = {m.name: str(m.value) for m in SAME_AS_SERVER[table]}
    assert js == server


def test_error_codes_are_every_code_the_server_sends() -> None:
    """Each with its server name; and a message in every language (test_web_static.py)."""
    assert protocol_table("ErrorCode") == server_error_codes()


def test_close_codes_have_the_servers_names_and_are_the_documented_ones() -> None:
    js = protocol_table("CloseCode")
    assert {name: CloseCode[name].value for name in js} == js, "a name the server does not give it"
    assert set(js.values()) == documented_closes() | {CloseCode.NORMAL.value}
    assert len(set(js.values())) == len(js), "one name per close code"


def test_the_clients_own_codes_are_not_wire_codes() -> None:
    enums = (*SAME_AS_SERVER.values(), EngineErrorCode, ServerErrorCode)
    wire = {str(m.value) for enum in enums for m in enum}
    for table in CLIENT_ONLY:
        assert not set(protocol_table(table).values()) & wire, table


def test_every_documented_error_code_is_known() -> None:
    js = set(protocol_table("ErrorCode").values())
    documented = documented_errors()
    assert len(documented) > 10
    assert sorted(documented - js) == []


# ---- GET /api/protocol.json, from the app built in-process


@pytest.fixture(scope="module")
def schema() -> Iterator[dict[str, Any]]:
    async def fetch() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://crisp.test") as c:
            r = await c.get("/api/protocol.json")
            assert r.status_code == 200
            return dict(r.json())

    yield asyncio.run(fetch())


def schema_values(node: Any, prop: str) -> set[str]:
    """Every value a property named `prop` may take anywhere in `node` (const or enum)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, sub in node.items():
            if key == "properties" and isinstance(sub, dict) and prop in sub:
                spec = sub[prop]
                found |= {spec["const"]} if "const" in spec else set(spec.get("enum", []))
            found |= schema_values(sub, prop)
    elif isinstance(node, list):
        for sub in node:
            found |= schema_values(sub, prop)
    return found


def schema_enums(node: Any) -> list[set[Any]]:
    """Every `enum` of the schema, as a set."""
    text = json.dumps(node)
    return [set(json.loads(f"[{body}]")) for body in re.findall(r'"enum": \[([^\]]*)\]', text)]


def test_protocol_json_lists_the_event_kinds_and_message_types_of_protocol_js(
    schema: dict[str, Any],
) -> None:
    kinds = schema_values(schema["server"], "kind")
    assert kinds == set(protocol_table("EventKind").values())
    types = schema_values(schema["client"], "type") | schema_values(schema["server"], "type")
    js_types = {*protocol_table("MessageType").values(), *protocol_table("ActionType").values()}
    assert types == js_types


def test_protocol_json_error_codes_are_known_to_the_client(schema: dict[str, Any]) -> None:
    codes = schema_values(schema["server"], "code")
    assert len(codes) > 10
    assert sorted(codes - set(protocol_table("ErrorCode").values())) == []


@pytest.mark.parametrize("table", ["Status", "Source", "Slot", "BotLevel"])
def test_protocol_json_enums_are_protocol_js_tables(schema: dict[str, Any], table: str) -> None:
    values = set(protocol_table(table).values())
    assert values in schema_enums(schema), f"no enum of /api/protocol.json is {table}"


# ---- docs/protocol-additions.md


def protocol_additions() -> str:
    return (ROOT / "docs" / "protocol-additions.md").read_text(encoding="utf-8")


def documented_closes() -> set[int]:
    """The close codes of docs/protocol-additions.md's table."""
    closes = {int(c) for c in re.findall(r"^\| (\d{4}) \|", protocol_additions(), re.M)}
    assert len(closes) > 5
    return closes


# protocol.md's error codes (v1, and v1.1's outcome_unknown)
PROTOCOL_MD_ERRORS = {
    "bad_message", "too_large", "rate_limited", "not_host", "not_your_turn", "too_early",
    "wrong_phase", "illegal", "unknown_player", "room_full", "game_started", "outcome_unknown",
}


def documented_errors() -> set[str]:
    """The error codes protocol.md and docs/protocol-additions.md name."""
    doc = protocol_additions()
    socket_errors = doc.split("## WebSocket error codes")[1].split("\n## ")[0]
    errors = set(re.findall(r"^- `([a-z_]+)`", socket_errors, re.M))
    for cell in re.findall(r"^\| \d{3} \| ([^|]+) \|", doc, re.M):
        errors |= set(re.findall(r"`([a-z_]+)`", cell))
    return errors | PROTOCOL_MD_ERRORS
