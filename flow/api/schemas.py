"""The workflow kinds' OpenAPI schemas (``kubectl explain jobflow.spec.flows``), after Volcano's
CRDs (``config/crd/jobflow/bases``, ``batch.volcano.sh_cronjobs.yaml``), in our own words."""

from __future__ import annotations

from typing import Any

from kube.schemas import JOB_SPEC, array_of, free_object, integer, object_of, string

__all__ = ["CRONJOB_SCHEMA", "JOBFLOW_SCHEMA", "JOBTEMPLATE_SCHEMA"]

_TASK_PROBE = object_of(
    "A task of a target job that must be in a phase.",
    {"taskName": string("The task's name."), "phase": string("The pod phase it must reach.")},
)
_PROBE = object_of(
    "What the targets' tasks must show before the step starts (instead of completing).",
    {
        "httpGetList": array_of(
            "HTTP GETs a Running pod of the named task must answer.",
            object_of("One HTTP GET.", {
                "taskName": string("The task's name."),
                "path": string("The path to GET."),
                "port": integer("The container port.", minimum=0, maximum=65535),
                "httpHeader": free_object("A header to send (name, value)."),
            }),
        ),
        "tcpSocketList": array_of(
            "Ports a Running pod of the named task must accept connections on.",
            object_of("One TCP port.", {
                "taskName": string("The task's name."),
                "port": integer("The container port.", minimum=0, maximum=65535),
            }),
        ),
        "taskStatusList": array_of("Tasks that must be in a phase.", _TASK_PROBE),
    },
)  # fmt: skip
_FLOW = object_of(
    "One step: the JobTemplate of this name, run as a job once its dependencies hold.",
    {
        "name": string("The JobTemplate this step runs (its job is <flow>-<name>)."),
        "dependsOn": object_of(
            "What the step waits for.",
            {
                "targets": array_of(
                    "Steps whose jobs must be Completed first.", {"type": "string"}
                ),
                "probe": _PROBE,
            },
        ),
        "patch": object_of(
            "Changes to the template for this step, merged by name.",
            {"jobSpec": free_object("A fragment of a Volcano Job spec.")},
        ),
    },
)
_NAMES = array_of("Job names.", {"type": "string"})

JOBFLOW_SCHEMA: tuple[str, dict[str, Any]] = (
    "A JobFlow: Volcano jobs made from JobTemplates in the order their dependencies allow.",
    {
        "spec": object_of(
            "The steps and what happens to their jobs afterwards.",
            {
                "flows": array_of("The steps.", _FLOW),
                "jobRetainPolicy": string(
                    "retain keeps the jobs after the flow succeeded; delete deletes them.",
                    enum=["retain", "delete"],
                ),
            },
        ),
        "status": object_of(
            "The jobs the flow made, by phase, and the flow's state.",
            {
                "pendingJobs": _NAMES,
                "runningJobs": _NAMES,
                "completedJobs": _NAMES,
                "failedJobs": _NAMES,
                "terminatedJobs": _NAMES,
                "unKnowJobs": _NAMES,
                "jobStatusList": array_of(
                    "Each job's state, times, restarts and running histories.",
                    free_object("One job's status."),
                ),
                "conditions": free_object("Each job's phase, creation and task counts."),
                "state": object_of(
                    "The flow's state.",
                    {"phase": string("Pending, Running, Succeed, Terminating or Failed.")},
                ),
            },
        ),
    },
)
JOBTEMPLATE_SCHEMA: tuple[str, dict[str, Any]] = (
    "A JobTemplate: a Volcano Job spec that runs nothing by itself; JobFlows make jobs of it.",
    {
        "spec": JOB_SPEC,
        "status": object_of(
            "The jobs made from this template.",
            {"jobDependsOnList": array_of("Their names.", {"type": "string"})},
        ),
    },
)
CRONJOB_SCHEMA: tuple[str, dict[str, Any]] = (
    "A CronJob: a Volcano job made from a template at each time of a schedule.",
    {
        "spec": object_of(
            "The schedule and the job to make.",
            {
                "schedule": string("A cron schedule: five fields, or @hourly, @daily, ..."),
                "timeZone": string("The IANA time zone the schedule is read in (UTC if unset)."),
                "startingDeadlineSeconds": integer(
                    "How late a run may still start; older missed runs are skipped.", minimum=0
                ),
                "concurrencyPolicy": string(
                    "Allow runs side by side; Forbid skips a run while one is active; Replace "
                    "deletes the active one first.",
                    enum=["Allow", "Forbid", "Replace"],
                ),
                "suspend": {"type": "boolean", "description": "No new runs while true."},
                "successfulJobsHistoryLimit": integer(
                    "Completed jobs kept (default 3).", minimum=0
                ),
                "failedJobsHistoryLimit": integer("Failed jobs kept (default 1).", minimum=0),
                "jobTemplate": object_of(
                    "The job each run makes.",
                    {
                        "metadata": free_object("Labels and annotations of the jobs."),
                        "spec": JOB_SPEC,
                    },
                ),
            },
        ),
        "status": object_of(
            "The running jobs and the last runs.",
            {
                "active": array_of("References to the running jobs.", free_object("A job.")),
                "lastScheduleTime": string("When a job was last scheduled.", format="date-time"),
                "lastSuccessfulTime": string("When a job last completed.", format="date-time"),
            },
        ),
    },
)
