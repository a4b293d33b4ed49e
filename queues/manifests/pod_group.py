"""PodGroup manifests (scheduling.volcano.sh/v1beta1).

``priorityClassName`` stays a plain name: Volcano accepts a PodGroup naming a
class that does not exist (the example's ``high-prority`` typo loads). The
owning job, when ``metadata.ownerReferences`` names one, is linked on apply.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_resources
from jobs.models import Job
from kube.manifest_kinds import Kind, Loaded
from kube.object_meta import merge_owner_references
from queues.models import PodGroup, PodGroupPhase

__all__ = ["PodGroupKind", "read_owner", "with_job_owner", "write_owner"]

_COUNTS = ("running", "succeeded", "failed")


def read_owner(meta: Fields, kind: str = "Job") -> str:
    """Return the name of the ``kind`` owner in ``metadata.ownerReferences`` (or ``""``)."""
    owner = ""
    for ref in meta.objects("ownerReferences"):
        ref_kind = ref.string("kind", required=True)
        name = ref.string("name", required=True)
        ref.string("apiVersion")
        ref.string("uid")
        ref.boolean("controller", False)
        ref.boolean("blockOwnerDeletion", False)
        ref.done()
        if ref_kind == kind:
            owner = name
    return owner


def write_owner(job: Job | None, owner_name: str) -> list[Manifest]:
    """Return ``ownerReferences`` naming the owning job (stored, or named by a manifest)."""
    if job is not None:
        ref: Manifest = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": job.name}
        if job.uid is not None:
            ref["uid"] = str(job.uid)
        return [{**ref, "controller": True, "blockOwnerDeletion": True}]
    if owner_name:
        ref = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": owner_name}
        return [{**ref, "controller": True, "blockOwnerDeletion": True}]
    return []


def with_job_owner(meta: Manifest, instance: Any) -> Manifest:
    """Return ``meta`` whose ownerReferences lead with the job that owns ``instance``.

    Volcano's job controller makes the Job the controller owner of its pods and PodGroup; here
    that is a foreign key, shown as the reference kube-apiserver would return, followed by any
    other references a client set (kept in ``owner_references``).
    """
    job = instance.job if instance.job_id is not None else None
    implicit = write_owner(job, "") if job is not None else []
    if refs := merge_owner_references(implicit, instance.owner_references):
        meta["ownerReferences"] = refs
    return meta


def resolve_job(loaded: Loaded) -> None:
    """Link ``loaded.instance.job`` to the stored job its manifest names as owner."""
    if loaded.owner_name:
        loaded.instance.job = Job.objects.filter(
            namespace=loaded.instance.namespace, name=loaded.owner_name
        ).first()


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
        """Refuse what Volcano's PodGroup webhook refuses (``jobs.admission``)."""
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
        status: Manifest = {"phase": group.phase}
        if group.conditions:
            status["conditions"] = group.conditions
        for name in _COUNTS:
            if count := getattr(group, name):
                status[name] = count
        return {"spec": spec, "status": status}
