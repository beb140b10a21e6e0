"""The static web client: `/`, `/r/{code}` (the same page, room code pre-filled by
the client) and every file of `CRISP_WEB_DIR`."""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

import crisp

from .errors import error_response
from .protocol import ServerErrorCode
from .settings import Settings

log = logging.getLogger("crisp.server")


def web_dir_for(settings: Settings) -> Path | None:
    """The static client directory (CRISP_WEB_DIR, else `web/` next to the package)."""
    path = settings.web_dir or Path(crisp.__file__).resolve().parent.parent / "web"
    return path if path.is_dir() else None


def add_web_client(app: FastAPI, web_dir: Path | None) -> None:
    """Serve the client from `web_dir` (added last: the mount at `/` catches the rest);
    without one, `/` answers 404 and only the API is served."""

    async def index() -> Response:
        if web_dir is None or not (web_dir / "index.html").is_file():
            return error_response(
                404, ServerErrorCode.NOT_FOUND, "the web client is not installed"
            )
        return FileResponse(web_dir / "index.html", headers={"Cache-Control": "no-cache"})

    async def index_for_room(code: str) -> Response:
        return await index()

    app.add_api_route("/", index, methods=["GET"], include_in_schema=False)
    app.add_api_route("/r/{code}", index_for_room, methods=["GET"], include_in_schema=False)
    if web_dir is not None:
        app.mount("/", StaticFiles(directory=web_dir), name="web")
    else:
        log.warning("no web client directory found; serving the API only")
