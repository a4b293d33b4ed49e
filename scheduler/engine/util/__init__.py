"""Helpers the actions share: priority queues, node selection, scenario files."""

from __future__ import annotations
