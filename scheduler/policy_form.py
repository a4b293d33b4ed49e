"""The policy editor's model: volcano-scheduler.conf text ⇄ the editor's form fields.

The form and the YAML are two views of one ``PolicyDraft``. Form inputs are named by their conf
path (``tiers[1].plugins[0].arguments.binpack.weight``), the path the engine's parser names in
a ``ConfError``, so an error lands on its field without a mapping table. Nothing here decides
what is valid: the text is always checked by ``load_conf`` (``conf_errors``); the form only
turns strings into the YAML types the schema declares, and leaves what it cannot convert as
text so the parser refuses it at its field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from apis.safe_yaml import YamlLimitError, load_one
from jobs.submit import line_of
from scheduler.engine.catalogue import ArgumentInfo, flag_default, plugin_info
from scheduler.engine.conf import conf_problems

__all__ = [
    "ConfProblem",
    "PluginEntry",
    "PolicyDraft",
    "apply_op",
    "conf_errors",
    "draft_from_post",
    "draft_from_text",
    "draft_to_text",
    "problems_at_lines",
]


@dataclass(slots=True)
class PluginEntry:
    """One plugin of a tier: name, the hook flags given, the arguments given."""

    name: str
    flags: dict[str, bool] = field(default_factory=dict)
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class PolicyDraft:
    """A conf being edited: actions in order, tiers of plugins, and keys the form keeps as is."""

    actions: list[str] = field(default_factory=list)
    tiers: list[list[PluginEntry]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # configurations, metrics


def conf_errors(text: str) -> dict[str, str]:
    """Return the engine parser's verdict on ``text``: {field path: message} for every
    problem it finds (the first per field), empty if valid."""
    if not text.strip():
        return {"": "the configuration is empty"}
    errors: dict[str, str] = {}
    for problem in conf_problems(text):
        errors.setdefault(problem.field, problem.message)
    return errors


@dataclass(frozen=True, slots=True)
class ConfProblem:
    """One refusal placed in the text: field path, 1-based line (0: unknown), message."""

    field: str
    line: int
    message: str


def problems_at_lines(text: str, errors: Mapping[str, str]) -> list[ConfProblem]:
    """Return ``errors`` (``conf_errors``) each at its line of ``text``, in line order: a
    field's line from YAML's node marks, a syntax error's from the parser's mark."""
    problems = []
    for name, message in errors.items():
        line = line_of(text, name) if name else _syntax_error_line(text)
        problems.append(ConfProblem(name, line, message))
    return sorted(problems, key=lambda p: (p.line == 0, p.line))


def _syntax_error_line(text: str) -> int:
    try:
        yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return mark.line + 1 if mark is not None else 0
    return 0


def _entry(raw: Any) -> PluginEntry:
    if not isinstance(raw, Mapping):
        return PluginEntry(name=str(raw))
    entry = PluginEntry(name=str(raw.get("name") or ""))
    for key, value in raw.items():
        if key == "arguments" and isinstance(value, Mapping):
            entry.arguments = _flat_arguments(entry.name, value)
        elif key != "name":
            entry.flags[str(key)] = value
    return entry


def _sections(name: str) -> dict[str, str]:
    """Return {argument key: its section} for plugin ``name``'s nested arguments."""
    info = plugin_info(name)
    return {a.key: a.section for a in info.arguments if a.section} if info else {}


def _flat_arguments(name: str, raw: Mapping[Any, Any]) -> dict[str, Any]:
    """Return a plugin's arguments with nested sections (Volcano's ``thresholds: {cpu: 80}``)
    as one field per key (``thresholds.cpu``), the key the schema and the parser's errors use."""
    sections = set(_sections(name).values())
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if str(key) in sections and isinstance(value, Mapping) and value:
            flat.update({f"{key}.{sub}": v for sub, v in value.items()})
        else:
            flat[str(key)] = value
    return flat


def _nested_arguments(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``arguments`` in Volcano's layout: keys of a schema section nested under it."""
    sections = _sections(name)
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        section = sections.get(key)
        if section is None and "." in key and key.split(".", 1)[0] in sections.values():
            section = key.split(".", 1)[0]  # an unknown key of a section: the parser names it
        if section:
            nested = out.setdefault(section, {})
            if isinstance(nested, dict):
                nested[key[len(section) + 1 :]] = value
                continue
        out[key] = value
    return out


def draft_from_text(text: str) -> PolicyDraft | None:
    """Return the draft the YAML describes (loosely: the parser judges), or None if not YAML."""
    try:
        data = load_one(text) if text.strip() else {}
    except (yaml.YAMLError, YamlLimitError):
        return None
    if not isinstance(data, Mapping):
        return None
    draft = PolicyDraft()
    actions = data.get("actions")
    if isinstance(actions, str):
        draft.actions = [a.strip() for a in actions.split(",") if a.strip()]
    for tier in data.get("tiers") or []:
        plugins = tier.get("plugins") if isinstance(tier, Mapping) else None
        draft.tiers.append([_entry(p) for p in plugins or []])
    draft.extra = {k: v for k, v in data.items() if k not in ("actions", "tiers")}
    return draft


def draft_to_text(draft: PolicyDraft) -> str:
    """Return the conf text of ``draft`` in Volcano's layout (actions as one string)."""
    tiers = []
    for tier in draft.tiers:
        plugins = []
        for entry in tier:
            item: dict[str, Any] = {"name": entry.name}
            item.update(entry.flags)
            if entry.arguments:
                item["arguments"] = _nested_arguments(entry.name, entry.arguments)
            plugins.append(item)
        tiers.append({"plugins": plugins})
    body = yaml.safe_dump({"tiers": tiers, **draft.extra}, sort_keys=False, width=100)
    return f'actions: "{", ".join(draft.actions)}"\n{body}'


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _typed(info: ArgumentInfo | None, raw: str) -> Any:
    """Return ``raw`` as the type ``info`` declares, or the text itself when it is not one."""
    text = raw.strip()
    kind = info.type if info is not None else "str"
    if kind == "yaml":  # nested (rescheduling.strategies), typed as YAML: the parser judges it
        try:
            return load_one(text) if text else text
        except (yaml.YAMLError, YamlLimitError):
            return text
    if kind == "list":  # a list of strings, typed comma-separated (extender.managedResources)
        return [part.strip() for part in text.split(",") if part.strip()]
    if kind == "bool":
        return {"true": True, "false": False}.get(text.lower(), text)
    if kind in ("int", "float") and _NUMBER.match(text):
        number = float(text)
        return int(number) if kind == "int" and number.is_integer() else number
    return text


def _argument_info(name: str, key: str) -> ArgumentInfo | None:
    info = plugin_info(name)
    if info is None:
        return None
    exact = next((a for a in info.arguments if not a.prefix and a.key == key), None)
    return exact or next((a for a in info.arguments if a.prefix and key.startswith(a.key)), None)


def draft_from_post(data: Any) -> PolicyDraft:
    """Return the draft the editor's form fields describe (``data``: a QueryDict)."""
    draft = PolicyDraft(actions=[a for a in data.getlist("actions") if a])
    extra = data.get("extra", "")
    try:
        loaded = load_one(extra) if extra.strip() else {}
    except (yaml.YAMLError, YamlLimitError) as exc:
        raise ValueError(f"extra: {exc}") from exc
    draft.extra = dict(loaded) if isinstance(loaded, Mapping) else {}
    for i in range(int(data.get("tier_count") or 0)):
        tier: list[PluginEntry] = []
        for j in range(int(data.get(f"tiers[{i}].count") or 0)):
            path = f"tiers[{i}].plugins[{j}]"
            entry = PluginEntry(name=data.get(f"{path}.name", ""))
            for flag in data.getlist(f"{path}.flags-shown"):
                on = data.get(f"{path}.{flag}") == "true"
                if on != flag_default(flag):
                    entry.flags[flag] = on
            for key in data.getlist(f"{path}.argument-keys"):
                raw = data.get(f"{path}.arguments.{key}", "")
                if raw.strip():
                    entry.arguments[key] = _typed(_argument_info(entry.name, key), raw)
            if new_key := data.get(f"{path}.new-argument", "").strip():
                raw = data.get(f"{path}.new-argument-value", "")
                entry.arguments[new_key] = _typed(_argument_info(entry.name, new_key), raw)
            tier.append(entry)
        draft.tiers.append(tier)
    return draft


def _move(items: list[Any], index: int, step: int) -> None:
    target = index + step
    if 0 <= index < len(items) and 0 <= target < len(items):
        items[index], items[target] = items[target], items[index]


def apply_op(draft: PolicyDraft, op: str, data: Any) -> None:
    """Apply one structural edit (``op`` from the button pressed) to ``draft`` in place.

    Ops: ``action-add``, ``action-remove:i``, ``action-up:i``, ``action-down:i``, ``tier-add``,
    ``tier-remove:i``, ``tier-up:i``, ``tier-down:i``, ``plugin-add:i`` (name from the field
    ``tiers[i].add``), ``plugin-remove:i:j``, ``plugin-up:i:j``, ``plugin-down:i:j``.
    """
    verb, _, rest = op.partition(":")
    nums = [int(n) for n in rest.split(":") if n.isdigit()]
    if verb == "action-add":
        name = data.get("action_add", "")
        if name and name not in draft.actions:
            draft.actions.append(name)
    elif verb.startswith("action-") and nums:
        i = nums[0]
        if verb == "action-remove" and 0 <= i < len(draft.actions):
            draft.actions.pop(i)
        elif verb in ("action-up", "action-down"):
            _move(draft.actions, i, -1 if verb == "action-up" else 1)
    elif verb == "tier-add":
        draft.tiers.append([])
    elif verb.startswith("tier-") and nums:
        i = nums[0]
        if verb == "tier-remove" and 0 <= i < len(draft.tiers):
            draft.tiers.pop(i)
        elif verb in ("tier-up", "tier-down"):
            _move(draft.tiers, i, -1 if verb == "tier-up" else 1)
    elif verb == "plugin-add" and nums and nums[0] < len(draft.tiers):
        name = data.get(f"tiers[{nums[0]}].add", "")
        if name:
            draft.tiers[nums[0]].append(PluginEntry(name=name))
    elif verb.startswith("plugin-") and len(nums) == 2 and nums[0] < len(draft.tiers):
        tier, j = draft.tiers[nums[0]], nums[1]
        if verb == "plugin-remove" and 0 <= j < len(tier):
            tier.pop(j)
        elif verb in ("plugin-up", "plugin-down"):
            _move_plugin(draft.tiers, nums[0], j, -1 if verb == "plugin-up" else 1)


def _move_plugin(tiers: list[list[PluginEntry]], i: int, j: int, step: int) -> None:
    """Move plugin ``j`` of tier ``i`` one place; past a tier's edge it joins the next tier."""
    tier = tiers[i]
    if not 0 <= j < len(tier):
        return
    if 0 <= j + step < len(tier):
        _move(tier, j, step)
    elif 0 <= i + step < len(tiers):
        entry = tier.pop(j)
        if step < 0:
            tiers[i - 1].append(entry)
        else:
            tiers[i + 1].insert(0, entry)
