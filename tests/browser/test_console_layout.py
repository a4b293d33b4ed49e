"""The console's layout in a real browser: signing in lands on the Overview, the socket goes
live, a change made elsewhere appears without a reload, themes and a phone's width work."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]


JOB = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: layout-live, namespace: default}
spec:
  minAvailable: 1
  schedulerName: volcano
  tasks:
    - replicas: 1
      name: main
      template:
        spec:
          containers: [{name: main, image: busybox, command: [sleep, "30"]}]
"""


def test_a_job_created_elsewhere_appears_on_the_overview_without_a_reload(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.make_user("lena", "operator")
    sign_in(page, console_server, "lena")
    expect(page).to_have_url(f"{console_server.url}/")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open")
    page.evaluate("window.__sameDocument = true")

    console_server.apply(JOB)  # another process writes: the page hears it over the socket

    expect(page.locator("#overview-jobs")).not_to_contain_text("No jobs yet", timeout=10_000)
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    page.screenshot(path=str(screenshots() / "layout-light.png"))


def test_the_theme_toggle_and_a_phone_width(page: Page, console_server: ConsoleServer) -> None:
    console_server.make_user("theo", "viewer", namespaces=("default",))
    sign_in(page, console_server, "theo")
    page.get_by_role("button", name="Switch light or dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")  # remembered
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#sidebar")).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    expect(page.locator("#sidebar")).to_be_visible()
    page.screenshot(path=str(screenshots() / "layout-phone-dark.png"))
