"""The web client's JavaScript read as text, for the static checks (no node, no
browser): its literals (`literals`: every string and number a module writes, with
the property it is the value of), and the frozen tables of web/js/protocol.js
(`protocol_table`).

The scanner knows what JavaScript needs to tell a literal from the rest: comments,
the three kinds of quotes, template literals with their `${...}` (a template
without one is a string; the strings inside one count on their own), regular
expressions (a `/` where a value may start) and numbers. It is not a parser, and
the modules are plain ES modules without a build step, so that is enough."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB_JS = ROOT / "web" / "js"
PROTOCOL_JS = WEB_JS / "protocol.js"

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}
# After one of these a `/` starts a regular expression; after anything else it divides.
_BEFORE_REGEX_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete",
                       "void", "throw", "instanceof", "yield", "await"}


@dataclass(frozen=True)
class Token:
    # "str" (a string, or a template without ${}), "template", "num", "ident", "regex", "punct"
    kind: str
    value: str | int | float | None
    line: int


@dataclass(frozen=True)
class Literal:
    """A string or number written in a module: `key` is the property it is the value
    of (`class` in `{class: 'lobby'}`), or None; `decl` the module-level declaration
    it stands in (`SECTIONS` in `const SECTIONS = [...]`), or None."""

    path: Path
    line: int
    value: str | int | float
    key: str | None
    decl: str | None

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


class _Scanner:
    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0
        self.line = 1
        self.tokens: list[Token] = []

    def error(self, what: str) -> ValueError:
        return ValueError(f"line {self.line}: {what}")

    def regex_may_start(self) -> bool:
        if not self.tokens:
            return True
        last = self.tokens[-1]
        if last.kind == "punct":
            return last.value not in (")", "]")
        if last.kind == "ident":
            return last.value in _BEFORE_REGEX_WORDS
        return False

    def scan(self, in_template: bool = False) -> None:
        """Tokens until the end, or (in a template's `${`) its closing brace."""
        src = self.src
        depth = 0
        while self.i < len(src):
            c = src[self.i]
            if c == "\n":
                self.line += 1
                self.i += 1
            elif c in " \t\r\ufeff":
                self.i += 1
            elif src.startswith("//", self.i):
                end = src.find("\n", self.i)
                self.i = len(src) if end < 0 else end
            elif src.startswith("/*", self.i):
                end = src.find("*/", self.i + 2)
                if end < 0:
                    raise self.error("an unclosed comment")
                self.line += src.count("\n", self.i, end)
                self.i = end + 2
            elif c in "'\"":
                self.string(c)
            elif c == "`":
                self.template()
            elif c == "/" and self.regex_may_start():
                self.regex()
            elif c.isdigit() or (c == "." and src[self.i + 1 : self.i + 2].isdigit()):
                m = _NUMBER.match(src, self.i)
                assert m
                text = m.group().replace("_", "")
                whole = re.fullmatch(r"0[xXoObB].*|\d+", text)
                value: int | float = int(text, 0) if whole else float(text)
                self.tokens.append(Token("num", value, self.line))
                self.i = m.end()
            elif m := _IDENT.match(src, self.i):
                self.tokens.append(Token("ident", m.group(), self.line))
                self.i = m.end()
            else:
                if c == "{":
                    depth += 1
                elif c == "}":
                    if in_template and depth == 0:
                        self.i += 1
                        return
                    depth -= 1
                self.tokens.append(Token("punct", c, self.line))
                self.i += 1
        if in_template:
            raise self.error("an unclosed ${ in a template")

    def string(self, quote: str) -> None:
        src = self.src
        line = self.line
        out = []
        self.i += 1
        while True:
            if self.i >= len(src) or src[self.i] == "\n":
                raise self.error("an unclosed string")
            c = src[self.i]
            if c == quote:
                self.i += 1
                break
            if c == "\\":
                out.append(self.escape())
            else:
                out.append(c)
                self.i += 1
        self.tokens.append(Token("str", "".join(out), line))

    def escape(self) -> str:
        src = self.src
        nxt = src[self.i + 1]
        self.i += 2
        if nxt == "\n":
            self.line += 1
            return ""
        if nxt == "u":
            if src[self.i] == "{":
                end = src.index("}", self.i)
                code = int(src[self.i + 1 : end], 16)
                self.i = end + 1
            else:
                code = int(src[self.i : self.i + 4], 16)
                self.i += 4
            return chr(code)
        if nxt == "x":
            code = int(src[self.i : self.i + 2], 16)
            self.i += 2
            return chr(code)
        return _ESCAPES.get(nxt, nxt)

    def template(self) -> None:
        src = self.src
        line = self.line
        chunks: list[str] = []
        substituted = False
        self.i += 1
        while True:
            if self.i >= len(src):
                raise self.error("an unclosed template")
            c = src[self.i]
            if c == "`":
                self.i += 1
                break
            if c == "\\":
                chunks.append(self.escape())
            elif src.startswith("${", self.i):
                substituted = True
                self.i += 2
                self.scan(in_template=True)
            else:
                if c == "\n":
                    self.line += 1
                chunks.append(c)
                self.i += 1
        if substituted:
            self.tokens.append(Token("template", None, line))
        else:
            self.tokens.append(Token("str", "".join(chunks), line))

    def regex(self) -> None:
        src = self.src
        start = self.i
        self.i += 1
        in_class = False
        while True:
            if self.i >= len(src) or src[self.i] == "\n":
                raise self.error("an unclosed regular expression")
            c = src[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                break
            self.i += 1
        self.i += 1
        while self.i < len(src) and src[self.i].isalpha():
            self.i += 1
        self.tokens.append(Token("regex", src[start : self.i], self.line))


def tokens(src: str) -> list[Token]:
    scanner = _Scanner(src)
    scanner.scan()
    return scanner.tokens


def literals(path: Path) -> list[Literal]:
    """Every string (a template without `${}` included) and number written in `path`."""
    toks = tokens(path.read_text(encoding="utf-8"))
    out = []
    depth = 0
    decl = None
    for n, tok in enumerate(toks):
        if tok.kind == "punct":
            if tok.value in "([{":
                depth += 1
            elif tok.value in ")]}":
                depth -= 1
            elif tok.value == ";" and depth == 0:
                decl = None
        elif tok.kind == "ident" and depth == 0:
            if tok.value in ("const", "let", "var") and n + 1 < len(toks):
                decl = str(toks[n + 1].value)
            elif tok.value in ("function", "class", "import", "export"):
                decl = None
        if tok.kind not in ("str", "num"):
            continue
        assert tok.value is not None
        key = None
        # `{key: value` or `, key: value`: the value of a property
        if n >= 3 and toks[n - 1].value == ":" and toks[n - 1].kind == "punct" \
                and toks[n - 2].kind in ("ident", "str") and toks[n - 3].value in ("{", ","):
            key = str(toks[n - 2].value)
        out.append(Literal(path, tok.line, tok.value, key, decl))
    return out


def js_files() -> list[Path]:
    return sorted(WEB_JS.rglob("*.js"))


def vocabulary_files() -> list[Path]:
    """The modules that write wire names: web/js/protocol.js (the table's, the
    shell's) and each game's games/<id>/protocol.js (issue 35)."""
    return [PROTOCOL_JS, *sorted((WEB_JS / "games").glob("*/protocol.js"))]


def protocol_table(name: str) -> dict[str, str | int]:
    """The frozen object `name` of web/js/protocol.js and of the games' protocol.js
    (a game's table spreads the shell's and adds its own), as {NAME: value}."""
    table: dict[str, str | int] = {}
    for path in vocabulary_files():
        src = path.read_text(encoding="utf-8")
        table_re = rf"^export const {name} = Object\.freeze\(\{{(.*?)^\}}\);"
        body = re.search(table_re, src, re.S | re.M)
        if not body:
            continue
        for key, text, number in re.findall(r"^\s*(\w+): (?:'(\w+)'|(\d+)),", body.group(1), re.M):
            value = text or int(number)
            assert table.get(key, value) == value, (name, key)
            table[key] = value
    assert table, f"no protocol.js has a table {name}"
    return table


def protocol_tables() -> list[str]:
    """The names of the vocabulary modules' frozen tables, in order, once each."""
    names: list[str] = []
    for path in vocabulary_files():
        src = path.read_text(encoding="utf-8")
        found = re.findall(r"^export const (\w+) = Object\.freeze\(\{", src, re.M)
        names += [n for n in found if n not in names]
    return names
