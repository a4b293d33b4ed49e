"""Serve a few files of installed packages as static files: Plotly and the ACE editor.

``/static/plotly/plotly.min.js`` comes from the plotly package, ``/static/ace/<file>`` from
django-ace's build of ACE (the core, the YAML mode and the two themes the console uses).

Why a finder with a list of files: each file lives in its package's data folder beside
megabytes of others (plotly's datasets, ACE's 300 modes, themes and snippets); pointing
``STATICFILES_DIRS`` at those folders would publish (and collect) them all. Nothing is copied
into the repository: a version bump of the package is the only update.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

__all__ = ["ACE_FILES", "ACE_PREFIX", "PLOTLY_PATH", "PackageFilesFinder"]

PLOTLY_PATH = "plotly/plotly.min.js"
_PLOTLY = Path(plotly.__file__).resolve().parent / "package_data"

ACE_PREFIX = "ace"
# What static/console/editor.js loads: ACE itself, YAML highlighting, a light and a dark theme
# (the console's own), and the search box ACE opens on Ctrl-F.
ACE_FILES = (
    "ace.js",
    "mode-yaml.js",
    "theme-chrome.js",
    "theme-tomorrow_night.js",
    "ext-searchbox.js",
)
# Located, not imported: the package's widget module is of no use here.
_ACE_SPEC = importlib.util.find_spec("django_ace")  # a pinned dependency
_ACE = Path(_ACE_SPEC.origin if _ACE_SPEC and _ACE_SPEC.origin else "").resolve().parent
_ACE = _ACE / "static" / "django_ace" / "ace"

# Each served folder: its URL prefix, its place in the package, the files it publishes.
_FOLDERS: tuple[tuple[str, Path, tuple[str, ...]], ...] = (
    ("plotly", _PLOTLY, ("plotly.min.js",)),
    (ACE_PREFIX, _ACE, ACE_FILES),
)


class PackageFilesFinder(BaseFinder):
    """Find the listed files of the installed packages, and nothing else of theirs."""

    def check(self, **kwargs: Any) -> list[Any]:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        prefix, _sep, name = path.partition("/")
        for folder_prefix, source, names in _FOLDERS:
            if prefix == folder_prefix and name in names:
                found = str(source / name)
                return [found] if find_all else found
        return []  # not None: Django's ``finders.find`` would add it to its matches

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, Any]]:
        for prefix, source, names in _FOLDERS:
            storage = _PrefixedStorage(prefix, source)
            for name in names:
                yield name, storage


class _PrefixedStorage(FileSystemStorage):
    """A package folder, listed under its URL prefix by collectstatic."""

    def __init__(self, prefix: str, source: Path) -> None:
        super().__init__(location=str(source))
        self.prefix = prefix
