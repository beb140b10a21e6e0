"""The nesting guard of a client message's JSON (issue 23): `loads_bounded`.

A client message nests one level (an object of scalars); nothing needs more
than `MAX_DEPTH`. `json.loads` itself is linear, but a text nested thousands
deep would reach Python's recursion limit in whatever walks the value later, so
deeper texts are refused before they are parsed. The check is linear in the
text's length and runs in C (regular expressions without backtracking, and
`itertools.accumulate`): escapes are dropped, then strings (pairs of quotes,
which no escape can hide any more; an unterminated one runs to the end, once),
then everything but brackets; the running depth of what is left is the
nesting. The callers bound the text's size (CRISP_MAX_MESSAGE_BYTES).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 16  # the deepest client message has depth 1; nothing needs more

_ESCAPE = re.compile(r"\\.", re.S)
_STRING = re.compile(r'"[^"]*"?')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting(text: str) -> int:
    """The deepest nesting of brackets in a JSON text, outside its strings."""
    bare = _NOT_BRACKET.sub("", _STRING.sub("", _ESCAPE.sub("", text)))
    return max(accumulate(map(_DELTA.__getitem__, bare)), default=0)


def loads_bounded(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` of a client message that refuses (ValueError) nesting deeper than
    `max_depth` before parsing, in time linear in the text's length."""
    if text.count("[") + text.count("{") > max_depth and nesting(text) > max_depth:
        raise ValueError(f"nested deeper than {max_depth}")
    try:
        return json.loads(text)
    except RecursionError:  # not reachable after the check; never let it escape
        raise ValueError("nested too deeply") from None
