"""Static checks of web/ (no browser): translation files agree with English,
every key the code asks for exists, the page loads nothing from elsewhere, and
the manifest's icons are there."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
LANGS = ("en", "ar", "id")
PLURAL = re.compile(r"\.(zero|one|two|few|many|other)$")
PROTOCOL_ERRORS = [
    "bad_message",
    "too_large",
    "rate_limited",
    "not_host",
    "not_your_turn",
    "too_early",
    "wrong_phase",
    "illegal",
    "unknown_player",
    "room_full",
    "game_started",
]


def strings(lang: str) -> dict[str, str]:
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert all(isinstance(v, str) for v in data.values())
    return dict(data)


def by_base(d: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, text in d.items():
        out.setdefault(PLURAL.sub("", key), []).append(text)
    return out


def placeholders(texts: list[str]) -> set[str]:
    return {m for t in texts for m in re.findall(r"\{(\w+)\}", t)}


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translations_have_every_key_and_no_unknown_placeholder(lang: str) -> None:
    en, other = by_base(strings("en")), by_base(strings(lang))
    assert sorted(set(en) - set(other)) == [], "missing"
    assert sorted(set(other) - set(en)) == [], "not in English"
    for base, texts in other.items():
        assert placeholders(texts) <= placeholders(en[base]), base


@pytest.mark.parametrize("lang", LANGS)
def test_plural_keys_always_have_the_other_form(lang: str) -> None:
    d = strings(lang)
    for key in d:
        if PLURAL.search(key):
            assert PLURAL.sub(".other", key) in d, key


def js_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((WEB / "js").glob("*.js")))


def test_every_key_the_code_uses_is_in_english() -> None:
    en = by_base(strings("en"))
    src = js_sources()
    used = set(re.findall(r"\bt\('([\w.]+)'", src))
    assert len(used) > 100
    # keys built at run time
    used |= {f"error.{c}" for c in PROTOCOL_ERRORS}
    used |= {f"error.{c}" for c in ("not_found", "bad_name", "busy", "store_unavailable")}
    used |= {f"conn.{s}" for s in ("open", "connecting", "reconnecting", "replaced", "idle")}
    used |= {f"slot.{s}{cap}" for s in ("left", "middle", "right") for cap in ("", "Cap")}
    used |= {f"rank.{r}" for r in "A23456789TJQK"} | {f"suit.{s}" for s in "SHDC"}
    used |= {f"action.{a}{x}" for a in ("discard", "jack", "queen", "king") for x in ("", "Label")}
    for kind in ("joined", "left", "connected", "disconnected", "round_over", "game_over"):
        used.add(f"ev.{kind}")
    for kind in (
        "turn",
        "turn_final",
        "drew_stock",
        "drew_discard",
        "swapped",
        "discarded",
        "discarded_timeout",
        "jack",
        "king",
        "crisp",
        "timeout",
    ):
        used |= {f"ev.{kind}", f"ev.{kind}.you"}
    used |= {"ev.queen", "ev.queen.you", "ev.queen.onyou"}
    missing = sorted(k for k in used if k not in en)
    assert missing == []


def test_the_page_loads_nothing_from_another_origin() -> None:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert refs and all(r.startswith("/") and not r.startswith("//") for r in refs), refs
    for path in [*WEB.glob("js/*.js"), WEB / "css" / "app.css"]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(?:from|import\(|url\()\s*['"]?(?:https?:)?//""", text), path
    for r in refs:
        assert (WEB / r.lstrip("/")).is_file(), r
    imports = re.findall(r"""from\s+'([^']+)'""", js_sources())
    for imp in imports:
        assert imp.startswith(("./", "/vendor/")), imp
        if imp.startswith("/"):
            assert (WEB / imp.lstrip("/")).is_file(), imp
    assert (WEB / "vendor" / "qrcode-generator" / "LICENSE").read_text().count("MIT License") == 1


def test_manifest_icons_exist_with_their_sizes() -> None:
    manifest = json.loads((WEB / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    for icon in manifest["icons"]:
        path = WEB / icon["src"].lstrip("/")
        data = path.read_bytes()
        if icon["type"] == "image/png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", data[16:24])
            assert icon["sizes"] == f"{width}x{height}"
        else:
            assert icon["type"] == "image/svg+xml" and b"<svg" in data
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
