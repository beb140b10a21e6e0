"""A small Dockerfile and .dockerignore reader for the ops tests.

No Docker engine is available where the tests run, so the tests read the files
themselves. This covers the subset of the Dockerfile syntax the project uses:
parser directives, comments, backslash continuations, ARG/ENV substitution
(`$VAR`, `${VAR}`, `${VAR:-default}`), instruction flags (`--from=...`,
`--mount=...`), JSON (exec) and shell forms. Heredocs are rejected.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

_VAR = re.compile(r"\$(?:\{(\w+)(?::-([^}]*))?\}|(\w+))")


def substitute(text: str, env: dict[str, str]) -> str:
    """Expand `$VAR`, `${VAR}` and `${VAR:-default}` the way the builder does."""

    def repl(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        default = match.group(2)
        value = env.get(name, "")
        if default is not None and not value:
            return default
        return value

    return _VAR.sub(repl, text)


@dataclass
class Instruction:
    """One instruction: `cmd` upper-cased, leading `--flags` split off `args`."""

    cmd: str
    args: str
    flags: dict[str, str]
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form instruction, else None."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        return None


@dataclass
class Stage:
    """A build stage: its FROM image (ARGs resolved), name, and instructions."""

    image: str
    name: str | None
    index: int
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, cmd: str) -> list[Instruction]:
        return [i for i in self.instructions if i.cmd == cmd]

    def last(self, cmd: str) -> Instruction | None:
        found = self.all(cmd)
        return found[-1] if found else None

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The stage's ENV after all its ENV instructions, on top of `base`."""
        env = dict(base or {})
        for inst in self.all("ENV"):
            env.update(parse_env(inst.args, env))
        return env


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]
    directives: dict[str, str]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)

    @property
    def final(self) -> Stage:
        return self.stages[-1]


def logical_lines(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """Parser directives, then (line number, joined text) of each instruction."""
    directives: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    # Parser directives: `# key=value` lines at the very top.
    while i < len(lines):
        m = re.match(r"^#\s*(\w+)\s*=\s*(\S+)\s*$", lines[i])
        if not m:
            break
        directives[m.group(1).lower()] = m.group(2)
        i += 1
    out: list[tuple[int, str]] = []
    buf: list[str] = []
    start = 0
    for n in range(i, len(lines)):
        raw = lines[n]
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and buf):
            continue  # comments and blank lines vanish, even inside a continuation
        if not stripped:
            continue
        if not buf:
            start = n + 1
        if raw.rstrip().endswith("\\"):
            buf.append(raw.rstrip()[:-1])
            continue
        buf.append(raw)
        out.append((start, " ".join(part.strip() for part in buf)))
        buf = []
    if buf:
        out.append((start, " ".join(part.strip() for part in buf)))
    return directives, out


def _split_flags(args: str) -> tuple[dict[str, str], str]:
    flags: dict[str, str] = {}
    rest = args
    while True:
        m = re.match(r"^--([\w-]+)(?:=(\S*))?\s+", rest)
        if not m:
            return flags, rest
        flags[m.group(1)] = m.group(2) if m.group(2) is not None else "true"
        rest = rest[m.end() :]


def parse(text: str) -> Dockerfile:
    directives, lines = logical_lines(text)
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for lineno, line in lines:
        cmd, _, args = line.partition(" ")
        cmd = cmd.upper()
        args = args.strip()
        if "<<" in args and cmd in ("RUN", "COPY"):
            raise ValueError(f"line {lineno}: heredocs are not supported by these tests")
        if cmd == "FROM":
            flags, rest = _split_flags(args + " ")
            words = rest.split()
            image = substitute(words[0], global_args)
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append(Stage(image=image, name=name, index=len(stages)))
            continue
        if not stages:
            if cmd != "ARG":
                raise ValueError(f"line {lineno}: {cmd} before the first FROM")
            key, _, default = args.partition("=")
            global_args[key.strip()] = default.strip().strip("\"'")
            continue
        flags, rest = _split_flags(args + " ")
        stages[-1].instructions.append(Instruction(cmd, rest.strip(), flags, lineno))
    return Dockerfile(global_args=global_args, stages=stages, directives=directives)


def parse_env(args: str, env: dict[str, str]) -> dict[str, str]:
    """The assignments of one ENV instruction, expanded against `env` (before it)."""
    words = shlex.split(args, posix=True)
    if words and "=" not in words[0]:  # legacy `ENV key value with spaces`
        return {words[0]: substitute(" ".join(words[1:]), env)}
    out: dict[str, str] = {}
    for word in words:
        key, _, value = word.partition("=")
        out[key] = substitute(value, env)
    return out


# --- .dockerignore -------------------------------------------------------


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = pattern.index("]", i)
            out += pattern[i : end + 1]
            i = end + 1
            continue
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out + r"\Z")


@dataclass
class DockerIgnore:
    """`.dockerignore` rules: the last matching pattern wins, `!` re-includes."""

    rules: list[tuple[bool, re.Pattern[str], str]]

    @classmethod
    def read(cls, path: Path) -> DockerIgnore:
        rules = []
        if path.exists():
            for raw in path.read_text().splitlines():
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                negate = line.startswith("!")
                pat = line[1:].strip() if negate else line
                pat = pat.strip("/")
                if pat.startswith("./"):
                    pat = pat[2:]
                rules.append((negate, _pattern_regex(pat), line))
        return cls(rules)

    def ignored(self, relpath: str) -> bool:
        """Is this context-relative path left out of the build context?"""
        parts = relpath.strip("/").split("/")
        # A path is out if it, or a directory above it, matches.
        candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        result = False
        for negate, regex, _line in self.rules:
            if any(regex.match(c) for c in candidates):
                result = not negate
        return result
