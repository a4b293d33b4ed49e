"""The operators' queue flow in a real browser: change a weight, watch every queue's deserved
share move in the preview before saving, save, and see the scheduler follow the preview; the
queue tree folds and unfolds through live refreshes and previews a weight in place."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from console.units import amount
from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer, run_console

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]


CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: share-node-0}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: share-a}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: share-b}
spec: {weight: 1}
"""


def _greedy_job(name: str, queue: str) -> str:
    """A job asking for far more than the cluster has: its queue's share is all it can get."""
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  minAvailable: 1
  schedulerName: volcano
  queue: {queue}
  tasks:
    - replicas: 60
      name: main
      template:
        metadata: {{annotations: {{volcano.sh/sim-duration: 3600s}}}}
        spec:
          containers:
            - {{name: main, image: busybox, resources: {{requests: {{cpu: "1", memory: 128Mi}}}}}}
"""


@pytest.fixture(scope="module")
def console_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    """A server of its own: the shares depend on the whole cluster, which the shared server's
    other tests grow (a 120-node fleet), so this flow gets a cluster of exactly one node."""
    yield from run_console(tmp_path_factory.mktemp("queue-console"))


def test_a_weight_change_is_previewed_then_followed_by_the_scheduler(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(CLUSTER)
    console_server.apply(_greedy_job("greedy-a", "share-a"))
    console_server.apply(_greedy_job("greedy-b", "share-b"))
    console_server.make_user("oscar", "operator")
    sign_in(page, console_server, "oscar", next_url="/queues/")
    row = page.locator(
        "#queues-table .qrow", has=page.get_by_role("link", name="share-a", exact=True)
    )
    expect(row).to_contain_text("/", timeout=20_000)
    expect(row.locator(".qquota").first.locator(".bar")).to_be_visible(timeout=20_000)

    page.goto(f"{console_server.url}/queues/share-a/edit/")
    expect(page.locator("#queue-check")).to_contain_text("Change the weight")
    page.get_by_label("Weight").fill("3")
    preview = page.locator("#queue-check table.preview")
    expect(preview).to_be_visible(timeout=10_000)
    edited = preview.locator("tr.edited")
    expect(edited).to_contain_text("1 → 3")
    cell = edited.locator('td[data-resource="cpu"]')
    expect(cell).to_contain_text("→")
    after = float(cell.get_attribute("data-after") or "0")
    other = preview.locator("tr", has=page.get_by_role("rowheader", name="share-b", exact=True))
    expect(other.locator('td[data-resource="cpu"]')).to_contain_text("→")  # b's share shrinks
    assert "weight: 3" in page.locator("#queue-yaml").input_value()  # the YAML followed the form
    page.screenshot(path=str(screenshots() / "queue-preview.png"), full_page=True)

    page.get_by_role("button", name="Save exactly this").click()
    expect(page).to_have_url(f"{console_server.url}/queues/share-a/")
    # The queue's page loads its jobs (the jobs app's) and its share over time (monitoring's).
    expect(page.locator("#queue-jobs")).to_contain_text("Jobs by phase:", timeout=10_000)
    expect(page.locator("#queue-jobs")).to_contain_text("Running 1")
    expect(page.locator("#queue-share-history")).to_contain_text("Share over time")
    # They stay through the page's own live refreshes (each session refreshes the queue's body).
    page.evaluate(
        """() => new Promise((done, fail) => {
             setTimeout(() => fail(new Error("no live refresh of #queue-body in 20 s")), 20000);
             document.addEventListener("htmx:afterSwap",
               (event) => { if (event.detail.elt.id === "queue-body") { done(); } });
           })"""
    )
    expect(page.locator("#queue-jobs")).to_contain_text("Jobs by phase:")
    expect(page.locator("#queue-share-history .chart").first).to_be_visible()
    page.goto(f"{console_server.url}/queues/")
    row = page.locator(
        "#queues-table .qrow", has=page.get_by_role("link", name="share-a", exact=True)
    )
    # The next session computes what the preview said; the page follows without a reload.
    expect(row.locator(".qquota").first).to_contain_text(
        f"/ {amount(after, 'cpu')}", timeout=20_000
    )


TREE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: tree-team}
spec: {weight: 1, parent: root}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: tree-team-x}
spec: {weight: 1, parent: tree-team}
"""

NEXT_REFRESH = """() => new Promise((done, fail) => {
  setTimeout(() => fail(new Error("no live refresh of #queues-table in 20 s")), 20000);
  document.addEventListener("htmx:afterSwap",
    (event) => { if (event.detail.elt.id === "queues-table") { done(); } });
})"""


def test_the_queue_tree_expands_and_previews_a_weight_in_place(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(CLUSTER)
    console_server.apply(_greedy_job("greedy-a", "share-a"))
    console_server.apply(_greedy_job("greedy-b", "share-b"))
    console_server.apply(TREE)
    console_server.make_user("tara", "operator")
    sign_in(page, console_server, "tara", next_url="/queues/")
    child = page.get_by_role("link", name="tree-team-x", exact=True)
    fold = page.locator("details#qt-tree-team > summary")
    expect(child).to_be_visible()
    expect(fold).to_have_accessible_name("1 queue under tree-team")

    fold.click()
    expect(child).to_be_hidden()
    page.mouse.move(0, 0)
    page.evaluate(NEXT_REFRESH)  # the tree is drawn again by the server, unfolded...
    expect(child).to_be_hidden()  # ...and the page folds what the user folded
    fold.click()
    expect(child).to_be_visible()
    page.mouse.move(0, 0)
    page.evaluate(NEXT_REFRESH)
    expect(child).to_be_visible()

    def node(name: str) -> Locator:
        return page.locator(".qrow", has=page.get_by_role("link", name=name, exact=True))

    weight = node("share-b").locator("input.weight-try")
    before = weight.input_value()
    weight.fill(str(int(before) + 2))
    expect(page.locator(".weight-preview")).to_contain_text("Preview, not saved", timeout=10_000)
    # Both greedy queues' deserved cpu moves, marked on their own nodes in the tree.
    expect(node("share-b").locator(".qquota .after").first).to_contain_text("→")
    expect(node("share-a").locator(".qquota .after").first).to_contain_text("→")
    page.screenshot(path=str(screenshots() / "queue-tree-preview.png"), full_page=True)

    page.get_by_role("button", name="Close preview").click()
    # The tree catches up at once: no marks, and the weight is still the saved one.
    expect(page.locator(".weight-preview")).to_have_count(0)
    expect(page.locator(".qquota .after:not(:empty)")).to_have_count(0, timeout=10_000)
    expect(node("share-b").locator("input.weight-try")).to_have_value(before)
    stored = console_server.manage(
        "shell",
        "-c",
        "from queues.models import Queue; print(Queue.objects.get(name='share-b').weight)",
    )
    assert stored.strip().splitlines()[-1] == before
