"""The Metrics pages: who sees them, the range and queues in the URL, CSV, bad parameters."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from monitoring.recorder import HISTORY_TOPIC
from tests.monitoring.helpers import sample, store
from tests.scheduler.factories import make_queue

pytestmark = pytest.mark.django_db
URL = "/monitoring/"


def _figures(html: str) -> dict[str, dict[str, Any]]:
    """Return the figures a page embeds, by chart name."""
    found = re.findall(
        r'<script id="fig-([\w-]+)" type="application/json">(.*?)</script>', html, re.S
    )
    return {name: json.loads(text) for name, text in found}


def _history(minutes: int = 5) -> None:
    now = timezone.now()
    for i in range(minutes * 6):  # a session every 10 s
        store(now - timedelta(seconds=10 * (minutes * 6 - i)),
              sample(queues={"alpha": 0.25, "beta": 0.5}, binds=1, preempt=i % 2,
                     e2e=10.0 + i))  # fmt: skip


@pytest.mark.parametrize("role", ["viewer", "submitter", "operator", "admin"])
def test_every_role_sees_the_metrics_page_with_its_source(
    console_login: Callable[..., Client], role: str
) -> None:
    _history()
    response = console_login(f"u-{role}", role).get(URL)

    assert response.status_code == 200
    html = response.content.decode()
    assert "Source: built-in history" in html
    assert re.search(r'<a class="btn" href="/metrics"[^>]*>Prometheus endpoint</a>', html)
    figures = _figures(html)
    assert set(figures) == {
        "latency-e2e",
        "latency-histogram",
        "latency-actions",
        "latency-plugins",
    }
    assert figures["latency-e2e"]["data"]  # drawn with data


def test_a_user_without_a_role_is_refused_and_a_visitor_signs_in(
    console_login: Callable[..., Client],
) -> None:
    assert console_login("nobody", None).get(URL).status_code == 403
    assert (
        console_login("nobody2", None)
        .get(reverse("monitoring:chart_data", args=["drf-now"]))
        .status_code
        == 403
    )
    response = Client().get(URL)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert Client().get(reverse("monitoring:chart_data", args=["drf-now"])).status_code == 302


def test_the_nav_lights_up_metrics(console_login: Callable[..., Client]) -> None:
    html = console_login("v", "viewer").get(URL).content.decode()

    assert re.search(r'<a href="/monitoring/" aria-current="page" class="active">', html)


def test_no_sessions_in_the_range_says_so(console_login: Callable[..., Client]) -> None:
    html = console_login("v", "viewer").get(URL + "?range=15m").content.decode()

    figure = _figures(html)["latency-e2e"]
    assert figure["data"] == []
    assert figure["layout"]["annotations"][0]["text"] == "No sessions recorded in this range yet"


def test_each_section_draws_its_charts(console_login: Callable[..., Client]) -> None:
    _history()
    client = console_login("v", "viewer")

    expected = {
        "queues": {"queue-allocated", "queue-deserved", "queue-share", "queue-pods"},
        "drf": {"drf-now", "drf-jobs", "drf-queues"},
        "evictions": {"evictions-action", "evictions-queue", "unschedulable"},
    }
    for section, names in expected.items():
        response = client.get(f"{URL}?section={section}&range=1h")
        assert response.status_code == 200
        figures = _figures(response.content.decode())
        assert set(figures) == names
        assert all(f["data"] for f in figures.values()), section


def test_the_queue_filter_in_the_url_keeps_only_those_queues(
    console_login: Callable[..., Client],
) -> None:
    make_queue("alpha")
    make_queue("beta")
    _history()
    client = console_login("v", "viewer")

    html = client.get(f"{URL}?section=queues&range=6h&queue=beta").content.decode()

    allocated = _figures(html)["queue-allocated"]
    assert [t["name"] for t in allocated["data"]] == ["beta"]
    assert re.search(r"<option selected>beta</option>", html)
    assert '<option value="6h" selected>' in html
    both = _figures(client.get(f"{URL}?section=queues&queue=alpha&queue=beta").content.decode())
    assert [t["name"] for t in both["queue-share"]["data"]] == ["alpha", "beta"]


def test_a_custom_range_reads_only_that_time(console_login: Callable[..., Client]) -> None:
    _history()
    now = timezone.now()
    since = (now - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S")
    until = now.strftime("%Y-%m-%dT%H:%M:%S")
    client = console_login("v", "viewer")

    url = reverse("monitoring:chart_data", args=["unschedulable"])
    figure = client.get(f"{url}?range=custom&from={since}&until={until}").json()

    assert 10 <= len(figure["data"][0]["x"]) <= 13  # two minutes of 10-second sessions
    page = client.get(f"{URL}?range=custom&from={since}&until={until}").content.decode()
    assert "data-live" not in page.split('id="metrics-charts"')[1].split(">")[0]  # past: static


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("range=2w", "range"),
        ("range=custom&from=yesterday&until=2026-01-01T00:00", "from"),
        ("range=custom&from=2026-01-02T00:00&until=2026-01-01T00:00", "until"),
        ("range=custom&until=2026-01-01T00:00", "from"),
        ("section=nope", "section"),
        ("resource=%3Cscript%3E", "resource"),
    ],
)
def test_a_bad_parameter_is_named_with_a_400(
    console_login: Callable[..., Client], query: str, field: str
) -> None:
    client = console_login("v", "viewer")

    page = client.get(f"{URL}?{query}")
    data = client.get(reverse("monitoring:chart_data", args=["latency-e2e"]) + f"?{query}")
    as_csv = client.get(
        reverse("monitoring:chart_data", args=["latency-e2e"]) + f"?{query}&format=csv"
    )

    assert page.status_code == 400
    assert f"{field}: " in page.content.decode()
    assert data.status_code == 400
    assert data.json()["field"] == field
    assert as_csv.status_code == 400
    assert as_csv.content.decode().startswith(f"{field}: ")


def test_an_unknown_chart_or_format_is_refused(console_login: Callable[..., Client]) -> None:
    client = console_login("v", "viewer")

    assert client.get(reverse("monitoring:chart_data", args=["nope"])).status_code == 404
    response = client.get(reverse("monitoring:chart_data", args=["drf-now"]) + "?format=xml")
    assert response.status_code == 400
    assert response.json()["field"] == "format"


def test_a_chart_downloads_as_csv(console_login: Callable[..., Client]) -> None:
    _history(minutes=1)
    client = console_login("v", "viewer")

    response = client.get(
        reverse("monitoring:chart_data", args=["evictions-action"]) + "?format=csv&range=15m"
    )

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="evictions-action-15m.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["series", "x", "y"]
    assert {r[0] for r in rows[1:]} == {"preempt"}
    assert sum(int(r[2]) for r in rows[1:]) == 3  # one eviction every other session of six


def test_the_charts_region_refreshes_when_a_session_is_recorded(
    console_login: Callable[..., Client],
) -> None:
    _history(minutes=1)
    client = console_login("v", "viewer")

    html = client.get(URL).content.decode()
    assert f'id="metrics-charts" data-live="{HISTORY_TOPIC}"' in html
    fragment = client.get(URL, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="metrics-charts")
    body = fragment.content.decode()
    assert body.lstrip().startswith('<section id="metrics-charts"')
    assert "<nav" not in body
    assert len(_figures(body)) == 4


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_prometheus_that_does_not_answer_is_said_on_the_page_and_in_the_data(
    console_login: Callable[..., Client], settings: Any
) -> None:
    settings.PROMETHEUS_URL = f"http://127.0.0.1:{_closed_port()}"
    settings.PROMETHEUS_TIMEOUT = 1
    client = console_login("u-viewer", "viewer")

    page = client.get(URL, {"range": "1h"})
    data = client.get(reverse("monitoring:chart_data", args=["latency-e2e"]), {"range": "1h"})
    csv_data = client.get(
        reverse("monitoring:chart_data", args=["latency-e2e"]), {"range": "1h", "format": "csv"}
    )

    assert page.status_code == 502
    html = page.content.decode()
    assert f"Source: Prometheus at {settings.PROMETHEUS_URL}" in html
    assert re.search(r'<ul class="errorlist" role="alert"><li>[^<]*Prometheus', html)
    assert _figures(html) == {}
    assert data.status_code == 502
    assert "Prometheus" in data.json()["error"]
    assert csv_data.status_code == 502
    assert "Prometheus" in csv_data.content.decode()


def test_a_malformed_prometheus_url_names_the_setting_on_the_page(
    console_login: Callable[..., Client], settings: Any
) -> None:
    settings.PROMETHEUS_URL = "localhost:9090"
    response = console_login("u-viewer", "viewer").get(URL)

    assert response.status_code == 502
    html = response.content.decode()
    assert "PROMETHEUS_URL: &#x27;localhost:9090&#x27; is not an http(s) URL" in html
    assert "Source:" not in html


def test_queue_charts_leave_root_out_unless_it_is_picked(
    console_login: Callable[..., Client],
) -> None:
    now = timezone.now()
    for i in range(6):
        store(now - timedelta(seconds=10 * (6 - i)),
              sample(queues={"alpha": 0.25, "root": 0.0}, binds=1))  # fmt: skip
    client = console_login("u-viewer", "viewer")

    default = _figures(client.get(URL, {"section": "queues"}).content.decode())
    picked = _figures(
        client.get(URL, {"section": "queues", "queue": ["alpha", "root"]}).content.decode()
    )

    def names(figures: dict[str, dict[str, Any]]) -> set[str]:
        return {t.get("name", "") for f in figures.values() for t in f["data"]}

    assert any("alpha" in n for n in names(default))
    assert not any("root" in n for n in names(default))
    assert any("root" in n for n in names(picked))
