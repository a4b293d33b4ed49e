"""The Pods list in a real browser: filtered to Running by its URL, a job's pod appears there
live once it runs, while a pod that no node matches stays out of it (and says why when the
list shows Pending ones)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

# Its own queue and node (tainted, so only these jobs land there): the browser tests share
# one server, and the jobs other tests leave running or waiting must not hold these back.
NODE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: pods-list}
spec: {weight: 1, reclaimable: true}
---
apiVersion: v1
kind: Node
metadata: {name: pods-node, labels: {pods-test: "yes"}}
spec:
  taints: [{key: pods-test, value: "yes", effect: NoSchedule}]
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}"""


def _job(name: str, selector: str = "{pods-test: 'yes'}") -> str:
    return f"""apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  minAvailable: 1
  schedulerName: volcano
  queue: pods-list
  tasks:
    - replicas: 1
      name: main
      template:
        metadata: {{annotations: {{volcano.sh/sim-duration: 3600s}}}}
        spec:
          nodeSelector: {selector}
          tolerations: [{{key: pods-test, operator: Exists, effect: NoSchedule}}]
          containers:
            - {{name: main, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}
"""


def test_the_pods_list_filtered_by_phase_in_the_url_follows_live(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(NODE)
    console_server.make_user("pia", "submitter", namespaces=("default",))
    # (narrowed by name too: the browser tests share one server, and others' pods run there)
    sign_in(page, console_server, "pia", next_url="/pods/?phase=Running&q=podlist-")
    expect(page.get_by_label("Phase")).to_have_value("Running")
    table = page.locator("#pods-table")
    page.evaluate("window.__sameDocument = true")

    console_server.apply(_job("podlist-nowhere", "{disk: none}") + "---\n" + _job("podlist-fits"))
    expect(table.get_by_role("link", name="podlist-fits-main-0")).to_be_visible(timeout=40_000)
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table).to_contain_text("pods-node")
    expect(table).not_to_contain_text("podlist-nowhere-main-0")  # still Pending: not Running
    assert page.evaluate("window.__sameDocument") is True  # followed live, no reload

    # The same list narrowed to Pending says why the other pod waits.
    page.goto(f"{console_server.url}/pods/?phase=Pending&q=podlist-")
    expect(table.get_by_role("link", name="podlist-nowhere-main-0")).to_be_visible()
    why = table.locator("td.why-cell .why")
    expect(why).to_contain_text(re.compile(r"0/\d+ nodes are unavailable"), timeout=20_000)
    expect(why).to_have_attribute("title", re.compile("didn't match Pod's node affinity/selector"))
    page.screenshot(path=str(screenshots() / "pods-light.png"), full_page=True)
