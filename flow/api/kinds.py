"""The workflow kinds as the API server serves them, registered with the kernel (``register``).

Volcano's CRDs declare the names and printer columns: ``kubectl get jobflow`` (``jf``) prints
STATUS and AGE; JobTemplates (``jt``) and CronJobs (``cronvcjob``, ``cronvj``) declare no
columns, so kubectl prints their NAME and AGE. Submitters write all three in their namespaces;
``/status`` is the controllers' (operators may repair it).
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS, SUBMITTERS
from flow.api.resources import (
    CRONJOB_EXAMPLE,
    CRONJOBS,
    JOBFLOW_EXAMPLE,
    JOBFLOWS,
    JOBTEMPLATE_EXAMPLE,
    JOBTEMPLATES,
)
from flow.api.schemas import CRONJOB_SCHEMA, JOBFLOW_SCHEMA, JOBTEMPLATE_SCHEMA
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Column, Entry, Invalid

__all__ = ["register"]

# After PriorityClasses and Queues, before the jobs they make (Job is 50): a flow names
# templates, so templates come first. See ``Entry.apply_order``.
JOBTEMPLATE_ENTRY = Entry(
    JOBTEMPLATES,
    "jobtemplate",
    ("jt",),
    subresources=("status",),
    apply_order=44,
    console_page="flow:jobtemplate_detail",
    schema=JOBTEMPLATE_SCHEMA,
    example=JOBTEMPLATE_EXAMPLE,
    invalid=Invalid("spec.tasks[0].replicas", -1),
)
JOBFLOW_ENTRY = Entry(
    JOBFLOWS,
    "jobflow",
    ("jf",),
    columns=(Column("Status", "string", ".status.state.phase"), KUBE_AGE),
    subresources=("status",),
    apply_order=46,
    console_page="flow:flow_detail",
    schema=JOBFLOW_SCHEMA,
    example=JOBFLOW_EXAMPLE,
    example_needs=(JOBTEMPLATE_EXAMPLE,),
    invalid=Invalid("spec.jobRetainPolicy", "forever"),
)
CRONJOB_ENTRY = Entry(
    CRONJOBS,
    "cronjob",
    ("cronvcjob", "cronvj"),
    subresources=("status",),
    apply_order=48,
    console_page="flow:cronjob_detail",
    schema=CRONJOB_SCHEMA,
    example=CRONJOB_EXAMPLE,
    invalid=Invalid("spec.schedule", "every tuesday"),
)

_SUBMITTED = AccessRule(EVERYONE, SUBMITTERS, namespaced=True)
_CONTROLLED = AccessRule(EVERYONE, OPERATORS, namespaced=True)


def register() -> None:
    """Serve JobTemplate, JobFlow and CronJob (``FlowConfig.ready``)."""
    for entry in (JOBTEMPLATE_ENTRY, JOBFLOW_ENTRY, CRONJOB_ENTRY):
        registry.register_kind(entry, access=_SUBMITTED)
        registry.register_access(f"{entry.resource.access}/status", _CONTROLLED)
