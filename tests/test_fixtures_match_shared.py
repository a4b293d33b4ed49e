"""The tests read Volcano's examples from ``tests/fixtures/examples``, a copy of the shared
``../shared/examples`` beside the clone, so a clone anywhere runs the same suite. Where the
shared folder is there, the copy must hold every file of it unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

COPY = Path(__file__).resolve().parent / "fixtures" / "examples"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "examples"


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not beside this clone")
def test_the_copy_holds_every_shared_example_unchanged() -> None:
    shared = {p.relative_to(SHARED): p.read_bytes() for p in SHARED.rglob("*") if p.is_file()}
    stale = sorted(str(name) for name, data in shared.items()
                   if not (COPY / name).is_file() or (COPY / name).read_bytes() != data)  # fmt: skip
    assert not stale, f"copy these from {SHARED} into {COPY}: {stale}"
