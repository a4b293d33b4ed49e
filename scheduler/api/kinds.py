"""What the scheduler registers with the kernel: its configuration as a manifest and a resource.

``manage.py apply`` reads Volcano's ``volcano-scheduler-configmap`` (a ``v1`` ConfigMap holding
``volcano-scheduler.conf``) and bare ``.conf`` files as scheduler configurations, after the
nodes and before the jobs; ``schedulerconfigurations`` (``scheduler.api.views``), listed in
discovery and described by the OpenAPI documents, is read by everyone and written by operators.
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import AccessRule
from kube.schemas import integer, object_of, string
from scheduler.manifests import SchedulerConfigurationKind, load_conf_text

__all__ = ["register"]

# After the nodes (30), before the jobs (50): see ``kube.registry.Entry.apply_order``.
APPLY_ORDER = 40

# Its OpenAPI schema (``kubectl explain schedulerconfigurations``).
SCHEMA = (
    "A version of the Volcano scheduler's configuration (volcano-scheduler.conf); named v<N>, "
    "or active for the one the scheduler runs.",
    {
        "spec": object_of(
            "The configuration this version holds.",
            {
                "conf": string(
                    "The volcano-scheduler.conf text: actions, tiers of plugins, configurations."
                ),
                "comment": string("Why this version was made (500 characters at most)."),
            },
        ),
        "status": object_of(
            "What the server records about this version.",
            {
                "version": integer("The version number (the N of v<N>)."),
                "active": {
                    "type": "boolean",
                    "description": "Whether the scheduler runs this version.",
                },
                "author": string("Who stored this version."),
            },
        ),
    },
)


def register() -> None:
    """Register the configuration's manifest, its ``.conf`` loader and its API resource."""
    registry.register_manifest(SchedulerConfigurationKind(), order=APPLY_ORDER)
    registry.register_file_loader(".conf", load_conf_text)
    registry.register_access(
        "schedulerconfigurations", AccessRule(EVERYONE, OPERATORS, namespaced=False)
    )
    registry.register_api_resource(
        "scheduler.volcano.sh/v1alpha1",
        {
            "name": "schedulerconfigurations",
            "singularName": "schedulerconfiguration",
            "namespaced": False,
            "kind": "SchedulerConfiguration",
            "verbs": ["create", "get", "list", "patch", "update"],
        },
        schema=SCHEMA,
    )
