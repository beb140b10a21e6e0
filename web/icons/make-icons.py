"""Draw the PNG app icons (the same picture as icon.svg) with the standard library only.

Run from anywhere: python web/icons/make-icons.py
"""
import math
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLUE = (0x0A, 0x3F, 0xA8)
NAVY = (0x12, 0x30, 0x6E)
WHITE = (0xFF, 0xFF, 0xFF)
INK = (0x11, 0x11, 0x11)
RED = (0xB0, 0x00, 0x1A)


def in_round_rect(x, y, x0, y0, w, h, r):
    if x < x0 or y < y0 or x > x0 + w or y > y0 + h:
        return False
    cx = min(max(x, x0 + r), x0 + w - r)
    cy = min(max(y, y0 + r), y0 + h - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def rotate(x, y, deg, cx=256.0, cy=256.0):
    a = math.radians(-deg)
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def card(x, y, deg, x0, fill, stroke):
    """Colour of a rotated card (stroke 14 wide, centred on the edge) at (x, y), or None."""
    u, v = rotate(x, y, deg)
    if not in_round_rect(u, v, x0 - 7, 104 + (8 if deg > 0 else 0) - 7, 214, 304, 31):
        return None
    if in_round_rect(u, v, x0 + 7, 104 + (8 if deg > 0 else 0) + 7, 186, 276, 17):
        return fill
    return stroke


def colour(x, y, maskable):
    if maskable:
        # full-bleed background, picture scaled into the safe zone
        x, y = 256 + (x - 256) / 0.72, 256 + (y - 256) / 0.72
        bg = BLUE
    else:
        if not in_round_rect(x, y, 0, 0, 512, 512, 96):
            return None
        bg = BLUE
    c = card(x, y, 10, 196, WHITE, INK)
    if c is not None:
        u, v = rotate(x, y, 10)
        if abs(u - 296) / 50 + abs(v - 257) / 67 <= 1 and c == WHITE:
            return RED
        return c
    c = card(x, y, -12, 118, NAVY, WHITE)
    return c if c is not None else bg


def png(size, maskable=False):
    ss = 3  # supersampling per axis
    scale = 512 / size
    rows = []
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    c = colour((px + (sx + 0.5) / ss) * scale, (py + (sy + 0.5) / ss) * scale, maskable)
                    if c is not None:
                        acc[0] += c[0]; acc[1] += c[1]; acc[2] += c[2]; acc[3] += 255
            n = ss * ss
            a = acc[3] // n
            if a:
                cov = acc[3] / 255
                row += bytes([round(acc[0] / cov), round(acc[1] / cov), round(acc[2] / cov), a])
            else:
                row += b"\0\0\0\0"
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


if __name__ == "__main__":
    (HERE / "icon-192.png").write_bytes(png(192))
    (HERE / "icon-512.png").write_bytes(png(512))
    (HERE / "icon-maskable-512.png").write_bytes(png(512, maskable=True))
