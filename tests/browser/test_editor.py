"""The YAML editor (ACE, from the django-ace package) in a real browser: every problem the
server finds is marked on its line at once and listed beside the editor; a problem's link
moves the cursor to its line; the policy editor still syncs, saves and previews through it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer
from tests.jobs.manifests_kit import TWO_ERRORS

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

# Two mistakes on two lines, both Volcano's webhook's: minAvailable above the job's replicas
# (line 5) and a queue that does not exist (line 7).


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    console_server.make_user("eddie", "operator")
    return console_server


def _type(page: Page, text: str) -> None:
    """Type ``text`` into the page's code editor as a paste would put it there."""
    page.locator(".code-editor").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)


def test_the_editor_marks_two_errors_at_once(page: Page, cluster: ConsoleServer) -> None:
    sign_in(page, cluster, "eddie", next_url="/submit/?mode=yaml")
    expect(page.locator(".code-editor .ace_gutter-cell").first).to_be_visible()
    _type(page, TWO_ERRORS)

    problems = page.locator("#validation li")
    expect(problems).to_have_count(2, timeout=10_000)
    expect(page.locator("#validation")).to_contain_text("2 problems")
    expect(problems.nth(0)).to_contain_text("line 5")
    expect(problems.nth(1)).to_contain_text("line 7")
    marked = page.locator(".code-editor .ace_gutter-cell.ace_error")
    expect(marked).to_have_count(2)
    expect(marked.nth(0)).to_have_text("5")
    expect(marked.nth(1)).to_have_text("7")
    page.screenshot(path=str(screenshots() / "submit-editor-errors.png"), full_page=True)

    # The form still posts the text the editor holds; a problem's link puts the cursor there.
    assert page.locator("#manifest").input_value() == TWO_ERRORS
    problems.nth(1).get_by_role("link", name="line 7").click()
    assert page.evaluate("document.getElementById('manifest').editor.getCursorPosition().row") == 6

    # Fixed, both marks go at once.
    _type(
        page, TWO_ERRORS.replace("minAvailable: 5", "minAvailable: 1").replace("nowhere", "default")
    )
    expect(page.locator("#validation")).to_contain_text("Valid", timeout=10_000)
    expect(marked).to_have_count(0)


def test_the_policy_editor_syncs_previews_and_saves_through_the_editor(
    page: Page, cluster: ConsoleServer
) -> None:
    sign_in(page, cluster, "eddie", next_url="/scheduler/policy/")
    text = page.locator("#policy-text")
    original = text.input_value()

    # Two mistakes typed in the YAML: both marked on their lines and listed.
    _type(page, original.replace("name: gang", "name: gangg").replace("enqueue,", "enqueue, nope,"))
    marked = page.locator(".code-editor .ace_gutter-cell.ace_error")
    expect(marked).to_have_count(2, timeout=10_000)
    expect(page.locator("#policy-status li")).to_have_count(2)
    expect(page.get_by_role("button", name="Save as new version")).to_be_disabled()

    # The form follows the YAML; a form edit comes back into the editor.
    _type(page, original)
    expect(page.locator("#policy-status")).to_contain_text("Valid", timeout=10_000)
    expect(marked).to_have_count(0)
    page.get_by_role("button", name="Add tier").click()
    page.get_by_label("Plugin to add to tier 3").select_option("overcommit")
    page.locator('[data-op="plugin-add:2"]').click()
    expect(text).to_have_value(re.compile(r"- plugins:\n  - name: overcommit"))
    expect(page.locator(".code-editor .ace_content")).to_contain_text("name: overcommit")

    # Preview (what-if) and save post what the editor holds.
    page.get_by_role("button", name="What-if against the active version").click()
    expect(page.get_by_role("heading", name="Next session, side by side")).to_be_visible()
    page.go_back()
    page.goto(f"{cluster.url}/scheduler/policy/")
    _type(page, original + "- plugins:\n  - name: overcommit\n")
    expect(page.get_by_role("button", name="Save as new version")).to_be_enabled(timeout=10_000)
    page.get_by_label("Comment for this version").fill("typed in the editor")
    page.get_by_role("button", name="Save as new version").click()
    expect(page.get_by_text("typed in the editor")).to_be_visible()
    expect(page.locator(".policy-diff")).to_contain_text("overcommit")
