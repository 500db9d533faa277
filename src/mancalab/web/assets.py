"""The page's own files named by their content, so that a second visit downloads nothing.

Every file under ``static/`` is fetched as ``/static/PATH?v=VERSION``, where VERSION is a
digest of them all: the page names them so, each module's imports are given the same
``?v=`` when it is served, and ``texts.js`` adds it to the language files it fetches (from
its own address). An answer to a request carrying the current VERSION may be kept a year
without asking again (``immutable``); any other is asked again each visit (``no-cache``, a
304 when unchanged). A new mancalab has a new VERSION, so its files are fetched anew. The
page has no build step: this is done when a file is served.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from ..draw.html import LANGUAGES

STATIC = Path(__file__).parent / "static"
KEPT = b"public, max-age=31536000, immutable"
ASKED = b"no-cache"
# a module's relative imports: `from "./x.js"`, `import "./x.js"`, `import("./x.js")`
IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\./[\w./-]+\.js)\2""")
STATIC_URL = re.compile(r'((?:src|href)=")(/static/[^"?]+)(")')
MODULE_NAME = re.compile(r"[\w-]+\.js")


@functools.cache
def version() -> str:
    """A digest of every file under ``static/`` (their paths and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in STATIC.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(STATIC)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@functools.cache
def page(language: str = "en") -> str:
    """index.html with every /static/ address given the version, and the texts of
    ``language`` fetched with the page's first files (not after its modules have run)."""
    text = (STATIC / "index.html").read_text(encoding="utf-8")
    text = text.replace("/static/i18n/en.json", f"/static/i18n/{language}.json")
    return STATIC_URL.sub(lambda m: f"{m[1]}{m[2]}?v={version()}{m[3]}", text)


def language_of(cookie: str | None, accept: str | None) -> str:
    """The language the page will start in, as texts.js chooses it: the one chosen before
    (its cookie), else the browser's first one the page has (Accept-Language), else English."""
    if cookie in LANGUAGES:
        return cookie
    for wanted in (accept or "").split(",")[:20]:
        code = wanted.strip()[:2].lower()
        if code in LANGUAGES:
            return code
    return "en"


@functools.cache
def module(name: str) -> str | None:
    """The module ``js/NAME`` with its relative imports given the version, or None."""
    path = STATIC / "js" / name
    if not MODULE_NAME.fullmatch(name) or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    return IMPORT.sub(lambda m: f"{m[1]}{m[2]}{m[3]}?v={version()}{m[2]}", text)


def cache_control(path: str, query: bytes) -> bytes | None:
    """The Cache-Control of an answer to ``path``?``query``: kept a year when it names the
    current version, asked again otherwise; None for the API."""
    if path != "/" and not path.startswith("/static/"):
        return None
    return KEPT if f"v={version()}".encode() in query.split(b"&") else ASKED
