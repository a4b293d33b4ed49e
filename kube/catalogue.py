"""Every served resource as discovery, OpenAPI and Table output describe it.

Kubernetes clients learn names from discovery: ``kubectl get vcjob`` works
because the ``jobs`` resource of ``batch.volcano.sh/v1alpha1`` declares the
short names ``vcjob`` and ``vj``. The names, printer columns and categories
here are the ones Volcano's CRDs declare (``config/crd/volcano/bases``) and,
for the core kinds, the ones kube-apiserver serves. Resources come from each
app's ``api`` package, imported late so this module loads with no app ready.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from kube.resources import Resource

__all__ = ["Column", "Entry", "catalogue", "group_versions"]

READ_VERBS = ("get", "list", "watch")
WRITE_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class Column:
    """One printer column: ``jsonPath`` is a dotted path from the object's root."""

    name: str
    type: str
    json_path: str
    priority: int = 0
    format: str = ""
    description: str = ""
    # What kube-apiserver prints for an unset optional field (a pending pod's NODE is <none>).
    empty: str | None = None


# Volcano's CRDs name their age column AGE; kube-apiserver's own printers and a CRD without
# printer columns say Age (kubectl upper-cases both; raw Table readers see the difference).
AGE = Column("AGE", "date", ".metadata.creationTimestamp", description="Time since creation")
KUBE_AGE = Column("Age", "date", ".metadata.creationTimestamp", description="Time since creation")


@dataclass(frozen=True)
class Entry:
    """A served resource and what clients are told about it."""

    resource: Resource
    singular: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    columns: tuple[Column, ...] = (KUBE_AGE,)
    subresources: tuple[str, ...] = ()
    # Every kind's table opens with Name but Event's, which kube-apiserver lists last and
    # wide only (``kubectl get events`` prints LAST SEEN first).
    name_first: bool = True

    @property
    def group_version(self) -> str:
        """Return ``group/version`` (``v1`` for the core group)."""
        resource = self.resource
        return f"{resource.group}/{resource.version}" if resource.group else resource.version

    @property
    def verbs(self) -> tuple[str, ...]:
        """Return the verbs the views serve for this resource."""
        return WRITE_VERBS if self.resource.writable else READ_VERBS


@cache
def catalogue() -> tuple[Entry, ...]:
    """Return every served resource with its discovery names and printer columns."""
    from core.api.nodes import NODES
    from core.api.resources import EVENTS, PODS, PRIORITY_CLASSES
    from core.api.secrets import SECRETS
    from core.namespaces import NAMESPACES
    from jobs.api.resources import COMMANDS, JOBS
    from queues.api.resources import PODGROUPS, QUEUES
    from training.api.resources import MPIJOBS, PYTORCHJOBS, TFJOBS

    return (
        Entry(
            NAMESPACES,
            "namespace",
            ("ns",),
            columns=(Column("Status", "string", ".status.phase"), KUBE_AGE),
        ),
        Entry(
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
        ),
        Entry(
            PODGROUPS,
            "podgroup",
            ("pg", "podgroup-v1beta1"),
            columns=(
                Column("STATUS", "string", ".status.phase"),
                Column("minMember", "integer", ".spec.minMember"),
                Column("RUNNINGS", "integer", ".status.running"),
                AGE,
                Column("QUEUE", "string", ".spec.queue", priority=1),
            ),
        ),
        Entry(
            QUEUES,
            "queue",
            ("q", "queue-v1beta1"),
            columns=(Column("PARENT", "string", ".spec.parent", description="The parent queue"),),
            subresources=("status",),
        ),
        Entry(COMMANDS, "command"),
        Entry(
            PODS,
            "pod",
            ("po",),
            ("all",),
            columns=(
                Column("Ready", "string", "@ready"),
                Column("Status", "string", "@pod-status"),
                Column("Restarts", "integer", "@restarts"),
                KUBE_AGE,
                # The wide columns, in kube-apiserver's order and wording.
                Column("IP", "string", ".status.podIP", priority=1, empty="<none>"),
                Column("Node", "string", ".spec.nodeName", priority=1, empty="<none>"),
                Column(
                    "Nominated Node",
                    "string",
                    ".status.nominatedNodeName",
                    priority=1,
                    empty="<none>",
                    description="The node the scheduler pipelined the pod onto, to bind later",
                ),
                Column("Readiness Gates", "string", "@readiness-gates", priority=1),
            ),
            subresources=("log",),
        ),
        Entry(
            NODES,
            "node",
            ("no",),
            columns=(
                Column("Status", "string", "@node-status"),
                Column("Roles", "string", "@none"),
                KUBE_AGE,
                Column("Version", "string", ".status.nodeInfo.kubeletVersion"),
                # The wide columns, in kube-apiserver's order and wording.
                Column("Internal-IP", "string", "@address:InternalIP", priority=1),
                Column("External-IP", "string", "@address:ExternalIP", priority=1),
                Column(
                    "OS-Image", "string", ".status.nodeInfo.osImage", priority=1, empty="<unknown>"
                ),
                Column(
                    "Kernel-Version",
                    "string",
                    ".status.nodeInfo.kernelVersion",
                    priority=1,
                    empty="<unknown>",
                ),
                Column(
                    "Container-Runtime",
                    "string",
                    ".status.nodeInfo.containerRuntimeVersion",
                    priority=1,
                    empty="<unknown>",
                ),
            ),
        ),
        Entry(
            EVENTS,
            "event",
            ("ev",),
            columns=(
                Column("Last Seen", "string", "@last-seen"),
                Column("Type", "string", ".type"),
                Column("Reason", "string", ".reason"),
                Column("Object", "string", "@involved"),
                Column("Subobject", "string", ".involvedObject.fieldPath", priority=1, empty=""),
                Column("Source", "string", "@source", priority=1),
                Column("Message", "string", ".message"),
                Column("First Seen", "string", "@first-seen", priority=1),
                Column("Count", "string", ".count", priority=1),
                Column("Name", "string", ".metadata.name", priority=1, format="name"),
            ),
            name_first=False,
        ),
        Entry(
            SECRETS,
            "secret",
            columns=(
                Column("Type", "string", ".type"),
                Column("Data", "integer", "@data-count", description="Keys in the secret"),
                KUBE_AGE,
            ),
        ),
        # The training operator's CRDs: State is the last condition's type.
        *(
            Entry(
                resource,
                resource.kind.lower(),
                columns=(
                    Column(
                        "State",
                        "string",
                        "@last-condition",
                        description="The type of the job's last condition",
                    ),
                    KUBE_AGE,
                ),
                subresources=("status",),
            )
            for resource in (PYTORCHJOBS, TFJOBS, MPIJOBS)
        ),
        Entry(
            PRIORITY_CLASSES,
            "priorityclass",
            ("pc",),
            columns=(
                Column("Value", "integer", ".value"),
                Column("Global-Default", "boolean", ".globalDefault"),
                KUBE_AGE,
                Column("PreemptionPolicy", "string", ".preemptionPolicy"),
            ),
        ),
    )


def group_versions() -> dict[str, list[Entry]]:
    """Return the entries by ``group/version``, in a stable order."""
    grouped: dict[str, list[Entry]] = {}
    for entry in catalogue():
        grouped.setdefault(entry.group_version, []).append(entry)
    return grouped


def entry_for(resource: Resource) -> Entry | None:
    """Return the catalogue entry of ``resource`` (matched by group and plural)."""
    for entry in catalogue():
        if (entry.resource.group, entry.resource.plural) == (resource.group, resource.plural):
            return entry
    return None
