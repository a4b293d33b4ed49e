"""What an operator does to a node from the console: cordon, uncordon, take it down, bring it up.

Each is the fault injection's own function (``kubelet.faults``), so the console, the API
and ``manage.py fault`` change a node the same way and leave the same audit entries: a
cordon through the node's save signals (``unschedulable`` before and after), down and up
through ``audit_record`` (``ready`` before and after, and how many pods failed).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core.models import Node
from kubelet.faults import node_cordon, node_down, node_up

__all__ = ["NODE_ACTIONS", "node_act", "node_actions"]

# action → (button label, confirmation question), marked for translation (the view translates
# them); the order of the buttons.
NODE_ACTIONS: dict[str, tuple[str, str]] = {
    "cordon": (
        gettext_noop("Cordon"),
        gettext_noop("Cordon {node}? No new pod will be bound to it; running pods stay."),
    ),
    "uncordon": (
        gettext_noop("Uncordon"),
        gettext_noop("Uncordon {node}? The scheduler may bind pods to it again."),
    ),
    "down": (
        gettext_noop("Take down"),
        gettext_noop("Take {node} down? It turns NotReady and every live pod on it fails."),
    ),
    "up": (gettext_noop("Bring up"), gettext_noop("Bring {node} up? It turns Ready again.")),
}


def node_actions(node: Node) -> tuple[str, str]:
    """Return the two actions that change ``node`` now: cordon or uncordon, down or up."""
    return ("uncordon" if node.unschedulable else "cordon", "down" if node.ready else "up")


def node_act(*, node: Node, action: str) -> str:
    """Apply ``action`` (a key of ``NODE_ACTIONS``) to ``node``; return what happened, in words."""
    if action == "cordon":
        node_cordon(node=node, unschedulable=True)
        return _("Node %(name)s cordoned.") % {"name": node.name}
    if action == "uncordon":
        node_cordon(node=node, unschedulable=False)
        return _("Node %(name)s uncordoned.") % {"name": node.name}
    if action == "down":
        failed = node_down(node=node, reason="TakenDownByOperator")
        return _("Node %(name)s taken down; %(n)s pod(s) failed.") % {
            "name": node.name,
            "n": failed,
        }
    if action == "up":
        node_up(node=node)
        return _("Node %(name)s is up.") % {"name": node.name}
    raise ValueError(f"unknown node action {action!r}")
