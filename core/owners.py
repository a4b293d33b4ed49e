"""The owning Job of what a Volcano Job creates: ``metadata.ownerReferences`` ⇄ the ``job`` key.

Volcano's job controller makes its Job the controller owner of each pod, PodGroup and Secret
(the ssh plugin's ``<job>-ssh``) it creates. Here that owner is a string foreign key,
``job = ForeignKey("jobs.Job")``, on kinds of the apps below jobs (core's Pod and Secret,
queues' PodGroup); these helpers read and write it for their manifests without importing the
jobs app. The Job model is reached through the foreign key (``related_model``) and the
reference names the owner by its wire strings, as kube-apiserver returns it.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from apis.wire import Fields, Manifest
from kube.manifest_kinds import Loaded
from kube.object_meta import merge_owner_references

__all__ = [
    "JOB_API_VERSION",
    "JOB_KIND",
    "job_model",
    "read_owner",
    "resolve_job",
    "with_job_owner",
    "write_owner",
]

# The owner's apiVersion and kind on the wire (batch.volcano.sh's Job).
JOB_API_VERSION = "batch.volcano.sh/v1alpha1"
JOB_KIND = "Job"


def job_model(model: type[models.Model]) -> type[models.Model]:
    """Return the model ``model.job`` points to (the jobs app's Job)."""
    related = model._meta.get_field("job").related_model
    assert isinstance(related, type), f"{model.__name__}.job is not resolved yet"
    return related


def read_owner(meta: Fields, kind: str = JOB_KIND) -> str:
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


def write_owner(job: Any | None, owner_name: str) -> list[Manifest]:
    """Return ``ownerReferences`` naming the owning job (stored, or named by a manifest)."""
    if job is not None:
        ref: Manifest = {"apiVersion": JOB_API_VERSION, "kind": JOB_KIND, "name": job.name}
        if job.uid is not None:
            ref["uid"] = str(job.uid)
        return [{**ref, "controller": True, "blockOwnerDeletion": True}]
    if owner_name:
        ref = {"apiVersion": JOB_API_VERSION, "kind": JOB_KIND, "name": owner_name}
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
        instance = loaded.instance
        jobs = job_model(type(instance))._default_manager
        instance.job = jobs.filter(namespace=instance.namespace, name=loaded.owner_name).first()
