"""The static web client over HTTP: the page, its files, compression and caching.

- `/`, `/r/{code}`: the page (`shell.py`) in the reader's language;
  `Cache-Control: no-cache` (revalidated: ETag, 304).
- `/v/<version>/<file>`: a file of this version; `public, max-age=31536000, immutable`.
- `/v/<another version>/<file>`: 302 to this version's URL (a page of an older
  deploy asking for a file it loads late), `no-store`.
- `/<file>` (the manifest, the icons, any file): the file at its stable URL;
  `no-cache` (revalidated).
- `/sw.js`: the service worker (the offline shell), at its stable URL, `no-cache`,
  with a policy of its own (`WORKER_POLICY`: it may fetch from its own origin only).

Every answer here (and, through `HeadAsGet`, every GET route of the app) works
for `GET` and `HEAD`; each names its `ETag` (one per
encoding: `"<digest>"`, `"<digest>-br"`, `"<digest>-gz"`) and answers
`If-None-Match` with 304. Text is sent brotli- or gzip-encoded when the client
accepts it (`Vary: Accept-Encoding`). The page also varies with
`Accept-Language` and the `crisp_lang` cookie, and carries the page's
Content-Security-Policy (`headers.page_policy`). Anything else is 404
`not_found` (405 for other methods) in the API's error shape.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

import crisp
from crisp.server.http.headers import WORKER_POLICY, page_policy
from crisp.server.http.shell import LANG_COOKIE, SEATS_COOKIE, Shell, room_code, seated_codes
from crisp.server.http.webassets import Asset, WebAssets, load_web_assets
from crisp.server.ops.settings import Settings
from crisp.server.wire.failures import ApiError
from crisp.server.wire.vocabulary import ServerErrorCode

log = logging.getLogger("crisp.server")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
ETAG_SUFFIX = {"": "", "br": "-br", "gzip": "-gz"}
PREFERENCE = ("br", "gzip")  # when a client accepts both equally
_ROOM = re.compile(r"^/r/([^/]+)/?$")
_VERSIONED = re.compile(r"^/v/([^/]+)/(.+)$")
WORKER = "sw.js"  # the service worker: only at its stable URL (its scope is the whole site)


def web_dir_for(settings: Settings) -> Path | None:
    """The static client directory (CRISP_WEB_DIR, else `web/` next to the package)."""
    path = settings.web_dir or Path(crisp.__file__).resolve().parent.parent / "web"
    return path if path.is_dir() else None


def accepted_encoding(accept_encoding: str | None, available: set[str]) -> str:
    """The content coding to send ('' for none): the client's most preferred of
    `available` (q-values honoured, `q=0` refuses), brotli before gzip on a tie."""
    weights: dict[str, float] = {}
    for part in (accept_encoding or "").lower().split(","):
        coding, _, params = part.strip().partition(";")
        weight = re.search(r"q\s*=\s*([0-9.]+)", params)
        try:
            weights[coding.strip()] = float(weight.group(1)) if weight else 1.0
        except ValueError:
            continue
    best, best_q = "", 0.0
    for coding in PREFERENCE:
        q = weights.get(coding, weights.get("*", 0.0))
        if coding in available and q > best_q:
            best, best_q = coding, q
    return best


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """`If-None-Match` (weak comparison, `*`) against our ETag."""
    if not if_none_match:
        return False
    for tag in if_none_match.split(","):
        tag = tag.strip().removeprefix("W/")
        if tag in ("*", etag):
            return True
    return False


def respond(
    request: Request,
    asset: Asset,
    cache_control: str,
    vary: tuple[str, ...] = (),
    extra: dict[str, str] | None = None,
) -> Response:
    """`asset` in the best encoding the request accepts, or 304 when its ETag matches."""
    coding = accepted_encoding(request.headers.get("accept-encoding"), set(asset.encodings))
    etag = f'"{asset.digest}{ETAG_SUFFIX[coding]}"'
    headers = {"etag": etag, "cache-control": cache_control, **(extra or {})}
    varies = ("Accept-Encoding", *vary) if asset.compressible else vary
    if varies:
        headers["vary"] = ", ".join(varies)
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    body = asset.encodings[coding] if coding else asset.body
    if coding:
        headers["content-encoding"] = coding
    headers["content-length"] = str(len(body))
    return Response(body, media_type=asset.media_type, headers=headers)


class HeadAsGet:
    """`HEAD` wherever `GET` works (the API's routes too): a HEAD request is
    answered as its GET, headers and all (Content-Length included), without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)


class WebClient:
    """ASGI app for everything the API's routes do not answer (mounted at `/`)."""

    def __init__(self, web_dir: Path | None, public_url: str | None = None) -> None:
        self.assets: WebAssets | None = load_web_assets(web_dir) if web_dir else None
        ok = self.assets is not None and bool(self.assets.template)
        self.shell = Shell(self.assets, public_url) if self.assets is not None and ok else None

    def start(self) -> None:
        """Make the brotli encodings in the background (see webassets.py)."""
        if self.assets is not None:
            self.assets.start_brotli()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # a websocket on an unknown path
            await WebSocketClose()(scope, receive, send)
            return
        request = Request(scope, receive)
        if request.method not in ("GET", "HEAD"):
            raise HTTPException(405)
        response = self.answer(request, request.url.path)
        await response(scope, receive, send)

    def answer(self, request: Request, path: str) -> Response:
        room = _ROOM.match(path)
        if path in ("/", "/index.html") or room:
            return self.page(request, room_code(room.group(1)) if room else None)
        if self.assets is None:
            raise HTTPException(404)
        versioned = _VERSIONED.match(path)
        if versioned:
            version, file = versioned.groups()
            if self.assets.get(file) is None or file == WORKER:
                raise HTTPException(404)
            if version != self.assets.version:
                url = f"/v/{self.assets.version}/{file}"
                return RedirectResponse(url, 302, headers={"cache-control": "no-store"})
            return respond(request, self.assets.assets[file], IMMUTABLE)
        asset = self.assets.get(path.lstrip("/"))
        if asset is None:
            raise HTTPException(404)
        if path == f"/{WORKER}":
            policy = {"content-security-policy": WORKER_POLICY}
            return respond(request, asset, REVALIDATE, extra=policy)
        return respond(request, asset, REVALIDATE)

    def page(self, request: Request, code: str | None) -> Response:
        if self.shell is None:
            raise ApiError(404, ServerErrorCode.NOT_FOUND, "the web client is not installed")
        lang = self.shell.language_for(
            request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
        )
        # a seated player's reload: "Loading your seat…", never the join form first
        seated = code is not None and code in seated_codes(request.cookies.get(SEATS_COOKIE))
        policy = page_policy(request.headers.get("host"), request.url.scheme)
        headers = {"content-security-policy": policy}
        if self.shell.stylesheet:  # asked for as the headers arrive, before the HTML is parsed
            headers["link"] = f"<{self.shell.stylesheet}>; rel=preload; as=style"
        return respond(
            request,
            self.shell.page(lang, code, seated),
            REVALIDATE,
            vary=("Accept-Language", "Cookie"),
            extra=headers,
        )


def add_web_client(app: FastAPI, client: WebClient) -> None:
    """Serve the client (mounted at `/`, after every API route); without a web
    directory, `/` answers 404 and only the API is served."""
    if client.assets is None:
        log.warning("no web client directory found; serving the API only")
    app.mount("/", client, name="web")
