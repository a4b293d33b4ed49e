"""``python -m vcctl job list ...``: the CLI without Django, for remote servers."""

from __future__ import annotations

import sys

from vcctl.cli import main

sys.exit(main())
