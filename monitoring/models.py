"""The stored history: one row per (time, resolution) holding every queue's figures at once.

See ``monitoring/__init__.py`` for why one compressed blob per row and how rows are merged.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from monitoring.codec import decode, encode
from monitoring.node_history import NodeHistorySample

__all__ = ["HistorySample", "NodeHistorySample", "decode", "encode"]


class HistorySample(models.Model):
    """Every queue's, job share's and session's figures at one time, at one resolution.

    ``resolution`` is 0 for one session's own sample and N for the merge of every sample of an
    N-second bucket starting at ``at``; ``samples`` counts the sessions merged into it.
    """

    at = models.DateTimeField()
    resolution = models.PositiveIntegerField(default=0, help_text="seconds; 0: one session")
    samples = models.PositiveIntegerField(default=1)
    data = models.BinaryField(help_text="packed figures (monitoring.codec)")

    class Meta:
        indexes = [models.Index(fields=["resolution", "at"], name="history_res_at")]
        ordering = ["resolution", "at"]

    def __str__(self) -> str:
        return f"history {self.at:%Y-%m-%d %H:%M:%S} @{self.resolution}s ({self.samples})"

    def figures(self) -> dict[str, Any]:
        """Return the decoded figures."""
        return decode(self.data)
