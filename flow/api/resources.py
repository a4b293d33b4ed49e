"""The workflow kinds served at their Kubernetes paths.

``/apis/flow.volcano.sh/v1alpha1/namespaces/{ns}/{jobtemplates,jobflows}`` and
``/apis/batch.volcano.sh/v1alpha1/namespaces/{ns}/cronjobs``, each with a ``status``
subresource (the controllers'), as Volcano's CRDs declare them.
"""

from __future__ import annotations

from typing import Any

from flow.manifests import CronJobKind, JobFlowKind, JobTemplateKind
from kube.resources import Resource
from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = [
    "CRONJOBS",
    "CRONJOB_EXAMPLE",
    "FLOW_RESOURCES",
    "JOBFLOWS",
    "JOBFLOW_EXAMPLE",
    "JOBTEMPLATES",
    "JOBTEMPLATE_EXAMPLE",
    "FlowListSerializer",
    "FlowSerializer",
]

_SELECTORS = {"metadata.name": "name", "metadata.namespace": "namespace"}

_JOB_SPEC: dict[str, Any] = {
    "minAvailable": 1,
    "schedulerName": "volcano",
    "queue": "default",
    "tasks": [
        {
            "replicas": 1,
            "name": "main",
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "busybox",
                            "command": ["sh", "-c", "sleep 10"],
                            "resources": {"requests": {"cpu": "1"}},
                        }
                    ],
                    "restartPolicy": "OnFailure",
                }
            },
        }
    ],
}

JOBTEMPLATE_EXAMPLE: dict[str, Any] = {
    "apiVersion": "flow.volcano.sh/v1alpha1",
    "kind": "JobTemplate",
    "metadata": {"name": "prepare"},
    "spec": _JOB_SPEC,
}
JOBFLOW_EXAMPLE: dict[str, Any] = {
    "apiVersion": "flow.volcano.sh/v1alpha1",
    "kind": "JobFlow",
    "metadata": {"name": "pipeline"},
    "spec": {"jobRetainPolicy": "retain", "flows": [{"name": "prepare"}]},
}
CRONJOB_EXAMPLE: dict[str, Any] = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "CronJob",
    "metadata": {"name": "nightly"},
    "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": _JOB_SPEC}},
}

JOBTEMPLATES = Resource(
    manifest=JobTemplateKind(),
    plural="jobtemplates",
    group="flow.volcano.sh",
    version="v1alpha1",
    access="jobtemplates",
    field_selectors=_SELECTORS,
    status_subresource=True,
    creator_field="creator",
    example=JOBTEMPLATE_EXAMPLE,
)
JOBFLOWS = Resource(
    manifest=JobFlowKind(),
    plural="jobflows",
    group="flow.volcano.sh",
    version="v1alpha1",
    access="jobflows",
    field_selectors={**_SELECTORS, "status.state.phase": "phase"},
    status_subresource=True,
    creator_field="creator",
    example=JOBFLOW_EXAMPLE,
)
CRONJOBS = Resource(
    manifest=CronJobKind(),
    plural="cronjobs",
    group="batch.volcano.sh",
    version="v1alpha1",
    access="cronjobs",
    field_selectors={**_SELECTORS, "spec.suspend": "suspend"},
    status_subresource=True,
    creator_field="creator",
    example=CRONJOB_EXAMPLE,
)
FLOW_RESOURCES = (JOBTEMPLATES, JOBFLOWS, CRONJOBS)


class FlowSerializer(KubeObjectSerializer):
    """A JobTemplate, JobFlow or CronJob: spec as written with defaults, the controller's status."""


FlowListSerializer = list_serializer(FlowSerializer, "FlowListSerializer")
