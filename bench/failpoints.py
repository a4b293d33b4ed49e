"""Failpoint cost: ``python bench/failpoints.py``.

Prints the cost of one ``failpoints.hit`` when nothing is armed (every bind and every job pass
calls it) and when another failpoint is armed, next to a bare function call, in nanoseconds.
"""

from __future__ import annotations

import os
import sys
import timeit
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")

import django

django.setup()

from kube import failpoints  # noqa: E402

N = 2_000_000


def _noop(name: str, subject: str = "") -> None:
    return None


def per_call(stmt: str, **names: object) -> float:
    """Return nanoseconds per evaluation of ``stmt`` (best of five)."""
    timer = timeit.Timer(stmt, globals=names)
    return min(timer.repeat(5, N)) / N * 1e9


def main() -> None:
    failpoints.clear()
    bare = per_call("noop('bind.node', 'node-1')", noop=_noop)
    off = per_call("hit('bind.node', 'node-1')", hit=failpoints.hit)
    failpoints.arm(failpoints.Armed("controller.job-read", "delay"))
    other = per_call("hit('bind.node', 'node-1')", hit=failpoints.hit)
    failpoints.clear()
    print(f"bare call          {bare:6.1f} ns")
    print(f"hit, none armed    {off:6.1f} ns")
    print(f"hit, other armed   {other:6.1f} ns")


if __name__ == "__main__":
    main()
