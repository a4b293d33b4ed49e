"""``vcctl queue create|list|get|operate|delete`` over the cluster-scoped Queues API.

As in vcctl's ``pkg/cli/queue``: ``operate --action open|close`` posts a bus Command
(OpenQueue / CloseQueue, in namespace ``default``) for the queue controller, and
``--action update`` merge-patches ``spec.weight``. Create, operate and delete print nothing
on success, as vcctl does; the exit code says it worked.
"""

from __future__ import annotations

import argparse

from vcctl.base import (
    SCHEDULING,
    CliError,
    Context,
    command_body,
    commands_path,
    controller_ref,
    queues_path,
)
from vcctl.printers import queue_table, render

__all__ = ["ACTIONS", "queue_create", "queue_delete", "queue_get", "queue_list", "queue_operate"]

ACTIONS = ("open", "close", "update")
# vcctl files queue Commands in the default namespace (queues themselves have none).
COMMAND_NAMESPACE = "default"


def queue_create(args: argparse.Namespace, ctx: Context) -> int:
    """Create a queue with ``--name``, ``--weight`` and ``--state`` (vcctl's defaults: test, 1, Open)."""
    body = {
        "apiVersion": SCHEDULING,
        "kind": "Queue",
        "metadata": {"name": args.name},
        "spec": {"weight": args.weight},
        "status": {"state": args.state},
    }
    created = ctx.client.create(queues_path(), body)
    if args.output:
        ctx.stdout.write(render(created, args.output))
    return 0


def queue_list(args: argparse.Namespace, ctx: Context) -> int:
    """Print every queue in vcctl's table (or the QueueList with ``-o``)."""
    listing = ctx.client.list_all(queues_path())
    queues = listing.get("items") or []
    if args.output:
        ctx.stdout.write(render(listing, args.output))
    elif not queues:
        ctx.stdout.write("No resources found\n")
    else:
        ctx.stdout.write(queue_table(queues))
    return 0


def queue_get(args: argparse.Namespace, ctx: Context) -> int:
    """Print one queue's row under vcctl's header (or the Queue with ``-o``)."""
    if not args.name:
        raise CliError("name is mandatory to get the particular queue details")
    queue = ctx.client.get(queues_path(args.name))
    ctx.stdout.write(render(queue, args.output) if args.output else queue_table([queue]))
    return 0


def queue_operate(args: argparse.Namespace, ctx: Context) -> int:
    """Open or close a queue (a bus Command) or change its weight (a merge patch)."""
    if not args.name:
        raise CliError("Queue name must be specified")
    if args.action == "update":
        if args.weight <= 0:
            raise CliError(
                f"When update queue {args.name}, weight must be specified, "
                "the value must be greater than 0"
            )
        ctx.client.merge_patch(queues_path(args.name), {"spec": {"weight": args.weight}})
        return 0
    if not args.action:
        raise CliError("Action can not be null")
    if args.action not in ACTIONS:
        raise CliError(
            f"Action {args.action} invalid, valid actions are {', '.join(ACTIONS[:2])} and update"
        )
    queue = ctx.client.get(queues_path(args.name))
    target = controller_ref(queue, api_version=SCHEDULING, kind="Queue")
    action = "OpenQueue" if args.action == "open" else "CloseQueue"
    body = command_body(target, action, namespace=COMMAND_NAMESPACE)
    ctx.client.create(commands_path(COMMAND_NAMESPACE), body)
    return 0


def queue_delete(args: argparse.Namespace, ctx: Context) -> int:
    """Delete a queue (the server refuses ``default`` and ``root``)."""
    if not args.name:
        raise CliError("Queue name must be specified")
    ctx.client.delete(queues_path(args.name))
    return 0
