"""Account names that people can tell apart, and passwords that are not on every guesser's
list.

A name is a player's name (``records.check_name``), normalised to NFKC, holding at least one
letter or digit, no invisible character (Unicode's default-ignorable code points and the
blank Braille pattern), at most ``MARKS`` combining marks on a character, and letters of one
script (Han with Hiragana, Katakana or Hangul counts as one). Two names are the same name
when their **keys** are equal: each character replaced by the Latin letter it looks like
(Unicode's confusables, from ``confusable_homoglyphs``), case-folded (``str.casefold``),
spaces and ``-_.'`` left out. The reserved words ("Computer", "Guest" with any number, the
level names) are refused in any look-alike, as keys.

A password is refused when zxcvbn rates it 0 (fewer than a thousand guesses: "password",
"12345678", "qwertyuiop", the name itself).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from ..core import MancalabError
from .errors import InvalidError
from ..players import LEVELS
from ..records import check_name

MARKS = 2  # combining marks on one character at most (Amharic and Vietnamese need two)
RESERVED = {"computer", "anonymous", "a", "b", "bot", "admin", "administrator", "mancalab",
            "server", "system", "spectator", "nobody", *LEVELS}
GUEST = re.compile(r"guest\d*")  # the names the server gives guests ("Guest 0042")
SCRIPTS_TOGETHER = ({"HAN", "HIRAGANA", "KATAKANA"}, {"HAN", "HANGUL"})
IGNORED_IN_KEYS = " -_.'"
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), and U+2800 BRAILLE
# PATTERN BLANK, which is drawn as nothing
INVISIBLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
             (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
             (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
             (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
             (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
WEAKEST_PASSWORD = 1  # zxcvbn's score a password needs at least (0..4)


def _invisible(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in INVISIBLE)


@functools.lru_cache(maxsize=4096)
def _looks_like(char: str) -> str:
    """The ASCII character ``char`` looks like, or ``char`` itself."""
    from confusable_homoglyphs import confusables

    if char.isascii():
        return char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    for entry in found:
        for glyph in entry["homoglyphs"]:
            if len(glyph["c"]) == 1 and glyph["c"].isascii():
                return glyph["c"]
    return char


def name_key(name: str) -> str:
    """The key two names are the same name by: look-alikes, case and separators aside."""
    text = unicodedata.normalize("NFKC", name)
    latin = "".join(_looks_like(c) for c in text)
    return "".join(c for c in latin.casefold() if c not in IGNORED_IN_KEYS)


def key_digest(name: str) -> str:
    """What the server keeps of a name's key (a deleted account's name is held back by it)."""
    return hashlib.sha256(name_key(name).encode()).hexdigest()


def check_account_name(name: object) -> str:
    """An account's name, normalised (NFKC); MancalabError naming what is wrong."""
    text = unicodedata.normalize("NFKC", check_name(name))
    text = " ".join(text.split())  # one space between words, as shown
    hidden = [c for c in text if _invisible(c)]
    if hidden:
        raise InvalidError(f"a name must not hold invisible characters (it holds "
                           f"U+{ord(hidden[0]):04X})", code="name_unclear")
    if not any(unicodedata.category(c)[0] in "LN" for c in text):
        raise InvalidError("a name needs at least one letter or digit", code="name_unclear")
    run = 0
    for char in unicodedata.normalize("NFD", text):  # an accented letter's accent counts
        run = run + 1 if unicodedata.combining(char) or unicodedata.category(char) == "Me" \
            else 0
        if run > MARKS:
            raise InvalidError(f"a name has at most {MARKS} accents or marks on a letter",
                               code="name_unclear")
    _one_script(text)
    key = name_key(text)
    if key in RESERVED or GUEST.fullmatch(key):
        raise InvalidError(f"the name {text!r} is reserved (or looks like a reserved word): "
                           "choose another", code="name_reserved", name=text)
    return text


def _one_script(text: str) -> None:
    from confusable_homoglyphs import categories

    scripts = categories.unique_aliases(text) - {"COMMON", "INHERITED"}
    if len(scripts) > 1 and not any(scripts <= together for together in SCRIPTS_TOGETHER):
        raise InvalidError(f"a name is written in one script, not {len(scripts)} "
                           f"({', '.join(sorted(s.title() for s in scripts))})",
                           code="name_unclear")


def check_password(password: object, name: str | None = None) -> str:
    """A password of 8 to 200 characters that zxcvbn does not rate among the most guessed;
    MancalabError otherwise."""
    from zxcvbn import zxcvbn

    low, high = PASSWORD_LENGTHS
    if not isinstance(password, str) or not low <= len(password) <= high:
        raise MancalabError(f"a password has {low} to {high} characters")
    if zxcvbn(password[:100], user_inputs=[name] if name else [])["score"] < WEAKEST_PASSWORD:
        raise InvalidError("this password is among the first a guesser tries: choose a "
                           "longer one, a few words for instance", code="weak_password")
    return password


PASSWORD_LENGTHS = (8, 200)  # a longer one would only cost hashing time
