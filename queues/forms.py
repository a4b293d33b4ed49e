"""The queue editor: a form and a YAML text that are two views of one Queue manifest.

Neither view validates on its own: both become the same ``scheduling.volcano.sh/v1beta1``
manifest, which goes through Volcano's queue admission (``queues.admission``), so the form
refuses exactly what ``kubectl apply`` would, and a refused field path
(``spec.guarantee.resource.cpu``) is shown at its input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml
from django import forms
from django.utils.translation import gettext_lazy as _

from apis.safe_yaml import YamlLimitError, load_one
from queues.models import DequeueStrategy

__all__ = [
    "QUOTA_KINDS",
    "QueueForm",
    "error_id",
    "form_field_of",
    "form_values",
    "manifest_yaml",
    "parse_yaml",
]

QUOTA_KINDS = ("capability", "deserved", "guarantee")
API_VERSION = "scheduling.volcano.sh/v1beta1"
_HELP = {
    "capability": _("The most the queue may ever use (Volcano: spec.capability)."),
    "deserved": _("What the queue is entitled to under the capacity plugin (spec.deserved)."),
    "guarantee": _("Reserved for the queue whatever the others do (spec.guarantee.resource)."),
}


def error_id(name: str) -> str:
    """Return the id of the element that shows field ``name``'s refusal (a CSS-safe id)."""
    return "err-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def quota_field(kind: str, resource: str) -> str:
    """Return the form field name of one quota cell (``capability:cpu``)."""
    return f"{kind}:{resource}"


class QueueForm(forms.Form):
    """The queue's spec as inputs; quotas are one text input per (kind, resource) cell."""

    name = forms.CharField(label=_("Name"), max_length=63)
    parent = forms.CharField(
        label=_("Parent"), required=False, help_text=_("Blank: under root (capacity hierarchy).")
    )
    weight = forms.IntegerField(
        label=_("Weight"), initial=1, help_text=_("1-65535: the queue's part under proportion.")
    )
    priority = forms.IntegerField(
        label=_("Priority"), initial=0, help_text=_("Higher-priority queues are served first.")
    )
    reclaimable = forms.BooleanField(
        label=_("Reclaimable"),
        required=False,
        initial=True,
        help_text=_("Others may reclaim what this queue uses beyond its deserved share."),
    )
    dequeue_strategy = forms.ChoiceField(
        label=_("Dequeue strategy"),
        choices=DequeueStrategy.choices,
        initial=DequeueStrategy.TRAVERSE,
    )

    def __init__(self, *args: Any, resources: Iterable[str], fixed_name: str = "", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.resources = list(resources)
        self.fixed_name = fixed_name
        if fixed_name:
            self.fields["name"].disabled = True
            self.fields["name"].initial = fixed_name
        for kind in QUOTA_KINDS:
            for resource in self.resources:
                self.fields[quota_field(kind, resource)] = forms.CharField(
                    label=f"{kind} {resource}", required=False, max_length=64
                )

    def spec_rows(self) -> list[tuple[Any, str]]:
        """Return (bound field, error slot id) for the scalar fields, in the form's order."""
        names = ("name", "parent", "weight", "priority", "dequeue_strategy", "reclaimable")
        return [(self[n], error_id(n)) for n in names]

    def quota_rows(self) -> list[tuple[str, Any, list[tuple[Any, str]]]]:
        """Return (kind, help, [(bound field, error slot id) per resource]) for the quota grid."""
        return [
            (
                kind,
                _HELP[kind],
                [
                    (self[quota_field(kind, r)], error_id(quota_field(kind, r)))
                    for r in self.resources
                ],
            )
            for kind in QUOTA_KINDS
        ]

    def manifest(self) -> dict[str, Any]:
        """Return the Queue manifest the inputs say (quantities as typed; admission parses)."""
        data = self.cleaned_data
        spec: dict[str, Any] = {
            "weight": data.get("weight") if data.get("weight") is not None else 1,
            "reclaimable": bool(data.get("reclaimable")),
        }
        if data.get("priority"):
            spec["priority"] = data["priority"]
        if data.get("parent"):
            spec["parent"] = data["parent"].strip()
        if data.get("dequeue_strategy") and data["dequeue_strategy"] != DequeueStrategy.TRAVERSE:
            spec["dequeueStrategy"] = data["dequeue_strategy"]
        for kind in QUOTA_KINDS:
            values = {
                r: text.strip()
                for r in self.resources
                if (text := data.get(quota_field(kind, r)) or "").strip()
            }
            if values:
                spec[kind] = {"resource": values} if kind == "guarantee" else values
        name = self.fixed_name or (data.get("name") or "").strip()
        return {
            "apiVersion": API_VERSION,
            "kind": "Queue",
            "metadata": {"name": name},
            "spec": spec,
        }


def form_values(manifest: Mapping[str, Any], resources: Iterable[str]) -> dict[str, Any]:
    """Return the form's data for ``manifest`` (the YAML view's text turned into inputs)."""
    meta = manifest.get("metadata") or {}
    spec = manifest.get("spec") or {}
    if not isinstance(meta, Mapping) or not isinstance(spec, Mapping):
        return {}
    values: dict[str, Any] = {
        "name": meta.get("name", ""),
        "parent": spec.get("parent", ""),
        "weight": spec.get("weight", 1),
        "priority": spec.get("priority", 0),
        "reclaimable": spec.get("reclaimable", True) is not False,
        "dequeue_strategy": spec.get("dequeueStrategy", DequeueStrategy.TRAVERSE),
    }
    for kind in QUOTA_KINDS:
        quota = spec.get(kind) or {}
        if kind == "guarantee" and isinstance(quota, Mapping):
            quota = quota.get("resource") or {}
        if isinstance(quota, Mapping):
            for resource in resources:
                if resource in quota:
                    values[quota_field(kind, resource)] = str(quota[resource])
    return values


def manifest_yaml(manifest: Mapping[str, Any]) -> str:
    """Return ``manifest`` as the YAML view shows it (keys in Kubernetes' order)."""
    return yaml.safe_dump(dict(manifest), sort_keys=False, default_flow_style=False)


def parse_yaml(text: str) -> tuple[dict[str, Any] | None, str]:
    """Return the manifest in ``text`` or ``(None, error)`` naming the line."""
    try:
        data = load_one(text)
    except YamlLimitError as exc:
        return None, str(exc)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, f"YAML{where}: {problem}"
    if not isinstance(data, dict):
        return None, str(_("The YAML must be one Queue object (a mapping)."))
    return data, ""


def form_field_of(path: str, form: QueueForm) -> str | None:
    """Return the form field a refused manifest path belongs to (None: the whole form)."""
    if path == "metadata.name":
        return "name"
    if path.startswith("spec."):
        rest = path[len("spec.") :]
        if rest.startswith("guarantee.resource."):
            rest = "guarantee." + rest[len("guarantee.resource.") :]
        head, _dot, tail = rest.partition(".")
        if head in QUOTA_KINDS and tail:
            name = quota_field(head, tail)
            return name if name in form.fields else None
        if head == "dequeueStrategy":
            return "dequeue_strategy"
        if head in form.fields:
            return head
    return None
