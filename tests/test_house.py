"""The rules that hold the house (DESIGN.md), beside the import-linter contracts.

The contracts in pyproject.toml say which package may import which. Two rules they cannot
express are checked here by reading the source:

- a first-party import inside a function is a piece in the wrong room unless a comment says
  why it must be there (on the line above, or on the import's own line);
- no room grows into the house: the biggest holds well under a third of the code. A room is a
  top-level package, but for the engine: ``scheduler/engine`` is a pure library inside the
  scheduler app (its own contract, no Django, DESIGN.md's inner room), counted on its own.

The tests keep a house of their own, checked the same way:

- the test tree mirrors the apps: each directory directly under tests/ is a top-level
  package's name (its tests, every package has one) or one of the suites that cut across
  apps (``CROSS_CUTTING``);
- what tests share lives in kit modules (``*_kit.py``, ``kit.py``) beside them: no module under
  tests/ imports a conftest (fixtures only, found by pytest) or a ``test_*`` module (its tests
  would run twice, and it would be a test file and a library at once);
- every directory of test modules is a package, so two ``test_x.py`` in two apps never clash.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "apis", "kube", "accounts", "console", "core", "kubelet", "queues", "training", "jobs", "flow",
    "monitoring", "scheduler", "volcano_site", "vcctl", "topology",
)  # fmt: skip
TESTS = ROOT / "tests"
# The suites under tests/ that belong to no single app: the engine library's unit tests and its
# scenario files, the browser, the real-services and the end-to-end runs, and their data.
CROSS_CUTTING = ("engine", "scenarios", "browser", "distributed", "e2e", "fixtures")


@dataclass(frozen=True)
class InnerImport:
    """A first-party import statement inside a function body."""

    path: Path
    line: int
    module: str
    explained: bool

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} imports {self.module}"


def source_files() -> list[Path]:
    """Return every first-party module but migrations."""
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""] if node.level == 0 else [f"{'.' * node.level}{node.module}"]
    return [alias.name for alias in node.names]


def _explained(lines: list[str], node: ast.stmt) -> bool:
    """Return whether a comment says why: on the statement's lines, or above the block of
    imports it opens or belongs to (blank lines between imports, as isort leaves them, count
    as the block)."""
    own = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
    if any("#" in line for line in own):
        return True
    above = node.lineno - 2
    while above >= 0 and (
        not lines[above].strip() or lines[above].lstrip().startswith(("from ", "import "))
    ):
        above -= 1
    return above >= 0 and lines[above].lstrip().startswith("#")


def inner_imports(path: Path) -> list[InnerImport]:
    """Return the first-party imports made inside functions in ``path``."""
    text = path.read_text()
    lines = text.splitlines()
    found: list[InnerImport] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if in_function and isinstance(child, ast.Import | ast.ImportFrom):
                for module in _imported(child):
                    if module.split(".")[0] in PACKAGES or module.startswith("."):
                        found.append(
                            InnerImport(path, child.lineno, module, _explained(lines, child))
                        )
            visit(child, inner)

    visit(ast.parse(text), False)
    return found


def test_every_first_party_import_inside_a_function_says_why() -> None:
    unexplained = [
        str(found)
        for path in source_files()
        for found in inner_imports(path)
        if not found.explained
    ]
    assert unexplained == [], "move the piece to the right room, or say why it must stay"


def room_of(path: Path) -> str:
    """Return the room ``path`` belongs to: its top-level package, or ``scheduler/engine``."""
    parts = path.relative_to(ROOT).parts
    return "scheduler/engine" if parts[:2] == ("scheduler", "engine") else parts[0]


def test_no_room_holds_a_third_of_the_code() -> None:
    lines: dict[str, int] = {}
    for path in source_files():
        lines[room_of(path)] = lines.get(room_of(path), 0) + len(path.read_text().splitlines())
    biggest = max(lines, key=lambda room: lines[room])
    assert lines[biggest] < 0.3 * sum(lines.values()), lines


def files_under_tests() -> list[Path]:
    """Return every Python file under tests/."""
    return sorted(path for path in TESTS.rglob("*.py") if "__pycache__" not in path.parts)


def _names_a_test_module(name: str) -> bool:
    return any(part == "conftest" or part.startswith("test_") for part in name.split("."))


def imports_of_tests_and_conftests(path: Path) -> list[str]:
    """Return the imports in ``path`` of a conftest or a ``test_*`` module of ours."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names if alias.name.startswith("tests")]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if not module.startswith(("tests", ".")):
                continue
            # ``from tests.kube import conftest``: the names may be the modules
            joined = module if module.endswith(".") else module + "."
            modules = [module, *(joined + alias.name for alias in node.names)]
        else:
            continue
        named = [module for module in modules if _names_a_test_module(module)]
        if named:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {named[0]}")
    return found


def test_no_test_module_imports_a_conftest_or_another_test_module() -> None:
    found = [line for path in files_under_tests() for line in imports_of_tests_and_conftests(path)]
    assert found == [], "move what is shared into a kit module (tests/<app>/<name>_kit.py)"


def test_the_test_tree_mirrors_the_apps() -> None:
    strays = sorted(
        path.name
        for path in TESTS.iterdir()
        if path.is_dir()
        and not path.name.startswith((".", "__"))
        and path.name not in (*PACKAGES, *CROSS_CUTTING)
    )
    assert strays == [], "a test directory is named after the app it tests, or cuts across"
    assert [app for app in PACKAGES if not (TESTS / app).is_dir()] == [], "an app without tests"


def test_every_directory_of_test_modules_is_a_package() -> None:
    missing = sorted(
        {
            str(path.parent.relative_to(ROOT))
            for path in files_under_tests()
            if not (path.parent / "__init__.py").exists()
        }
    )
    assert missing == [], "pytest names test modules by their package: add an __init__.py"
