"""A GPU node's page in a real browser: its cards with the pods sharing them and its NUMA cells,
wide and on a phone, light and dark; the Nodes list's GPU column beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

NODES = """apiVersion: v1
kind: Node
metadata:
  name: devgpu-a
  labels: {pool: devgpu, devgpu: a}
  annotations:
    volcano.sh/sim-gpus: "count=4,memory=16384,type=NVIDIA-A100,slots=4"
    volcano.sh/sim-numa: "cells=2,policy=single-numa-node,reserved=1"
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: devgpu-b
  labels: {pool: devgpu}
  annotations: {volcano.sh/sim-gpus: "count=2,memory=8192,mode=gpushare"}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: devgpu-c, labels: {pool: devgpu}}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
"""

JOB = """apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: devgpu-llm, namespace: default}
spec:
  minAvailable: 3
  schedulerName: volcano
  tasks:
    - replicas: 3
      name: main
      template:
        metadata: {annotations: {volcano.sh/sim-duration: 3600s}}
        spec:
          nodeSelector: {devgpu: a}
          containers:
            - {name: main, image: cuda, resources: {requests: {cpu: "1", memory: 1Gi}}}
"""

# The job's pods, once running on devgpu-a, get the cards a vGPU bind writes (the scheduler's
# own bind needs the deviceshare policy, which the shared test server does not run): the page
# reads the rows, whichever scheduler placed them.
CARDS = """
import time
from core.models import Pod
from kubelet.sim_devices import card_uuid

for _ in range(120):
    pods = list(Pod.objects.filter(namespace="default", name__startswith="devgpu-llm-main-",
                                   phase="Running", node__name="devgpu-a").order_by("name"))
    if len(pods) == 3:
        break
    time.sleep(0.5)
assert len(pods) == 3, pods
for pod, (card, mib, cores) in zip(pods, ((0, 6144, 30), (0, 4096, 20), (2, 12288, 50))):
    uuid = card_uuid("devgpu-a", card)
    pod.annotations = {**pod.annotations, "volcano.sh/vgpu-ids-new": f"{uuid},NVIDIA,{mib},{cores}:"}
    pod.requests = {**pod.requests, "volcano.sh/vgpu-memory": mib * 1000}
    pod.save(update_fields=["annotations", "requests"])
"""


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    console_server.apply(NODES)
    console_server.apply(JOB)
    console_server.manage("shell", "-c", CARDS)
    console_server.make_user("devi", "viewer", namespaces=("default",))
    return console_server


def _shot(page: Page, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)


def test_a_gpu_nodes_page_wide_and_on_a_phone(page: Page, cluster: ConsoleServer) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, cluster, "devi", next_url="/nodes/devgpu-a/")
    gpus = page.locator("#node-gpus")
    expect(gpus).to_contain_text("10 / 16 GiB")  # card 0: 6 + 4 GiB
    rows = gpus.locator("tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0)).to_contain_text("devgpu-llm-main-0")
    expect(rows.nth(0)).to_contain_text("devgpu-llm-main-1")
    expect(rows.nth(0)).to_contain_text("2/4")
    expect(rows.nth(1)).to_contain_text("idle")
    expect(rows.nth(0).get_by_role("link", name="devgpu-llm-main-0")).to_have_attribute(
        "href", "/jobs/default/devgpu-llm/"
    )
    expect(gpus).to_contain_text("2/4 cards · 22/64 GiB")
    numa = page.locator("#node-numa")
    expect(numa).to_contain_text("topology policy single-numa-node")
    expect(numa.locator("tbody tr")).to_have_count(2)
    _shot(page, screenshots() / "node-gpus-light.png")

    page.get_by_role("button", name="Switch light or dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    _shot(page, Path("/tmp") / "node-gpus-dark.png")

    page.set_viewport_size({"width": 390, "height": 844})
    # On a phone the card's pods stay in view, beside its memory, cores and slots.
    wrap = page.locator("#node-gpus .table-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the card table overflows"
    expect(rows.nth(0)).to_contain_text("50% cores · 2/4 slots")
    _shot(page, Path("/tmp") / "node-gpus-phone-dark.png")
    page.get_by_role("button", name="Switch light or dark theme").click()
    _shot(page, Path("/tmp") / "node-gpus-phone-light.png")


def test_the_nodes_list_with_gpu_nodes(page: Page, cluster: ConsoleServer) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, cluster, "devi", next_url="/nodes/?selector=pool%3Ddevgpu")
    rows = page.locator("#nodes-table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="devgpu-a")).to_contain_text("2/4 cards · 22/64 GiB")
    expect(rows.filter(has_text="devgpu-a")).to_contain_text("NUMA single-numa-node")
    expect(rows.filter(has_text="devgpu-b")).to_contain_text("0/2 cards · 0/16 GiB")
    expect(rows.filter(has_text="devgpu-c")).not_to_contain_text("cards")
    _shot(page, Path("/tmp") / "nodes-gpus-light.png")
    page.get_by_role("button", name="Switch light or dark theme").click()
    _shot(page, screenshots() / "nodes-gpus-dark.png")
    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, Path("/tmp") / "nodes-gpus-phone-dark.png")
    page.get_by_role("button", name="Switch light or dark theme").click()
