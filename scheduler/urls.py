"""The scheduler app's console URLs: the Nodes pages, the policy editor, its versions, what-if;
the scheduler's health;
the queue editor's share preview and what-if (at the editor's addresses), and the queues
page's weight preview."""

from __future__ import annotations

from django.urls import URLPattern, path

from scheduler.views import health, hypernodes, nodes, policy, queue_edit

app_name = "scheduler"

urlpatterns: list[URLPattern] = [
    path("nodes/", nodes.node_list, name="node_list"),
    path("nodes/<str:name>/", nodes.node_detail, name="node_detail"),
    path("nodes/<str:name>/action/", nodes.node_action, name="node_action"),
    # The Topology pages: the HyperNode tree and one HyperNode.
    path("topology/", hypernodes.hypernode_list, name="hypernode_list"),
    path("topology/<str:name>/", hypernodes.hypernode_detail, name="hypernode_detail"),
    path("scheduler/health/", health.scheduler_health, name="health"),
    path("scheduler/policy/", policy.policy_editor, name="policy"),
    path("scheduler/policy/sync/", policy.policy_sync, name="policy_sync"),
    path("scheduler/policy/versions/", policy.policy_versions, name="policy_versions"),
    path(
        "scheduler/policy/versions/<int:version>/activate/",
        policy.policy_activate,
        name="policy_activate",
    ),
    path("scheduler/policy/whatif/", policy.policy_whatif, name="policy_whatif"),
    path(
        "scheduler/policy/whatif/<str:run_id>/",
        policy.policy_whatif_result,
        name="policy_whatif_result",
    ),
    path(
        "scheduler/policy/whatif/<str:run_id>/scenario.yaml",
        policy.policy_whatif_scenario,
        name="policy_whatif_scenario",
    ),
    path(
        "queues/<str:name>/edit/preview/",
        queue_edit.queue_share_preview,
        name="queue_share_preview",
    ),
    path(
        "queues/<str:name>/weight-preview/",
        queue_edit.queue_weight_preview,
        name="queue_weight_preview",
    ),
    path("queues/<str:name>/edit/whatif/", queue_edit.queue_whatif, name="queue_whatif"),
]
