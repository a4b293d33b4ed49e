"""The job console's URLs: the jobs list, a job's page and its actions, the Pods and PodGroups
lists, the Quotas page, Submit; the jobs of a queue (a fragment of the queue's page)."""

from __future__ import annotations

from django.urls import URLPattern, path

from jobs.views import (
    job_bulk_all,
    job_detail,
    job_list,
    pod_list,
    queue_jobs,
    quota_list,
    submit,
)

app_name = "jobs"

urlpatterns: list[URLPattern] = [
    path("jobs/", job_list.job_list_view, name="job_list"),
    path("jobs/bulk/", job_list.job_bulk, name="job_bulk"),
    path("jobs/bulk/all/", job_bulk_all.job_bulk_all, name="job_bulk_all"),
    path("jobs/bulk/all/step/", job_bulk_all.job_bulk_all_step, name="job_bulk_all_step"),
    path("jobs/<str:namespace>/<str:name>/", job_detail.job_detail, name="job_detail"),
    path("jobs/<str:namespace>/<str:name>/action/", job_detail.job_action, name="job_action"),
    path("pods/", pod_list.pod_list_view, name="pod_list"),
    path("podgroups/", pod_list.podgroup_list_view, name="podgroup_list"),
    path("quotas/", quota_list.quota_list_view, name="quota_list"),
    path("submit/", submit.job_submit_view, name="job_submit"),
    path("submit/validate/", submit.job_validate, name="job_validate"),
    path("submit/preview/", submit.job_preview, name="job_preview"),
    path("queues/<str:name>/jobs/", queue_jobs.queue_jobs, name="queue_jobs"),
]
