"""The Kubeflow training jobs in the console: the jobs list's section of them, a job's page
(replica types, PodGroup, pods, why it waits) and its delete.

The jobs list belongs to the jobs app, a sibling: it shows the Kubeflow jobs by loading
``training_list`` (``hx-get``) with its own filters, readable by the same roles as the list.
"""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from console.namespaces import current_namespace
from console.render import render_page
from kube.manifests import dump_manifest
from kubelet.pod_log import pod_logs
from training.selectors import framework_by_plural, training_job_list, training_page

__all__ = ["FILTERS", "training_delete", "training_detail", "training_list"]

# The jobs list's filters, which its Kubeflow section follows.
FILTERS = ("queue", "phase", "mine", "q")


@role_required()
def training_list(request: HttpRequest) -> HttpResponse:
    """Render the Kubeflow jobs the user may read, newest first, filtered as the jobs list is
    (the content of the list's Kubeflow section; nothing when none matches)."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in FILTERS}
    rows = training_job_list(request.user, namespace=namespace, filters=filters)
    response = render(request, "training/_training_list.html", {"training": rows})
    response["Vary"] = "HX-Request, HX-Target"
    return response


@role_required()
def training_detail(request: HttpRequest, plural: str, namespace: str, name: str) -> HttpResponse:
    """Render one PyTorchJob, TFJob or MPIJob, live."""
    page = training_page(request.user, plural, namespace, name)
    context = {
        "p": page,
        "job": page.job,
        "manifest": yaml.safe_dump(dump_manifest(page.job), sort_keys=False),
        "logs": pod_logs(page.pods, page.events),
        "live": f"{page.framework.model._meta.label_lower}@{namespace}",
    }
    return render_page(
        request, "training/training_detail.html", context, fragments=("training-body",)
    )


@role_required()
@require_POST
def training_delete(request: HttpRequest, plural: str, namespace: str, name: str) -> HttpResponse:
    """Delete the job; the controller then deletes its pods and PodGroup."""
    framework = framework_by_plural(plural)
    if not can(request.user, "trainingjobs", write=True, namespace=namespace):
        raise PermissionDenied(_("Your role does not allow changing jobs here."))
    with transaction.atomic():
        deleted, _rows = framework.model._default_manager.filter(
            namespace=namespace, name=name
        ).delete()
    if deleted:
        messages.success(
            request, _("%(kind)s %(name)s deleted.") % {"kind": framework.kind, "name": name}
        )
    else:
        messages.error(
            request, _("%(kind)s %(name)s does not exist.") % {"kind": framework.kind, "name": name}
        )
    return redirect("jobs:job_list")
