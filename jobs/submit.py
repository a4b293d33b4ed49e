"""Submit a job from the console: the form for the common job, its YAML, the templates, and
errors placed at their line.

The form builds the manifest a user would write by hand (one task: image, command,
requests, replicas; the job's queue, priority class, minAvailable, maxRetry and the
simulated duration), so what the page shows in its YAML view is exactly what it sends. Both
the form and the YAML editor are admitted by the API's own create path
(``kube.store.object_create``), in dry-run while the user types.
"""

from __future__ import annotations

from copy import deepcopy as copy_deep
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from django import forms
from django.utils.translation import gettext_lazy as _

from apis.safe_yaml import YamlLimitError, load_all
from kube import registry

__all__ = [
    "EXAMPLES_DIR",
    "CommonJobForm",
    "Example",
    "examples",
    "form_data_of",
    "line_of",
    "lost_fields",
    "parse_manifest",
    "parse_manifests",
    "without_field",
]

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
MAX_TEXT = 256 * 1024  # what the editor accepts; larger manifests go through kubectl
MAX_DOCUMENTS = 50  # a JobFlow with its templates, a few jobs; more go through kubectl


@dataclass(frozen=True, slots=True)
class Example:
    """A template for the editor: a file of ``jobs/examples``, titled by its first comment."""

    slug: str
    title: str
    text: str


def examples() -> list[Example]:
    """Return the templates offered on the Submit page: each app's (``register_examples``), by
    file name within an app."""
    found = []
    paths = [path for folder in registry.example_dirs() for path in sorted(folder.glob("*.yaml"))]
    for path in paths:
        text = path.read_text()
        first = text.splitlines()[0] if text else ""
        title = first.lstrip("# ").strip() if first.startswith("#") else path.stem
        found.append(Example(path.stem, title, text))
    return found


class ManifestTextError(ValueError):
    """The text is not one YAML mapping; ``line`` says where (1-based, 0 when unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def parse_manifest(text: str) -> dict[str, Any]:
    """Return the one manifest in ``text``; raise ``ManifestTextError`` saying what is wrong."""
    documents = parse_manifests(text)
    if len(documents) != 1:
        raise ManifestTextError(str(_("Paste exactly one Job manifest (a YAML mapping).")), 1)
    return documents[0]


def parse_manifests(text: str) -> list[dict[str, Any]]:
    """Return the manifests in ``text`` (``---`` separates them; at most ``MAX_DOCUMENTS``)."""
    if len(text) > MAX_TEXT:
        raise ManifestTextError(str(_("The manifest is larger than 256 KiB.")))
    try:
        documents = load_all(text)
    except YamlLimitError as exc:
        raise ManifestTextError(exc.message, exc.line) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        raise ManifestTextError(f"YAML: {problem}", line) from exc
    documents = [d for d in documents if d is not None]  # a trailing "---"
    if not documents or len(documents) > MAX_DOCUMENTS:
        raise ManifestTextError(
            str(_("Paste between one and %(n)d manifests, separated by ---."))
            % {"n": MAX_DOCUMENTS},
            1,
        )
    for index, document in enumerate(documents):
        if not isinstance(document, dict):
            raise ManifestTextError(
                str(_("Document %(n)d is not a manifest (a YAML mapping).")) % {"n": index + 1},
                line_of(text, "", document=index) or 1,
            )
    return documents


def line_of(text: str, path: str, *, document: int = 0) -> int:
    """Return the 1-based line of field ``path`` (``spec.tasks[0].replicas``) of the
    ``document``-th manifest in ``text``.

    Walks YAML's node graph, which keeps each node's position; a path that is not in the text
    (a missing field) gives the line of its nearest present parent, 0 when nothing matches.
    """
    try:
        nodes = list(yaml.compose_all(text))
    except yaml.YAMLError:
        return 0
    node = nodes[document] if document < len(nodes) else None
    if node is None:
        return 0
    line = 0
    for part in _split(path):
        if node is None:
            break
        line = node.start_mark.line + 1
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
            node = node.value[part] if part < len(node.value) else None
        elif isinstance(part, str) and isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
            if node is not None:
                line = node.start_mark.line + 1
        else:
            node = None
    if node is not None:
        line = node.start_mark.line + 1
    return line


def without_field(document: Any, path: str) -> Any | None:
    """Return a copy of ``document`` without the mapping key at ``path``, or ``None`` when
    ``path`` names no such key (a list item, the document itself, a missing field).

    Admission stops at a manifest's first mistake; the editor asks again without it to find
    the next one, so every problem is marked on its line at once. A list item is never
    removed: the items after it would move and their errors name the wrong index.
    """
    parts = _split(path)
    if not parts or not isinstance(parts[-1], str):
        return None
    copy = copy_deep(document)
    node: Any = copy
    for part in parts[:-1]:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return None
            node = node[part]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    if not isinstance(node, dict) or parts[-1] not in node:
        return None
    del node[parts[-1]]
    return copy


def _split(path: str) -> list[str | int]:
    parts: list[str | int] = []
    for chunk in path.replace("]", "").split("."):
        name, *indexes = chunk.split("[")
        if name:
            parts.append(name)
        parts.extend(int(i) for i in indexes if i.isdigit())
    return parts


class CommonJobForm(forms.Form):
    """The job most people submit: one task of identical replicas."""

    name = forms.SlugField(label=_("Name"), max_length=63, initial="my-job")
    namespace = forms.ChoiceField(label=_("Namespace"))
    queue = forms.ChoiceField(label=_("Queue"))
    priority_class = forms.ChoiceField(label=_("Priority class"), required=False)
    min_available = forms.IntegerField(label=_("minAvailable"), min_value=0, initial=1,
                                       help_text=_("Pods that must run together (gang)."))  # fmt: skip
    max_retry = forms.IntegerField(label=_("maxRetry"), min_value=0, initial=3)
    restart_on_eviction = forms.BooleanField(label=_("Restart the job when a pod is evicted"),
                                             required=False, initial=True)  # fmt: skip
    task = forms.SlugField(label=_("Task name"), max_length=63, initial="main")
    replicas = forms.IntegerField(label=_("Replicas"), min_value=1, max_value=10_000, initial=1)
    image = forms.CharField(label=_("Image"), max_length=253, initial="busybox:1.36")
    command = forms.CharField(label=_("Command"), max_length=1000, required=False,
                              initial="sleep 60", help_text=_("Split on spaces."))  # fmt: skip
    cpu = forms.CharField(label=_("CPU"), max_length=32, initial="1", help_text=_("e.g. 500m, 2"))
    memory = forms.CharField(label=_("Memory"), max_length=32, initial="1Gi", required=False)
    gpu = forms.IntegerField(
        label=_("GPUs (nvidia.com/gpu)"), min_value=0, initial=0, required=False
    )
    duration = forms.CharField(label=_("Simulated duration"), max_length=32, required=False,
                               initial="60s", help_text=_("How long the simulated container runs."))  # fmt: skip

    def __init__(self, *args: Any, namespaces: list[str], queues: list[str],
                 priority_classes: list[str], **kwargs: Any) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.fields["namespace"].choices = [(n, n) for n in namespaces]  # type: ignore[attr-defined]
        self.fields["queue"].choices = [(q, q) for q in queues]  # type: ignore[attr-defined]
        self.fields["priority_class"].choices = [("", "—"), *((p, p) for p in priority_classes)]  # type: ignore[attr-defined]
        if "default" in queues:
            self.fields["queue"].initial = "default"

    def manifest(self) -> dict[str, Any]:
        """Return the Job manifest the (valid) form describes."""
        data = self.cleaned_data
        requests: dict[str, Any] = {"cpu": data["cpu"]}
        if data.get("memory"):
            requests["memory"] = data["memory"]
        if data.get("gpu"):
            requests["nvidia.com/gpu"] = data["gpu"]
        container: dict[str, Any] = {"name": data["task"], "image": data["image"],
                                     "resources": {"requests": requests, "limits": dict(requests)}}  # fmt: skip
        if data.get("command"):
            container["command"] = data["command"].split()
        template: dict[str, Any] = {"spec": {"containers": [container], "restartPolicy": "Never"}}
        if data.get("duration"):
            template["metadata"] = {"annotations": {"volcano.sh/sim-duration": data["duration"]}}
        spec: dict[str, Any] = {
            "minAvailable": data["min_available"],
            "schedulerName": "volcano",
            "queue": data["queue"],
            "maxRetry": data["max_retry"],
        }
        if data.get("priority_class"):
            spec["priorityClassName"] = data["priority_class"]
        if data.get("restart_on_eviction"):
            spec["policies"] = [{"event": "PodEvicted", "action": "RestartJob"}]
        spec["tasks"] = [{"replicas": data["replicas"], "name": data["task"], "template": template}]
        return {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": data["name"], "namespace": data["namespace"]},
            "spec": spec,
        }


JOB_API_VERSION = "batch.volcano.sh/v1alpha1"
RESTART_ON_EVICTION = [{"event": "PodEvicted", "action": "RestartJob"}]


def form_data_of(document: dict[str, Any]) -> dict[str, Any] | None:
    """Return ``CommonJobForm`` data for a Job manifest (the YAML -> form direction), or
    None when ``document`` is not a Volcano Job with exactly one task of one container.

    What the form cannot hold is left out here; ``lost_fields`` names it, so the page can
    say so before a form submit would drop it.
    """
    if (document.get("apiVersion"), document.get("kind")) != (JOB_API_VERSION, "Job"):
        return None
    meta = _mapping(document.get("metadata"))
    spec = _mapping(document.get("spec"))
    tasks = spec.get("tasks")
    if not isinstance(tasks, list) or len(tasks) != 1:
        return None
    task = _mapping(tasks[0])
    template = _mapping(task.get("template"))
    containers = _mapping(template.get("spec")).get("containers")
    if not isinstance(containers, list) or len(containers) != 1:
        return None
    container = _mapping(containers[0])
    requests = _mapping(_mapping(container.get("resources")).get("requests"))
    command = container.get("command")
    annotations = _mapping(_mapping(template.get("metadata")).get("annotations"))
    data = {
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace", ""),
        "queue": spec.get("queue", ""),
        "priority_class": spec.get("priorityClassName", ""),
        "min_available": spec.get("minAvailable", ""),
        "max_retry": spec.get("maxRetry", ""),
        "task": task.get("name", ""),
        "replicas": task.get("replicas", ""),
        "image": container.get("image", ""),
        "command": " ".join(str(c) for c in command) if isinstance(command, list) else "",
        "cpu": requests.get("cpu", ""),
        "memory": requests.get("memory", ""),
        "gpu": requests.get("nvidia.com/gpu", ""),
        "duration": annotations.get("volcano.sh/sim-duration", ""),
    }
    if spec.get("policies") == RESTART_ON_EVICTION:
        data["restart_on_eviction"] = "on"
    return {key: ("" if value is None else str(value)) for key, value in data.items()}


def lost_fields(original: Any, rebuilt: Any, path: str = "") -> list[str]:
    """Return the paths of ``original`` that ``rebuilt`` does not hold as they were (what the
    form would drop or change); what the form adds (defaults) is not listed."""
    if isinstance(original, dict) and isinstance(rebuilt, dict):
        lost = []
        for key, value in original.items():
            at = f"{path}.{key}" if path else str(key)
            lost += lost_fields(value, rebuilt[key], at) if key in rebuilt else [at]
        return lost
    if isinstance(original, list) and isinstance(rebuilt, list) and len(original) == len(rebuilt):
        return [
            p for i, v in enumerate(original) for p in lost_fields(v, rebuilt[i], f"{path}[{i}]")
        ]
    same = original == rebuilt or str(original) == str(rebuilt)  # 1 and "1" for a quantity
    return [] if same else [path]


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
