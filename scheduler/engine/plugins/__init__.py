"""Every built-in plugin, imported in one explicit sorted list (Volcano's ``factory.go``).

Importing a module registers its plugin class. Add one line per new plugin module, keep the
list sorted; there is no autodiscovery.
"""

from __future__ import annotations

from scheduler.engine.plugins import (
    binpack,
    capacity,
    cdp,
    conformance,
    deviceshare,
    drf,
    extender,
    gang,
    network_topology_aware,
    nodegroup,
    nodeorder,
    numaaware,
    overcommit,
    pdb,
    predicates,
    priority,
    proportion,
    rescheduling,
    resource_strategy_fit,
    resourcequota,
    sla,
    task_topology,
    tdm,
    usage,
)

__all__ = [
    "binpack",
    "capacity",
    "cdp",
    "conformance",
    "deviceshare",
    "drf",
    "extender",
    "gang",
    "network_topology_aware",
    "nodegroup",
    "nodeorder",
    "numaaware",
    "overcommit",
    "pdb",
    "predicates",
    "priority",
    "proportion",
    "rescheduling",
    "resource_strategy_fit",
    "resourcequota",
    "sla",
    "task_topology",
    "tdm",
    "usage",
]
