"""Arguments the active configuration gives but the scheduler never reads.

Why: the parser already refuses a name no plugin or action accepts (``framework/arguments``),
but an accepted argument can still be dead weight: a plugin reads its arguments only in the
hooks that use them, and a hook whose flag is off never runs (binpack's weights with
``enableNodeOrder: false``); an action's ``configurations`` entry is read only when the action
is listed; binpack weighs an extra resource only when ``binpack.resources`` lists it. Volcano
ignores all of these without a word; the health page names them.

Plain data in, plain data out (no Django), so the table below is tested without a database.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler.engine.conf import PluginOption, SchedulerConf

__all__ = ["IgnoredArgument", "ignored_arguments"]

# plugin -> the hook flags under which it reads its arguments (read if any one is on).
_READ_UNDER: dict[str, tuple[str, ...]] = {
    "binpack": ("enableNodeOrder",),
    "nodeorder": ("enableNodeOrder",),
    "predicates": ("enablePredicate",),
    "overcommit": ("enableJobEnqueued",),
    "sla": ("enableJobOrder", "enableJobEnqueued", "enableJobPipelined"),
    "usage": ("enablePredicate", "enableNodeOrder"),
    "rescheduling": ("enabledVictim",),
    # ancestorReclaimLevel walks the queue tree, which exists only with enableHierarchy.
    "capacity": ("enableHierarchy",),
}
_BINPACK_LIST, _BINPACK_PREFIX = "binpack.resources", "binpack.resources."


@dataclass(frozen=True, slots=True)
class IgnoredArgument:
    """One argument the scheduler does not read: where it is (the conf path), and why."""

    owner: str  # the plugin or action name
    key: str
    path: str  # e.g. tiers[1].plugins[0].arguments.binpack.weight
    flags: tuple[str, ...] = ()  # the hook flags that would make it read (all off)
    unlisted_resource: str = ""  # binpack: a resource weight not in binpack.resources
    action_missing: bool = False  # an action's configurations entry, action not listed


def _plugin_ignored(option: PluginOption, path: str) -> list[IgnoredArgument]:
    given = option.arguments.as_dict()
    if not given:
        return []
    flags = _READ_UNDER.get(option.name, ())
    if flags and not any(option.enabled(flag) for flag in flags):
        return [
            IgnoredArgument(option.name, key, f"{path}.arguments.{key}", flags=flags)
            for key in sorted(given)
        ]
    out = []
    if option.name == "binpack":
        listed = {n.strip() for n in str(given.get(_BINPACK_LIST, "")).split(",") if n.strip()}
        for key in sorted(given):
            if key.startswith(_BINPACK_PREFIX) and key[len(_BINPACK_PREFIX) :] not in listed:
                out.append(
                    IgnoredArgument(
                        option.name, key, f"{path}.arguments.{key}",
                        unlisted_resource=key[len(_BINPACK_PREFIX) :],
                    )
                )  # fmt: skip
    return out


def ignored_arguments(conf: SchedulerConf) -> list[IgnoredArgument]:
    """Return every argument ``conf`` gives that no running hook or listed action reads."""
    out: list[IgnoredArgument] = []
    for t, tier in enumerate(conf.tiers):
        for p, option in enumerate(tier.plugins):
            out += _plugin_ignored(option, f"tiers[{t}].plugins[{p}]")
    for c, (action, arguments) in enumerate(conf.configurations.items()):
        if action in conf.actions:
            continue
        for key in sorted(arguments.as_dict()):
            path = f"configurations[{c}].arguments.{key}"
            out.append(IgnoredArgument(action, key, path, action_missing=True))
    return out
