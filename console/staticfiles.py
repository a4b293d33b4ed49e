"""Serve plotly.min.js from the installed plotly package as ``/static/plotly/plotly.min.js``.

Why a finder: the file lives in the package's data folder beside megabytes of datasets and
templates; pointing ``STATICFILES_DIRS`` at that folder would publish (and collect) them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

__all__ = ["PLOTLY_PATH", "PlotlyFinder"]

PLOTLY_PATH = "plotly/plotly.min.js"
_SOURCE = Path(plotly.__file__).resolve().parent / "package_data"


class PlotlyFinder(BaseFinder):
    """Find the one file the console needs from the plotly package."""

    storage = FileSystemStorage(location=str(_SOURCE))

    def check(self, **kwargs: Any) -> list[Any]:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        if path != PLOTLY_PATH:
            return [] if find_all else None
        found = str(_SOURCE / "plotly.min.js")
        return [found] if find_all else found

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, Any]]:
        yield "plotly.min.js", _PrefixedStorage()


class _PrefixedStorage(FileSystemStorage):
    """The package folder, listed under ``plotly/`` by collectstatic."""

    prefix = "plotly"

    def __init__(self) -> None:
        super().__init__(location=str(_SOURCE))
