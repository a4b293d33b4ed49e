"""vcctl's command tree (``job …``, ``queue …``) with its flags, short forms and defaults.

Flags follow vcctl's (``pkg/cli/job/*.go``, ``pkg/cli/queue/*.go``): note that ``job``
commands take ``-N`` for the name and ``-n`` for the namespace while ``queue`` commands take
``-n`` for the name, as vcctl does. Each leaf also takes ``--server``/``-s`` (alias
``--master``) and ``--token``, read from ``VOLCANO_SERVER``/``VOLCANO_TOKEN`` when absent.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence

from vcctl import flow, jobs, kubeflow, queues
from vcctl.base import CliError, Context, Writer
from vcctl.client import ApiError, Client, ConnectionFailedError, resolve_connection

__all__ = ["add_arguments", "execute", "main"]

Handler = Callable[[argparse.Namespace, Context], int]
OUTPUTS = ("yaml", "json")


def _common(*, output: bool) -> argparse.ArgumentParser:
    """Return the flags every leaf command shares (connection, and ``-o`` where it prints)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-s", "--server", "--master", dest="server", help="the API server URL (env VOLCANO_SERVER)"
    )
    common.add_argument("--token", help="the API token (env VOLCANO_TOKEN)")
    if output:
        common.add_argument("-o", "--output", choices=OUTPUTS, help="print the object as yaml/json")
    else:
        common.set_defaults(output=None)
    return common


def _leaf(
    group: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    handler: Handler,
    help_text: str,
    *,
    output: bool = False,
) -> argparse.ArgumentParser:
    parser = group.add_parser(
        name, help=help_text, description=help_text, parents=[_common(output=output)]
    )
    parser.set_defaults(handler=handler)
    return parser


def _job_commands(group: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = _leaf(
        group, "run", jobs.job_run, "run job by parameters from the command line", output=True
    )
    run.add_argument("-f", "--filename", default="", help="the yaml file of job")
    run.add_argument("-N", "--name", default="", help="the name of job")
    run.add_argument("-n", "--namespace", default=None, help="the namespace of job (default)")
    run.add_argument("-i", "--image", default="busybox", help="the container image of job")
    run.add_argument("-r", "--replicas", type=int, default=1, help="the total tasks of job")
    run.add_argument("-m", "--min", type=int, default=1, help="the minimal available tasks of job")
    resources = "cpu=1000m,memory=100Mi"
    run.add_argument("-R", "--requests", default=resources, help="the resource request of the task")
    run.add_argument("-L", "--limits", default=resources, help="the resource limit of the task")
    run.add_argument("-S", "--scheduler", default="volcano", help="the scheduler for this job")
    run.add_argument("-q", "--queue", default="", help="the queue of job (server default: default)")

    listing = _leaf(group, "list", jobs.job_list, "list job information", output=True)
    listing.add_argument("-n", "--namespace", default="default", help="the namespace of job")
    listing.add_argument(
        "--all-namespaces", action="store_true", help="list jobs in all namespaces"
    )
    listing.add_argument("-q", "--queue", default="", help="list job with specified queue name")
    listing.add_argument("-S", "--scheduler", default="", help="list job with specified scheduler")
    listing.add_argument("--selector", default="", help="fuzzy matching jobName")

    for name, handler, help_text in (
        ("view", jobs.job_view, "show job information"),
        ("suspend", jobs.job_suspend, "abort a job"),
        ("resume", jobs.job_resume, "resume a job"),
        ("delete", jobs.job_delete, "delete a job"),
    ):
        leaf = _leaf(group, name, handler, help_text, output=name == "view")
        leaf.add_argument("-N", "--name", default="", help="the name of job")
        leaf.add_argument("-n", "--namespace", default="default", help="the namespace of job")


def _queue_commands(group: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    create = _leaf(group, "create", queues.queue_create, "create a queue", output=True)
    create.add_argument("-n", "--name", default="test", help="the name of queue")
    create.add_argument("-w", "--weight", type=int, default=1, help="the weight of the queue")
    create.add_argument("-S", "--state", default="Open", help="the state of queue")

    _leaf(group, "list", queues.queue_list, "list all the queues", output=True)
    get = _leaf(group, "get", queues.queue_get, "get a queue", output=True)
    get.add_argument("-n", "--name", default="", help="the name of queue")

    operate = _leaf(group, "operate", queues.queue_operate, "operate a queue: open, close, update")
    operate.add_argument("-n", "--name", default="", help="the name of queue")
    operate.add_argument("-w", "--weight", type=int, default=0, help="the weight of the queue")
    operate.add_argument(
        "-a", "--action", default="", help="operate action to queue: open, close, update"
    )

    delete = _leaf(group, "delete", queues.queue_delete, "delete a queue")
    delete.add_argument("-n", "--name", default="", help="the name of queue")


def _kubeflow_commands(group: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = _leaf(
        group, "run", kubeflow.kubeflow_run, "create a training job from a file", output=True
    )
    run.add_argument("-f", "--filename", default="", help="the yaml file of the job")
    run.add_argument("-n", "--namespace", default=None, help="the namespace of the job")
    listing = _leaf(group, "list", kubeflow.kubeflow_list, "list training jobs", output=True)
    listing.add_argument("-n", "--namespace", default="default", help="the namespace of jobs")
    listing.add_argument("--all-namespaces", action="store_true", help="list every namespace")
    listing.add_argument("-k", "--kind", default="", help="pytorchjob, tfjob or mpijob (all)")
    listing.add_argument("-q", "--queue", default="", help="list jobs of this queue")
    for name, handler, help_text in (
        ("view", kubeflow.kubeflow_view, "show a training job"),
        ("delete", kubeflow.kubeflow_delete, "delete a training job"),
    ):
        leaf = _leaf(group, name, handler, help_text, output=name == "view")
        leaf.add_argument("-N", "--name", default="", help="the name of the job")
        leaf.add_argument("-n", "--namespace", default="default", help="the namespace of the job")
        leaf.add_argument("-k", "--kind", default="pytorchjob", help="pytorchjob, tfjob or mpijob")


def _flow_commands(
    group: argparse._SubParsersAction[argparse.ArgumentParser], kind: flow.FlowKind
) -> None:
    """Volcano's ``vcctl jobtemplate`` and ``vcctl jobflow`` subcommands, with its flags."""
    words = kind.words
    create = _leaf(group, "create", functools.partial(flow.flow_create, kind=kind),
                   f"create a {words}")  # fmt: skip
    create.add_argument("-f", "--file", default="",
                        help=f"the path to the YAML file containing the {words}")  # fmt: skip
    listing = _leaf(group, "list", functools.partial(flow.flow_list, kind=kind), f"list {words}s")
    listing.add_argument("-n", "--namespace", default="default", help=f"the namespace of {words}")
    if kind.phase_columns:
        listing.add_argument("--all-namespaces", action="store_true",
                             help=f"list {words}s in all namespaces")  # fmt: skip
    for name, handler in (("get", flow.flow_get), ("describe", flow.flow_describe),
                          ("delete", flow.flow_delete)):  # fmt: skip
        leaf = _leaf(group, name, functools.partial(handler, kind=kind), f"{name} a {words}")
        leaf.add_argument("-N", "--name", default="", help=f"the name of {words}")
        leaf.add_argument("-n", "--namespace", default="default", help=f"the namespace of {words}")
        if name == "describe":
            leaf.add_argument("-o", "--format", default="yaml", help="the format of output")
        if name == "delete":
            leaf.add_argument("-f", "--file", default="",
                              help=f"the path to the YAML file containing the {words}")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add vcctl's ``job``, ``queue``, ``jobtemplate`` and ``jobflow`` command groups (and
    ``kubeflow``) to ``parser``."""
    resources = parser.add_subparsers(
        dest="resource", metavar="{job,queue,jobtemplate,jobflow,kubeflow}", required=True
    )
    job = resources.add_parser("job", help="vcctl command line operation job")
    _job_commands(job.add_subparsers(dest="command", metavar="COMMAND", required=True))
    queue = resources.add_parser("queue", help="Queue Operations")
    _queue_commands(queue.add_subparsers(dest="command", metavar="COMMAND", required=True))
    template = resources.add_parser("jobtemplate", help="vcctl command line operation jobtemplate")
    _flow_commands(template.add_subparsers(dest="command", metavar="COMMAND", required=True),
                   flow.JOBTEMPLATE)  # fmt: skip
    jobflow = resources.add_parser("jobflow", help="vcctl command line operation jobflow")
    _flow_commands(jobflow.add_subparsers(dest="command", metavar="COMMAND", required=True),
                   flow.JOBFLOW)  # fmt: skip
    training = resources.add_parser("kubeflow", help="Kubeflow training jobs (PyTorchJob, ...)")
    _kubeflow_commands(training.add_subparsers(dest="command", metavar="COMMAND", required=True))


def execute(
    args: argparse.Namespace, *, stdout: Writer, stderr: Writer, client: Client | None = None
) -> int:
    """Run the parsed command; print an error and return 1 when it fails."""
    try:
        if client is None:
            client = Client(resolve_connection(args.server, args.token))
        handler: Handler = args.handler
        return handler(args, Context(client=client, stdout=stdout, stderr=stderr))
    except (ApiError, ConnectionFailedError) as error:
        stderr.write(f"{error}\n")
    except CliError as error:
        stderr.write(f"Error: {error}\n")
    return 1


def main(
    argv: Sequence[str] | None = None, *, stdout: Writer | None = None, stderr: Writer | None = None
) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run it: ``python -m vcctl``."""
    parser = argparse.ArgumentParser(prog="vcctl", description="Volcano's vcctl over the REST API")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return execute(args, stdout=stdout or sys.stdout, stderr=stderr or sys.stderr)
