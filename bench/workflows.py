"""Workflows benchmark: ``python bench/workflows.py`` (``--flows 1000 --steps 5 --crons 1000``).

Target (issue 30): with 1,000 JobFlows of five steps and 1,000 CronJobs stored, the workflow
controllers' pass with nothing due takes ≤ 50 ms, and the workflow pages answer with p95 ≤
200 ms server time.

In a fresh SQLite database: five JobTemplates; N flows of a five-step chain whose first step's
job is Running (so every flow is in flight and nothing else is due: each later step waits for
its target), each first job stored as the controller made it; M CronJobs on ``0 0 1 1 *`` whose
last schedule was just now (none due). Then, in process: the jobflow and cronjob controllers as
the worker runs them (``kube.registry.controllers()``), and the console's Workflows list, a
flow's page, its live fragment and the CronJobs list (the whole Django stack, no network).
Prints wall and CPU milliseconds; exits 1 when a budget is exceeded. Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import percentile, setup_django, timed  # noqa: E402

PASS_BUDGET_MS = 50.0
PAGE_BUDGET_MS = 200.0
CONTROLLERS = ("jobflow", "cronjob")


def _job_spec(name: str) -> dict[str, Any]:
    container = {"name": name, "image": "busybox", "command": ["sleep", "60"],
                 "resources": {"requests": {"cpu": "1"}}}  # fmt: skip
    return {"minAvailable": 1, "schedulerName": "volcano", "queue": "default", "maxRetry": 3,
            "tasks": [{"name": name, "replicas": 1,
                       "template": {"spec": {"containers": [container]}}}]}  # fmt: skip


def seed(flows: int, steps: int, crons: int, now: datetime) -> None:
    """Store the templates, the flows with their first jobs Running, and the cron jobs."""
    from django.db import transaction

    from core.namespaces import ensure_namespaces
    from flow.models import CronJob, FlowPhase, JobFlow, JobTemplate
    from jobs.models import Job, TaskSpec

    ensure_namespaces(["default"])
    names = [f"step-{i}" for i in range(steps)]
    chain = [{"name": names[0]}] + [
        {"name": n, "dependsOn": {"targets": [names[i]]}} for i, n in enumerate(names[1:])
    ]
    with transaction.atomic():
        JobTemplate.objects.bulk_create(
            JobTemplate(namespace="default", name=n, spec=_job_spec(n)) for n in names
        )
        stored = JobFlow.objects.bulk_create(
            JobFlow(namespace="default", name=f"flow-{i:05d}", flows=chain,
                    phase=FlowPhase.RUNNING, running_jobs=[f"flow-{i:05d}-{names[0]}"])
            for i in range(flows)
        )  # fmt: skip
        jobs = Job.objects.bulk_create(
            Job(namespace="default", name=f"{flow.name}-{names[0]}", min_available=1,
                phase="Running", running=1,
                labels={"volcano.sh/createdByJobFlow": f"default.{flow.name}",
                        "volcano.sh/createdByJobTemplate": f"default.{names[0]}"},
                owner_references=[{"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
                                   "name": flow.name, "uid": str(flow.uid), "controller": True,
                                   "blockOwnerDeletion": True}])
            for flow in stored
        )  # fmt: skip
        TaskSpec.objects.bulk_create(
            TaskSpec(job=job, index=0, name=names[0], replicas=1,
                     template={"spec": {"containers": [{"name": "main", "image": "busybox"}]}})
            for job in jobs
        )  # fmt: skip
        CronJob.objects.bulk_create(
            CronJob(namespace="default", name=f"cron-{i:05d}", schedule="0 0 1 1 *",
                    job_template={"spec": _job_spec("report")}, last_schedule_time=now)
            for i in range(crons)
        )  # fmt: skip


def main() -> int:
    """Seed, time and print; exit 1 when a budget is exceeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--crons", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="volcano-bench-flow-") as data_dir:
        setup_django(data_dir)
        from django.contrib.auth.models import Group, User
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext, setup_test_environment

        from kube import registry

        setup_test_environment()
        now = datetime.now(UTC)
        started = time.perf_counter()
        seed(args.flows, args.steps, args.crons, now)
        print(f"stored {args.flows} flows of {args.steps} steps and {args.crons} cron jobs "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
        gc.collect()
        gc.freeze()
        failed = False
        controllers = {c.name: c for c in registry.controllers()}
        print(f"{'controller pass':<32}{'p50 ms':>8}{'p95 ms':>8}{'cpu p50':>8}"
              f"{'budget':>8}{'queries':>9}{'writes':>8}")  # fmt: skip
        from flow.controller.jobflow import forget_last_pass

        def full_pass(reconcile: Any = controllers["jobflow"].reconcile) -> None:
            forget_last_pass()
            reconcile(now)

        wall, cpu, queries = timed(full_pass, args.runs)
        print(f"{'jobflow (full, after a write)':<32}{statistics.median(wall):>8.1f}"
              f"{percentile(wall, 0.95):>8.1f}{statistics.median(cpu):>8.1f}{'':>8}{queries:>9}")  # fmt: skip
        for name in CONTROLLERS:
            reconcile = controllers[name].reconcile
            reconcile(now)  # settle: the first pass may record what the seed left out
            with CaptureQueriesContext(connection) as captured:
                reconcile(now)
            writes = sum(1 for q in captured.captured_queries
                         if not q["sql"].lstrip().upper().startswith("SELECT"))  # fmt: skip
            wall, cpu, queries = timed(functools.partial(reconcile, now), args.runs)
            p95 = percentile(wall, 0.95)
            failed |= p95 > PASS_BUDGET_MS
            print(f"{name:<32}{statistics.median(wall):>8.1f}{p95:>8.1f}"
                  f"{statistics.median(cpu):>8.1f}{PASS_BUDGET_MS:>8.0f}{queries:>9}{writes:>8}")  # fmt: skip
        user = User.objects.create_user("bench")
        user.groups.add(Group.objects.get(name="operator"))
        client = Client()
        client.force_login(user)

        def page(url: str, target: str = "") -> Any:
            headers = {"HX-Request": "true", "HX-Target": target} if target else {}

            def call() -> None:
                response = client.get(url, headers=headers)
                assert response.status_code == 200, (url, response.status_code)

            return call

        cases = [
            ("workflows list", page("/workflows/")),
            ("workflows list: search", page("/workflows/?q=flow-0042")),
            ("a flow's page", page("/workflows/default/flow-00042/")),
            ("a flow's page: fragment", page("/workflows/default/flow-00042/", "flow-body")),
            ("cron jobs list", page("/cronjobs/")),
            ("cron jobs list: fragment", page("/cronjobs/", "crons-table")),
            ("a cron job's page", page("/cronjobs/default/cron-00042/")),
        ]
        print(f"{'page':<32}{'p50 ms':>8}{'p95 ms':>8}{'cpu p50':>8}{'budget':>8}{'queries':>9}")
        for label, call in cases:
            wall, cpu, queries = timed(call, args.runs)
            p95 = percentile(wall, 0.95)
            failed |= p95 > PAGE_BUDGET_MS
            print(f"{label:<32}{statistics.median(wall):>8.1f}{p95:>8.1f}"
                  f"{statistics.median(cpu):>8.1f}{PAGE_BUDGET_MS:>8.0f}{queries:>9}")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
