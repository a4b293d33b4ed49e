"""The Metrics page in a real browser: it draws its charts with data, and each new session
extends them without a reload, keeping the user's zoom."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.kit import CHROMIUM, MISSING, sign_in
from tests.browser.server import ConsoleServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)]

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: metrics-node-0}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: metrics-q}
spec: {weight: 1}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: metrics-job, namespace: default}
spec:
  minAvailable: 1
  schedulerName: volcano
  queue: metrics-q
  tasks:
    - replicas: 2
      name: main
      template:
        metadata: {annotations: {volcano.sh/sim-duration: 3600s}}
        spec:
          containers:
            - {name: main, image: busybox, resources: {requests: {cpu: "1", memory: 128Mi}}}
"""

POINTS = """(name) => {
  const el = document.querySelector(`[data-figure="fig-${name}"]`);
  if (!el || !el.data || !el.data.length) { return 0; }
  return Math.max(...el.data.map((t) => (t.x ? t.x.length : 0)));
}"""


def _points(page: Page, name: str) -> int:
    value: Any = page.evaluate(POINTS, name)
    return int(value)


def test_the_metrics_page_draws_charts_and_sessions_extend_them_live(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(CLUSTER)
    console_server.make_user("mia", "viewer")
    sign_in(page, console_server, "mia", next_url="/monitoring/")
    page.goto(f"{console_server.url}/monitoring/?section=evictions&range=15m")

    expect(page.get_by_text("Source: built-in history")).to_be_visible()
    chart = page.locator('[data-figure="fig-unschedulable"]')
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=20_000)
    page.wait_for_function(f"({POINTS})('unschedulable') >= 2", timeout=20_000)
    # the CSV button sits next to Plotly's own PNG button; nothing uploads to Plotly Cloud
    chart.hover()
    expect(chart.get_by_role("button", name="Download data as CSV")).to_be_attached()
    expect(chart.get_by_role("button", name="Download plot as a PNG")).to_be_attached()
    expect(chart.get_by_role("button", name="Share chart...")).to_have_count(0)
    with page.expect_download() as download:
        chart.get_by_role("button", name="Download data as CSV").click()
    path = download.value.path()
    assert path is not None
    assert Path(path).read_text(encoding="utf-8").splitlines()[0] == "series,x,y"

    # The user zooms in; sessions keep coming (every 0.3 s here) without a reload.
    page.evaluate("window.__same_page = true")
    before = _points(page, "unschedulable")
    # (a live refresh may be swapping the chart at any moment: act on it once it is drawn)
    zoomed = page.wait_for_function("""() => {
      const el = document.querySelector('[data-figure="fig-unschedulable"]');
      if (!el || !el.data || !el.data[0] || !el.data[0].x || !el.data[0].x.length) { return null; }
      const x = el.data[0].x;
      window.Plotly.relayout(el, {"xaxis.range": [x[0], x[x.length - 1]]});
      const range = el.layout && el.layout.xaxis && el.layout.xaxis.range;
      return range ? JSON.stringify(range) : null;
    }""").json_value()
    page.wait_for_function(f"({POINTS})('unschedulable') > {before + 2}", timeout=20_000)

    assert page.evaluate("window.__same_page") is True  # extended in place, not reloaded
    # the chart drawn with more points keeps the user's range (an autorange would not equal it)
    page.wait_for_function(
        """(zoomed) => {
          const el = document.querySelector('[data-figure="fig-unschedulable"]');
          const range = el && el.layout && el.layout.xaxis && el.layout.xaxis.range;
          return range && JSON.stringify(range) === zoomed;
        }""",
        arg=zoomed,
        timeout=10_000,
    )

    page.goto(f"{console_server.url}/monitoring/?section=latency&range=15m")
    latency = page.locator('[data-figure="fig-latency-e2e"]')
    expect(latency.locator(".main-svg").first).to_be_visible(timeout=20_000)
    page.wait_for_function(f"({POINTS})('latency-e2e') >= 1", timeout=20_000)


def test_a_chart_is_never_blank_while_live_refreshes_redraw_it(
    page: Page, console_server: ConsoleServer
) -> None:
    console_server.apply(CLUSTER)
    console_server.make_user("max", "viewer")
    sign_in(page, console_server, "max", next_url="/monitoring/")
    page.goto(f"{console_server.url}/monitoring/?section=evictions&range=15m")
    chart = '[data-figure="fig-unschedulable"]'
    expect(page.locator(chart).locator(".main-svg").first).to_be_visible(timeout=20_000)
    # Sample every frame for four seconds while sessions (every 0.3 s) refresh the card.
    samples = page.evaluate(
        """(chart) => new Promise((done) => {
          let swaps = 0, blank = 0, frames = 0;
          document.addEventListener("htmx:afterSwap", () => { swaps += 1; });
          const end = performance.now() + 4000;
          (function sample() {
            frames += 1;
            const el = document.querySelector(chart);
            if (!el || !el.querySelector(".main-svg")) { blank += 1; }
            if (performance.now() < end) { requestAnimationFrame(sample); }
            else { done({swaps, blank, frames}); }
          })();
        })""",
        chart,
    )
    assert samples["swaps"] >= 2, samples  # the card was refreshed while we watched
    assert samples["blank"] == 0, samples
