"""The Quotas page in a real browser: a namespace's ResourceQuota, used against hard, follows
live as objects are created in it; light and dark, desktop and phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

# Its own namespaces, queue and node (tainted): the browser tests share one server.
NAMESPACES = (
    "from core.models import Namespace\n"
    "for name in ('quota-team', 'quota-other'): Namespace.objects.get_or_create(name=name)"
)
INFRA = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: quota-queue}
spec: {weight: 1, reclaimable: true}
---
apiVersion: v1
kind: Node
metadata: {name: quota-node, labels: {quota-test: "yes"}}
spec:
  taints: [{key: quota-test, value: "yes", effect: NoSchedule}]
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
"""
SETUP = """apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: quota-team}
spec:
  hard: {requests.cpu: "4", requests.memory: 8Gi, pods: "4"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: objects, namespace: quota-team}
spec:
  hard: {count/jobs.batch.volcano.sh: "5", services: "2"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: hidden, namespace: quota-other}
spec:
  hard: {pods: "1"}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: quota-train, namespace: quota-team}
spec:
  minAvailable: 3
  schedulerName: volcano
  queue: quota-queue
  tasks:
    - replicas: 3
      name: worker
      template:
        metadata: {annotations: {volcano.sh/sim-duration: 3600s}}
        spec:
          nodeSelector: {quota-test: "yes"}
          tolerations: [{key: quota-test, operator: Exists, effect: NoSchedule}]
          containers:
            - {name: main, image: busybox, resources: {requests: {cpu: "1", memory: 2Gi}}}
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {name: trainer, namespace: quota-team}
spec:
  selector: {app: trainer}
  ports: [{port: 80}]
"""


def test_the_quotas_page_follows_what_the_namespace_uses_live(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.manage("shell", "-c", NAMESPACES)
    console_server.apply(INFRA)
    console_server.apply(SETUP)
    console_server.make_user("quinn", "viewer", namespaces=("quota-team",))
    sign_in(page, console_server, "quinn", next_url="/quotas/")
    region = page.locator("#quotas-table")
    expect(region.get_by_role("heading", name="compute")).to_be_visible()
    expect(region).not_to_contain_text("hidden")  # another namespace's quota
    services = region.locator('[data-quota="quota-team/objects"] tr', has_text="services")
    expect(services).to_contain_text("0 / 2", timeout=20_000)
    page.evaluate("window.__sameDocument = true")

    console_server.apply(SERVICE)
    expect(services).to_contain_text("1 / 2", timeout=20_000)
    cpu = region.locator('[data-quota="quota-team/compute"] tr', has_text="requests.cpu")
    expect(cpu).to_contain_text("3 / 4 cores", timeout=40_000)  # the job's three pods
    assert page.evaluate("window.__sameDocument") is True  # followed live, no reload

    folder = screenshots()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(folder / "quotas-light-1400.png"), full_page=True)
    page.get_by_role("button", name="Switch light or dark theme").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.screenshot(path=str(folder / "quotas-dark-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(folder / "quotas-dark-390.png"), full_page=True)
    page.get_by_role("button", name="Switch light or dark theme").click()
    page.screenshot(path=str(folder / "quotas-light-390.png"), full_page=True)


GUARDED = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: keep-trainers, namespace: guard-team}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: guarded}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: guarded, namespace: guard-team}
spec:
  minAvailable: 2
  schedulerName: volcano
  queue: quota-queue
  tasks:
    - replicas: 2
      name: worker
      template:
        metadata:
          labels: {app: guarded, volcano.sh/cooldown-time: 30m}
          annotations: {volcano.sh/sim-duration: 36000s}
        spec:
          nodeSelector: {quota-test: "yes"}
          tolerations: [{key: quota-test, operator: Exists, effect: NoSchedule}]
          containers:
            - {name: main, image: busybox, resources: {requests: {cpu: "1"}}}
"""


def test_a_jobs_page_and_its_queues_say_what_protects_its_pods(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.manage(
        "shell", "-c", "from core.models import Namespace\n"
        "Namespace.objects.get_or_create(name='guard-team')",
    )  # fmt: skip
    console_server.apply(INFRA)
    console_server.apply(GUARDED)
    console_server.make_user("gus", "operator")
    sign_in(page, console_server, "gus", next_url="/jobs/guard-team/guarded/")
    guards = page.locator("#job-guards")
    expect(guards).to_contain_text(
        "PodDisruptionBudget keep-trainers: 0 disruptions allowed, protects 2 pods from "
        "preemption and reclaim.",
        timeout=60_000,
    )
    expect(guards).to_contain_text("2 pods cool down (volcano.sh/cooldown-time)")
    folder = screenshots()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(folder / "job-guards-light-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("button", name="Switch light or dark theme").click()
    page.screenshot(path=str(folder / "job-guards-dark-390.png"), full_page=True)

    page.goto(f"{console_server.url}/queues/quota-queue/")
    summary = page.locator("#queue-guards")
    expect(summary).to_contain_text("running pods protected by a PodDisruptionBudget")
    expect(summary).to_contain_text("running pods in cool-down")
    page.screenshot(path=str(folder / "queue-guards-dark-390.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.get_by_role("button", name="Switch light or dark theme").click()
    page.screenshot(path=str(folder / "queue-guards-light-1400.png"), full_page=True)


GUARD_CONF = """actions: "enqueue, allocate, gangpreempt, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: pdb
  - name: cdp
  - name: resourcequota
- plugins:
  - name: predicates
  - name: tdm
    arguments:
      tdm.evict.period: 5m
configurations:
- name: gangpreempt
  arguments:
    maxDomains: 3
"""
SAVE_CONF = (
    "from scheduler.services import scheduler_conf_create\n"
    "print(scheduler_conf_create(text={text!r}, comment='guards', activate=False).version)"
)


def test_the_policy_editor_shows_an_actions_arguments(
    page: Page, console_server: ConsoleServer
) -> None:
    """A version not activated (the browser tests share one scheduler), opened in the editor."""
    printed = console_server.manage("shell", "-c", SAVE_CONF.format(text=GUARD_CONF))
    version = printed.split()[-1]  # (the shell may announce its imports first)
    console_server.make_user("polly", "operator")
    sign_in(page, console_server, "polly", next_url=f"/scheduler/policy/?from={version}")
    action = page.locator("#policy-actions li", has_text="gangpreempt")
    action.get_by_text("2 arguments").click()
    arguments = action.locator("table.policy-args")
    expect(arguments.locator("tr", has_text="maxDomains")).to_contain_text("3")
    expect(arguments.locator("tr", has_text="allowWholeBundle")).to_contain_text("default")
    folder = screenshots()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(folder / "policy-action-arguments-light-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("button", name="Switch light or dark theme").click()
    page.screenshot(path=str(folder / "policy-action-arguments-dark-390.png"), full_page=True)
