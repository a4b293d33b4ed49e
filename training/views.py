"""A Kubeflow training job's page (replica types, PodGroup, pods, why it waits) and its delete."""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from console.render import render_page
from kube.manifests import dump_manifest
from kubelet.pod_log import pod_logs
from training.selectors import framework_by_plural, training_page

__all__ = ["training_delete", "training_detail"]


@role_required()
def training_detail(request: HttpRequest, plural: str, namespace: str, name: str) -> HttpResponse:
    """Render one PyTorchJob, TFJob or MPIJob, live."""
    page = training_page(request.user, plural, namespace, name)
    context = {
        "p": page,
        "job": page.job,
        "manifest": yaml.safe_dump(dump_manifest(page.job), sort_keys=False),
        "logs": pod_logs(page.pods, page.events),
        "live": f"jobs.{page.framework.model._meta.model_name}@{namespace}",
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
        return HttpResponseForbidden(_("Your role does not allow changing jobs here."))
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
