"""The Topology page in a real browser: a two-tier HyperNode tree over forty nodes with gangs
placed in it, light and dark, on a wide screen and a phone; a HyperNode's page, then the page
of a job that landed there, which names the HyperNode back."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

RACKS = {"a1": "spine-a", "a2": "spine-a", "b1": "spine-b", "b2": "spine-b"}
PER_RACK = 10


def _node(name: str, rack: str, spine: str) -> str:
    cpu, memory = ("32", "128Gi") if rack.endswith("1") else ("16", "64Gi")
    gpu = ', nvidia.com/gpu: "4"' if rack == "a1" else ""
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{tb-rack: {rack}, tb-spine: {spine}}}}}
status:
  capacity: {{cpu: "{cpu}", memory: {memory}, pods: "110"{gpu}}}
  allocatable: {{cpu: "{cpu}", memory: {memory}, pods: "110"{gpu}}}"""


def _hyper_node(name: str, tier: int, tier_name: str, members: str, labels: str = "{}") -> str:
    return f"""apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {{name: {name}, labels: {labels}}}
spec:
  tier: {tier}
  tierName: {tier_name}
  members:
{members}"""


def _exact(*names: str, member_type: str = "Node") -> str:
    return "\n".join(
        f"  - {{type: {member_type}, selector: {{exactMatch: {{name: {n}}}}}}}" for n in names
    )


def _job(name: str, *, replicas: int, cpu: str, selector: str, topology: str = "") -> str:
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  minAvailable: {replicas}
  schedulerName: volcano
  {topology}
  tasks:
    - replicas: {replicas}
      name: main
      template:
        metadata: {{annotations: {{volcano.sh/sim-duration: 3600s}}}}
        spec:
          nodeSelector: {{{selector}}}
          containers:
            - {{name: main, image: busybox, resources: {{requests: {{cpu: "{cpu}", memory: 8Gi}}}}}}
"""


@pytest.fixture(scope="module")
def network(console_server: ConsoleServer) -> ConsoleServer:
    nodes = [
        _node(f"tb-{rack}-{i:02d}", rack, spine)
        for rack, spine in RACKS.items()
        for i in range(PER_RACK)
    ]
    hyper_nodes = [
        _hyper_node("tb-rack-a1", 1, "rack",
                    _exact(*(f"tb-a1-{i:02d}" for i in range(PER_RACK)))),
        _hyper_node("tb-rack-a2", 1, "rack",
                    "  - {type: Node, selector: {regexMatch: {pattern: ^tb-a2-}}}"),
        _hyper_node("tb-rack-b1", 1, "rack",
                    "  - {type: Node, selector: {labelMatch: {matchLabels: {tb-rack: b1}}}}"),
        _hyper_node("tb-rack-b2", 1, "rack",
                    "  - {type: Node, selector: {labelMatch: {matchLabels: {tb-rack: b2}}}}",
                    labels="{volcano.sh/network-topology-source: label, tb-rack: b2}"),
        _hyper_node("tb-spine-a", 2, "spine",
                    _exact("tb-rack-a1", "tb-rack-a2", member_type="HyperNode")),
        _hyper_node("tb-spine-b", 2, "spine",
                    _exact("tb-rack-b1", "tb-rack-b2", member_type="HyperNode")),
    ]  # fmt: skip
    console_server.apply("\n---\n".join(nodes + hyper_nodes))
    hard = "networkTopology: {mode: hard, highestTierAllowed: 1}"
    # One node of 24 of 32 cores each: eight of rack a1's ten (the others come once it runs).
    console_server.apply(
        _job("tb-allreduce", replicas=8, cpu="24", selector="tb-rack: a1", topology=hard)
    )
    console_server.make_user("tori", "viewer", namespaces=("default",))
    return console_server


def _shot(page: Page, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)


def test_the_tree_on_a_wide_screen_and_a_phone_then_a_hypernode_and_its_job(
    page: Page, network: ConsoleServer
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, network, "tori", next_url="/topology/")
    tree = page.locator("#hypernode-tree")
    expect(page.get_by_role("link", name="Topology")).to_be_visible()
    for name in ("tb-spine-a", "tb-rack-a1", "tb-rack-b2"):
        expect(tree.get_by_role("link", name=name, exact=True)).to_be_visible()
    # The gangs show up live as the embedded scheduler binds them.
    rack_a1 = tree.locator(".hn-row", has=page.get_by_role("link", name="tb-rack-a1", exact=True))
    expect(rack_a1).to_contain_text("default/tb-allreduce", timeout=30_000)
    expect(rack_a1).to_contain_text("10 nodes")
    # Twelve pods of 12 cores: rack a2 holds ten, a1 two more, so the gang spans spine a.
    network.apply("---\n".join([
        _job("tb-sweep", replicas=12, cpu="12", selector="tb-spine: spine-a"),
        _job("tb-finetune", replicas=6, cpu="8", selector="tb-rack: b1"),
        _job("tb-eval", replicas=4, cpu="4", selector="tb-rack: b2"),
    ]))  # fmt: skip
    spine_a = tree.locator(".hn-row", has=page.get_by_role("link", name="tb-spine-a", exact=True))
    expect(spine_a).to_contain_text("default/tb-sweep", timeout=30_000)
    expect(tree).to_contain_text("regex ^tb-a2-")
    expect(tree).to_contain_text("labels tb-rack=b1")
    expect(tree.locator(".badge-discovered")).to_have_count(1)
    expect(tree).to_contain_text("default/tb-eval", timeout=30_000)
    expect(tree).to_contain_text("default/tb-finetune", timeout=30_000)
    _shot(page, screenshots() / "topology-light-1400.png")

    page.get_by_role("button", name="Switch light or dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    _shot(page, Path("/tmp") / "topology-dark-1400.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    # Nothing wider than the phone: the tree wraps instead of scrolling sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(page, screenshots() / "topology-dark-390.png")
    page.get_by_role("button", name="Switch light or dark theme").click()
    _shot(page, Path("/tmp") / "topology-light-390.png")

    tree.get_by_role("link", name="tb-rack-a1", exact=True).click()
    expect(page.locator("h1")).to_contain_text("tb-rack-a1")
    body = page.locator("#hypernode-body")
    expect(body.locator("#hypernode-nodes tbody tr")).to_have_count(PER_RACK)
    expect(page.locator(".breadcrumb")).to_contain_text("tb-spine-a")
    _shot(page, Path("/tmp") / "topology-hypernode-light-390.png")
    page.set_viewport_size({"width": 1400, "height": 1000})
    _shot(page, Path("/tmp") / "topology-hypernode-light-1400.png")
    body.get_by_role("link", name="default/tb-allreduce").click()
    topology = page.locator("#job-topology")
    expect(topology).to_contain_text("up to tier 1")
    expect(topology.get_by_role("link", name="tb-rack-a1")).to_be_visible()
    _shot(page, Path("/tmp") / "topology-job-light-1400.png")
    topology.get_by_role("link", name="tb-rack-a1").click()
    expect(page.locator("h1")).to_contain_text("tb-rack-a1")
    page.locator("#hypernode-nodes").get_by_role("link", name="tb-a1-00").click()
    expect(page.locator("h1")).to_contain_text("tb-a1-00")
