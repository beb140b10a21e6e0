"""The web client's files as the server delivers them, read once per process.

`load_web_assets(web_dir)` reads every file of `web/` (but `index.html`, which
`shell.py` renders, and the `shell/` sources) into an `Asset`: bytes, media type,
a digest for its ETag, and its gzip encoding when it is text. The brotli
encodings (quality 11: about 0.6 s of CPU for the whole client) are made by
`compress_brotli()` in a background thread started with the server, so a start
is never slower; until it is done a client that accepts brotli gets gzip.

`version` is a digest of the whole tree: the `/v/<version>/` prefix of the
immutable URLs (docs/web-client.md, "Delivery"). `static_imports(entry)` is the
closure of the static `import` statements from a module (dynamic `import()` is
left out: those modules load when needed), for `<link rel="modulepreload">`.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import brotli

log = logging.getLogger("crisp.server")

MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".html": "text/html; charset=utf-8",
    "": "text/plain; charset=utf-8",  # LICENSE
}
COMPRESSIBLE = ("text/", "application/json", "application/manifest+json", "image/svg+xml")
NOT_SERVED_DIRS = ("shell",)  # the page's first screen: read by shell.py, not fetched
NOT_SERVED_FILES = ("index.html",)  # rendered by shell.py at / and /r/{code}
GZIP_LEVEL = 9
BROTLI_QUALITY = 11
MIN_SAVING = 0.9  # keep an encoding only when it is at most 90 % of the plain size

_STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]""", re.M
)


@dataclass
class Asset:
    """One file: `encodings` maps a content coding (`gzip`, `br`) to the encoded bytes."""

    path: str
    media_type: str
    body: bytes
    digest: str
    encodings: dict[str, bytes] = field(default_factory=dict)

    @property
    def compressible(self) -> bool:
        return self.media_type.startswith(COMPRESSIBLE)

    def encode(self, coding: str, level: int) -> None:
        """Add the `gzip` (level 1-9) or `br` (quality 0-11) encoding, when it saves enough."""
        if coding == "gzip":
            data = gzip.compress(self.body, compresslevel=level, mtime=0)
        else:
            data = brotli.compress(self.body, quality=level)
        if len(data) <= len(self.body) * MIN_SAVING:
            self.encodings[coding] = data


class WebAssets:
    """Every served file of the web client by its path (`js/app.js`), and the tree's version."""

    def __init__(self, root: Path, assets: dict[str, Asset], template: str, shell_source: str):
        self.root = root
        self.assets = assets
        self.template = template  # index.html
        self.shell_source = shell_source  # shell/shells.json ('' when absent)
        tree = hashlib.sha256()
        for path in sorted(assets):
            tree.update(f"{path}\0{assets[path].digest}\n".encode())
        tree.update(hashlib.sha256(template.encode() + shell_source.encode()).digest())
        self.version = tree.hexdigest()[:16]
        self._brotli_started = False
        self._lock = threading.Lock()
        self.brotli_done = threading.Event()

    def get(self, path: str) -> Asset | None:
        return self.assets.get(path)

    def static_imports(self, entry: str) -> list[str]:
        """`entry` and every module it imports statically, directly or not, in load order."""
        seen: list[str] = []

        def visit(path: str) -> None:
            asset = self.assets.get(path)
            if asset is None or path in seen:
                return
            seen.append(path)
            for spec in _STATIC_IMPORT.findall(asset.body.decode("utf-8", "replace")):
                target = resolve_import(path, spec)
                if target is not None:
                    visit(target)

        visit(entry)
        return seen

    def start_brotli(self) -> None:
        """Make the brotli encodings in a background thread (once per catalogue)."""
        with self._lock:
            if self._brotli_started:
                return
            self._brotli_started = True
        threading.Thread(target=self.compress_brotli, name="crisp-brotli", daemon=True).start()

    def compress_brotli(self) -> None:
        started = time.thread_time()
        for asset in self.assets.values():
            if asset.compressible and "br" not in asset.encodings:
                asset.encode("br", BROTLI_QUALITY)
        self.brotli_done.set()
        cpu = time.thread_time() - started
        log.debug("web client compressed with brotli in %.2f s of CPU", cpu)


def resolve_import(importer: str, spec: str) -> str | None:
    """The asset path a module specifier names (`./dom.js` from `js/app.js` is
    `js/dom.js`); None for a bare specifier or a path outside the tree."""
    if spec.startswith("/"):
        parts = PurePosixPath(spec.lstrip("/")).parts
    elif spec.startswith(("./", "../")):
        parts = PurePosixPath(importer).parent.joinpath(spec).parts
    else:
        return None
    out: list[str] = []
    for part in parts:
        if part == "..":
            if not out:
                return None
            out.pop()
        elif part != ".":
            out.append(part)
    return "/".join(out)


def media_type_of(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix, "application/octet-stream")


def _served(rel: PurePosixPath) -> bool:
    if any(part.startswith(".") for part in rel.parts) or rel.suffix == ".py":
        return False
    return rel.parts[0] not in NOT_SERVED_DIRS and str(rel) not in NOT_SERVED_FILES


def _read(root: Path) -> WebAssets:
    assets: dict[str, Asset] = {}
    for file in sorted(root.rglob("*")):
        rel = PurePosixPath(file.relative_to(root).as_posix())
        if not file.is_file() or not _served(rel):
            continue
        body = file.read_bytes()
        asset = Asset(
            path=str(rel),
            media_type=media_type_of(file),
            body=body,
            digest=hashlib.sha256(body).hexdigest()[:20],
        )
        if asset.compressible:
            asset.encode("gzip", GZIP_LEVEL)
        assets[asset.path] = asset
    index = root / "index.html"
    template = index.read_text(encoding="utf-8") if index.is_file() else ""
    shells = root / "shell" / "shells.json"
    shell_source = shells.read_text(encoding="utf-8") if shells.is_file() else ""
    return WebAssets(root, assets, template, shell_source)


_cache: dict[Path, tuple[tuple[tuple[str, int, int], ...], WebAssets]] = {}
_cache_lock = threading.Lock()


def _signature(root: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for file in sorted(root.rglob("*")):
        if file.is_file():
            st = file.stat()
            out.append((file.relative_to(root).as_posix(), st.st_mtime_ns, st.st_size))
    return tuple(out)


def load_web_assets(root: Path) -> WebAssets:
    """The catalogue of `root`, read again only when a file there changed (several
    apps in one process, as in the tests, share it)."""
    root = root.resolve()
    signature = _signature(root)
    with _cache_lock:
        cached = _cache.get(root)
        if cached is not None and cached[0] == signature:
            return cached[1]
        assets = _read(root)
        _cache[root] = (signature, assets)
        return assets
