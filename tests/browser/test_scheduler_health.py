"""The scheduler's health page in a real browser: the embedded scheduler is scheduling and
leads; a queue no job can enter appears live, and its link opens the queue's editor."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: health-starved}
spec:
  weight: 1
  capability: {cpu: "0", memory: 1Gi}
"""


def test_the_health_page_says_scheduling_and_links_a_misconfigured_queue(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.make_user("hana", "operator")
    sign_in(page, console_server, "hana", next_url="/scheduler/health/")
    verdict = page.locator("#health-verdict [data-verdict]")
    expect(verdict).to_contain_text(re.compile(r"^Scheduling: last session .* period$"))
    workers = page.locator("#health-workers tbody tr")
    expect(workers.filter(has_text="embedded").filter(has_text="leader")).to_have_count(1)
    expect(page.locator("#health-leader code")).not_to_be_empty()

    page.mouse.move(0, 0)  # a live region under the pointer holds still until it leaves
    console_server.apply(QUEUE)  # the page hears the queue's write and lists it
    finding = page.locator("#health-problems li", has_text="Queue health-starved")
    expect(finding).to_contain_text("cpu capability of 0", timeout=20_000)
    finding.get_by_role("link", name="Edit the queue").click()
    expect(page).to_have_url(re.compile(r"/queues/health-starved/edit/$"))
