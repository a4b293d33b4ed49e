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


PAGES = ("/", "/jobs/", "/submit/", "/workflows/", "/queues/", "/nodes/", "/scheduler/policy/",
         "/scheduler/policy/versions/", "/metrics/", "/audit/")  # fmt: skip


FITS = """el => {
  const ctx = document.createElement("canvas").getContext("2d");
  const style = getComputedStyle(el);
  ctx.font = style.font;
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return [ctx.measureText(el.options[el.selectedIndex].text).width + padding, el.clientWidth];
}"""


def test_every_page_fits_a_phone_and_the_namespace_switcher_reads_whole(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.make_user("phone-admin", "admin")
    console_server.apply(JOB)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, console_server, "phone-admin")
    switcher = page.locator("#ns-select")
    # The select shows its chosen words whole: their width, its padding and its arrow (16 px)
    # fit in the width the bar gives it (at 9rem it read "All nar").
    text, room = switcher.evaluate(FITS)
    assert text + 16 <= room, f"'All namespaces' needs {text + 16:.0f} px, the switcher has {room}"
    for path in PAGES:
        page.goto(f"{console_server.url}{path}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width} px wide on a 390 px phone"
