"""The page at `/` and `/r/{code}`: `web/index.html` with its first screen in it.

What the server adds to the template (docs/web-client.md, "Delivery"):
- `<meta name="crisp-public-url">` when CRISP_PUBLIC_URL is set: the address
  the lobby's link and QR code give to phones (web/js/render/lobby.js);
- `<html lang dir>` in the page's language: the cookie `crisp_lang` (the client's
  language switch sets it), else the first known language of `Accept-Language`
  (`in` is Indonesian, as in the client), else English;
- the stylesheet and the entry module at their versioned URLs (`/v/<version>/…`);
- `<link rel="modulepreload">` for every module the entry imports statically,
  and `<link rel="preload" as="fetch">` for the language's strings, then
  English (its fallback): the whole start of the page is asked for at once;
- `<meta name="crisp-game-modules">` naming the versioned URLs of every game's
  modules (`js/games/<id>/`, loaded with import() only for that game's room)
  and of every stylesheet (a game's own is linked by its module):
  not fetched by the page, but read by the service worker, which keeps them
  with the version's other files, so a game's table also opens offline;
- inside `<div id="app">`, the header and the home form in that language (on
  `/r/{code}`: the join form, code filled in), buttons disabled and "Loading…"
  until the modules run; on `/r/{code}` of a room the cookie `crisp_seats` names
  (the codes of the rooms the phone holds a seat in, written by the client,
  never a token), a "Loading your seat…" screen instead, with no form: a seated
  player's reload never shows a stranger's join form first. That HTML is the
  client's own renderer's
  (`web/shell/shells.json`, written by `node web/shell/make.mjs`; a test fails
  when it is stale), so the client takes the same nodes over (`dom.js`).
"""

from __future__ import annotations

import functools
import hashlib
import html as html_text
import json
import re
from dataclasses import dataclass

from crisp.server.http.webassets import Asset, WebAssets

LANG_COOKIE = "crisp_lang"
SEATS_COOKIE = "crisp_seats"  # room codes joined by dots (web/js/storage.js)
MAX_SEATS_COOKIE = 400  # characters read of it at most
GAME_MODULES = "js/games/"  # each game's modules, loaded only for its rooms


def _is_stylesheet(path: str) -> bool:
    """Every stylesheet (a game's own is linked by its module, not by the page):
    named for the worker too, so a game's table keeps its styles offline."""
    return path.startswith("css/") and path.endswith(".css")
CODE_SLOT = "{{code}}"
MAX_CODE = 8
PAGE_TYPE = "text/html; charset=utf-8"
_ENTRY = re.compile(r'<script type="module" src="/([^"]+)"></script>')
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="/([^"]+)">')
_HTML_TAG = re.compile(r"<html\b[^>]*>")
_APP = '<div id="app"></div>'


@dataclass(frozen=True)
class Language:
    code: str
    dir: str
    home: str  # the #app HTML of `/`
    join: str  # the #app HTML of `/r/{code}`, with CODE_SLOT for the code
    seat: str  # the #app HTML of `/r/{code}` for a seat this phone holds (CODE_SLOT too)


def room_code(raw: str) -> str:
    """A room code as the client reads it from the address: upper case, letters and
    digits only (so it is safe inside HTML), at most MAX_CODE characters."""
    return re.sub(r"[^A-Z0-9]", "", raw.upper())[:MAX_CODE]


def seated_codes(cookie: str | None) -> set[str]:
    """The room codes the cookie `crisp_seats` names ("K7QXM3RT.ABCD2345"): the
    rooms this phone holds a seat in, as it says (a hint for the first screen
    only: nothing is granted by it)."""
    parts = (cookie or "")[:MAX_SEATS_COOKIE].split(".")
    return {room_code(part) for part in parts if room_code(part)}


class Shell:
    """Renders the page for a language and an optional room code."""

    def __init__(self, assets: WebAssets, public_url: str | None = None) -> None:
        self.assets = assets
        self.public_url = public_url
        source = json.loads(assets.shell_source) if assets.shell_source else {}
        self.languages = {
            code: Language(code, s["dir"], s["home"], s["join"], s.get("seat", s["join"]))
            for code, s in source.items()
        } or {"en": Language("en", "ltr", "", "", "")}
        self.default = "en" if "en" in self.languages else next(iter(self.languages))
        self.page = functools.lru_cache(maxsize=256)(self._page)
        css = _STYLESHEET.search(assets.template)
        # the stylesheet's versioned URL, for a `Link: rel=preload` header
        self.stylesheet = f"/v/{assets.version}/{css.group(1)}" if css else None

    def language_for(self, cookie: str | None, accept_language: str | None) -> str:
        """The page's language: the cookie, else Accept-Language, else English."""
        if cookie in self.languages:
            return str(cookie)
        ranked: list[tuple[float, int, str]] = []
        for i, part in enumerate((accept_language or "").split(",")):
            tag, _, params = part.strip().partition(";")
            q = re.search(r"q\s*=\s*([0-9.]+)", params)
            try:
                weight = float(q.group(1)) if q else 1.0
            except ValueError:
                continue
            base = tag.strip().lower().split("-")[0]
            if weight > 0:
                ranked.append((-weight, i, "id" if base == "in" else base))
        for _, _, base in sorted(ranked):
            if base in self.languages:
                return base
        return self.default

    def _page(self, lang: str, code: str | None, seated: bool = False) -> Asset:
        """The page (memoised: a few KB each; codes are normalised by `room_code`);
        `seated`: the cookie says this phone holds a seat in room `code`."""
        language = self.languages[lang]
        html = self._head(self.assets.template, lang, language.dir)
        room = language.seat if seated else language.join
        app = language.home if code is None else room.replace(CODE_SLOT, code)
        html = html.replace(_APP, f'<div id="app">{app}</div>', 1)
        body = html.encode()
        page = Asset("index.html", PAGE_TYPE, body, hashlib.sha256(body).hexdigest()[:20])
        # per page, at first request: 0.1-0.3 ms each (brotli 9 would take 13 ms for
        # the same few hundred bytes less: too long for a server answering games)
        page.encode("gzip", 6)
        page.encode("br", 5)
        return page

    def _versioned(self, m: re.Match[str]) -> str:
        """A matched tag with its `/path` replaced by the versioned URL, if it is a file."""
        path = m.group(1)
        if self.assets.get(path) is None:
            return m.group(0)
        return m.group(0).replace(f'"/{path}"', f'"/v/{self.assets.version}/{path}"')

    def _head(self, template: str, lang: str, direction: str) -> str:
        prefix = f"/v/{self.assets.version}/"
        html = _HTML_TAG.sub(f'<html lang="{lang}" dir="{direction}">', template, count=1)
        if self.public_url:
            meta = f'<meta name="crisp-public-url" content="{html_text.escape(self.public_url)}">'
            html = html.replace("<title>", f"{meta}\n  <title>", 1)
        html = _STYLESHEET.sub(self._versioned, html)
        entry = _ENTRY.search(html)
        if entry is None:
            return html
        # the strings first (the page's language, then English), then the modules:
        # over HTTP/1.1 (6 connections) the first requests go out first
        links = [
            f'<link rel="preload" as="fetch" crossorigin href="{prefix}i18n/{code}.json">'
            for code in dict.fromkeys((lang, "en"))
            if self.assets.get(f"i18n/{code}.json")
        ]
        modules = self.assets.static_imports(entry.group(1))[1:]  # the script tag loads the entry
        links += [f'<link rel="modulepreload" href="{prefix}{path}">' for path in modules]
        games = sorted(p for p in self.assets.assets
                       if p.startswith(GAME_MODULES) or _is_stylesheet(p))
        if games:
            urls = " ".join(f"{prefix}{path}" for path in games)
            links.append(f'<meta name="crisp-game-modules" content="{urls}">')
        tag = _ENTRY.sub(self._versioned, entry.group(0))
        return html.replace(entry.group(0), "\n  ".join([tag, *links]), 1)
