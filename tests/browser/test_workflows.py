"""Workflows in a real browser: a JobFlow submitted from the Submit page runs on the embedded
scheduler while its page draws the DAG going green step by step, without a reload; a CronJob
submitted from Volcano's example is run by hand from the CronJobs page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

NODES = "\n---\n".join(
    f"""apiVersion: v1
kind: Node
metadata: {{name: wf-node-{i}}}
status:
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}"""
    for i in range(2)
)


def _template(name: str) -> str:
    # Four real seconds a step at 60x: each state stays long enough for the page to show it.
    return f"""apiVersion: flow.volcano.sh/v1alpha1
kind: JobTemplate
metadata: {{name: {name}}}
spec:
  minAvailable: 1
  tasks:
    - replicas: 1
      name: {name}
      policies: [{{event: TaskCompleted, action: CompleteJob}}]
      template:
        metadata: {{annotations: {{volcano.sh/sim-duration: 240s}}}}
        spec:
          containers:
            - {{name: {name}, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}
"""


PIPELINE = "---\n".join(
    [
        *(_template(n) for n in ("prepare", "train", "evaluate")),
        """\
apiVersion: flow.volcano.sh/v1alpha1
kind: JobFlow
metadata: {name: pipeline}
spec:
  jobRetainPolicy: retain
  flows:
    - name: prepare
    - name: train
      dependsOn: {targets: [prepare]}
    - name: evaluate
      dependsOn: {targets: [train]}
""",
    ]
)


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    console_server.apply(NODES)
    console_server.make_user("wes", "submitter", namespaces=("default",))
    return console_server


def test_a_submitted_flow_goes_green_step_by_step_without_a_reload(
    page: Page, cluster: ConsoleServer
) -> None:
    sign_in(page, cluster, "wes", next_url="/submit/?mode=yaml")
    page.get_by_role("textbox", name="Job manifest (YAML)").focus()  # the code editor
    page.keyboard.insert_text(PIPELINE)
    expect(page.locator("#validation")).to_contain_text("Valid", timeout=10_000)
    page.get_by_role("button", name="Submit").click()

    expect(page).to_have_url(f"{cluster.url}/workflows/default/pipeline/")
    page.evaluate("window.__sameDocument = true")
    prepare, train, evaluate = (page.locator(f'#dag g[data-step="{n}"]')
                                for n in ("prepare", "train", "evaluate"))  # fmt: skip
    expect(prepare).to_have_attribute("data-state", "Running", timeout=20_000)
    expect(evaluate).to_have_attribute("data-state", "Waiting")
    page.screenshot(path=str(screenshots() / "workflow-running.png"), full_page=True)
    expect(prepare).to_have_attribute("data-state", "Completed", timeout=30_000)
    expect(train).to_have_attribute("data-state", "Running", timeout=20_000)
    expect(train).to_have_attribute("data-state", "Completed", timeout=30_000)
    expect(evaluate).to_have_attribute("data-state", "Completed", timeout=40_000)
    expect(page.locator("#flow-state")).to_have_text("Succeed", timeout=10_000)
    assert page.evaluate("window.__sameDocument") is True  # the page followed live
    page.locator('#dag g[data-step="train"] a').click()
    expect(page).to_have_url(f"{cluster.url}/jobs/default/pipeline-train/")


def test_volcanos_cron_job_example_submitted_and_run_by_hand(
    page: Page, cluster: ConsoleServer
) -> None:
    sign_in(page, cluster, "wes")
    page.goto(f"{cluster.url}/submit/?mode=yaml&template=cronjob")
    expect(page.locator(".code-editor .ace_content")).to_contain_text("kind: CronJob")
    page.get_by_role("button", name="Submit").click()
    expect(page).to_have_url(f"{cluster.url}/cronjobs/default/volcano-cronjob-example/")
    expect(page.locator("#cron-body")).to_contain_text("every 5 minutes")
    page.get_by_role("button", name="Suspend").click()
    expect(page.locator("#next-run")).to_contain_text("Suspended")
    page.get_by_role("button", name="Run now").click()
    expect(page.locator("#active-jobs")).to_contain_text("volcano-cronjob-example-manual-")
    page.goto(f"{cluster.url}/cronjobs/")
    expect(page.locator('#cronjobs tr[data-cron="volcano-cronjob-example"]')).to_contain_text(
        "Suspended"
    )
