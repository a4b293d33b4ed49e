"""The job console's main flows in a real browser against the live server: submit from the
form and watch the job run, a bad YAML's error at its field, why a job waits, bulk abort of
checked rows and of every job a filter matches."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, screenshots, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]


NODES = "\n---\n".join(
    f"""apiVersion: v1
kind: Node
metadata: {{name: flow-node-{i}}}
status:
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}"""
    for i in range(2)
)


def _job(name: str, *, cpu: str = "1", replicas: int = 1, seconds: int = 600) -> str:
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
        metadata: {{annotations: {{volcano.sh/sim-duration: {seconds}s}}}}
        spec:
          containers:
            - {{name: main, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}
"""


@pytest.fixture(scope="module")
def cluster(console_server: ConsoleServer) -> ConsoleServer:
    console_server.apply(NODES)
    console_server.make_user("sue", "submitter", namespaces=("default",))
    return console_server


def _shot(page: Page, name: str) -> None:
    page.screenshot(path=str(screenshots() / name), full_page=True)


def test_submit_from_the_form_and_watch_it_run_without_a_reload(
    page: Page, cluster: ConsoleServer
) -> None:
    sign_in(page, cluster, "sue", next_url="/submit/")
    page.get_by_label("Name", exact=True).fill("form-flow")
    # Five real seconds at 60x: long enough that a page refreshing live cannot miss Running
    # between two sessions (a one-second run went New → Completed on a busy machine).
    page.get_by_label("Simulated duration").fill("300s")
    expect(page.locator("#form-yaml")).to_contain_text("name: form-flow")
    page.get_by_role("button", name="Submit").click()

    expect(page).to_have_url(f"{cluster.url}/jobs/default/form-flow/")
    page.evaluate("window.__sameDocument = true")
    phase = page.locator("#job-body .stat").first
    expect(phase).to_contain_text("Running", timeout=20_000)
    _shot(page, "job-running.png")
    expect(phase).to_contain_text("Completed", timeout=30_000)
    expect(page.locator("#job-body")).to_contain_text("Succeeded")
    assert page.evaluate("window.__sameDocument") is True  # the page followed live


def test_a_bad_yaml_shows_its_error_at_the_field(page: Page, cluster: ConsoleServer) -> None:
    sign_in(page, cluster, "sue", next_url="/submit/?mode=yaml")
    # The code editor (ACE) takes the text as a paste would put it there.
    page.get_by_role("textbox", name="Job manifest (YAML)").focus()
    page.keyboard.insert_text(_job("bad-yaml").replace("replicas: 1", "replicas: -2"))
    problem = page.locator("#validation li[data-field='spec.tasks[0].replicas']")
    expect(problem).to_be_visible(timeout=10_000)
    expect(problem).to_contain_text("line 8")
    _shot(page, "submit-yaml-error.png")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#manifest")).to_have_value(
        _job("bad-yaml").replace("replicas: 1", "replicas: -2")
    )


def test_a_pending_job_says_why_it_waits(page: Page, cluster: ConsoleServer) -> None:
    cluster.apply(_job("too-big", cpu="64"))
    sign_in(page, cluster, "sue", next_url="/jobs/default/too-big/")
    why = page.locator("#why-waiting")
    expect(why).to_be_visible(timeout=15_000)
    expect(why).to_contain_text("cpu 64")
    _shot(page, "job-why-waiting.png")


def test_bulk_abort_two_jobs(page: Page, cluster: ConsoleServer) -> None:
    cluster.apply(_job("bulk-a", cpu="100m") + "---\n" + _job("bulk-b", cpu="100m"))
    sign_in(page, cluster, "sue", next_url="/jobs/?q=bulk-")
    for name in ("bulk-a", "bulk-b"):
        page.get_by_label(f"Select {name}").check()
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    page.get_by_role("button", name="Abort").click()
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_contain_text("2 selected job(s)")
    dialog.get_by_role("button", name="Confirm").click()
    expect(page.locator("#bulk-result")).to_contain_text("2 of 2 done.")
    rows = page.locator("#jobs-table tbody tr")
    expect(rows.filter(has_text="Abort")).to_have_count(2, timeout=20_000)
    _shot(page, "jobs-list.png")


def test_a_bulk_action_on_a_filtered_set_reports_progress(
    page: Page, cluster: ConsoleServer
) -> None:
    cluster.apply("---\n".join(_job(f"many-{i:02}", cpu="10m") for i in range(25)))
    sign_in(page, cluster, "sue", next_url="/jobs/?q=many-")
    page.get_by_text("Act on all 25 matching jobs").click()
    page.get_by_role("button", name="Abort all").click()
    dialog = page.locator("dialog.confirm")
    expect(dialog).to_contain_text("Abort 25 jobs matching q=many-?")
    dialog.get_by_role("button", name="Confirm").click()
    progress = page.locator("#bulk-all-progress")
    expect(progress).to_contain_text("25 of 25 done.", timeout=30_000)  # two batches: 20, 5
    expect(progress.locator("progress")).to_have_attribute("value", "25")
    rows = page.locator("#jobs-table tbody tr")
    expect(rows.filter(has_text="Abort")).to_have_count(25, timeout=30_000)
    _shot(page, "jobs-bulk-all.png")


def test_checked_rows_stay_checked_through_a_live_refresh(
    page: Page, cluster: ConsoleServer
) -> None:
    cluster.apply(_job("keep-a", cpu="100m") + "---\n" + _job("keep-b", cpu="100m"))
    sign_in(page, cluster, "sue", next_url="/jobs/?q=keep-")
    page.get_by_label("Select keep-a").check()
    # What a click would find the moment the fresh table is in: the row still checked, not
    # only once htmx has settled (an Abort pressed in between found nothing selected).
    page.evaluate("""() => {
        window.checkedAtSwap = [];
        document.addEventListener("htmx:afterSwap", () => {
            window.checkedAtSwap.push(Array.from(
                document.querySelectorAll("#jobs-table input[name=selected]:checked"),
                (box) => box.closest("tr").textContent.includes("keep-a")));
        });
        window.consoleLive.refresh("jobs-table");
    }""")

    page.wait_for_function("window.checkedAtSwap.length > 0")
    assert page.evaluate("window.checkedAtSwap[0]") == [True]
    expect(page.get_by_label("Select keep-a")).to_be_checked()
    expect(page.get_by_label("Select keep-b")).not_to_be_checked()
    expect(page.locator("[data-selected-count]")).to_have_text("1 selected")


PYTORCH = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ptj-flow, namespace: default}
spec:
  runPolicy: {schedulingPolicy: {queue: default}}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - {name: pytorch, image: busybox, resources: {requests: {cpu: 100m}}}
"""


def test_the_jobs_list_shows_kubeflow_jobs_through_its_live_refreshes(
    page: Page, cluster: ConsoleServer
) -> None:
    cluster.apply(PYTORCH)
    sign_in(page, cluster, "sue", next_url="/jobs/?q=ptj-")
    kubeflow = page.locator("#kubeflow-jobs")  # the training app's section, loaded by URL
    expect(kubeflow).to_contain_text("Kubeflow jobs", timeout=15_000)
    expect(kubeflow.locator("#training-table")).to_contain_text("PyTorchJob")
    expect(page.locator("#jobs-table")).to_contain_text("No Volcano job matches these filters.")
    page.evaluate("""() => new Promise((done) => {
        document.addEventListener("htmx:afterSwap", (event) => {
            if (event.detail.elt.id === "jobs-table") { done(); }
        });
        window.consoleLive.refresh("jobs-table");
    })""")
    expect(kubeflow.locator("#training-table")).to_contain_text("ptj-flow")


def test_a_row_under_the_pointer_stays_put_through_live_refreshes(
    page: Page, cluster: ConsoleServer
) -> None:
    cluster.apply(_job("still-a", cpu="100m") + "---\n" + _job("still-b", cpu="100m"))
    sign_in(page, cluster, "sue", next_url="/jobs/?q=still-")
    row = page.locator("#jobs-table tbody tr", has_text="still-a")
    row.hover()
    page.evaluate("""() => {
        window.pointedRow = Array.from(document.querySelectorAll("#jobs-table tbody tr"))
            .find((tr) => tr.textContent.includes("still-a"));
        window.consoleLive.refresh("jobs-table");
        window.consoleLive.refresh("jobs-table");
    }""")
    marker = page.locator("#jobs-table .live-waiting")
    expect(marker).to_have_text("Changes waiting: show")
    page.wait_for_timeout(1500)  # refreshes that arrive meanwhile wait too
    assert page.evaluate("window.pointedRow.isConnected") is True  # the same row, not swapped

    page.mouse.move(5, 5)  # the pointer leaves: the waiting refresh happens
    expect(marker).to_have_count(0)
    page.wait_for_function("!window.pointedRow.isConnected")
    expect(page.locator("#jobs-table tbody tr", has_text="still-a")).to_be_visible()
