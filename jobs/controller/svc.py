"""The svc plugin's objects: the ``<job>-svc`` ConfigMap, a headless Service, a NetworkPolicy.

As Volcano's svc plugin (``OnJobAdd``, ``OnJobUpdate``, ``OnJobDelete``):

- while the job is Pending (its initiation), the ConfigMap ``<job>-svc`` is written with each
  task's host file and the Service named after the job is created: headless, selecting the
  job's pods by ``volcano.sh/job-name`` and ``volcano.sh/job-namespace``, publishing
  not-ready addresses with ``--publish-not-ready-addresses``; and, unless
  ``--disable-network-policy``, a NetworkPolicy of the job's name that lets in only its pods;
- every later sync brings the ConfigMap to the job's spec, so a job that scales lists its
  hosts anew (an empty ``<task>.host`` and ``VC_<TASK>_NUM`` 0 at zero replicas);
- every full kill (restart, abort, completion, termination) deletes the three; a restarted
  job creates them again when it is initiated anew.

Each is owned by the job (``metadata.ownerReferences``, ``core.services``), so deleting the
job deletes them too.
"""

from __future__ import annotations

from core.models import ConfigMap, NetworkPolicy, Service
from core.services import (
    delete_owned,
    ensure_owned_config_map,
    ensure_owned_network_policy,
    ensure_owned_service,
)
from jobs.controller.context import JobContext
from jobs.controller.plugins import flag_set, generate_hosts, svc_config_map_name

__all__ = ["delete_svc_objects", "sync_svc_objects"]

JOB_NAME_KEY = "volcano.sh/job-name"
JOB_NAMESPACE_KEY = "volcano.sh/job-namespace"


def sync_svc_objects(ctx: JobContext, *, initiating: bool) -> None:
    """Write the job's host ConfigMap; while ``initiating``, its Service and NetworkPolicy."""
    job = ctx.job
    if "svc" not in job.plugins:
        return
    ensure_owned_config_map(job, svc_config_map_name(job), generate_hosts(job, ctx.tasks))
    if not initiating:
        return
    arguments = job.plugins["svc"]
    selector = {JOB_NAME_KEY: job.name, JOB_NAMESPACE_KEY: job.namespace}
    ensure_owned_service(
        job,
        job.name,
        selector=selector,
        publish_not_ready_addresses=flag_set(arguments, "publish-not-ready-addresses"),
    )
    if not flag_set(arguments, "disable-network-policy"):
        ensure_owned_network_policy(
            job,
            job.name,
            {
                "podSelector": {"matchLabels": selector},
                "ingress": [{"from": [{"podSelector": {"matchLabels": selector}}]}],
                "policyTypes": ["Ingress"],
            },
        )


def delete_svc_objects(ctx: JobContext) -> bool:
    """Delete the job's ConfigMap, Service and NetworkPolicy; return whether any went."""
    job = ctx.job
    if "svc" not in job.plugins:
        return False
    deleted = delete_owned(ConfigMap, job, svc_config_map_name(job))
    deleted = delete_owned(Service, job, job.name) or deleted
    return delete_owned(NetworkPolicy, job, job.name) or deleted
