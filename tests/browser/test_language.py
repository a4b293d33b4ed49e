"""The language switch in a real browser: the console turns Chinese, stays so, and back."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]


def test_the_language_switch_turns_a_page_chinese_and_back(
    page: Page, console_server: ConsoleServer
) -> None:
    """Switch to 简体中文: navigation and heading are Chinese, a reload keeps it; then English."""
    console_server.make_user("lang-op", "operator")
    sign_in(page, console_server, "lang-op", next_url="/queues/")
    nav = page.get_by_role("navigation", name="Console")
    expect(nav.get_by_role("link", name="Overview")).to_be_visible()

    page.locator("#lang-select").select_option("zh-hans")
    page.wait_for_load_state()
    expect(page).to_have_url(f"{console_server.url}/queues/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    nav = page.get_by_role("navigation", name="控制台")
    expect(nav.get_by_role("link", name="概览")).to_be_visible()
    expect(nav.get_by_role("link", name="队列")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_have_text("队列")

    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("队列")
    page.goto(f"{console_server.url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("概览")
    folder = screenshots()
    page.screenshot(path=str(folder / "language-overview-zh-light.png"), full_page=True)
    page.evaluate("document.documentElement.dataset.theme = 'dark'")
    page.set_viewport_size({"width": 390, "height": 844})
    # Chinese words must not push the top bar (or anything) past a phone's width.
    # (charts follow the new width a moment after it changes: Plotly's resize is debounced)
    page.wait_for_function("document.documentElement.scrollWidth <= 390", timeout=5_000)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the Chinese overview is {width} px wide on a 390 px phone"
    page.screenshot(path=str(folder / "language-overview-zh-dark-390.png"), full_page=True)
    # On a phone the switch lives in the user menu.
    expect(page.locator("#lang-select")).to_be_hidden()
    page.locator(".user-menu summary").click()
    expect(page.locator("#lang-select-menu")).to_be_visible()
    page.locator(".user-menu summary").click()
    page.set_viewport_size({"width": 1400, "height": 900})

    page.locator("#lang-select").select_option("en")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_text("Overview")
    page.reload()
    expect(page.get_by_role("navigation", name="Console")).to_be_visible()
