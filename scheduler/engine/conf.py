"""volcano-scheduler.conf: parse, default and validate the actions and plugin tiers.

Volcano's counterpart: ``pkg/scheduler/conf/scheduler_conf.go`` and ``pkg/scheduler/util.go``.
Differences on purpose: an unknown plugin, flag or argument, a wrong type or a duplicate plugin is
an error naming its path (Volcano logs and skips), because a console user editing tiers must see
the mistake before it applies. As in Volcano, a hook flag left unset counts as enabled, except
``enableHierarchy`` and ``enabledClusterOrder``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

from apis.errors import ConfError
from apis.safe_yaml import YamlLimitError, load_one
from scheduler.engine.framework.arguments import Arguments, validate_arguments
from scheduler.engine.framework.registry import ensure_loaded, get_action, get_plugin_class

__all__ = [
    "DEFAULT_CONF",
    "ENABLE_FLAGS",
    "PluginOption",
    "SchedulerConf",
    "Tier",
    "conf_problems",
    "load_conf",
]

DEFAULT_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""

# Every per-hook flag Volcano's PluginOption has, with its exact YAML key.
ENABLE_FLAGS: tuple[str, ...] = (
    "enableJobOrder",
    "enableHierarchy",
    "enableJobReady",
    "enableJobPipelined",
    "enableTaskOrder",
    "enablePreemptable",
    "enableReclaimable",
    "enablePreemptive",
    "enableQueueOrder",
    "enabledClusterOrder",
    "enablePredicate",
    "enableBestNode",
    "enableNodeOrder",
    "enableTargetJob",
    "enableReservedNodes",
    "enableJobEnqueued",
    "enabledVictim",
    "enableJobStarving",
    "enabledOverused",
    "enabledAllocatable",
    "enabledHyperNodeOrder",
    "enabledSubJobReady",
    "enabledSubJobPipelined",
    "enabledSubJobOrder",
    "enabledHyperNodeGradient",
)
# Left unset these stay off (Volcano's ApplyPluginConfDefaults skips them).
_OFF_BY_DEFAULT = frozenset({"enableHierarchy", "enabledClusterOrder"})


@dataclass(slots=True, frozen=True)
class PluginOption:
    """One plugin entry of a tier: its name, validated arguments and defaulted flags."""

    name: str
    arguments: Arguments = field(default_factory=Arguments)
    flags: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, flag: str) -> bool:
        """Return True when hook flag ``flag`` is on (unset counts as on, except two)."""
        value = self.flags.get(flag)
        if value is None:
            return flag not in _OFF_BY_DEFAULT
        return value


@dataclass(slots=True, frozen=True)
class Tier:
    """One tier: plugins consulted together (orders stop at the first tier that decides)."""

    plugins: tuple[PluginOption, ...]


@dataclass(slots=True, frozen=True)
class SchedulerConf:
    """A parsed conf: actions in run order, tiers, per-action arguments and the source text."""

    actions: tuple[str, ...]
    tiers: tuple[Tier, ...]
    configurations: Mapping[str, Arguments] = field(default_factory=dict)
    text: str = ""

    def plugin_options(self) -> list[PluginOption]:
        """Return every plugin entry in conf order."""
        return [p for tier in self.tiers for p in tier.plugins]


def _shown(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _parse_actions(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, str):
        raise ConfError(
            "actions", f'expected a string such as "enqueue, allocate", got {_shown(raw)}'
        )
    names = [part.strip() for part in raw.split(",") if part.strip()]
    if not names:
        raise ConfError("actions", "no action given")
    seen: set[str] = set()
    for name in names:
        if get_action(name) is None:
            raise ConfError("actions", f"unknown action {name!r}")
        if name in seen:
            raise ConfError("actions", f"action {name!r} is listed twice")
        seen.add(name)
    return tuple(names)


def _parse_plugin(raw: object, path: str, seen: dict[str, str]) -> PluginOption:
    if not isinstance(raw, Mapping):
        raise ConfError(path, f"expected a mapping with a name, got {_shown(raw)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ConfError(f"{path}.name", f"expected a plugin name, got {_shown(name)}")
    cls = get_plugin_class(name)
    if cls is None:
        raise ConfError(f"{path}.name", f"unknown plugin {name!r}")
    if name in seen:
        raise ConfError(f"{path}.name", f"duplicate plugin {name!r} (already at {seen[name]})")
    seen[name] = path
    flags: dict[str, bool] = {}
    arguments = Arguments(schema=cls.arguments_schema)
    for key, value in raw.items():
        if key == "name":
            continue
        if key == "arguments":
            arguments = validate_arguments(
                cls.arguments_schema, value, field=f"{path}.arguments", owner=f"plugin {name!r}"
            )
        elif key in ENABLE_FLAGS:
            if not isinstance(value, bool):
                raise ConfError(f"{path}.{key}", f"expected true or false, got {_shown(value)}")
            flags[key] = value
        else:
            raise ConfError(
                f"{path}.{key}", "unknown field (expected name, arguments or a hook flag)"
            )
    refused = cls.check_arguments(arguments)
    if refused is not None:
        raise ConfError(f"{path}.arguments.{refused[0]}", refused[1])
    return PluginOption(name=name, arguments=arguments, flags=flags)


def _parse_tiers(raw: object, problems: list[ConfError]) -> tuple[Tier, ...]:
    """Parse the tiers; each refused tier or plugin goes to ``problems`` and parsing goes on,
    so the editor can mark every mistake at once."""
    if not isinstance(raw, list):
        problems.append(ConfError("tiers", f"expected a list of tiers, got {_shown(raw)}"))
        return ()
    seen: dict[str, str] = {}
    tiers: list[Tier] = []
    for i, tier in enumerate(raw):
        path = f"tiers[{i}]"
        if not isinstance(tier, Mapping) or set(tier) - {"plugins"}:
            problems.append(ConfError(path, "expected a mapping with only 'plugins'"))
            continue
        plugins = tier.get("plugins") or []
        if not isinstance(plugins, list):
            problems.append(ConfError(f"{path}.plugins", f"expected a list, got {_shown(plugins)}"))
            continue
        options: list[PluginOption] = []
        for j, plugin in enumerate(plugins):
            try:
                options.append(_parse_plugin(plugin, f"{path}.plugins[{j}]", seen))
            except ConfError as exc:
                problems.append(exc)
        names = {o.name: o for o in options}
        drf = names.get("drf")
        if "proportion" in names and drf is not None and drf.enabled("enableHierarchy"):
            problems.append(ConfError(path, "proportion and drf with hierarchy enabled conflicts"))
        tiers.append(Tier(plugins=tuple(options)))
    return tuple(tiers)


def _parse_configurations(raw: object, problems: list[ConfError]) -> dict[str, Arguments]:
    """Parse the actions' arguments; each refused entry goes to ``problems``."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        problems.append(ConfError("configurations", f"expected a list, got {_shown(raw)}"))
        return {}
    out: dict[str, Arguments] = {}
    for i, entry in enumerate(raw):
        try:
            name, arguments = _parse_configuration(entry, f"configurations[{i}]")
        except ConfError as exc:
            problems.append(exc)
        else:
            out[name] = arguments
    return out


def _parse_configuration(entry: object, path: str) -> tuple[str, Arguments]:
    if not isinstance(entry, Mapping):
        raise ConfError(path, f"expected a mapping with name and arguments, got {_shown(entry)}")
    unknown = set(entry) - {"name", "arguments"}
    if unknown:
        raise ConfError(f"{path}.{sorted(unknown)[0]}", "unknown field")
    name = entry.get("name")
    action = get_action(name) if isinstance(name, str) else None
    if action is None:
        raise ConfError(f"{path}.name", f"unknown action {name!r}")
    assert isinstance(name, str)
    arguments = validate_arguments(
        action.arguments_schema,
        entry.get("arguments"),
        field=f"{path}.arguments",
        owner=f"action {name!r}",
    )
    return name, arguments


def load_conf(text: str | None) -> SchedulerConf:
    """Return the parsed conf of ``text`` (Volcano's default conf when empty or None); raise
    the first ``ConfError`` in text order."""
    conf, problems = _parse(text)
    if problems:
        raise problems[0]
    assert conf is not None
    return conf


def conf_problems(text: str | None) -> list[ConfError]:
    """Return every ``ConfError`` of ``text`` in text order (empty: ``load_conf`` accepts it).

    The policy editor marks them all at once; a YAML syntax error stops there (nothing after
    it can be read), otherwise each section, tier, plugin and action entry is judged alone.
    """
    return _parse(text)[1]


def _parse(text: str | None) -> tuple[SchedulerConf | None, list[ConfError]]:
    ensure_loaded()
    source = text if text and text.strip() else DEFAULT_CONF
    try:
        data = load_one(source)
    except YamlLimitError as exc:
        return None, [ConfError(exc.field, exc.message)]
    except yaml.YAMLError as exc:
        return None, [ConfError("", f"not valid YAML: {exc}")]
    if not isinstance(data, Mapping):
        return None, [
            ConfError("", f"expected a mapping with actions and tiers, got {_shown(data)}")
        ]
    problems = [
        ConfError(str(key), "unknown field")
        for key in sorted(set(data) - {"actions", "tiers", "configurations", "metrics"})
    ]
    try:
        actions = _parse_actions(data.get("actions"))
    except ConfError as exc:
        problems.append(exc)
        actions = ()
    tiers = _parse_tiers(data.get("tiers") or [], problems)
    configurations = _parse_configurations(data.get("configurations"), problems)
    conf = SchedulerConf(actions=actions, tiers=tiers, configurations=configurations, text=source)
    return (None if problems else conf), problems
