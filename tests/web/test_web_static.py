"""Static checks of web/ (no browser): translation files agree with English,
every key the code asks for exists, the page loads nothing from elsewhere, and
the manifest's icons are there."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
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
PROTOCOL_1_1_ERRORS = ["outcome_unknown"]


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


def js_files() -> list[Path]:
    return sorted((WEB / "js").rglob("*.js"))


def js_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in js_files())


def js_table(name: str) -> dict[str, str | int]:
    """The frozen object `name` of web/js/protocol.js, as {NAME: value}."""
    src = (WEB / "js" / "protocol.js").read_text(encoding="utf-8")
    body = re.search(rf"export const {name} = Object\.freeze\(\{{(.*?)\}}\);", src, re.S)
    assert body, name
    table: dict[str, str | int] = {}
    for key, text, number in re.findall(r"^\s*(\w+): (?:'(\w+)'|(\d+)),", body.group(1), re.M):
        table[key] = text or int(number)
    assert table, name
    return table


def documented_errors_and_closes() -> tuple[set[str], set[int]]:
    """The error codes and close codes docs/protocol-additions.md names."""
    doc = (ROOT / "docs" / "protocol-additions.md").read_text(encoding="utf-8")
    closes = {int(c) for c in re.findall(r"^\| (\d{4}) \|", doc, re.M)}
    socket_errors = doc.split("## WebSocket error codes")[1].split("\n## ")[0]
    errors = set(re.findall(r"^- `([a-z_]+)`", socket_errors, re.M))
    for cell in re.findall(r"^\| \d{3} \| ([^|]+) \|", doc, re.M):
        errors |= set(re.findall(r"`([a-z_]+)`", cell))
    return errors, closes


def test_protocol_js_has_every_documented_error_and_close_code() -> None:
    errors = set(js_table("ErrorCode").values())
    documented, closes = documented_errors_and_closes()
    assert len(documented) > 10 and len(closes) > 5
    assert sorted({*PROTOCOL_ERRORS, *PROTOCOL_1_1_ERRORS, *documented} - errors) == []
    close_codes = js_table("CloseCode")
    assert set(close_codes.values()) == closes | {1000}
    assert len(set(close_codes.values())) == len(close_codes), "one name per close code"
    own = set(js_table("ClientError").values())
    assert not errors & own, "the client's own codes are not wire codes"


def test_every_error_code_has_a_message_in_every_language() -> None:
    codes = [*js_table("ErrorCode").values(), *js_table("ClientError").values()]
    for lang in LANGS:
        d = strings(lang)
        assert [c for c in codes if f"error.{c}" not in d] == [], lang


def test_every_key_the_code_uses_is_in_english() -> None:
    en = by_base(strings("en"))
    src = js_sources()
    used = set(re.findall(r"\bt\('([\w.]+)'", src))
    assert len(used) > 100
    # keys built at run time
    used |= {f"error.{c}" for c in PROTOCOL_ERRORS}
    used |= {f"error.{c}" for c in ("not_found", "bad_name", "busy", "store_unavailable")}
    used |= {f"error.{c}" for c in ("no_room", "bad_code", "offline")}  # errorText(ClientError.*)
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
    for path in [*js_files(), WEB / "css" / "app.css"]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(?:from|import\(|url\()\s*['"]?(?:https?:)?//""", text), path
    for r in refs:
        assert (WEB / r.lstrip("/")).is_file(), r
    for path in js_files():
        for imp in re.findall(r"""from\s+'([^']+)'""", path.read_text(encoding="utf-8")):
            assert imp.startswith(("./", "../", "/vendor/")), imp
            target = WEB / imp.lstrip("/") if imp.startswith("/") else path.parent / imp
            assert target.resolve().is_file(), (path, imp)
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
