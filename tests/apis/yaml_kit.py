"""Hostile YAML the parsing, API and upload tests all send."""

from __future__ import annotations

# "Billion laughs": a few hundred bytes of aliases that would expand to 9**9 nodes.
LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]"
        for i in range(8)
    ]
)
