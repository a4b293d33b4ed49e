"""``simulate``: run one session per scenario file and print (and optionally check) the decisions.

The pure runner behind ``manage.py simulate`` (``scheduler/management/commands/simulate.py`` only
forwards its arguments here), so it runs without Django or a database. The interface is
``shared/docs/scenario-format.md``: output keys ``name``, ``binds``, ``evictions``, ``pipelined``,
``podGroupPhases``, ``unschedulable``; exit 0 when all is well, 1 when ``--check`` finds a
difference, 2 when a file cannot be read or parsed (then no decisions are printed at all).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from apis.errors import EngineError
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.framework.session import run_session
from scheduler.engine.util.scenario import Scenario, diff, load_scenario

__all__ = ["EXIT_BAD_INPUT", "EXIT_MISMATCH", "Result", "main", "render", "run_files"]

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2


class Writer(Protocol):
    """Where output goes: a text stream (``sys.stdout``, Django's ``OutputWrapper``)."""

    def write(self, text: str, /) -> object:
        """Write ``text``."""
        ...


@dataclass(slots=True)
class Result:
    """One file's outcome: its decisions and the differences from ``expect``."""

    scenario: Scenario
    decisions: Decisions
    differences: list[str]


def as_json(result: Result) -> dict[str, Any]:
    """Return the output object of one file (scenario-format.md's keys).

    ``podAnnotations`` (what the bind writes on each pod, e.g. deviceshare's cards) appears only
    when some pod has any; ``allocatedHyperNodes`` (each topology job's HyperNode) only when
    some job has one.
    """
    d = result.decisions
    out: dict[str, Any] = {
        "name": result.scenario.name,
        "binds": dict(sorted(d.binds.items())),
        "evictions": [e.task for e in d.evictions],
        "pipelined": dict(sorted(d.pipelined.items())),
        "podGroupPhases": {k: str(v) for k, v in sorted(d.pod_group_phases.items())},
        "unschedulable": dict(sorted(d.unschedulable.items())),
    }
    if d.pod_annotations:
        out["podAnnotations"] = {
            k: dict(sorted(v.items())) for k, v in sorted(d.pod_annotations.items())
        }
    if d.allocated_hypernodes:
        out["allocatedHyperNodes"] = dict(sorted(d.allocated_hypernodes.items()))
    return out


def _as_text(result: Result) -> str:
    data = as_json(result)
    lines = [f"== {data['name']}"]
    lines += [f"bind      {pod} -> {node}" for pod, node in data["binds"].items()]
    lines += [f"evict     {e.task} on {e.node} ({e.reason})" for e in result.decisions.evictions]
    lines += [f"pipeline  {pod} -> {node}" for pod, node in data["pipelined"].items()]
    lines += [
        f"annotate  {pod}: {key}={value}"
        for pod, written in data.get("podAnnotations", {}).items()
        for key, value in written.items()
    ]
    lines += [f"phase     {pg}: {phase}" for pg, phase in data["podGroupPhases"].items()]
    lines += [f"unschedulable {pg}: {msg}" for pg, msg in data["unschedulable"].items()]
    lines += [
        f"event     {pg}: {e.type} {e.reason} {e.message}"
        for pg, events in sorted(result.decisions.pod_group_events.items())
        for e in events
    ]
    return "\n".join(lines)


def render(results: Sequence[Result], fmt: str) -> str:
    """Return the printed form of ``results`` (a JSON object for one file, a list for several)."""
    if fmt == "text":
        return "\n\n".join(_as_text(r) for r in results)
    objects = [as_json(r) for r in results]
    return json.dumps(objects[0] if len(objects) == 1 else objects, indent=2)


def load_files(paths: Sequence[str]) -> tuple[list[Scenario], list[str]]:
    """Return the parsed scenarios, and one error line per file that could not be read."""
    scenarios, errors = [], []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
            scenarios.append(load_scenario(text, source=path))
        except OSError as exc:
            errors.append(f"{path}: cannot read: {exc.strerror or exc}")
        except EngineError as exc:
            errors.append(f"{path}: {exc}")
    return scenarios, errors


def run_files(paths: Sequence[str]) -> tuple[list[Result], list[str]]:
    """Return one result per file, or ([], errors) when any file is bad input."""
    scenarios, errors = load_files(paths)
    if errors:
        return [], errors
    results = []
    for scenario in scenarios:
        decisions = run_session(scenario.cluster, scenario.conf, uid=f"simulate-{scenario.name}")
        found = diff(scenario.expect, decisions) if scenario.expect is not None else []
        results.append(Result(scenario, decisions, found))
    return results, []


def main(
    argv: Sequence[str] | None = None, *, stdout: Writer | None = None, stderr: Writer | None = None
) -> int:
    """Run the command line; return the exit code."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    parser = argparse.ArgumentParser(prog="simulate", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return execute(args.files, fmt=args.format, check=args.check, stdout=out, stderr=err)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments (shared with the Django command)."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="scenario YAML files")
    parser.add_argument("--format", choices=("json", "text"), default="json")
    parser.add_argument(
        "--check", action="store_true", help="compare with expect: and fail on a difference"
    )


def execute(files: Sequence[str], *, fmt: str, check: bool, stdout: Writer, stderr: Writer) -> int:
    """Run ``files`` and print; return 0, 1 (``check`` found differences) or 2 (bad input)."""
    results, errors = run_files(files)
    if errors:
        for line in errors:
            stderr.write(line + "\n")
        return EXIT_BAD_INPUT
    stdout.write(render(results, fmt) + "\n")
    if not check:
        return EXIT_OK
    failed = False
    for result in results:
        for line in result.differences:
            failed = True
            stderr.write(f"{result.scenario.source or result.scenario.name}: {line}\n")
    return EXIT_MISMATCH if failed else EXIT_OK


if __name__ == "__main__":  # pragma: no cover - python -m scheduler.engine.simulate
    sys.exit(main())
