"""The scheduler policy editor in a real browser: build a tier, see a bad argument refused at its
field, run the what-if, activate the draft, roll back."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

NODES = "\n---\n".join(
    f"""apiVersion: v1
kind: Node
metadata: {{name: policy-node-{i}}}
status:
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}"""
    for i in range(2)
)


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    console_server.apply(NODES)
    console_server.make_user("olga", "operator")
    return console_server


def test_build_a_tier_run_the_what_if_activate_and_roll_back(
    page: Page, cluster: ConsoleServer
) -> None:
    sign_in(page, cluster, "olga", next_url="/scheduler/policy/")
    expect(page.get_by_role("heading", name="Scheduler policy")).to_be_visible()
    active_before = re.search(r"Active: version (\d+)", page.content())
    assert active_before is not None
    text = page.locator("#policy-text")
    original = text.input_value()

    # 1. Build a third tier holding overcommit, from the form: the YAML follows.
    page.get_by_role("button", name="Add tier").click()
    expect(page.get_by_role("heading", name="Tier 3")).to_be_visible()
    page.get_by_label("Plugin to add to tier 3").select_option("overcommit")
    page.locator('[data-op="plugin-add:2"]').click()
    expect(text).to_have_value(re.compile(r"- plugins:\n  - name: overcommit"))
    page.locator("#plugin-2-0 > summary").click()
    factor = page.locator('input[name="tiers[2].plugins[0].arguments.overcommit-factor"]')

    # 2. A bad argument is refused at its field and cannot be saved; a good one can.
    factor.fill("plenty")
    error = page.locator('[data-error-for="tiers[2].plugins[0].arguments.overcommit-factor"]')
    expect(error).to_contain_text("expected a number")
    expect(page.get_by_role("button", name="Save as new version")).to_be_disabled()
    factor.fill("1.5")
    expect(text).to_have_value(re.compile(r"overcommit-factor: 1.5"))
    expect(page.get_by_role("button", name="Save as new version")).to_be_enabled()

    # 3. What-if against the active version: the page answers while the run goes on.
    page.get_by_role("button", name="What-if against the active version").click()
    expect(page.get_by_role("heading", name="Next session, side by side")).to_be_visible()
    expect(page.locator(".stat .value").first).to_have_text(re.compile(r"^[1-9]\d*$"))  # nodes
    expect(page.get_by_role("link", name="Scenario file (draft)")).to_be_visible()

    # 4. Activate the draft from the what-if: the versions page shows it active and the diff.
    page.get_by_label("Comment").fill("overcommit in its own tier")
    page.get_by_role("button", name="Save the draft and activate it").click()
    expect(page.get_by_text("overcommit in its own tier")).to_be_visible()
    active_row = page.locator("tr.active-row")
    expect(active_row).to_contain_text("overcommit in its own tier")
    expect(page.locator(".policy-diff")).to_contain_text("overcommit-factor")

    # 5. Roll back to the version that was active, confirming in the dialog.
    old = active_before.group(1)
    page.locator(f'button[form="activate-{old}"]').click()
    # A live refresh already on its way when the dialog opened swaps the form and its button
    # for fresh copies: "OK" still submits (the copies now in the page).
    page.evaluate(
        """(v) => {
            const form = document.getElementById("activate-" + v);
            form.replaceWith(form.cloneNode(true));
            const button = document.querySelector(`button[form="activate-${v}"]`);
            button.replaceWith(button.cloneNode(true));
        }""",
        old,
    )
    page.locator('dialog.confirm button[value="yes"]').click()
    expect(page.locator("tr.active-row")).to_contain_text(f"v{old}", timeout=15_000)
    page.goto(f"{cluster.url}/scheduler/policy/")
    expect(page.locator("#policy-text")).to_have_value(original)
