"""Make the Ethiopic font mancalab ships, so that Amharic never renders as boxes.

Many school machines have no Ethiopic font. mancalab ships Noto Sans Ethiopic (SIL Open Font
Licence 1.1, no reserved name), cut to the Ethiopic blocks: a WOFF2 file for the page (loaded only
when Ethiopic letters are shown, by its ``unicode-range``), a TrueType file that matplotlib
uses for the worksheets, and a WOFF2 file of the four letters of "አማርኛ" alone: every page
names Amharic in the language menu, and a visitor reading another language then loads 2 KB,
not the whole font.

    pip install fonttools brotli
    python tools/subset_ethiopic_font.py /usr/share/fonts/truetype/noto/NotoSansEthiopic-Regular.ttf

The source is Debian's ``fonts-noto-core`` (or github.com/notofonts/ethiopic).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset

ROOT = Path(__file__).resolve().parents[1] / "src" / "mancalab"
# Ethiopic, Ethiopic Supplement, Ethiopic Extended, Ethiopic Extended-A, and the space.
BLOCKS = "U+0020,U+00A0,U+1200-139F,U+2D80-2DDF,U+AB00-AB2F"
NAME = "U+12A0,U+121B,U+122D,U+129B"  # አማርኛ (style.css names the same in its unicode-range)
OUTPUTS = [("woff2", BLOCKS, ROOT / "web" / "static" / "fonts" / "noto-sans-ethiopic.woff2"),
           (None, BLOCKS, ROOT / "data" / "fonts" / "NotoSansEthiopic-Regular.ttf"),
           ("woff2", NAME, ROOT / "web" / "static" / "fonts" / "noto-sans-ethiopic-name.woff2")]


def main(source: str) -> None:
    for flavor, unicodes, target in OUTPUTS:
        options = [source, f"--unicodes={unicodes}", f"--output-file={target}",
                   "--layout-features=*", "--name-IDs=*", "--drop-tables+=DSIG"]
        if flavor:
            options.append(f"--flavor={flavor}")
        subset.main(options)
        print(f"{target}: {target.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
