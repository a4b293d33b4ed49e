"""PodGroup manifests (scheduling.volcano.sh/v1beta1).

``networkTopology`` and ``subGroupPolicy`` are kept in their wire shape, read for shape with
the CRD's defaults (mode ``hard``, subGroupSize 1, minSubGroups 0); their ranges are
admission's (``queues.admission.pod_group``).

``priorityClassName`` stays a plain name: Volcano accepts a PodGroup naming a
class that does not exist (the example's ``high-prority`` typo loads). The
owning job, when ``metadata.ownerReferences`` names one, is linked on apply.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_resources
from core.manifests.network_policy import read_label_selector
from core.owners import read_owner, resolve_job, with_job_owner
from kube.manifest_kinds import Kind, Loaded
from queues.manifests.network_topology import read_network_topology
from queues.models import PodGroup, PodGroupPhase

__all__ = ["PodGroupKind"]

_COUNTS = ("running", "succeeded", "failed")


class PodGroupKind(Kind):
    """``scheduling.volcano.sh/v1beta1`` PodGroup."""

    api_version = "scheduling.volcano.sh/v1beta1"
    kind = "PodGroup"
    resource = "podgroup.scheduling.volcano.sh"
    model = PodGroup
    spec_fields = (
        "job",
        "min_member",
        "min_task_member",
        "min_resources",
        "queue",
        "priority_class_name",
        "network_topology",
        "sub_group_policy",
    )
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name", "queue": "spec.queue"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        group: PodGroup = loaded.instance
        loaded.owner_name = read_owner(meta)
        spec = doc.obj("spec")
        group.min_member = spec.integer("minMember", 0, minimum=0)
        task_members = spec.obj("minTaskMember")
        group.min_task_member = {
            name: task_members.integer(name, 0, minimum=0) for name in task_members.names()
        }
        group.min_resources = spec.resources("minResources")
        group.queue = spec.string("queue", "default")
        group.priority_class_name = spec.string("priorityClassName")
        group.network_topology = read_network_topology(spec)
        group.sub_group_policy = [
            read_sub_group_policy(item) for item in spec.objects("subGroupPolicy")
        ]
        spec.done()
        status = doc.obj("status")
        group.phase = status.string("phase", PodGroupPhase.PENDING)
        if group.phase not in PodGroupPhase.values:
            raise status.error("phase", f"unsupported value {group.phase!r}")
        group.conditions = status.json("conditions", [])
        for name in _COUNTS:
            setattr(group, name, status.integer(name, 0, minimum=0))
        status.done()

    def write_metadata(self, instance: Any) -> Manifest:
        return with_job_owner(super().write_metadata(instance), instance)

    def resolve(self, loaded: Loaded) -> None:
        resolve_job(loaded)

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse what Volcano's PodGroup webhook refuses (``queues.admission``)."""
        # Admission reads manifests with this kind: the two modules need each other.
        from queues.admission import admit_pod_group

        admit_pod_group(loaded, old=existing)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        group: PodGroup = instance
        spec: Manifest = {"minMember": group.min_member}
        if group.min_task_member:
            spec["minTaskMember"] = dict(group.min_task_member)
        if group.min_resources:
            spec["minResources"] = format_resources(group.min_resources)
        spec["queue"] = group.queue
        if group.priority_class_name:
            spec["priorityClassName"] = group.priority_class_name
        if group.network_topology is not None:
            spec["networkTopology"] = group.network_topology
        if group.sub_group_policy:
            spec["subGroupPolicy"] = group.sub_group_policy
        status: Manifest = {"phase": group.phase}
        if group.conditions:
            status["conditions"] = group.conditions
        for name in _COUNTS:
            if count := getattr(group, name):
                status[name] = count
        return {"spec": spec, "status": status}


def read_sub_group_policy(item: Fields) -> dict[str, Any]:
    """Return one ``spec.subGroupPolicy[i]`` in its wire shape, with the CRD's defaults."""
    policy: dict[str, Any] = {}
    if name := item.string("name"):
        policy["name"] = name
    if (topology := read_network_topology(item)) is not None:
        policy["networkTopology"] = topology
    policy["subGroupSize"] = item.integer("subGroupSize", 1)
    policy["minSubGroups"] = item.integer("minSubGroups", 0)
    if item.has("labelSelector"):
        policy["labelSelector"] = read_label_selector(item.obj("labelSelector"))
    else:
        item.raw("labelSelector")
    if keys := item.strings("matchLabelKeys"):
        policy["matchLabelKeys"] = keys
    item.done()
    return policy
