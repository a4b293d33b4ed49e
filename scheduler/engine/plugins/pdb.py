"""PDB plugin: victims that would break a PodDisruptionBudget are not evicted.

Volcano's counterpart: ``pkg/scheduler/plugins/pdb``. One filter serves preempt
(``enablePreemptable``), reclaim (``enableReclaimable``) and the victim hook shuffle asks
(``enabledVictim``). Each call starts from every budget's ``status.disruptionsAllowed`` and walks
the candidates in the order given: a candidate takes one disruption from every budget that
selects it (same namespace, selector matches its labels), unless the budget already lists it in
``status.disruptedPods``; it stays a victim only while none of those budgets went below zero.
A budget is charged even by a candidate another budget refuses, as in Volcano.

As in Volcano, a pod without labels is never a victim while this plugin filters: its loop skips
such pods before it would keep them (they match no budget, and are dropped all the same). A
budget with no selector, or an empty one, selects no pod.

As a victim hook the filter returns the running pods it keeps, so shuffle with pdb's
``enabledVictim`` on evicts every running pod no budget protects (Volcano's union of hooks).
"""

from __future__ import annotations

from scheduler.engine.api.pdb_info import PdbInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["PdbPlugin", "within_budgets"]


def within_budgets(pdbs: list[PdbInfo], tasks: list[TaskInfo]) -> list[TaskInfo]:
    """Return the tasks of ``tasks`` whose eviction, in that order, keeps every budget >= 0."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    # Asked once per node a preemptor tries: only the budgets of a pod's namespace that select
    # anything are worth a look (``PdbInfo.selects`` without its repeated checks).
    by_namespace: dict[str, list[tuple[int, PdbInfo]]] = {}
    for i, pdb in enumerate(pdbs):
        if pdb.selector is not None and not pdb.selector.is_empty():
            by_namespace.setdefault(pdb.namespace, []).append((i, pdb))
    victims: list[TaskInfo] = []
    for task in tasks:
        labels = task.labels
        if not labels:
            continue  # Volcano's early skip: an unlabelled pod is left out of the victims
        violated = False
        for i, pdb in by_namespace.get(task.namespace, ()):
            assert pdb.selector is not None
            if not pdb.selector.matches(labels) or task.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                violated = True
        if not violated:
            victims.append(task)
    return victims


@register_plugin
class PdbPlugin(Plugin):
    """Keeps victims within the cluster's PodDisruptionBudgets."""

    name = "pdb"

    def on_session_open(self, ssn: Session) -> None:
        """Register the one filter as preemptable, reclaimable and victim hook."""
        pdbs = list(ssn.cluster.pdbs)

        def victims(tasks: list[TaskInfo]) -> list[TaskInfo]:
            return within_budgets(pdbs, tasks)

        def evictable(_preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
            return within_budgets(pdbs, candidates)

        ssn.add_victim_tasks_fn(self.name, victims)
        ssn.add_reclaimable_fn(self.name, evictable)
        ssn.add_preemptable_fn(self.name, evictable)
