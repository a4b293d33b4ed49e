"""The jobs app's kinds as the API server serves them, registered with the kernel (``register``).

Volcano's CRDs declare the names and printer columns (``config/crd/volcano/bases``:
``kubectl get vcjob`` prints STATUS, minAvailable, RUNNINGS, AGE, and QUEUE when wide).
Submitters write jobs and their bus Commands in their namespaces; ``/status`` is the
controller's (operators may repair it).
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS, SUBMITTERS
from jobs.api.resources import COMMANDS, JOB_EXAMPLE, JOBS
from kube import registry
from kube.registry import AGE, AccessRule, Column, Entry, Invalid

__all__ = ["register"]

JOB_ENTRY = Entry(
    JOBS,
    "job",
    ("vcjob", "vj"),
    columns=(
        Column("STATUS", "string", ".status.state.phase"),
        Column("minAvailable", "integer", ".status.minAvailable"),
        Column("RUNNINGS", "integer", ".status.running"),
        AGE,
        Column("QUEUE", "string", ".spec.queue", priority=1),
    ),
    subresources=("status",),
    apply_order=50,
    console_page="jobs:job_detail",
    # Who submitted, moved or deleted a job (a deleted job's link names them).
    audited_fields=("queue", "min_available", "priority_class_name"),
    example=JOBS.example,
    invalid=Invalid("spec.tasks[0].replicas", -1),
)
COMMAND_ENTRY = Entry(
    COMMANDS,
    "command",
    apply_order=90,
    # A bus command for the job example: a Command's target must exist (jobs.admission).
    example={
        "apiVersion": "bus.volcano.sh/v1alpha1",
        "kind": "Command",
        "metadata": {"name": "abort-1"},
        "action": "AbortJob",
        "target": {"kind": "Job", "name": JOB_EXAMPLE["metadata"]["name"]},
    },
    example_needs=(JOB_EXAMPLE,),
    invalid=Invalid("action", "Explode"),
)

_SUBMITTED = AccessRule(EVERYONE, SUBMITTERS, namespaced=True)


def register() -> None:
    """Serve Job and Command (``JobsConfig.ready``)."""
    registry.register_kind(JOB_ENTRY, access=_SUBMITTED)
    registry.register_kind(COMMAND_ENTRY, access=_SUBMITTED)
    registry.register_access("jobs/status", AccessRule(EVERYONE, OPERATORS, namespaced=True))
