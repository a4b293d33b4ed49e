"""ResourceQuota: what a namespace's objects use (the quota controller) and the refusal of a
create that would use more than ``hard`` (the ResourceQuota admission plugin).

As kube-apiserver and kube-controller-manager count it:

- a **pod** that has not ended (and whose deletion grace has not run out) uses ``pods`` 1 and
  its requests under the plain and ``requests.`` names for cpu, memory and
  ephemeral-storage, its limits under ``limits.``, hugepages under both names, an extended
  resource (``nvidia.com/gpu``) under ``requests.<name>`` only; every stored pod, ended or
  not, counts 1 in ``count/pods``. A container's request defaults to its limit;
- other objects count 1 each in ``count/<plural>`` (core group) or ``count/<plural>.<group>``
  (``count/jobs.batch.volcano.sh``), and under the legacy names ``services``,
  ``configmaps``, ``secrets``, ``resourcequotas``; ``services.loadbalancers`` counts
  LoadBalancer Services, ``services.nodeports`` their and NodePort Services' ports.

The controller (``reconcile_quotas``) writes ``status.hard`` (= ``spec.hard``) and
``status.used`` (every hard name, 0 when nothing uses it). Admission refuses a create that
would take any quota of the namespace past ``hard`` with 403 and kube-apiserver's words
(``exceeded quota: q1, requested: requests.cpu=2, used: requests.cpu=3, limited:
requests.cpu=4``), and a pod without a cpu or memory request (or limit) a quota constrains
(``failed quota: q1: must specify limits.cpu for: main``).

Deviations: admission compares with ``spec.hard`` and the usage counted at that moment
(kube-apiserver uses ``status.hard`` and ``status.used``, which its admission keeps current),
so a quota applies from its creation, without "status unknown for quota" in between.
Volcano's job controller creates its pods itself here, not through this admission: its jobs
are held at enqueue by the scheduler's ``resourcequota`` plugin instead, as in Volcano.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Count, Max, Sum

from apis.errors import QuantityError
from apis.wire import format_resources
from core.manifests.pod_template import pod_limits, pod_requests
from core.models import Pod, PodPhase, ResourceQuota, Service
from kube import clock, registry
from kube.actor import current_actor
from kube.admission_causes import AdmissionError, Cause, CauseType
from kube.resources import Resource
from kube.status import KubeError

__all__ = [
    "admit_object_count",
    "admit_pod_quota",
    "namespace_usage",
    "pod_usage",
    "reconcile_quotas",
]

ONE = 1000  # one object, in milli-units
_WITH_LIMITS = ("cpu", "memory", "ephemeral-storage")
# The names each container must request when a quota constrains them (the pod evaluator's
# validation set: a mistake of Kubernetes' past it keeps for compatibility).
_MUST_SPECIFY = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)
_POD_NAMES = frozenset(
    {"pods", "count/pods", *_WITH_LIMITS, *(f"requests.{n}" for n in _WITH_LIMITS),
     *(f"limits.{n}" for n in _WITH_LIMITS)}
)  # fmt: skip
_LEGACY_COUNTS = {
    "services": "services",
    "configmaps": "configmaps",
    "secrets": "secrets",
    "resourcequotas": "resourcequotas",
}


def _is_extended(name: str) -> bool:
    """Return whether ``name`` is an extended resource (``nvidia.com/gpu``), not a native one."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def _usage_of(requests: Mapping[str, int], limits: Mapping[str, int]) -> dict[str, int]:
    """Return the compute usage of ``requests`` and ``limits`` (podComputeUsageHelper)."""
    usage = {"pods": ONE}
    for name in _WITH_LIMITS:
        if name in requests:
            usage[name] = usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, milli in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = usage[f"requests.{name}"] = milli
        elif _is_extended(name):
            usage[f"requests.{name}"] = milli
    return usage


def pod_usage(spec: Mapping[str, Any]) -> dict[str, int]:
    """Return what a live pod of ``spec`` uses of a quota (milli-units), ``count/pods`` too."""
    usage = _usage_of(pod_requests(dict(spec)), pod_limits(dict(spec)))
    usage["count/pods"] = ONE
    return usage


def _pod_name(name: str) -> bool:
    """Return whether the pod evaluator counts quota name ``name`` (MatchingResources)."""
    if name in _POD_NAMES or name.startswith(("hugepages-", "requests.hugepages-")):
        return True
    return name.startswith("requests.") and _is_extended(name.removeprefix("requests."))


def _live(pod: Pod, now: dt.datetime) -> bool:
    """Return whether ``pod`` still uses compute quota (QuotaV1Pod): not ended, and not past
    the grace period of its deletion."""
    if pod.phase in (PodPhase.SUCCEEDED, PodPhase.FAILED):
        return False
    if pod.deletion_time is not None and pod.deletion_grace_seconds is not None:
        return now <= pod.deletion_time + clock.real(pod.deletion_grace_seconds)
    return True


def _entry_counted(name: str) -> Resource | None:
    """Return the served namespaced resource ``count/<name>`` counts (None: none served)."""
    wanted = name.removeprefix("count/")
    for entry in registry.entries():
        if entry.resource.namespaced and entry.resource.qualified == wanted:
            return entry.resource
    return None


def _object_count(namespace: str, name: str) -> int:
    """Return the milli-count of the objects quota name ``name`` counts in ``namespace``."""
    if name == "services.loadbalancers":
        return ONE * Service.objects.filter(namespace=namespace, type="LoadBalancer").count()
    if name == "services.nodeports":
        services = Service.objects.filter(
            namespace=namespace, type__in=["NodePort", "LoadBalancer"]
        )
        return ONE * sum(len(ports or []) for ports in services.values_list("ports", flat=True))
    plural = _LEGACY_COUNTS.get(name, name)
    resource = _entry_counted(plural if name in _LEGACY_COUNTS else name)
    if resource is None:
        return 0
    return ONE * resource.model._default_manager.filter(namespace=namespace).count()


def namespace_usage(
    namespace: str, names: Iterable[str], now: dt.datetime, *, pods: Iterable[Pod] | None = None
) -> dict[str, int]:
    """Return what ``namespace`` uses of each quota name in ``names`` (0 when nothing)."""
    names = set(names)
    used = dict.fromkeys(names, 0)
    if any(_pod_name(name) for name in names):
        if pods is None:
            pods = Pod.objects.filter(namespace=namespace).only(
                "spec", "requests", "phase", "deletion_time", "deletion_grace_seconds"
            )
        for pod in pods:
            if not _live(pod, now):
                used["count/pods"] = used.get("count/pods", 0) + ONE
                continue
            for name, milli in pod_usage(pod.spec).items():
                if name in used:
                    used[name] += milli
    for name in names:
        if not _pod_name(name):
            used[name] = _object_count(namespace, name)
    return {name: used[name] for name in names}


# -- the quota controller ---------------------------------------------------------------

# What the last pass read (None: no pass yet in this process) and when: a pass that reads the
# same skips the count, unless the last count is older than ``RECOUNT`` (a deleted pod's grace
# running out changes no row, yet frees its quota).
_last: tuple[object, ...] | None = None
_last_at: dt.datetime | None = None
RECOUNT = dt.timedelta(seconds=10)


def _aggregate(queryset: Any) -> tuple[object, ...]:
    found = queryset.aggregate(n=Count("pk"), v=Sum("resource_version"), top=Max("pk"))
    return (found["n"], found["v"], found["top"])


def _fingerprint(quotas: list[ResourceQuota]) -> tuple[object, ...]:
    namespaces = {quota.namespace for quota in quotas}
    models = {
        resource.model
        for quota in quotas
        for name in quota.hard
        if not _pod_name(name) and (resource := _entry_counted(_LEGACY_COUNTS.get(name, name)))
    }
    if any(name.startswith("services.") for quota in quotas for name in quota.hard):
        models.add(Service)
    return (
        tuple((q.uid, q.resource_version) for q in quotas),
        _aggregate(Pod.objects.filter(namespace__in=namespaces)),
        *(
            (m._meta.label, _aggregate(m._default_manager.filter(namespace__in=namespaces)))
            for m in sorted(models, key=lambda m: m._meta.label)
        ),
    )


def reconcile_quotas(now: dt.datetime) -> int:
    """Bring every quota's ``status.hard`` and ``status.used`` up to date; return how many
    changed. A pass that finds the quotas and what they count as the last one did does nothing.
    """
    global _last, _last_at
    quotas = list(ResourceQuota.objects.filter(deletion_timestamp__isnull=True).order_by("pk"))
    if not quotas:
        _last = None
        return 0
    fingerprint = _fingerprint(quotas)
    fresh = _last_at is not None and _last_at <= now < _last_at + RECOUNT
    if fingerprint == _last and fresh:
        return 0
    changed = 0
    for quota in quotas:
        used = namespace_usage(quota.namespace, quota.hard, now)
        if quota.status_hard == quota.hard and quota.used == used:
            continue
        quota.status_hard, quota.used = dict(quota.hard), used
        quota.save(update_fields=["status_hard", "used"])
        changed += 1
    # The writes changed the quotas' versions: remember what they are now.
    _last = _fingerprint(
        list(ResourceQuota.objects.filter(pk__in=[q.pk for q in quotas]).order_by("pk"))
    )
    _last_at = now
    return changed


# -- admission --------------------------------------------------------------------------


def _pretty(resources: Mapping[str, int]) -> str:
    """Return ``name=quantity`` pairs by name, as kube-apiserver prints a resource list."""
    return ",".join(f"{name}={value}" for name, value in format_resources(resources).items())


def _refuse(plural: str, name: str, message: str) -> Exception:
    """kube-apiserver's admission refusal: 403 through the API, an admission error elsewhere."""
    if current_actor() is None:
        return AdmissionError([Cause("metadata.namespace", CauseType.FORBIDDEN, message)])
    return KubeError(403, f'{plural} "{name}" is forbidden: {message}', kind=plural, name=name)


def _missing(spec: Mapping[str, Any], required: set[str]) -> str:
    """Return the containers that leave a constrained cpu or memory unset ("" for none)."""
    missing: dict[str, set[str]] = {}
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            if not isinstance(container, Mapping):
                continue
            usage = _usage_of(pod_requests({"containers": [container]}),
                              pod_limits({"containers": [container]}))  # fmt: skip
            for name in required - set(usage):
                missing.setdefault(name, set()).add(str(container.get("name", "")))
    parts = sorted(f"{name} for: {','.join(sorted(names))}" for name, names in missing.items())
    return "; ".join(parts)


def _check(
    quotas: Iterable[ResourceQuota],
    requested: Mapping[str, int],
    used_of: Any,
    refuse: Any,
) -> None:
    """Refuse when ``requested`` takes any quota past its ``hard`` (kube-apiserver's check)."""
    for quota in quotas:
        asked = {n: v for n, v in requested.items() if n in quota.hard and v}
        if not asked:
            continue
        used = used_of(quota, asked)
        exceeded = sorted(n for n, v in asked.items() if used.get(n, 0) + v > quota.hard[n])
        if exceeded:
            raise refuse(
                f"exceeded quota: {quota.name}, "
                f"requested: {_pretty({n: asked[n] for n in exceeded})}, "
                f"used: {_pretty({n: used.get(n, 0) for n in exceeded})}, "
                f"limited: {_pretty({n: quota.hard[n] for n in exceeded})}"
            )


def admit_pod_quota(pod: Pod, now: dt.datetime) -> None:
    """Refuse creating ``pod`` when a quota of its namespace would be exceeded or a cpu or
    memory it constrains is not specified. Locks the namespace's quotas (one create at a time
    counts against them)."""
    quotas = list(
        ResourceQuota.objects.select_for_update()
        .filter(namespace=pod.namespace, deletion_timestamp__isnull=True)
        .order_by("name")
    )
    if not quotas:
        return
    refuse = lambda message: _refuse("pods", pod.name, message)  # noqa: E731
    for quota in quotas:
        constrained = {name for name in quota.hard if _pod_name(name)}
        if missing := _missing(pod.spec, constrained & _MUST_SPECIFY):
            raise refuse(f"failed quota: {quota.name}: must specify {missing}")
    try:
        requested = pod_usage(pod.spec)
    except QuantityError:
        return  # the pod's own validation names the bad quantity
    _check(quotas, requested, lambda q, asked: namespace_usage(pod.namespace, asked, now), refuse)


def admit_object_count(resource: Resource, manifest: Mapping[str, Any], operation: str) -> None:
    """The ResourceQuota admission plugin for every kind but pods: one more object must fit
    the namespace's ``count/<resource>`` (and legacy ``services``, ``configmaps``...) quotas."""
    if operation != "CREATE" or not resource.namespaced or resource.kind == "Pod":
        return
    meta = manifest.get("metadata") or {}
    namespace = str(meta.get("namespace") or "default")
    quotas = list(
        ResourceQuota.objects.filter(namespace=namespace, deletion_timestamp__isnull=True).order_by(
            "name"
        )
    )
    if not quotas:
        return
    names = [f"count/{resource.qualified}"]
    names += [legacy for legacy, plural in _LEGACY_COUNTS.items() if plural == resource.qualified]
    if resource.qualified == "services":
        spec = manifest.get("spec") or {}
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if kind == "LoadBalancer":
            names.append("services.loadbalancers")
    requested = dict.fromkeys(names, ONE)
    name = str(meta.get("name") or "")
    _check(
        quotas,
        requested,
        lambda q, asked: {n: _object_count(namespace, n) for n in asked},
        lambda message: _refuse(resource.qualified, name, message),
    )
