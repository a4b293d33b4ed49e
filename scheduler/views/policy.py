"""Scheduler policy pages: the editor (form ⇄ YAML), versions and diff, activation, what-if.

Everyone may read them (the configuration is cluster-wide and readable by every role);
saving, activating and running a what-if need operator or admin, and a refused request writes
nothing. The engine's parser is the one judge of a configuration: the editor posts what the
user typed (form or YAML) to ``policy_sync``, which parses it and answers with the other view
and the errors, each at the field the parser names.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import AuditEntry
from accounts.roles import ADMIN, OPERATOR, can, role_required, roles_of
from console.live import publish_on_commit
from console.render import render_page
from console.units import quantity
from scheduler.engine.catalogue import (
    ACTIONS,
    FLAG_HELP,
    PLUGINS,
    action_help,
    flag_default,
    plugin_info,
)
from scheduler.engine.conf import DEFAULT_CONF
from scheduler.models import SchedulerConfiguration, SessionRecord
from scheduler.policy_form import (
    PolicyDraft,
    apply_op,
    conf_errors,
    draft_from_post,
    draft_from_text,
    draft_to_text,
    problems_at_lines,
)
from scheduler.services import scheduler_conf_activate, scheduler_conf_create
from scheduler.whatif import QueueShare
from scheduler.whatif_runs import get_run, start_run

__all__ = [
    "policy_activate",
    "policy_editor",
    "policy_sync",
    "policy_versions",
    "policy_whatif",
    "policy_whatif_result",
    "policy_whatif_scenario",
]

TOPIC = "scheduler.configuration"
_WRITERS = frozenset({OPERATOR, ADMIN})


def _can_write(request: HttpRequest) -> bool:
    return bool(roles_of(request.user) & _WRITERS)


@dataclass(slots=True)
class FlagField:
    """A hook flag switch."""

    name: str
    on: bool
    default: bool
    help: str


@dataclass(slots=True)
class ArgField:
    """An argument field: its conf path, type, Volcano's default, value given, explanation."""

    key: str
    path: str
    type: str
    default: Any
    value: str
    help: str
    error: str = ""


@dataclass(slots=True)
class PluginView:
    """A plugin entry as the editor shows it."""

    path: str
    tier: int
    index: int
    name: str
    help: str
    known: bool
    flags: list[FlagField] = field(default_factory=list)
    arguments: list[ArgField] = field(default_factory=list)
    error: str = ""

    @property
    def open(self) -> bool:
        """Return True when an argument of this plugin is refused (shown unfolded)."""
        return any(a.error for a in self.arguments)


@dataclass(slots=True)
class TierView:
    """A tier as the editor shows it."""

    index: int
    plugins: list[PluginView]
    error: str = ""


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping) or (
        isinstance(value, list) and not all(isinstance(item, str) for item in value)
    ):  # nested (rescheduling.strategies): one line of YAML, read back by the form
        return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6).strip()
    if isinstance(value, list):  # a list argument is typed comma-separated
        return ", ".join(str(item) for item in value)
    return "" if value is None else str(value)


def _plugin_view(entry: Any, tier: int, index: int, errors: dict[str, str]) -> PluginView:
    path = f"tiers[{tier}].plugins[{index}]"
    info = plugin_info(entry.name)
    view = PluginView(path, tier, index, entry.name, info.help if info else "", info is not None)
    names = list(info.flags) if info else []
    names += [f for f in entry.flags if f not in names]
    for flag in names:
        given = entry.flags.get(flag)
        on = given if isinstance(given, bool) else flag_default(flag)
        view.flags.append(FlagField(flag, on, flag_default(flag), FLAG_HELP.get(flag, "")))
    keys: list[str] = []
    for arg in info.arguments if info else ():
        if arg.prefix:
            for key in sorted(k for k in entry.arguments if k.startswith(arg.key)):
                keys.append(key)
                view.arguments.append(ArgField(key, f"{path}.arguments.{key}", arg.type,
                                               arg.default, _shown(entry.arguments[key]),
                                               arg.help))  # fmt: skip
            continue
        keys.append(arg.key)
        view.arguments.append(ArgField(arg.key, f"{path}.arguments.{arg.key}", arg.type,
                                       arg.default, _shown(entry.arguments.get(arg.key)),
                                       arg.help))  # fmt: skip
    for key, value in entry.arguments.items():
        if key not in keys:  # not in the schema: shown so the parser's refusal has a field
            view.arguments.append(ArgField(key, f"{path}.arguments.{key}", "str", None,
                                           _shown(value), _("not an argument of this plugin")))  # fmt: skip
    for shown in view.arguments:
        shown.error = errors.get(shown.path, "")
    view.error = errors.get(f"{path}.name", "") or errors.get(path, "")
    return view


def _action_arguments(draft: PolicyDraft | None) -> dict[str, list[tuple[Any, Any]]]:
    """Return, per action of ``draft``, its arguments with the value the conf's
    ``configurations`` gives each (None: Volcano's default). Shown, not edited: the form keeps
    ``configurations`` as written, and the YAML view edits it."""
    if draft is None:
        return {}
    given: dict[str, dict[str, Any]] = {}
    for entry in draft.extra.get("configurations") or []:
        if isinstance(entry, dict) and isinstance(entry.get("arguments"), dict):
            given[str(entry.get("name", ""))] = entry["arguments"]
    return {
        name: [(info, given.get(name, {}).get(info.key)) for info in action_help(name)[1]]
        for name in draft.actions
        if action_help(name)[1]
    }


def _editor_context(draft: PolicyDraft | None, text: str, errors: dict[str, str]) -> dict[str, Any]:
    tiers = []
    if draft is not None:
        for i, tier in enumerate(draft.tiers):
            plugins = [_plugin_view(entry, i, j, errors) for j, entry in enumerate(tier)]
            tiers.append(TierView(i, plugins, errors.get(f"tiers[{i}]", "")))

    return {
        "draft": draft,
        "text": text,
        "errors": errors,
        "problems": problems_at_lines(text, errors),
        "valid": not errors,
        "tiers": tiers,
        "actions": [(name, action_help(name)[0]) for name in (draft.actions if draft else [])],
        "action_choices": [(a, action_help(a)[0]) for a in ACTIONS],
        "action_arguments": _action_arguments(draft),
        "plugin_choices": PLUGINS,
        "extra": yaml.safe_dump(draft.extra, sort_keys=False) if draft and draft.extra else "",
    }


def _base_text(request: HttpRequest) -> tuple[str, SchedulerConfiguration | None]:
    active = SchedulerConfiguration.objects.filter(is_active=True).first()
    source = request.GET.get("from", "")
    if source.isdigit():
        chosen = get_object_or_404(SchedulerConfiguration, version=int(source))
        return chosen.text, active
    return (active.text if active else DEFAULT_CONF), active


@role_required()
def policy_editor(request: HttpRequest) -> HttpResponse:
    """Show the editor on the active version (or ``?from=N``); POST saves a new version."""
    text, active = _base_text(request)
    comment = ""
    status = 200
    if request.method == "POST":
        if not _can_write(request):
            raise PermissionDenied("only operators change the scheduler configuration")
        text = request.POST.get("text", "")
        comment = request.POST.get("comment", "").strip()[:500]
        errors = conf_errors(text)
        if not errors:
            try:
                with transaction.atomic():
                    saved = scheduler_conf_create(
                        text=text,
                        author=request.user,
                        comment=comment,
                        activate=request.POST.get("activate") == "1",
                    )
                    publish_on_commit(TOPIC)
            except ValidationError as exc:
                errors = {"": "; ".join(exc.messages)}
            else:
                messages.success(request, _("Saved as version %(v)s.") % {"v": saved.version})
                return redirect(
                    f"{_versions_url()}?a={active.version if active else saved.version}&b={saved.version}"
                )
        status = 422
    else:
        errors = conf_errors(text)
    context = _editor_context(draft_from_text(text), text, errors)
    context.update(active=active, comment=comment, can_write=_can_write(request))
    return render_page(request, "scheduler/policy.html", context, status=status)


def _versions_url() -> str:
    from django.urls import reverse

    return reverse("scheduler:policy_versions")


@role_required()
@require_POST
def policy_sync(request: HttpRequest) -> HttpResponse:
    """Keep form and YAML in step: parse what changed, answer the other view and the errors.

    ``source=yaml``: the text is the truth; the answer carries the form rebuilt from it.
    ``source=form`` (or an ``op`` button): the form is the truth; the answer carries its text.
    JSON: ``{"text", "form", "errors": {field: message}, "problems": [{field, line,
    message}]}`` (``form`` only when rebuilt; ``problems``: every error at its line).
    """
    source = request.POST.get("source", "form")
    op = request.POST.get("op", "")
    if source == "yaml" and not op:
        text = request.POST.get("text", "")
        draft = draft_from_text(text)
    else:
        try:
            draft = draft_from_post(request.POST)
        except (ValueError, TypeError) as exc:  # a tampered count or kept-keys field
            return JsonResponse({"errors": {"": str(exc)}}, status=400)
        if op:
            apply_op(draft, op, request.POST)
        text = draft_to_text(draft)
    errors = conf_errors(text)
    problems = [asdict(p) for p in problems_at_lines(text, errors)]
    payload: dict[str, Any] = {"text": text, "errors": errors, "problems": problems}
    if source == "yaml" or op:
        context = _editor_context(draft, text, errors)
        context["can_write"] = _can_write(request)
        payload["form"] = render_to_string("scheduler/policy_form.html", context, request=request)
    return JsonResponse(payload)


def _diff_table(a: SchedulerConfiguration, b: SchedulerConfiguration) -> str:
    differ = difflib.HtmlDiff(tabsize=2, wrapcolumn=56)
    return differ.make_table(
        a.text.splitlines(), b.text.splitlines(), f"v{a.version}", f"v{b.version}"
    )


@role_required()
def policy_versions(request: HttpRequest) -> HttpResponse:
    """List the versions, diff any two (``?a=&b=``), and the recent sessions' versions."""
    versions = list(
        SchedulerConfiguration.objects.select_related("author").order_by("-version")[:200]
    )
    by_number = {v.version: v for v in versions}
    diff = ""
    a = b = None
    if len(versions) >= 2:
        default_b, default_a = versions[0].version, versions[1].version
        a_num = request.GET.get("a", str(default_a))
        b_num = request.GET.get("b", str(default_b))
        a = by_number.get(int(a_num)) if a_num.isdigit() else None
        b = by_number.get(int(b_num)) if b_num.isdigit() else None
        if a is not None and b is not None:
            diff = _diff_table(a, b)
    audit: list[dict[str, Any]] = []
    if can(request.user, "auditentries", write=False):
        for entry in AuditEntry.objects.filter(kind="SchedulerConfiguration")[:20]:
            before = (entry.before or {}).get("version")
            after = (entry.after or {}).get("version")
            audit.append({"entry": entry, "before": before, "after": after})
    sessions = list(
        SessionRecord.objects.select_related("configuration").order_by("-started_at", "-pk")[:12]
    )
    context = {
        "versions": versions,
        "a": a,
        "b": b,
        "diff": diff,
        "sessions": sessions,
        "audit": audit,
        "can_write": _can_write(request),
    }
    return render_page(request, "scheduler/policy_versions.html", context,
                       fragments=("versions", "sessions", "audit"))  # fmt: skip


@role_required(OPERATOR, ADMIN)
@require_POST
def policy_activate(request: HttpRequest, version: int) -> HttpResponse:
    """Activate ``version`` (a rollback when it is older); audited by the service."""
    configuration = get_object_or_404(SchedulerConfiguration, version=version)
    with transaction.atomic():
        scheduler_conf_activate(configuration=configuration)
        publish_on_commit(TOPIC)
    messages.success(
        request,
        _("Version %(v)s is active: the scheduler uses it from its next session.") % {"v": version},
    )
    return redirect("scheduler:policy_versions")


@role_required(OPERATOR, ADMIN)
@require_POST
def policy_whatif(request: HttpRequest) -> HttpResponse:
    """Start a what-if of the posted draft against the active version; open its page."""
    text = request.POST.get("text", "")
    errors = conf_errors(text)
    if errors:
        field_name, message = next(iter(errors.items()))
        return HttpResponse(
            _("The draft cannot run: %(f)s: %(m)s") % {"f": field_name or "text", "m": message},
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    run = start_run(user=request.user, draft_text=text)
    return redirect("scheduler:policy_whatif_result", run_id=run.id)


def _amounts(values: dict[str, int]) -> str:
    return ", ".join(f"{name} {quantity(value, name)}" for name, value in values.items())


def _share_text(share: QueueShare | None) -> str:
    """Return "cpu 4, memory 8Gi of cpu 6, memory 12Gi (share 0.67, weight 2)"."""
    if share is None:
        return "—"
    return _("%(alloc)s of %(deserved)s (share %(share).2f, weight %(weight)s)") % {
        "alloc": _amounts(share.allocated) or _("nothing"),
        "deserved": _amounts(share.deserved) or "—",
        "share": share.share,
        "weight": share.weight,
    }


@role_required(OPERATOR, ADMIN)
def policy_whatif_result(request: HttpRequest, run_id: str) -> HttpResponse:
    """Show a what-if's progress (polled) and then its result, side by side."""
    run = get_run(run_id, user=request.user)
    if run is None:
        raise Http404
    # Read the run's outcome once: its thread may finish while this page renders.
    report, error = run.report, run.error
    context: dict[str, Any] = {
        "run": run,
        "report": report,
        "error": error,
        "done": report is not None or bool(error),
        "percent_done": round(run.progress * 100),
        "can_write": _can_write(request),
    }
    if report is not None:
        context["queue_rows"] = [
            (
                name,
                _share_text(report.active.queues.get(name)),
                _share_text(report.draft.queues.get(name)),
            )
            for name in sorted(set(report.active.queues) | set(report.draft.queues))
        ]
        names = report.job_names
        context["pending_rows"] = [
            (names.get(job, job), report.active.pending.get(job), report.draft.pending.get(job))
            for job in sorted(set(report.active.pending) | set(report.draft.pending))
        ]
        context["moves"] = [(names.get(job, job), a, d) for job, a, d in report.line_moves]
        context["draft_only"] = report.binds_only_in_draft
        context["active_only"] = report.binds_only_in_active
    return render_page(request, "scheduler/policy_whatif.html", context, fragments=("whatif",))


@role_required(OPERATOR, ADMIN)
def policy_whatif_scenario(request: HttpRequest, run_id: str) -> HttpResponse:
    """Download the what-if's snapshot as a scenario file (``manage.py simulate`` replays it)."""
    run = get_run(run_id, user=request.user)
    if run is None or run.report is None:
        raise Http404
    side = "active" if request.GET.get("side") == "active" else "draft"
    response = HttpResponse(run.report.scenario(side), content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="what-if-{side}-{run.id}.yaml"'
    return response
