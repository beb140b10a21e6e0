"""Static checks of web/ (no browser): translation files agree with English,
every key the code asks for exists, the page loads nothing from elsewhere, and
the manifest's icons are there."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from tests.web.js_source import js_files, protocol_table

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
LANGS = ("en", "ar", "id")
PLURAL = re.compile(r"\.(zero|one|two|few|many|other)$")


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


# The plural categories of Intl.PluralRules (CLDR) for each language; the Node
# test tests/web/js/i18n.test.mjs checks these against Intl itself.
PLURAL_CATEGORIES = {
    "en": {"one", "other"},
    "ar": {"zero", "one", "two", "few", "many", "other"},
    "id": {"other"},
}


def counted(d: dict[str, str]) -> set[str]:
    return {PLURAL.sub("", k) for k in d if PLURAL.search(k)}


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translations_have_the_same_keys_and_placeholders_as_english(lang: str) -> None:
    """Every key in all three files, counted in all or in none, each with the
    same set of placeholders (over all its plural forms: an Arabic "two" may
    say the number in words)."""
    en, other = strings("en"), strings(lang)
    en_base, other_base = by_base(en), by_base(other)
    assert sorted(set(en_base) - set(other_base)) == [], "missing"
    assert sorted(set(other_base) - set(en_base)) == [], "not in English"
    assert counted(other) == counted(en), "counted in one language, not in the other"
    for base, texts in other_base.items():
        assert placeholders(texts) == placeholders(en_base[base]), base


@pytest.mark.parametrize("lang", LANGS)
def test_counted_keys_have_every_plural_category_of_their_language(lang: str) -> None:
    d = strings(lang)
    for base in counted(d):
        forms = {k.rsplit(".", 1)[1] for k in d if PLURAL.search(k) and PLURAL.sub("", k) == base}
        assert forms == PLURAL_CATEGORIES[lang], (lang, base)
        assert base not in d, (lang, base, "a counted key has no bare form")
        texts = [d[f"{base}.{c}"] for c in forms]
        assert any("{count}" in t for t in texts), (lang, base, "counted by {count}")


def term_table() -> list[tuple[str, str, str]]:
    """The rows of the game-term table in docs/web-client.md: (en, ar, id)."""
    doc = (ROOT / "docs" / "web-client.md").read_text(encoding="utf-8")
    section = doc.split("### Game terms")[1].split("\n#")[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and line.startswith("|") and not set(cells[0]) <= {"-", " "}:
            rows.append((cells[0], cells[1], cells[2]))
    return rows[1:]  # the header


def test_the_documented_game_terms_are_the_ones_the_translations_use() -> None:
    rows = term_table()
    assert len(rows) >= 12
    files = {lang: " ".join(strings(lang).values()).lower() for lang in LANGS}
    for row in rows:
        for lang, term in zip(LANGS, row, strict=True):
            for variant in re.sub(r"\s*\(.*?\)", "", term).split(" / "):
                assert variant.strip("«»").lower() in files[lang], (lang, variant)


def test_indonesian_uses_the_rule_sheet_terms() -> None:
    """The sheet says menyerukan (call crisp), bandar (dealer), tumpukan ambil
    (stock), intip (the Jack's look); and "kamu" throughout."""
    d = strings("id")
    text = " ".join(d.values()).lower()
    for wrong in ("memanggil", "panggil", "pembagi", "membagi", "aku", "giliranku", "kartuku"):
        assert not re.search(rf"\b{wrong}\b", text), wrong
    bare = [k for k, v in d.items() if re.search(r"\btumpukan\b(?! (ambil|buangan))", v.lower())]
    assert bare == [], bare
    for term in ("menyerukan", "bandar", "tumpukan ambil", "intip"):
        assert term in text, term


def js_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in js_files())


# protocol.js's error codes and close codes against the server's and the documents:
# test_web_vocabulary.py.


def test_every_error_code_has_a_message_in_every_language() -> None:
    codes = [*protocol_table("ErrorCode").values(), *protocol_table("ClientError").values()]
    for lang in LANGS:
        d = strings(lang)
        assert [c for c in codes if f"error.{c}" not in d] == [], lang


def test_every_key_the_code_uses_is_in_english() -> None:
    en = by_base(strings("en"))
    src = js_sources()
    used = set(re.findall(r"\b(?:t|msg)\('([\w.]+)'", src))
    assert len(used) > 100
    # keys built at run time
    for table in ("ErrorCode", "ClientError"):  # errorMessage(code): `error.${code}`
        used |= {f"error.{c}" for c in protocol_table(table).values()}
    used |= {f"conn.{s}" for s in ("open", "connecting", "reconnecting", "replaced", "idle")}
    used |= {f"slot.{s}{cap}" for s in protocol_table("Slot").values() for cap in ("", "Cap")}
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
