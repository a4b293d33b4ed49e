"""The console's main flows in a real browser: sign in, API tokens, the kubeconfig, queues in
the admin, and the API docs working with no third-party host."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from playwright.sync_api import Page, Request, expect

from queues.models import Queue, QueueState
from tests.browser.kit import CHROMIUM, MISSING, PASSWORD, log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PODS = "/api/v1/namespaces/default/pods"


def api_status(base_url: str, path: str, token: str) -> int:
    """Return the HTTP status of ``GET path`` sent with ``token`` (as a script would)."""
    request = urllib.request.Request(base_url + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_sign_in_refuses_a_bad_password_then_lands_on_the_console(
    page: Page, live_server: Any, make_user: Callable[..., Any]
) -> None:
    make_user("ada", "admin")
    page.goto(f"{live_server.url}/accounts/login/?next=/admin/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()

    expect(page.get_by_role("alert")).to_contain_text("didn't match")

    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    expect(page).to_have_url(f"{live_server.url}/admin/")
    expect(page.get_by_role("heading", name="Cluster objects")).to_be_visible()


def test_token_from_the_profile_works_until_revoked_there(
    page: Page, live_server: Any, make_user: Callable[..., Any]
) -> None:
    make_user("sam", "submitter", namespaces=("default",))
    log_in(page, live_server.url, "sam")
    expect(page).to_have_url(f"{live_server.url}/")  # signing in lands on the console
    page.goto(f"{live_server.url}/accounts/profile/")

    page.get_by_label("Name:", exact=True).fill("laptop")
    page.get_by_role("button", name="Create token").click()
    token = page.locator("#new-token").inner_text()

    assert api_status(live_server.url, PODS, token) == 200
    page.reload()  # the POST was redirected: a reload issues no second token
    expect(page.locator("#new-token")).to_have_count(0)  # shown once only
    expect(page.get_by_role("row", name="laptop")).to_have_count(1)
    page.get_by_role("row", name="laptop").get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("status")).to_have_text("Token laptop revoked.")
    assert api_status(live_server.url, PODS, token) == 401


def test_downloaded_kubeconfig_names_this_server_and_a_working_token(
    page: Page, live_server: Any, make_user: Callable[..., Any]
) -> None:
    make_user("vera", "viewer", namespaces=("default",))
    log_in(page, live_server.url, "vera", next_url="/accounts/profile/")

    with page.expect_download() as download:
        page.get_by_role("button", name="Download kubeconfig").click()
    config = yaml.safe_load(open(download.value.path()).read())  # noqa: SIM115

    assert download.value.suggested_filename == "kubeconfig-vera.yaml"
    assert config["clusters"][0]["cluster"]["server"].rstrip("/") == live_server.url
    token = config["users"][0]["user"]["token"]
    assert api_status(live_server.url, PODS, token) == 200
    page.goto(f"{live_server.url}/accounts/profile/")
    expect(page.get_by_role("row", name="kubeconfig")).to_contain_text("active")


def test_operator_closes_a_queue_in_the_admin_and_a_viewer_cannot(
    page: Page, live_server: Any, make_user: Callable[..., Any]
) -> None:
    queue = Queue.objects.create(name="research", weight=1)
    make_user("olga", "operator", staff=True)
    make_user("vic", "viewer", staff=True, namespaces=("default",))

    log_in(page, live_server.url, "vic", next_url="/admin/queues/queue/")
    expect(
        page.get_by_role("heading", name="Not allowed")
    ).to_be_visible()  # the console's 403 page
    page.goto(f"{live_server.url}/admin/queues/queue/{queue.pk}/change/")
    expect(
        page.get_by_role("heading", name="Not allowed")
    ).to_be_visible()  # the console's 403 page
    page.context.clear_cookies()

    log_in(page, live_server.url, "olga", next_url="/admin/queues/queue/")
    page.locator(f"input.action-select[value='{queue.pk}']").check()
    page.locator("select[name=action]").select_option("close_queues")
    page.get_by_role("button", name="Go").click()

    expect(page.locator(".messagelist")).to_contain_text("Closing or closed: 1 queue(s).")
    row = page.get_by_role("row", name="research")
    expect(row).to_contain_text("Closed")
    queue.refresh_from_db()
    assert queue.state == QueueState.CLOSED


def test_api_docs_render_every_operation_without_a_third_party(
    page: Page, live_server: Any, settings: Any
) -> None:
    settings.VOLCANO_PUBLIC_API_DOCS = True  # the page and its schema, without signing in
    foreign: list[str] = []
    local = urlsplit(live_server.url).netloc

    def record(request: Request) -> None:
        if urlsplit(request.url).netloc not in (local, ""):
            foreign.append(request.url)

    page.on("request", record)
    # Swagger UI draws only the operations near the window: one tall enough to hold them all.
    page.set_viewport_size({"width": 1280, "height": 20_000})
    # The schema first, then the page (which asks for it too): drf-spectacular loads its
    # extensions lazily and not thread-safely, so two first requests at once can race.
    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json") as response:
        paths = json.load(response)["paths"]
    page.goto(f"{live_server.url}/api/docs/")
    jobs = "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs"
    expect(page.locator(".opblock-summary-path", has_text=jobs).first).to_be_visible()
    operations = sum(len(ops) for ops in paths.values())
    expect(page.locator(".opblock")).to_have_count(operations, timeout=15_000)
    shown = {
        (block.locator(".opblock-summary-method").inner_text().lower(), path)
        for block in page.locator(".opblock").all()
        for path in [block.locator(".opblock-summary-path").get_attribute("data-path")]
    }
    assert shown == {(method, path) for path, ops in paths.items() for method in ops}
    assert foreign == []
