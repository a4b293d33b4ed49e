"""vcctl, Volcano's command line, re-created over the console's Kubernetes-style REST API.

It speaks HTTP only (urllib, a bearer token), imports no Django and no model, so the same
code runs as ``manage.py vcctl ...`` beside the server or as ``python -m vcctl ...``
against a remote one. ``cli`` holds the command tree, ``jobs``/``queues`` the commands,
``client`` the HTTP calls, ``printers``/``view`` what gets printed.
"""

from __future__ import annotations

from vcctl.cli import add_arguments, execute, main

__all__ = ["add_arguments", "execute", "main"]
