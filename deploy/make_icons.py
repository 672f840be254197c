"""Draw the web app's icons (``src/biriba/server/static/icons/``): a card with a heart on the felt's green.

Run it after changing the drawing (``pip install pillow``, then ``python deploy/make_icons.py``); the PNG
files are kept in the repository, so neither the server nor its tests need Pillow.  The
maskable icon keeps its picture inside the middle 60 %, the circle a phone may cut it to.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent.parent / "src" / "biriba" / "server" / "static" / "icons"
FELT = (20, 83, 45, 255)
RED = (196, 23, 28, 255)
EDGE = (17, 68, 85, 255)


def icon(size: int, maskable: bool) -> Image.Image:
    scale = size / 512
    picture = Image.new("RGBA", (size, size), FELT if maskable else (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    if not maskable:
        draw.rounded_rectangle([0, 0, size - 1, size - 1], radius=96 * scale, fill=FELT)
    room = size * (0.6 if maskable else 0.76)
    height = room
    width = height / 1.4
    left, top = (size - width) / 2, (size - height) / 2
    card = [left, top, left + width, top + height]
    draw.rounded_rectangle(card, radius=width * 0.12, fill="white", outline=EDGE, width=max(2, round(6 * scale)))
    x, y, r = size / 2, top + height * 0.45, width * 0.2
    draw.ellipse([x - 1.95 * r, y - r, x + 0.05 * r, y + r], fill=RED)
    draw.ellipse([x - 0.05 * r, y - r, x + 1.95 * r, y + r], fill=RED)
    draw.polygon([(x - 1.9 * r, y + 0.35 * r), (x + 1.9 * r, y + 0.35 * r), (x, y + 2.3 * r)], fill=RED)
    return picture


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        icon(size, maskable=False).save(HERE / f"icon-{size}.png", optimize=True)
    icon(512, maskable=True).save(HERE / "icon-maskable-512.png", optimize=True)
    icon(180, maskable=True).convert("RGB").save(HERE / "apple-touch-icon.png", optimize=True)


if __name__ == "__main__":
    main()
