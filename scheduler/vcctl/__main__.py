"""``python -m scheduler.vcctl job list ...``: the CLI without Django, for remote servers."""

from __future__ import annotations

import sys

from scheduler.vcctl.cli import main

sys.exit(main())
