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
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["Budgets", "PdbPlugin", "within_budgets"]


def within_budgets(pdbs: list[PdbInfo], tasks: list[TaskInfo]) -> list[TaskInfo]:
    """Return the tasks of ``tasks`` whose eviction, in that order, keeps every budget >= 0."""
    return Budgets(pdbs).within(tasks)


class Budgets:
    """A session's budgets, and which of them select each pod spec (worked out once per spec).

    Why: preempt and reclaim ask the filter once per node a preemptor tries, up to a hundred
    thousand times a session, about pods that share a handful of specs; matching every budget's
    selector against every candidate each time was most of the filter's cost.
    """

    __slots__ = ("_allowed", "_by_namespace", "_pdbs", "_selecting")

    def __init__(self, pdbs: list[PdbInfo]) -> None:
        self._pdbs = pdbs
        self._allowed = [pdb.disruptions_allowed for pdb in pdbs]
        # Only budgets with a selector naming something can select a pod (``PdbInfo.selects``).
        self._by_namespace: dict[str, list[tuple[int, PdbInfo]]] = {}
        for i, pdb in enumerate(pdbs):
            if pdb.selector is not None and not pdb.selector.is_empty():
                self._by_namespace.setdefault(pdb.namespace, []).append((i, pdb))
        # (namespace, id of the template) -> (the template, the budgets selecting its pods)
        self._selecting: dict[tuple[str, int], tuple[TaskTemplate, list[tuple[int, PdbInfo]]]] = {}

    def _selecting_budgets(self, task: TaskInfo) -> list[tuple[int, PdbInfo]]:
        template = task.template
        key = (task.namespace, id(template))
        found = self._selecting.get(key)
        if found is not None and found[0] is template:
            return found[1]
        labels = task.labels
        selecting = [
            (i, pdb)
            for i, pdb in self._by_namespace.get(task.namespace, ())
            if pdb.selects(task.namespace, labels)
        ]
        self._selecting[key] = (template, selecting)
        return selecting

    def within(self, tasks: list[TaskInfo]) -> list[TaskInfo]:
        """Return the tasks whose eviction, in that order, keeps every budget >= 0."""
        allowed = self._allowed.copy()
        victims: list[TaskInfo] = []
        for task in tasks:
            if not task.labels:
                continue  # Volcano's early skip: an unlabelled pod is left out of the victims
            violated = False
            for i, pdb in self._selecting_budgets(task):
                if task.name in pdb.disrupted_pods:
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
    static_victims = True  # budgets/cool-downs/namespaces of the candidates only

    def on_session_open(self, ssn: Session) -> None:
        """Register the one filter as preemptable, reclaimable and victim hook."""
        budgets = Budgets(list(ssn.cluster.pdbs))

        def victims(tasks: list[TaskInfo]) -> list[TaskInfo]:
            return budgets.within(tasks)

        def evictable(_preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
            return budgets.within(candidates)

        ssn.add_victim_tasks_fn(self.name, victims)
        ssn.add_reclaimable_fn(self.name, evictable)
        ssn.add_preemptable_fn(self.name, evictable)
