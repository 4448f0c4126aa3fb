"""Whether a value is another *form* of an accepted BFCL answer rather than a different value.

A ``wrong_value`` case claims "this argument has the wrong value". That claim only holds when the
value means something else: ``start='New York'`` where the answer key has ``'New York City'`` is
the same city, written shorter, and a person reading the instruction would accept it even if
BFCL's string comparison does not. Labelling it FAIL would charge a sound verifier for a
spelling choice. ``near_accepted`` is deliberately broader than BFCL's own comparison: when in
doubt, a candidate wrong value is treated as a form of an accepted one and not constructed.

Forms recognised, for strings: equal after dropping case, spaces and punctuation; one begins or
ends the other (a containment in the middle, "ca" in "Chicago", is no form); an abbreviation made of the other's initials ("NYC", "NY", "LA"); the words of one are
a subset of the other's words after unit and plural spellings are folded ("km" = "kilometers",
"Apple" within "Apple Inc."); equal numbers in text. For numbers: equal, or equal as a percentage
of the other (5 and 0.05). Lists and dicts compare element by element.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

# Abbreviated and spelled forms of the same unit or word, folded to one spelling.
_SAME_WORD = {
    "km": "kilometer", "kms": "kilometer", "kilometre": "kilometer",
    "mi": "mile", "m": "meter", "metre": "meter", "cm": "centimeter", "centimetre": "centimeter",
    "mm": "millimeter", "millimetre": "millimeter", "ft": "foot", "feet": "foot",
    "kg": "kilogram", "kgs": "kilogram", "g": "gram", "lb": "pound", "lbs": "pound",
    "oz": "ounce", "l": "liter", "litre": "liter", "ml": "milliliter",
    "c": "celsius", "f": "fahrenheit", "k": "kelvin",
    "hr": "hour", "hrs": "hour", "h": "hour", "min": "minute", "mins": "minute",
    "sec": "second", "secs": "second", "s": "second", "yr": "year", "yrs": "year",
    "usd": "dollar", "eur": "euro", "gbp": "pound", "st": "street", "ave": "avenue",
    "rd": "road", "dept": "department", "inc": "incorporated", "corp": "corporation",
    "co": "company", "ltd": "limited", "intl": "international", "univ": "university",
    "us": "unitedstates", "usa": "unitedstates", "uk": "unitedkingdom",
}
# Words whose presence does not change what a name refers to ("The Plaza" / "Plaza Hotel").
_FILLER = {"the", "a", "an", "of", "hotel", "city"}
_WORD_RE = re.compile(r"[^\W_]+")  # letters and digits of any script ("거실" is a word)
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _squash(text: str) -> str:
    """Case-folded, letters and digits only."""
    return "".join(_WORD_RE.findall(text.casefold()))


def _word(token: str) -> str:
    token = _SAME_WORD.get(token, token)
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        token = token[:-1]
    return _SAME_WORD.get(token, token)


def _words(text: str) -> set[str]:
    return {_word(t) for t in _WORD_RE.findall(text.casefold())} - _FILLER



def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    return float(cleaned) if _NUMBER_RE.fullmatch(cleaned) else None


def _initials_match(short: str, long: str) -> bool:
    """``short`` is the initials (or their start) of ``long``'s words: "NY" / "New York City"."""
    words = _WORD_RE.findall(long.casefold())
    squashed = _squash(short)
    return len(words) >= 2 and len(squashed) >= 2 and \
        "".join(w[0] for w in words).startswith(squashed)


def _strings_close(a: str, b: str) -> bool:
    sa, sb = _squash(a), _squash(b)
    if sa == sb or not sa or not sb:
        return sa == sb
    short, long = sorted((sa, sb), key=len)
    if len(short) >= 2 and (long.startswith(short) or long.endswith(short)):
        return True
    if _initials_match(a, b) or _initials_match(b, a):
        return True
    wa, wb = _words(a), _words(b)
    if wa and wb and (wa <= wb or wb <= wa):
        return True
    na, nb = _number(a), _number(b)
    return na is not None and nb is not None and _numbers_close(na, nb)


def _numbers_close(a: float, b: float) -> bool:
    return a == b or a == b * 100 or b == a * 100


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _scalar_close(value: Any, option: Any) -> bool:
    if isinstance(value, bool) or isinstance(option, bool):
        return value == option and isinstance(value, bool) and isinstance(option, bool)
    if _is_number(value) and _is_number(option):
        return _numbers_close(float(value), float(option))
    if isinstance(value, str) and isinstance(option, str):
        return _strings_close(value, option)
    if isinstance(value, str) and _is_number(option):
        number = _number(value)
        return number is not None and _numbers_close(number, float(option))
    if _is_number(value) and isinstance(option, str):
        number = _number(option)
        return number is not None and _numbers_close(float(value), number)
    return bool(value == option)


def close_to(value: Any, option: Any) -> bool:
    """Whether ``value`` is ``option`` or another form of it; ``option`` is one answer-key option.

    A dict option holds, per key, a list of acceptable values ("" = may be omitted); a list option
    is compared element by element, so a list missing an element is a different value.
    """
    if isinstance(option, dict):
        if not isinstance(value, dict) or not set(value) <= set(option):
            return False
        for key, opts in option.items():
            choices = opts if isinstance(opts, list) else [opts]
            if key not in value:
                if "" not in choices:
                    return False
            elif not any(close_to(value[key], o) for o in choices if o != ""):
                return False
        return True
    if isinstance(option, list):
        return isinstance(value, list) and len(value) == len(option) and \
            all(close_to(v, o) for v, o in zip(value, option))
    return _scalar_close(value, option)


def near_accepted(value: Any, options: Sequence[Any]) -> bool:
    """Whether ``value`` is any accepted option of an argument, or a form of one."""
    return any(close_to(value, o) for o in options if o != "")
