"""Whether a pattern is a Go (RE2) regular expression, and Go's words when it is not.

Volcano compiles ``regexMatch.pattern`` with Go's ``regexp.Compile`` and refuses the HyperNode
with Go's error. Python's ``re`` agrees with RE2 on the patterns both accept (a node name
matches the same way), but accepts Perl syntax RE2 leaves out (look-arounds, back-references,
atomic groups, possessive repeats) and words its errors differently: this module refuses the
former and words the latter as Go does (``error parsing regexp: missing closing ): `(a```).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["compiled", "go_regexp_error"]

# Perl constructs RE2 does not support, with the text Go quotes in its error.
_UNSUPPORTED_PERL = re.compile(r"\(\?(?:<?[=!]|>|P=|P>|\(|#)")
_BACK_REFERENCE = re.compile(r"\\[1-9]")
_POSSESSIVE = re.compile(r"(?<!\\)[*+?}]\+")
# Python's messages (re.error.msg), Go's error codes (regexp/syntax ErrorCode) for them, and
# which part of the pattern Go quotes: from Python's position, how many characters (0: the
# whole pattern, -1: to its end); the nested repeat starts one before it.
_CODES: tuple[tuple[str, str, int, int], ...] = (
    ("missing ), unterminated subpattern", "missing closing )", 0, 0),
    ("unbalanced parenthesis", "unexpected )", 0, 0),
    ("unterminated character set", "missing closing ]", 0, -1),
    ("nothing to repeat", "missing argument to repetition operator", 0, 1),
    ("multiple repeat", "invalid nested repetition operator", -1, 2),
    ("bad escape", "invalid escape sequence", 0, 2),
    ("bad character range", "invalid character class range", 0, 3),
    ("the repetition number is too large", "invalid repeat count", 0, -1),
    ("min repeat greater than max repeat", "invalid repeat count", -1, -1),
    ("bad character in group name", "invalid named capture", 0, -1),
    ("missing group name", "invalid named capture", 0, -1),
    ("unknown extension", "invalid or unsupported Perl syntax", 0, 3),
)


def _go(code: str, expression: str) -> str:
    return f"error parsing regexp: {code}: `{expression}`"


def go_regexp_error(pattern: str) -> str:
    """Return Go's reason ``pattern`` does not compile ("" when it does)."""
    if found := _UNSUPPORTED_PERL.search(pattern):
        return _go("invalid or unsupported Perl syntax", found.group(0))
    if found := _BACK_REFERENCE.search(pattern):
        return _go("invalid escape sequence", found.group(0))
    if found := _POSSESSIVE.search(pattern):
        return _go("invalid nested repetition operator", found.group(0))
    try:
        re.compile(pattern)
    except re.error as error:
        message = str(error.msg)
        for python, go, shift, length in _CODES:
            if message.startswith(python):
                start = max(0, (error.pos or 0) + shift)
                quoted = (
                    pattern if length == 0 else pattern[start:] if length < 0
                    else pattern[start : start + length]
                )  # fmt: skip
                return _go(go, quoted)
        return f"error parsing regexp: {message}: `{pattern}`"
    return ""


@lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str] | None:
    """Return ``pattern`` compiled, to match anywhere in a name as Go's ``MatchString`` does;
    None for a pattern Go refuses (Volcano logs it and the member selects no node)."""
    if go_regexp_error(pattern):
        return None
    return re.compile(pattern)
