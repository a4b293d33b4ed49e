"""What the browser tests share: where Chromium is, why they skip without it, signing in.

Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (``make test``
installs it with apt-get when it can); without it every browser test skips, naming the
missing binary.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page

from tests.browser.server import PASSWORD as SERVER_PASSWORD
from tests.browser.server import ConsoleServer

CHROMIUM = Path("/usr/bin/chromium")
PASSWORD = "a-long-browser-password"

MISSING = (
    f"{CHROMIUM} is missing: the browser tests need Debian's chromium"
    " (apt-get install chromium; `make test` does it as root)"
)


def screenshots() -> Path:
    """Return the folder screenshots go to: a temporary one unless asked for.

    A test run writes nothing into the work tree; ``VOLCANO_SCREENSHOTS=docs/screenshots``
    refreshes the README's pictures on purpose.
    """
    wanted = os.environ.get("VOLCANO_SCREENSHOTS")
    folder = Path(wanted) if wanted else Path(tempfile.gettempdir()) / "volcano-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def log_in(page: Page, base_url: str, username: str, *, next_url: str = "") -> None:
    """Sign in through /accounts/login/ (then follow ``next_url``)."""
    query = f"?next={next_url}" if next_url else ""
    page.goto(f"{base_url}/accounts/login/{query}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()


def sign_in(page: Page, server: ConsoleServer, username: str, *, next_url: str = "/") -> None:
    """Sign in to ``server`` as ``username`` (made with ``server.make_user``)."""
    page.goto(f"{server.url}/accounts/login/?next={quote(next_url, safe='/%')}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(SERVER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    # The pointer leaves where the button was: resting on a table row of the page that opens,
    # it would hold that row's live region still (console.js), as it does for a person.
    page.mouse.move(0, 0)
