"""JobTemplate, JobFlow and CronJob manifests ⇄ the flow models.

Reading checks the shape the CRDs declare (every key known, types, enums, minimums) and fills
in their defaults (a template's Job spec as a Job's, ``jobRetainPolicy: retain``, a cron
job's ``concurrencyPolicy: Allow`` and history limits 3 and 1). Rules that need more than one
field or the database (a flow's DAG, the templates it names, the schedule's syntax) are
admission's (``flow.admission``), which names every bad field at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_time
from flow.job_spec import check_job_patch, read_job_spec
from flow.models import ConcurrencyPolicy, CronJob, FlowPhase, JobFlow, JobTemplate, RetainPolicy
from kube.manifest_kinds import Kind, Loaded

__all__ = ["CronJobKind", "JobFlowKind", "JobTemplateKind", "read_flow"]

_PORT_MAX = 65535
_JOB_LISTS = (
    ("pendingJobs", "pending_jobs"),
    ("runningJobs", "running_jobs"),
    ("failedJobs", "failed_jobs"),
    ("completedJobs", "completed_jobs"),
    ("terminatedJobs", "terminated_jobs"),
    ("unKnowJobs", "unknown_jobs"),
)


def _port(fields: Fields) -> int:
    port = fields.integer("port", 0, minimum=0)
    if port > _PORT_MAX:
        raise fields.error("port", f"must be less than or equal to {_PORT_MAX}, got {port}")
    return port


def _read_probe(probe: Fields) -> dict[str, Any]:
    read: dict[str, Any] = {}
    http = []
    for item in probe.objects("httpGetList"):
        entry: dict[str, Any] = {"taskName": item.string("taskName")}
        if item.has("path"):
            entry["path"] = item.string("path")
        entry["port"] = _port(item)
        if item.has("httpHeader"):
            header = item.obj("httpHeader")
            entry["httpHeader"] = {
                "name": header.string("name", required=True),
                "value": header.string("value"),
            }
            header.done()
        item.done()
        http.append(entry)
    tcp = []
    for item in probe.objects("tcpSocketList"):
        tcp.append({"taskName": item.string("taskName"), "port": _port(item)})
        item.done()
    tasks = []
    for item in probe.objects("taskStatusList"):
        tasks.append({"taskName": item.string("taskName"), "phase": item.string("phase")})
        item.done()
    probe.done()
    for key, values in (("httpGetList", http), ("tcpSocketList", tcp), ("taskStatusList", tasks)):
        if values:
            read[key] = values
    return read


def read_flow(flow: Fields) -> dict[str, Any]:
    """Return one entry of ``spec.flows`` checked for shape."""
    read: dict[str, Any] = {"name": flow.string("name", required=True)}
    if flow.has("dependsOn"):
        depends = flow.obj("dependsOn")
        depends_on: dict[str, Any] = {}
        if depends.has("targets"):
            depends_on["targets"] = depends.strings("targets")
        if depends.has("probe"):
            depends_on["probe"] = _read_probe(depends.obj("probe"))
        depends.done()
        read["dependsOn"] = depends_on
    if flow.has("patch"):
        patch = flow.obj("patch")
        job_spec = patch.json("jobSpec", {})
        check_job_patch(job_spec, at=patch.at("jobSpec"))
        read["patch"] = {"jobSpec": job_spec}
        patch.done()
    flow.done()
    return read


class JobTemplateKind(Kind):
    """``flow.volcano.sh/v1alpha1`` JobTemplate: a Volcano Job spec, and the jobs made of it."""

    api_version = "flow.volcano.sh/v1alpha1"
    kind = "JobTemplate"
    resource = "jobtemplate.flow.volcano.sh"
    model = JobTemplate
    spec_fields = ("spec",)
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        template: JobTemplate = loaded.instance
        doc.raw("spec")
        template.spec = read_job_spec(
            doc.data.get("spec") or {}, at="spec", name=template.name, namespace=template.namespace
        )
        status = doc.obj("status")
        template.job_depends_on_list = status.strings("jobDependsOnList")
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        template: JobTemplate = instance
        body: Manifest = {"spec": template.spec}
        if template.job_depends_on_list:
            body["status"] = {"jobDependsOnList": list(template.job_depends_on_list)}
        return body

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse what Volcano would (``flow.admission``)."""
        # Admission reads manifests with these kinds: the two modules need each other.
        from flow.admission import admit_job_template

        admit_job_template(loaded.instance, old=existing)


class JobFlowKind(Kind):
    """``flow.volcano.sh/v1alpha1`` JobFlow: steps that each make a job from a template."""

    api_version = "flow.volcano.sh/v1alpha1"
    kind = "JobFlow"
    resource = "jobflow.flow.volcano.sh"
    model = JobFlow
    spec_fields = ("flows", "job_retain_policy")
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "job_retain_policy": "spec.jobRetainPolicy",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        flow: JobFlow = loaded.instance
        spec = doc.obj("spec")
        flow.flows = [read_flow(item) for item in spec.objects("flows")]
        policy = spec.string("jobRetainPolicy", RetainPolicy.RETAIN)
        if policy not in RetainPolicy.values:
            raise spec.error(
                "jobRetainPolicy",
                f'Unsupported value: "{policy}": supported values: "retain", "delete"',
            )
        flow.job_retain_policy = policy
        spec.done()
        self.read_status(doc.obj("status"), flow)

    def read_status(self, status: Fields, flow: JobFlow) -> None:
        """Read ``status`` (the controller's) so that a dumped flow loads back the same."""
        for wire, column in _JOB_LISTS:
            setattr(flow, column, status.strings(wire))
        flow.job_status_list = status.json("jobStatusList", [])
        flow.conditions = status.json("conditions", {})
        state = status.obj("state")
        phase = state.string("phase")
        if phase and phase not in FlowPhase.values:
            raise state.error("phase", f"unsupported value {phase!r}")
        flow.phase = phase
        state.done()
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        flow: JobFlow = instance
        spec: Manifest = {"flows": flow.flows, "jobRetainPolicy": flow.job_retain_policy}
        status: Manifest = {}
        for wire, column in _JOB_LISTS:
            if values := getattr(flow, column):
                status[wire] = list(values)
        if flow.job_status_list:
            status["jobStatusList"] = flow.job_status_list
        if flow.conditions:
            status["conditions"] = flow.conditions
        if flow.phase:
            status["state"] = {"phase": flow.phase}
        return {"spec": spec, "status": status} if status else {"spec": spec}

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse a flow whose steps do not form a DAG of known templates (``flow.admission``)."""
        # Admission reads manifests with these kinds: the two modules need each other.
        from flow.admission import admit_job_flow

        admit_job_flow(loaded.instance, old=existing)


class CronJobKind(Kind):
    """``batch.volcano.sh/v1alpha1`` CronJob: a Volcano Job made on a schedule."""

    api_version = "batch.volcano.sh/v1alpha1"
    kind = "CronJob"
    resource = "cronjob.batch.volcano.sh"
    model = CronJob
    spec_fields = (
        "schedule",
        "time_zone",
        "starting_deadline_seconds",
        "concurrency_policy",
        "suspend",
        "successful_jobs_history_limit",
        "failed_jobs_history_limit",
        "job_template",
    )
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "schedule": "spec.schedule",
        "time_zone": "spec.timeZone",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        cron: CronJob = loaded.instance
        spec = doc.obj("spec")
        cron.schedule = spec.string("schedule")  # admission says it is required
        cron.time_zone = spec.string("timeZone")
        if spec.has("timeZone") and not cron.time_zone:
            raise spec.error(
                "timeZone", "timeZone must be nil or non-empty string, got empty string"
            )
        cron.starting_deadline_seconds = spec.optional_integer("startingDeadlineSeconds", minimum=0)
        policy = spec.string("concurrencyPolicy", ConcurrencyPolicy.ALLOW)
        if policy not in ConcurrencyPolicy.values:
            raise spec.error(
                "concurrencyPolicy",
                f'Unsupported value: "{policy}": supported values: "Allow", "Forbid", "Replace"',
            )
        cron.concurrency_policy = policy
        cron.suspend = spec.boolean("suspend", False)
        cron.successful_jobs_history_limit = spec.integer(
            "successfulJobsHistoryLimit", 3, minimum=0
        )
        cron.failed_jobs_history_limit = spec.integer("failedJobsHistoryLimit", 1, minimum=0)
        cron.job_template = self.read_job_template(spec.obj("jobTemplate"), cron)
        spec.done()
        status = doc.obj("status")
        cron.active = status.json("active", [])
        cron.last_schedule_time = status.time("lastScheduleTime")
        cron.last_successful_time = status.time("lastSuccessfulTime")
        status.done()

    def read_job_template(self, template: Fields, cron: CronJob) -> dict[str, Any]:
        """Return ``spec.jobTemplate``: the jobs' labels and annotations and their Job spec."""
        read: dict[str, Any] = {}
        if template.has("metadata"):
            meta = template.obj("metadata")
            metadata = {}
            for key in ("labels", "annotations"):
                if meta.has(key):
                    metadata[key] = meta.string_map(key)
            meta.ignore("name", "namespace", "finalizers", "generateName")
            meta.done()
            if metadata:
                read["metadata"] = metadata
        template.raw("spec")
        read["spec"] = read_job_spec(
            template.data.get("spec") or {},
            at=template.at("spec"),
            name=cron.name,
            namespace=cron.namespace,
        )
        template.done()
        return read

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        cron: CronJob = instance
        spec: Manifest = {"schedule": cron.schedule}
        if cron.time_zone:
            spec["timeZone"] = cron.time_zone
        if cron.starting_deadline_seconds is not None:
            spec["startingDeadlineSeconds"] = cron.starting_deadline_seconds
        spec.update(
            {
                "concurrencyPolicy": cron.concurrency_policy,
                "suspend": cron.suspend,
                "successfulJobsHistoryLimit": cron.successful_jobs_history_limit,
                "failedJobsHistoryLimit": cron.failed_jobs_history_limit,
                "jobTemplate": cron.job_template,
            }
        )
        status: Manifest = {}
        if cron.active:
            status["active"] = cron.active
        if cron.last_schedule_time is not None:
            status["lastScheduleTime"] = format_time(cron.last_schedule_time)
        if cron.last_successful_time is not None:
            status["lastSuccessfulTime"] = format_time(cron.last_successful_time)
        return {"spec": spec, "status": status} if status else {"spec": spec}

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse a name too long for its jobs, a schedule or zone that does not parse."""
        # Admission reads manifests with these kinds: the two modules need each other.
        from flow.admission import admit_cron_job

        admit_cron_job(loaded.instance, old=existing)
