"""Destructive buttons ask first, and a control marked disabled never acts.

A queue's page holds Close and Delete in one form whose confirmation text sits on each button:
each asks before it acts, Cancel leaves the queue as it was, and Delete on a queue that jobs
still name (``aria-disabled``, its title saying why) does nothing at all.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING),
]

QUEUES = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: confirm-me}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: still-used}
spec: {weight: 1}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: holds-the-queue, namespace: default}
spec:
  minAvailable: 1
  schedulerName: volcano
  queue: still-used
  tasks:
    - replicas: 1
      name: main
      template:
        metadata: {annotations: {volcano.sh/sim-duration: 3600s}}
        spec:
          containers:
            - {name: main, image: busybox, resources: {requests: {cpu: "1", memory: 64Mi}}}
"""


def test_close_and_delete_ask_first_and_cancel_leaves_the_queue(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(QUEUES)
    console_server.make_user("cora", "operator")
    sign_in(page, console_server, "cora", next_url="/queues/confirm-me/")
    dialog = page.locator("dialog.confirm")

    page.get_by_role("button", name="Close", exact=True).click()
    expect(dialog).to_contain_text("Close queue confirm-me?")
    page.screenshot(path=str(screenshots() / "queue-close-confirm.png"))
    dialog.get_by_role("button", name="Cancel").click()
    page.reload()
    expect(page.get_by_role("button", name="Close", exact=True)).to_be_visible()  # still Open

    page.get_by_role("button", name="Delete", exact=True).click()
    expect(dialog).to_contain_text("Delete queue confirm-me?")
    dialog.get_by_role("button", name="Cancel").click()
    page.reload()
    expect(page.get_by_role("heading", name="Queue confirm-me")).to_be_visible()

    page.get_by_role("button", name="Close", exact=True).click()
    dialog.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("button", name="Open", exact=True)).to_be_visible()


def test_a_disabled_delete_does_nothing(page: Page, console_server: ConsoleServer) -> None:
    console_server.apply(QUEUES)
    console_server.make_user("cole", "operator")
    sign_in(page, console_server, "cole", next_url="/queues/still-used/")
    delete = page.get_by_role("button", name="Delete", exact=True)
    expect(delete).to_have_attribute("aria-disabled", "true")

    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST"
            else None)  # fmt: skip
    delete.click(force=True)  # Playwright would wait for it to be enabled; a user just clicks
    delete.focus()
    page.keyboard.press("Enter")  # nor does the keyboard
    page.wait_for_timeout(1000)

    assert posts == []
    expect(page.locator("dialog.confirm")).to_have_count(0)
    page.goto(f"{console_server.url}/queues/still-used/")
    expect(page.get_by_role("heading", name="Queue still-used")).to_be_visible()
