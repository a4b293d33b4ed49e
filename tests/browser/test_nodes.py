"""The Nodes pages in a real browser: an operator cordons a node and the next job's pods land
elsewhere, seen live on the other node's page; the heat map of a fleet, light, dark and phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

ZONE = "topology.kubernetes.io/zone"
FLEET = 120


def _node(name: str, *, cpu: int, memory: str, labels: dict[str, str]) -> str:
    pairs = ", ".join(f"{k}: {v}" for k, v in labels.items())
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{{pairs}}}}}
status:
  capacity: {{cpu: "{cpu}", memory: {memory}, pods: "110"}}
  allocatable: {{cpu: "{cpu}", memory: {memory}, pods: "110"}}"""


def _job(name: str, *, replicas: int, cpu: str, selector: dict[str, str]) -> str:
    pairs = ", ".join(f"{k}: {v}" for k, v in selector.items())
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  minAvailable: {replicas}
  schedulerName: volcano
  tasks:
    - replicas: {replicas}
      name: main
      template:
        metadata: {{annotations: {{volcano.sh/sim-duration: 3600s}}}}
        spec:
          nodeSelector: {{{pairs}}}
          containers:
            - {{name: main, image: busybox, resources: {{requests: {{cpu: "{cpu}", memory: 1Gi}}}}}}
"""


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    pair = [_node(f"cordon-{x}", cpu=4, memory="16Gi", labels={"flow": "cordon"}) for x in "ab"]
    sizes = [(8, "32Gi"), (16, "64Gi"), (32, "128Gi")]
    fleet = [
        _node(f"fleet-{i:03d}", cpu=sizes[i % 3][0], memory=sizes[i % 3][1],
              labels={ZONE: f"zone-{'abcd'[i % 4]}", "pool": "fleet"})
        for i in range(FLEET)
    ]  # fmt: skip
    console_server.apply("\n---\n".join(pair + fleet))
    console_server.make_user("opal", "operator")
    return console_server


def _shot(page: Page, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if page.locator("#nodes-heatmap").count():  # drawn again after a live refresh or a resize
        expect(page.locator("#nodes-heatmap .chart .main-svg").first).to_be_visible()
        page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)


def test_cordon_a_node_and_the_next_pods_land_elsewhere(page: Page, cluster: ConsoleServer) -> None:
    sign_in(page, cluster, "opal", next_url="/nodes/cordon-a/")
    expect(page.get_by_role("heading", name="cordon-a")).to_be_visible()
    page.get_by_role("button", name="Cordon", exact=True).click()
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_contain_text("Cordon cordon-a?")
    dialog.get_by_role("button", name="Confirm").click()
    body = page.locator("#node-body")
    expect(body).to_contain_text("Cordoned")
    expect(page.locator("#node-audit")).to_contain_text("unschedulable: False → True")
    expect(page.locator("#node-audit")).to_contain_text("opal")

    page.goto(f"{cluster.url}/nodes/cordon-b/")
    page.evaluate("window.__sameDocument = true")
    cluster.apply(_job("after-cordon", replicas=3, cpu="1", selector={"flow": "cordon"}))
    pods = page.locator("#node-pods tbody tr")
    expect(pods).to_have_count(3, timeout=30_000)  # all three, live, on the other node
    expect(page.locator("#node-pods")).to_contain_text("after-cordon-main-0")
    assert page.evaluate("window.__sameDocument") is True

    page.goto(f"{cluster.url}/nodes/cordon-a/")
    expect(page.locator("#node-pods")).to_contain_text("No pods on this node.")
    page.goto(f"{cluster.url}/nodes/?selector=flow%3Dcordon")
    rows = page.locator("#nodes-table tbody tr")
    expect(rows.filter(has_text="cordon-a")).to_contain_text("0 / 110")
    expect(rows.filter(has_text="cordon-b")).to_contain_text("3 / 110")


def test_the_heat_map_of_a_fleet_light_dark_and_phone(page: Page, cluster: ConsoleServer) -> None:
    jobs = [
        _job(f"fill-{zone}", replicas=replicas, cpu=cpu, selector={ZONE: f"zone-{zone}"})
        for zone, replicas, cpu in (("a", 40, "6"), ("b", 30, "3"), ("c", 12, "2"))
    ]
    cluster.apply("---\n".join(jobs))
    sign_in(page, cluster, "opal", next_url=f"/nodes/%3Fgroup%3D{ZONE}%26sort%3D-cpu")
    chart = page.locator("#nodes-heatmap .chart .main-svg").first
    expect(chart).to_be_visible(timeout=15_000)
    expect(page.locator("#nodes-table")).to_contain_text("fleet-", timeout=15_000)
    expect(page.locator("#nodes-heatmap")).to_contain_text("zone-a (30)")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.wait_for_timeout(500)
    _shot(page, screenshots() / "nodes-heatmap-light.png")

    page.get_by_role("button", name="Switch light or dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.wait_for_timeout(500)
    _shot(page, Path("/tmp") / "nodes-dark.png")

    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(500)
    _shot(page, screenshots() / "nodes-phone-dark.png")
    page.goto(f"{cluster.url}/nodes/?selector=pool%3Dfleet&sort=-cpu")
    page.locator("#nodes-table tbody tr a").first.click()  # the fleet's fullest node
    expect(page.locator("#node-pods")).to_contain_text("fill-", timeout=30_000)
    _shot(page, Path("/tmp") / "node-phone-dark.png")
