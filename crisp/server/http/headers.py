"""Headers that defend the page: on every HTTP answer (docs/deploy.md, "Security headers").

`SecurityHeaders` (ASGI middleware) adds `X-Content-Type-Options`,
`Referrer-Policy`, `Permissions-Policy`, `X-Frame-Options`,
`Cross-Origin-Opener-Policy`, and a Content-Security-Policy to each answer that
has none: `API_POLICY`, which allows nothing (JSON, files). The page itself
(`/`, `/r/{code}`) carries `page_policy(...)`: its own scripts, styles, images
and manifest, connections to its own origin and websocket only, no inline script
or style, never framed. HSTS is the TLS proxy's (deploy/).
"""

from __future__ import annotations

import re

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
# The service worker's own policy (/sw.js): it fetches the page and the files from its origin.
WORKER_POLICY = "default-src 'none'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
PERMISSIONS_POLICY = ", ".join(
    [
        *(
            f"{feature}=()"
            for feature in (
                "accelerometer",
                "camera",
                "display-capture",
                "geolocation",
                "gyroscope",
                "magnetometer",
                "microphone",
                "payment",
                "usb",
            )
        ),
        # the page's own: the beep (WebAudio), "Copy link" in the lobby. (web-share
        # is left out: Chromium warns about it as an unknown feature.)
        "autoplay=(self)",
        "clipboard-write=(self)",
    ]
)
COMMON = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "permissions-policy": PERMISSIONS_POLICY,
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
# A Host header worth putting in a policy: a DNS name, IPv4 or [IPv6], with a port.
_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$")


def page_policy(host: str | None, scheme: str) -> str:
    """The page's Content-Security-Policy. `connect-src` is its own origin ('self')
    and, spelled out for browsers whose 'self' does not cover websockets, the
    websocket of its host: `wss:` always, `ws:` only when the page came over http."""
    sockets = ""
    if host and _HOST.match(host):
        sockets = f" wss://{host}" if scheme == "https" else f" ws://{host} wss://{host}"
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'",
            f"connect-src 'self'{sockets}",
            "manifest-src 'self'",
            "worker-src 'self'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeaders:
    """Add COMMON and, when the answer has none, API_POLICY to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in COMMON.items():
                    headers.setdefault(name, value)
                headers.setdefault("content-security-policy", API_POLICY)
            await send(message)

        await self.app(scope, receive, with_headers)
