"""Every variable the README's settings table documents is read from the environment.

Found by a user: ``VOLCANO_CONTROLLER_RESYNC`` was documented, but the code read it only from
Django's settings, which never took it from the environment, so setting it did nothing. This
reads the code as Python (its syntax tree, not its text): a variable counts as read where its
name is the argument of ``os.environ.get``, ``os.environ[...]``, ``os.getenv``, the settings'
``env_flag``/``env_list``, or of a module's own helper that passes its first parameter to one
of those. ``make run``'s own variables (``HOST``, ``PORT``, ...) are the Makefile's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "apis", "console", "core", "flow", "jobs", "kube", "kubelet", "monitoring",
        "queues", "scheduler", "training", "volcano_site")  # fmt: skip
_ENV_CALLS = {"get", "getenv", "env_flag", "env_list", "env_int", "env_float", "pop"}


def _documented_anywhere() -> set[str]:
    """Return every ``VOLCANO_*`` variable the README names, in the table or in its prose."""
    return set(re.findall(r"`(VOLCANO_[A-Z0-9_]+)", (ROOT / "README.md").read_text()))


def _settings_table() -> set[str]:
    text = (ROOT / "README.md").read_text()
    table = text.split("## Settings (environment)", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def _is_env_read(call: ast.Call, helpers: set[str]) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in helpers:
        return True
    if name not in _ENV_CALLS:
        return False
    if name in ("get", "pop"):  # os.environ.get / .pop
        owner = func.value if isinstance(func, ast.Attribute) else None
        return isinstance(owner, ast.Attribute) and owner.attr == "environ"
    return True


def _helpers(tree: ast.Module) -> set[str]:
    """Return the module's functions that read the environment by their first parameter."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.args.args:
            first = node.args.args[0].arg
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and _is_env_read(call, set())
                    and any(isinstance(a, ast.Name) and a.id == first for a in call.args)
                ):
                    found.add(node.name)
    return found


def _constants(tree: ast.Module) -> dict[str, str]:
    """Return the module's string constants (``ENV_FLAG = "VOLCANO_EMBEDDED_SCHEDULER"``)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def _read_names(folders: tuple[str, ...] = APPS) -> Iterator[str]:
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            helpers = _helpers(tree)
            constants = _constants(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _is_env_read(node, helpers):
                    for arg in node.args[:1]:
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            yield arg.value
                        elif isinstance(arg, ast.Name) and arg.id in constants:
                            yield constants[arg.id]
                elif (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "environ"
                    and isinstance(node.slice, ast.Constant)
                ):
                    yield str(node.slice.value)


def _makefile_names() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Z_]+) \?=", text, re.M)) | set(
        re.findall(r"\$\(([A-Z_]+)\)", text)
    )


def test_every_documented_variable_is_read_from_the_environment() -> None:
    documented = _settings_table() | _documented_anywhere()
    # The browser tests' screenshot folder is the test kit's to read.
    read = set(_read_names()) | set(_read_names(("tests",))) | _makefile_names()
    assert documented, "the README has no settings table"
    assert sorted(documented - read) == []


def test_every_variable_the_code_reads_is_documented() -> None:
    documented = _settings_table()
    # The test and CI harness's own switches are documented where they are used.
    harness = {"DJANGO_SETTINGS_MODULE", "PYTEST_XDIST_WORKER"}
    read = {name for name in _read_names() if name.isupper()} - harness
    assert sorted(read - documented) == []
