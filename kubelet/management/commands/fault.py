"""``manage.py fault``: inject a failure into the simulated cluster.

manage.py fault pod-fail NAMESPACE/POD [--exit-code N]
manage.py fault pod-evict NAMESPACE/POD
manage.py fault node-down NODE | node-up NODE | cordon NODE | uncordon NODE
manage.py fault bind-failure NODE | bind-recovery NODE   (every bind to NODE fails, or works again)
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.models import Node, Pod
from kubelet import faults

FAULTS = ("pod-fail", "pod-evict", "node-down", "node-up", "cordon", "uncordon", "bind-failure",
          "bind-recovery")  # fmt: skip


class Command(BaseCommand):
    help = "Fail or evict a pod; take a node down or up, cordon it, make its binds fail."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fault", choices=FAULTS)
        parser.add_argument("target", help="NAMESPACE/POD (or POD in default) or NODE")
        parser.add_argument("--exit-code", type=int, default=1, help="pod-fail: the exit code")

    def handle(self, *args: Any, **options: Any) -> None:
        fault, target = options["fault"], options["target"]
        if fault.startswith("pod-"):
            namespace, _, name = target.rpartition("/")
            pod = Pod.objects.filter(namespace=namespace or "default", name=name).first()
            if pod is None:
                raise CommandError(f"pod {target} not found")
            if fault == "pod-fail":
                done = faults.pod_fail(pod=pod, exit_code=options["exit_code"])
            else:
                done = faults.pod_evict(pod=pod)
            if not done:
                raise CommandError(f"pod {target} is not running or pending")
            self.stdout.write(f"pod/{pod.name} {'failed' if fault == 'pod-fail' else 'evicted'}")
            return
        node = Node.objects.filter(name=target).first()
        if node is None:
            raise CommandError(f"node {target} not found")
        if fault == "node-down":
            failed = faults.node_down(node=node)
            self.stdout.write(f"node/{node.name} NotReady ({failed} pod(s) failed)")
        elif fault.startswith("bind-"):
            faults.node_bind_failure(node=node, fail=fault == "bind-failure")
            self.stdout.write(
                f"node/{node.name} binds {'fail' if fault == 'bind-failure' else 'work'}"
            )
        elif fault == "node-up":
            faults.node_up(node=node)
            self.stdout.write(f"node/{node.name} Ready")
        else:
            faults.node_cordon(node=node, unschedulable=fault == "cordon")
            self.stdout.write(f"node/{node.name} {fault}ed")
