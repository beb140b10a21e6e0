"""How the server delivers the web client, over real HTTP to `crisp serve`
(docs/web-client.md, "Delivery"; crisp/server/static.py):

- compression per asset class: brotli or gzip for text as asked (q-values
  honoured), never for PNG, the decoded bytes equal to the file;
- caching per asset class: versioned files immutable for a year, the page and
  stable files revalidated; ETag and 304 on If-None-Match; an old version's URL
  redirected to this one;
- HEAD wherever GET works, with GET's headers and no body;
- the page: its language, the first screen, the versioned entry and stylesheet,
  modulepreload for every module of the start and nothing else, the language file
  preloaded first; a room code from the address never reaches the HTML unfiltered;
- security headers on the page (CSP), on files and on the API;
- HSTS in the TLS proxy examples (deploy/).
"""

from __future__ import annotations

import gzip
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import brotli
import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
YEAR = "public, max-age=31536000, immutable"

# One file of each class the client has (path under web/, compressed or not).
CLASSES = {
    "js/app.js": "text/javascript",
    "vendor/qrcode-generator/qrcode.mjs": "text/javascript",
    "css/app.css": "text/css",
    "i18n/ar.json": "application/json",
    "icons/icon.svg": "image/svg+xml",
    "manifest.webmanifest": "application/manifest+json",
    "icons/icon-192.png": "image/png",
}


@pytest.fixture(scope="module")
def http(server: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=10) as client:
        yield client


@dataclass
class Answer:
    """An HTTP answer with its body as sent (httpx would decode br and gzip itself)."""

    status_code: int
    headers: httpx.Headers
    content: bytes

    @property
    def text(self) -> str:
        return decode(self).decode()

    def json(self) -> Any:
        return json.loads(decode(self))


def get(http: httpx.Client, path: str, method: str = "GET", **headers: str) -> Answer:
    """`method path` with `headers` (no compression unless asked for)."""
    with http.stream(method, path, headers={"accept-encoding": "identity", **headers}) as r:
        return Answer(r.status_code, r.headers, b"".join(r.iter_raw()))


def page_version(http: httpx.Client) -> str:
    m = re.search(r'<script type="module" src="/v/([0-9a-f]+)/js/app.js">', get(http, "/").text)
    assert m, "the entry module at a versioned URL"
    return m.group(1)


def decode(r: Answer) -> bytes:
    coding = r.headers.get("content-encoding", "")
    if coding == "br":
        return bytes(brotli.decompress(r.content))
    return gzip.decompress(r.content) if coding == "gzip" else r.content


def wait_for_brotli(http: httpx.Client) -> None:
    """The brotli encodings are made in the background right after the start."""
    deadline = time.monotonic() + 20
    texts = [path for path, media_type in CLASSES.items() if media_type != "image/png"]

    def done() -> bool:
        codings = (get(http, f"/{p}", **{"accept-encoding": "br"}) for p in texts)
        return all(r.headers.get("content-encoding") == "br" for r in codings)

    while not done():
        assert time.monotonic() < deadline, "no brotli encodings 20 s after the start"
        time.sleep(0.2)  # paces the polling of the server's state (its encodings), no sync point


# ---- compression


@pytest.mark.parametrize(("path", "media_type"), CLASSES.items())
def test_each_asset_class_is_compressed_as_the_client_asks(
    http: httpx.Client, path: str, media_type: str
) -> None:
    wait_for_brotli(http)
    plain = (WEB / path).read_bytes()
    text = media_type != "image/png"
    for url in (f"/{path}", f"/v/{page_version(http)}/{path}"):
        cases = {
            "br, gzip, deflate": "br" if text else None,
            "gzip, deflate, br, zstd": "br" if text else None,  # as Chromium sends it
            "gzip": "gzip" if text else None,
            "br;q=0.5, gzip;q=1": "gzip" if text else None,
            "br;q=0, gzip;q=0": None,
            "*": "br" if text else None,
            "identity": None,
        }
        for accept, coding in cases.items():
            r = get(http, url, **{"accept-encoding": accept})
            assert r.status_code == 200, (url, accept)
            assert r.headers["content-type"].startswith(media_type)
            assert r.headers.get("content-encoding") == coding, (url, accept)
            assert int(r.headers["content-length"]) == len(r.content)
            assert decode(r) == plain, (url, accept)
            if text:
                assert "Accept-Encoding" in r.headers["vary"]
        if text:
            br = get(http, url, **{"accept-encoding": "br"})
            assert len(br.content) < len(plain) * 0.9


def test_the_page_is_compressed_too(http: httpx.Client) -> None:
    plain = get(http, "/")
    for coding in ("br", "gzip"):
        r = get(http, "/", **{"accept-encoding": coding})
        assert r.headers["content-encoding"] == coding
        assert decode(r) == plain.content and len(r.content) < len(plain.content) / 2


# ---- caching, ETag, HEAD


def test_cache_control_by_asset_class(http: httpx.Client) -> None:
    version = page_version(http)
    for path in CLASSES:
        assert get(http, f"/v/{version}/{path}").headers["cache-control"] == YEAR
        assert get(http, f"/{path}").headers["cache-control"] == "no-cache"
    for path in ("/", "/r/K7QX"):
        assert get(http, path).headers["cache-control"] == "no-cache"
    # a page of an older deploy asking for a file: sent to this version's, never cached
    old = get(http, "/v/0123456789abcdef/js/qr.js")
    assert old.status_code == 302 and old.headers["cache-control"] == "no-store"
    assert old.headers["location"] == f"/v/{version}/js/qr.js"
    missing = get(http, f"/v/{version}/js/nothing.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert get(http, "/index.html").text == get(http, "/").text  # the page, not the template
    for hidden in ("/shell/shells.json", "/shell/make.mjs", "/icons/make-icons.py"):
        assert get(http, hidden).status_code == 404, hidden


@pytest.mark.parametrize(
    "path", ["/", "/r/K7QX", "/css/app.css", "/icons/icon-192.png", "VERSIONED"]
)
def test_etag_revalidation(http: httpx.Client, path: str) -> None:
    if path == "VERSIONED":
        path = f"/v/{page_version(http)}/js/app.js"
    for accept in ("identity", "gzip", "br"):
        first = get(http, path, **{"accept-encoding": accept})
        etag = first.headers["etag"]
        assert re.fullmatch(r'"[0-9a-f]{20}(-br|-gz)?"', etag), etag
        for match in (etag, f"W/{etag}", f'"nope", {etag}', "*"):
            again = get(http, path, **{"accept-encoding": accept, "if-none-match": match})
            assert again.status_code == 304, (path, match)
            assert again.content == b"" and again.headers["etag"] == etag
            assert again.headers["cache-control"] == first.headers["cache-control"]
        changed = get(http, path, **{"accept-encoding": accept, "if-none-match": '"0000"'})
        assert changed.status_code == 200 and changed.content == first.content
    # one ETag per encoding: a cached gzip body is never taken for the plain one
    tags = {get(http, path, **{"accept-encoding": a}).headers["etag"] for a in ("identity", "br")}
    assert len(tags) == (2 if path != "/icons/icon-192.png" else 1)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/r/K7QX",
        "/r/k7qx/",
        "/js/app.js",
        "/manifest.webmanifest",
        "VERSIONED",
        "/healthz",
        "/readyz",
        "/api/protocol.json",
        "ROOM",
    ],
)
def test_head_works_wherever_get_does(http: httpx.Client, server: Any, path: str) -> None:
    if path == "VERSIONED":
        path = f"/v/{page_version(http)}/css/app.css"
    if path == "ROOM":
        path = f"/api/rooms/{server.post('/api/rooms', {'name': 'Ana'})['code']}"
    for accept in ("identity", "br"):
        got = get(http, path, **{"accept-encoding": accept})
        head = get(http, path, "HEAD", **{"accept-encoding": accept})
        assert got.status_code == head.status_code == 200
        assert head.content == b""
        for name in ("content-type", "content-length", "etag", "cache-control", "vary"):
            assert head.headers.get(name) == got.headers.get(name), (path, name)
        assert head.headers.get("content-encoding") == got.headers.get("content-encoding")
    assert get(http, "/js/nothing.js", "HEAD").status_code == 404


def test_other_methods_and_unknown_paths_get_the_error_shape(http: httpx.Client) -> None:
    r = get(http, "/js/app.js", "POST")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    r = get(http, "/nothing/here")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert get(http, "/api/nothing").json()["error"]["code"] == "not_found"


# ---- the page


def test_the_page_preloads_its_modules_and_language(http: httpx.Client) -> None:
    html = get(http, "/", **{"accept-language": "ar-EG,ar;q=0.9,en;q=0.5"}).text
    version = page_version(http)
    assert '<html lang="ar" dir="rtl">' in html
    assert f'<link rel="stylesheet" href="/v/{version}/css/app.css">' in html
    preloads = re.findall(r'<link rel="modulepreload" href="/v/[0-9a-f]+/([^"]+)">', html)
    modules = {str(p.relative_to(WEB)) for p in (WEB / "js").rglob("*.js")}
    lazy = {"js/qr.js"}  # the lobby's: imported with import() (lazy.js), not at the start
    # each game's modules: imported with import() for that game's rooms only (games.js)
    lazy |= {m for m in modules if m.startswith("js/games/")}
    assert set(preloads) == modules - lazy - {"js/app.js"}, "every module of the start, once"
    assert len(preloads) == len(set(preloads))
    assert "qrcode" not in html
    preload = r'<link rel="preload" as="fetch" crossorigin href="/v/[0-9a-f]+/i18n/(\w+)\.json">'
    fetches = re.findall(preload, html)
    assert fetches == ["ar", "en"], "the page's language first, English (its fallback) beside it"
    assert html.index("i18n/en.json") < html.index('rel="modulepreload"'), "asked for first"
    english = get(http, "/", **{"accept-language": "en-US,en"})
    assert re.findall(r"i18n/(\w+)\.json", english.text) == ["en"]
    # the stylesheet blocks the first paint: asked for as soon as the headers arrive
    link = f"</v/{version}/css/app.css>; rel=preload; as=style"
    assert english.headers["link"] == link and get(http, "/r/K7QX").headers["link"] == link


@pytest.mark.parametrize(
    ("accept", "cookie", "lang"),
    [
        ("ar", None, "ar"),
        ("de-DE, in-ID;q=0.8, en;q=0.5", None, "id"),
        ("fr, de", None, "en"),
        ("ar;q=0, id;q=0.1", None, "id"),
        ("", None, "en"),
        ("en", "ar", "ar"),
        ("ar", "xx", "ar"),  # not a language of the client: the header decides
    ],
)
def test_the_page_speaks_the_readers_language(
    http: httpx.Client, accept: str, cookie: str | None, lang: str
) -> None:
    headers = {"accept-language": accept}
    if cookie:
        headers["cookie"] = f"crisp_lang={cookie}"
    r = get(http, "/", **headers)
    assert f'<html lang="{lang}" dir="{"rtl" if lang == "ar" else "ltr"}">' in r.text
    loading = {"en": "Loading…", "ar": "جارٍ التحميل…", "id": "Memuat…"}[lang]
    assert f"</span>{loading}</span>" in r.text
    assert "Accept-Language" in r.headers["vary"] and "Cookie" in r.headers["vary"]


def test_the_first_screen_is_in_the_page(http: httpx.Client) -> None:
    home = get(http, "/").text
    app = home.split('<div id="app">')[1].split("</main>")[0]
    assert 'data-testid="name-input"' in app and 'data-testid="create-room" disabled' in app
    assert 'role="status"' in app  # "Loading…" until the client runs
    room = get(http, "/r/k7-qx").text
    assert re.search(r'data-testid="room-code-input"[^>]*value="K7QX"', room)
    assert room.index('data-testid="join-room"') < room.index('data-testid="create-room"')
    # whatever the address holds, only letters and digits reach the HTML
    for raw, code in (
        ("%3Cscript%3Ealert(1)", "SCRIPTAL"),
        ("%22onfocus=%22x", "ONFOCUSX"),
        ("ab%22%3E%3Cb%3E", "ABB"),
        ("%D9%83%D8%B1", ""),
    ):
        html = get(http, f"/r/{raw}").text
        value = re.search(r'data-testid="room-code-input"[^>]*value="([^"]*)"', html)
        assert value and value.group(1) == code, (raw, value)
        assert "<script>alert" not in html and "<b>" not in html and '"onfocus' not in html
    assert get(http, "/r/%3Cscript%3E%3C%2Fscript%3E").status_code == 404  # not a room path


# ---- security headers


def test_the_page_defends_itself(http: httpx.Client, server: Any) -> None:
    host = server.base.removeprefix("http://")
    for path in ("/", "/r/K7QX"):
        h = get(http, path).headers
        directives = (d.strip().split(" ", 1) for d in h["content-security-policy"].split(";"))
        policy = {d[0]: d[1] if len(d) > 1 else "" for d in directives}
        assert policy["default-src"] == "'none'"
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
        assert policy["connect-src"] == f"'self' ws://{host} wss://{host}"
        assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
        assert "unsafe" not in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"
        assert h["x-frame-options"] == "DENY"
        assert "camera=()" in h["permissions-policy"] and "microphone=()" in h["permissions-policy"]
    # behind a TLS proxy that says so, the websocket is wss only
    proxied = get(http, "/", **{"x-forwarded-proto": "https"}).headers["content-security-policy"]
    assert f"connect-src 'self' wss://{host};" in proxied
    # a Host header that is not a host name is left out of the policy
    odd = get(http, "/", host="evil.example; script-src *").headers["content-security-policy"]
    assert "script-src *" not in odd and "connect-src 'self';" in odd


def test_files_and_the_api_carry_the_headers_too(http: httpx.Client) -> None:
    for path in ("/js/app.js", "/api/rooms/ZZZZ", "/healthz", "/nothing"):
        h = get(http, path).headers
        assert h["content-security-policy"].startswith("default-src 'none'"), path
        assert "frame-ancestors 'none'" in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"


def test_the_tls_proxy_examples_send_hsts() -> None:
    """HSTS belongs to the TLS proxy: both examples send it for a year, on every answer."""
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    tls = nginx.split("listen 443", 1)[1]
    m = re.search(r'add_header Strict-Transport-Security "max-age=(\d+)[^"]*" always;', tls)
    assert m and int(m.group(1)) >= 31536000
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    m = re.search(r'header Strict-Transport-Security "max-age=(\d+)[^"]*"', caddy)
    assert m and int(m.group(1)) >= 31536000


def test_the_service_worker_is_served_at_its_stable_url_only(http: httpx.Client) -> None:
    """/sw.js (docs/web-client.md, "Offline shell"): revalidated on every check
    (a new deploy is seen on the next load), a policy of its own that lets it
    fetch from its origin only; never at a versioned URL, where its scope would
    be /v/<version>/ and an old copy could live on."""
    r = get(http, "/sw.js")
    assert r.status_code == 200 and "addEventListener('fetch'" in r.text
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"
    policy = r.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'") and "connect-src 'self'" in policy
    assert "unsafe" not in policy
    assert get(http, f"/v/{page_version(http)}/sw.js").status_code == 404
    assert get(http, "/v/0000/sw.js").status_code == 404
