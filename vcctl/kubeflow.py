"""``vcctl kubeflow run|list|view|delete``: Kubeflow's PyTorchJob, TFJob and MPIJob, vcctl-style.

Volcano's vcctl has no command for training jobs (they are the training operator's CRDs);
these follow vcctl's job commands (``-N`` name, ``-n`` namespace, ``-f`` file, ``-o``)
over ``/apis/kubeflow.org/v1``, with ``-k`` for the kind. ``list`` prints one row per job:
its kind, state (the last condition, as ``kubectl get pytorchjob`` shows it), queue,
replicas by type and age.
"""

from __future__ import annotations

import argparse
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from apis.safe_yaml import YamlLimitError, load_all
from vcctl.base import CliError, Context
from vcctl.printers import human_duration, parse_time, render

__all__ = ["KINDS", "kubeflow_delete", "kubeflow_list", "kubeflow_run", "kubeflow_view"]

GROUP_VERSION = "kubeflow.org/v1"
# kind → (plural, the spec key of its replica specs)
KINDS: dict[str, tuple[str, str]] = {
    "PyTorchJob": ("pytorchjobs", "pytorchReplicaSpecs"),
    "TFJob": ("tfjobs", "tfReplicaSpecs"),
    "MPIJob": ("mpijobs", "mpiReplicaSpecs"),
}


def kind_named(text: str) -> str:
    """Return the kind ``text`` names (``pytorchjob``, ``pytorchjobs``, ``PyTorchJob``)."""
    for kind, (plural, _key) in KINDS.items():
        if text.lower() in (kind.lower(), plural):
            return kind
    raise CliError(f"unknown kind {text!r}: one of {', '.join(KINDS)}")


def _path(kind: str, namespace: str | None, name: str = "") -> str:
    plural = KINDS[kind][0]
    if namespace is None:
        return f"/apis/{GROUP_VERSION}/{plural}"
    path = f"/apis/{GROUP_VERSION}/namespaces/{urllib.parse.quote(namespace, safe='')}/{plural}"
    return f"{path}/{urllib.parse.quote(name, safe='')}" if name else path


def _state(job: dict[str, Any]) -> str:
    conditions = (job.get("status") or {}).get("conditions") or []
    return str(conditions[-1].get("type", "")) if conditions else ""


def _replicas(job: dict[str, Any]) -> str:
    specs = (job.get("spec") or {}).get(KINDS[str(job.get("kind"))][1]) or {}
    return ",".join(f"{kind}={spec.get('replicas', 1)}" for kind, spec in specs.items())


def _queue(job: dict[str, Any]) -> str:
    run = (job.get("spec") or {}).get("runPolicy") or {}
    return str((run.get("schedulingPolicy") or {}).get("queue") or "default")


def training_table(jobs: list[dict[str, Any]], *, all_namespaces: bool, now: datetime) -> str:
    """Return the ``kubeflow list`` table (a Namespace column first with ``--all-namespaces``)."""
    header = ["Kind", "Name", "State", "Queue", "Replicas", "Age"]
    rows = []
    for job in jobs:
        metadata = job.get("metadata") or {}
        created = parse_time(metadata.get("creationTimestamp"))
        age = human_duration(now - created) if created else ""
        row = [str(job.get("kind", "")), str(metadata.get("name", "")), _state(job), _queue(job),
               _replicas(job), age]  # fmt: skip
        rows.append([str(metadata.get("namespace", "")), *row] if all_namespaces else row)
    if all_namespaces:
        header.insert(0, "Namespace")
    widths = [max(len(r[i]) for r in [header, *rows]) + 3 for i in range(len(header))]
    return "".join(
        "".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True)).rstrip() + "\n"
        for row in [header, *rows]
    )


def _read(filename: str) -> dict[str, Any]:
    try:
        documents = load_all(Path(filename).read_text())
    except OSError as error:
        raise CliError(f"failed to read file, err: {error}") from None
    except (YamlLimitError, yaml.YAMLError) as error:
        raise CliError(f"failed to unmarshal file {filename}: {error}") from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise CliError(f"{filename}: expected exactly one manifest, found {len(documents)}")
    job: dict[str, Any] = documents[0]
    if job.get("apiVersion") != GROUP_VERSION or job.get("kind") not in KINDS:
        raise CliError(f"{filename}: expected a {GROUP_VERSION} {', '.join(KINDS)}")
    return job


def kubeflow_run(args: argparse.Namespace, ctx: Context) -> int:
    """Create the training job in ``-f``; print ``run <kind> <name> successfully``."""
    if not args.filename:
        raise CliError("the manifest (specified by --filename or -f) is mandatory")
    job = _read(args.filename)
    metadata = job.setdefault("metadata", {})
    namespace = args.namespace or metadata.get("namespace") or "default"
    metadata["namespace"] = namespace
    created = ctx.client.create(_path(job["kind"], namespace), job)
    if args.output:
        ctx.stdout.write(render(created, args.output))
    else:
        ctx.stdout.write(f"run {job['kind'].lower()} {metadata.get('name')} successfully\n")
    return 0


def kubeflow_list(args: argparse.Namespace, ctx: Context) -> int:
    """Print the training jobs (all three kinds unless ``-k``), newest last."""
    namespace = None if args.all_namespaces else args.namespace
    kinds = [kind_named(args.kind)] if args.kind else list(KINDS)
    jobs: list[dict[str, Any]] = []
    for kind in kinds:
        for item in ctx.client.list_all(_path(kind, namespace)).get("items") or []:
            if _queue(item) == args.queue or not args.queue:
                jobs.append(item)
    jobs.sort(key=lambda j: str((j.get("metadata") or {}).get("creationTimestamp", "")))
    if args.output:
        ctx.stdout.write(render({"apiVersion": "v1", "kind": "List", "items": jobs}, args.output))
    elif not jobs:
        ctx.stdout.write("No resources found\n")
    else:
        ctx.stdout.write(
            training_table(jobs, all_namespaces=args.all_namespaces, now=datetime.now(UTC))
        )
    return 0


def kubeflow_view(args: argparse.Namespace, ctx: Context) -> int:
    """Print one training job: its state, replicas and conditions (or the object with ``-o``)."""
    if not args.name:
        raise CliError("the job name (specified by --name or -N) is mandatory")
    job = ctx.client.get(_path(kind_named(args.kind), args.namespace, args.name))
    if args.output:
        ctx.stdout.write(render(job, args.output))
        return 0
    metadata, status = job.get("metadata") or {}, job.get("status") or {}
    lines = [
        f"Name:       {metadata.get('name', '')}",
        f"Namespace:  {metadata.get('namespace', '')}",
        f"Kind:       {job.get('kind', '')}",
        f"State:      {_state(job)}",
        f"Queue:      {_queue(job)}",
        f"Replicas:   {_replicas(job)}",
        "Conditions:",
    ]
    for condition in status.get("conditions") or []:
        lines.append(f"  {condition.get('type', ''):<12}{condition.get('status', ''):<7}"
                     f"{condition.get('reason', '')}: {condition.get('message', '')}")  # fmt: skip
    for kind, counts in (status.get("replicaStatuses") or {}).items():
        shown = ", ".join(f"{k}={v}" for k, v in sorted(counts.items())) or "none"
        lines.append(f"Replica {kind}: {shown}")
    ctx.stdout.write("\n".join(lines) + "\n")
    return 0


def kubeflow_delete(args: argparse.Namespace, ctx: Context) -> int:
    """Delete the training job; print ``delete <kind> <name> successfully``."""
    if not args.name:
        raise CliError("the job name (specified by --name or -N) is mandatory")
    kind = kind_named(args.kind)
    ctx.client.delete(_path(kind, args.namespace, args.name))
    ctx.stdout.write(f"delete {kind.lower()} {args.name} successfully\n")
    return 0
