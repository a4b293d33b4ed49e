"""``vcctl job run|list|view|suspend|resume|delete`` over the Jobs, Commands and Events APIs.

Each command does what vcctl's ``pkg/cli/job`` does against Kubernetes: ``run`` posts a Job
(from ``-f`` or built from flags), ``suspend``/``resume`` post bus Commands (AbortJob /
ResumeJob) for the job controller, ``list`` filters by queue, scheduler and a name fragment.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from apis.safe_yaml import YamlLimitError, load_all
from vcctl.base import (
    BATCH,
    CliError,
    Context,
    command_body,
    commands_path,
    controller_ref,
    events_path,
    jobs_path,
)
from vcctl.client import ApiError
from vcctl.printers import job_table, render
from vcctl.view import describe_events, describe_job

__all__ = [
    "build_job",
    "job_delete",
    "job_list",
    "job_resume",
    "job_run",
    "job_suspend",
    "job_view",
    "parse_resource_list",
]

DEFAULT_NAMESPACE = "default"
# The label vcctl puts on the pod template of a job it builds from flags.
JOB_NAME_LABEL = "job.volcano.sh"


def parse_resource_list(spec: str, *, flag: str) -> dict[str, str]:
    """Return ``cpu=1000m,memory=100Mi`` as a resource list, each quantity checked."""
    result: dict[str, str] = {}
    if not spec:
        return result
    for statement in spec.split(","):
        name, sep, value = statement.partition("=")
        if not sep or not name or "=" in value:
            raise CliError(f"invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            parse_quantity(value, field=f"{flag} {name}")
        except QuantityError as error:
            raise CliError(str(error)) from None
        result[name.strip()] = value.strip()
    return result


def build_job(
    args: argparse.Namespace, namespace: str, *, requests: dict[str, str], limits: dict[str, str]
) -> dict[str, Any]:
    """Return the one-task Job vcctl builds from ``--name --image --replicas --min ...``."""
    resources = {key: value for key, value in (("limits", limits), ("requests", requests)) if value}
    container: dict[str, Any] = {
        "name": args.name,
        "image": args.image,
        "imagePullPolicy": "IfNotPresent",
        "resources": resources,
    }
    spec: dict[str, Any] = {"minAvailable": args.min, "schedulerName": args.scheduler}
    if args.queue:
        spec["queue"] = args.queue
    spec["tasks"] = [
        {
            "replicas": args.replicas,
            "template": {
                "metadata": {"name": args.name, "labels": {JOB_NAME_LABEL: args.name}},
                "spec": {"restartPolicy": "Never", "containers": [container]},
            },
        }
    ]
    return {
        "apiVersion": BATCH,
        "kind": "Job",
        "metadata": {"name": args.name, "namespace": namespace},
        "spec": spec,
    }


def read_job_file(filename: str) -> dict[str, Any]:
    """Return the Job in a YAML (or JSON) file, refusing other kinds and several documents."""
    if not filename.endswith((".yaml", ".yml", ".json")):
        raise CliError("only support yaml file")
    try:
        text = Path(filename).read_text()
    except OSError as error:
        raise CliError(f"failed to read file, err: {error}") from None
    try:
        documents = load_all(text)
    except YamlLimitError as error:
        raise CliError(f"failed to unmarshal file {filename}: {error}") from None
    except yaml.YAMLError as error:
        raise CliError(f"failed to unmarshal file {filename}: {error}") from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise CliError(f"{filename}: expected exactly one Job manifest, found {len(documents)}")
    job: dict[str, Any] = documents[0]
    if job.get("kind") != "Job" or job.get("apiVersion") != BATCH:
        found = f"{job.get('apiVersion')}/{job.get('kind')}"
        raise CliError(f"{filename}: expected a {BATCH} Job, found {found}")
    return job


def job_run(args: argparse.Namespace, ctx: Context) -> int:
    """Create a job from ``-f`` or from flags; print ``run job <name> successfully``."""
    if not args.name and not args.filename:
        raise CliError("job name cannot be left blank")
    requests = parse_resource_list(args.requests, flag="--requests")
    limits = parse_resource_list(args.limits, flag="--limits")
    if args.filename:
        job = read_job_file(args.filename)
        metadata = job.setdefault("metadata", {})
        in_file = metadata.get("namespace")
        if args.namespace and in_file and in_file != args.namespace:
            raise CliError(
                f'the namespace from the provided object "{in_file}" does not match the '
                f"namespace \"{args.namespace}\". You must pass '--namespace={in_file}'"
            )
        namespace = args.namespace or in_file or DEFAULT_NAMESPACE
        metadata["namespace"] = namespace
    else:
        namespace = args.namespace or DEFAULT_NAMESPACE
        job = build_job(args, namespace, requests=requests, limits=limits)
    created = ctx.client.create(jobs_path(namespace), job)
    if args.output:
        ctx.stdout.write(render(created, args.output))
    else:
        name = (created.get("metadata") or {}).get("name") or job["metadata"].get("name")
        ctx.stdout.write(f"run job {name} successfully\n")
    return 0


def job_list(args: argparse.Namespace, ctx: Context) -> int:
    """Print vcctl's job table (or the JobList with ``-o``), filtered as vcctl filters."""
    namespace = None if args.all_namespaces else args.namespace
    query = {"fieldSelector": f"spec.queue={args.queue}"} if args.queue else None
    listing = ctx.client.list_all(jobs_path(namespace), query)

    def wanted(job: dict[str, Any]) -> bool:
        spec = job.get("spec") or {}
        name = str((job.get("metadata") or {}).get("name", ""))
        return (
            (not args.queue or spec.get("queue") == args.queue)
            and (not args.scheduler or spec.get("schedulerName") == args.scheduler)
            and args.selector in name
        )

    jobs = [job for job in listing.get("items") or [] if wanted(job)]
    if args.output:
        ctx.stdout.write(render({**listing, "items": jobs}, args.output))
    elif not jobs:
        ctx.stdout.write("No resources found\n")
    else:
        ctx.stdout.write(job_table(jobs, all_namespaces=args.all_namespaces))
    return 0


def job_view(args: argparse.Namespace, ctx: Context) -> int:
    """Print one job described (then its events), or the job itself with ``-o``."""
    if not args.name:
        raise CliError("job name (specified by --name or -N) is mandatory to view a particular job")
    job = ctx.client.get(jobs_path(args.namespace, args.name))
    if args.output:
        ctx.stdout.write(render(job, args.output))
        return 0
    ctx.stdout.write(describe_job(job))
    ctx.stdout.write(describe_events(job_events(ctx, job), now=datetime.now(UTC)))
    return 0


def job_events(ctx: Context, job: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the events about ``job``; none when the caller may not read events (as vcctl)."""
    metadata = job.get("metadata") or {}
    name, namespace = metadata.get("name"), metadata.get("namespace") or DEFAULT_NAMESPACE
    try:
        events = ctx.client.list_all(events_path(namespace)).get("items") or []
    except ApiError:
        return []

    def about_job(event: dict[str, Any]) -> bool:
        involved = event.get("involvedObject") or {}
        if involved:
            return bool(involved.get("kind") == "Job" and involved.get("name") == name)
        return str((event.get("metadata") or {}).get("name", "")).startswith(f"{name}.")

    return [event for event in events if about_job(event)]


def _job_command(args: argparse.Namespace, ctx: Context, action: str, verb: str) -> int:
    if not args.name:
        raise CliError(f"job name is mandatory to {verb} a particular job")
    job = ctx.client.get(jobs_path(args.namespace, args.name))
    namespace = (job.get("metadata") or {}).get("namespace") or args.namespace
    target = controller_ref(job, api_version=BATCH, kind="Job")
    ctx.client.create(commands_path(namespace), command_body(target, action, namespace=namespace))
    return 0


def job_suspend(args: argparse.Namespace, ctx: Context) -> int:
    """Ask the job controller to abort the job (a bus Command ``AbortJob``)."""
    return _job_command(args, ctx, "AbortJob", "suspend")


def job_resume(args: argparse.Namespace, ctx: Context) -> int:
    """Ask the job controller to resume an aborted job (a bus Command ``ResumeJob``)."""
    return _job_command(args, ctx, "ResumeJob", "resume")


def job_delete(args: argparse.Namespace, ctx: Context) -> int:
    """Delete the job; print ``delete job <name> successfully``."""
    if not args.name:
        raise CliError("job name is mandatory to delete a particular job")
    ctx.client.delete(jobs_path(args.namespace, args.name))
    ctx.stdout.write(f"delete job {args.name} successfully\n")
    return 0
