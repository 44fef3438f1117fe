"""Draw the app's PNG icons from src/weimaque/web/icons/icon.svg (docs/web.md "Installed").

Chrome installs a web app only with PNG icons of 192 and 512 pixels; iOS takes a 180 pixel
``apple-touch-icon``. Each is the SVG drawn by Debian's Chromium (the browser of the tests,
through Playwright), with the card fonts of the page (Noto Serif CJK). Run it after changing
the SVG, and commit the PNGs:

    python tools/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "src" / "weimaque" / "web" / "icons"
#: The PNGs drawn, by name, and their side in pixels.
SIZES = {"icon-192.png": 192, "icon-512.png": 512, "apple-touch-icon.png": 180}
CHROMIUM = "/usr/bin/chromium"


def main() -> None:
    """Draw every PNG of :data:`SIZES` from the SVG."""
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    page_html = (
        "<style>html, body { margin: 0; } svg { display: block; width: 100vw; height: 100vh; }"
        f"</style>{svg}"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, side in SIZES.items():
            page = browser.new_page(viewport={"width": side, "height": side})
            page.set_content(page_html)
            page.evaluate("document.fonts.ready")
            page.screenshot(path=str(ICONS / name))
            page.close()
            print(f"{ICONS / name}: {side}x{side}")
        browser.close()


if __name__ == "__main__":
    main()
