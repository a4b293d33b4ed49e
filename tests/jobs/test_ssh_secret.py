"""The ssh plugin's keys live in one Secret ``<job>-ssh`` owned by the job, never on its pods."""

from __future__ import annotations

import base64
import importlib
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.apps import apps
from django.test import Client

from core.admin_secrets import masked
from core.models import Pod, PodPhase, Secret
from jobs.models import Job
from tests.jobs.controller_kit import admit, pods, set_pods, start, submit, task, tick

pytestmark = pytest.mark.django_db

SSH_FILES = {"id_rsa", "id_rsa.pub", "authorized_keys", "config"}


def ssh_job(name: str = "job", **spec: Any) -> Job:
    spec.setdefault("plugins", {"ssh": []})
    return submit(name, tasks=[task("worker", 2)], **spec)


def secret_of(job: Job) -> Secret:
    return Secret.objects.get(namespace=job.namespace, name=f"{job.name}-ssh")


def test_ssh_job_gets_one_secret_owned_by_it_with_the_four_files() -> None:
    job = ssh_job()
    start(job)

    secret = secret_of(job)
    files = secret.decoded()
    assert Secret.objects.count() == 1
    assert set(secret.data) == SSH_FILES
    assert secret.job == job
    assert secret.type == "Opaque"
    assert files["id_rsa"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert files["authorized_keys"] == files["id_rsa.pub"]
    # data is base64 on the wire, as Kubernetes stores it
    assert base64.b64decode(secret.data["id_rsa.pub"]).decode() == files["id_rsa.pub"]


def test_a_pending_job_not_yet_admitted_holds_no_key() -> None:
    job = ssh_job()
    tick(job)
    assert not Secret.objects.exists()


def test_pods_mount_the_secret_and_carry_no_key_material() -> None:
    job = ssh_job()
    start(job)
    private = secret_of(job).decoded()["id_rsa"]

    for pod in pods(job).values():
        assert "PRIVATE KEY" not in repr((pod.annotations, pod.labels, pod.spec))
        assert private not in repr(pod.spec)
        assert {"name": "job-ssh", "mountPath": "/root/.ssh", "subPath": ".ssh"} in pod.spec[
            "containers"
        ][0]["volumeMounts"]
        volume = next(v for v in pod.spec["volumes"] if v["name"] == "job-ssh")
        assert volume["secret"]["secretName"] == "job-ssh"


def test_a_pod_recreated_in_the_same_version_reuses_the_keys() -> None:
    job = ssh_job(policies=[{"event": "PodFailed", "action": "RestartPod"}])
    start(job)
    before = secret_of(job).data
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    tick(job)

    assert "job-worker-0" in pods(job)
    assert secret_of(job).data == before
    assert Secret.objects.count() == 1


def test_a_restarted_job_gets_new_keys_for_its_new_version() -> None:
    job = ssh_job(policies=[{"event": "PodFailed", "action": "RestartJob"}])
    start(job)
    before = secret_of(job).decoded()["id_rsa"]
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    assert job.phase == "Restarting"
    assert not Secret.objects.exists()  # the full kill deletes it, as Volcano's OnJobDelete
    tick(job)
    tick(job)
    admit(job)
    tick(job)

    assert len(pods(job)) == 2
    secret = secret_of(job)
    assert secret.annotations["volcano.sh/job-version"] == str(job.version) == "1"
    assert secret.decoded()["id_rsa"] != before


def test_deleting_the_job_deletes_its_secret() -> None:
    job = ssh_job()
    start(job)
    assert Secret.objects.filter(job=job).exists()

    job.delete()

    assert not Secret.objects.exists()
    assert not Pod.objects.exists()


def test_a_user_given_private_key_is_used_and_its_public_key_derived() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    job = ssh_job(plugins={"ssh": [f"--ssh-private-key={private}", "--ssh-port=2222"]})
    start(job)

    files = secret_of(job).decoded()
    assert files["id_rsa"] == private
    assert files["id_rsa.pub"].strip() == public
    assert files["authorized_keys"] == files["id_rsa.pub"]
    assert "Port 2222" in files["config"]


def test_given_private_and_public_keys_are_both_kept_as_given() -> None:
    job = ssh_job(plugins={"ssh": ["--ssh-private-key=PRIV", "--ssh-public-key=ssh-rsa AAAA me"]})
    start(job)

    files = secret_of(job).decoded()
    assert (files["id_rsa"], files["id_rsa.pub"], files["authorized_keys"]) == (
        "PRIV",
        "ssh-rsa AAAA me",
        "ssh-rsa AAAA me",
    )


def test_jobs_without_the_ssh_plugin_get_no_secret() -> None:
    start(submit())
    assert not Secret.objects.exists()


def test_admin_shows_secrets_to_admins_only_with_the_data_masked(
    superuser_client: Client, django_user_model: Any
) -> None:
    from django.contrib.auth.models import Group

    job = ssh_job()
    start(job)
    secret = secret_of(job)
    private = secret.decoded()["id_rsa"]

    page = superuser_client.get(f"/admin/core/secret/{secret.pk}/change/")
    listing = superuser_client.get("/admin/core/secret/")
    assert page.status_code == listing.status_code == 200
    for response in (page, listing):
        body = response.content.decode()
        assert "id_rsa (" in body
        assert secret.data["id_rsa"] not in body
        assert "PRIVATE KEY" not in body
    assert private not in masked(secret)

    operator = django_user_model.objects.create_user("op", password="pw", is_staff=True)
    operator.groups.add(Group.objects.get(name="operator"))
    client = Client()
    client.force_login(operator)
    assert client.get(f"/admin/core/secret/{secret.pk}/change/").status_code == 403
    assert "/admin/core/secret/" not in client.get("/admin/").content.decode()


class _MovedModels:
    """The app registry as migration 0004 saw it: Pod and Secret were the jobs app's then."""

    def get_model(self, app_label: str, name: str) -> Any:
        return apps.get_model("core" if app_label == "jobs" else app_label, name)


def test_migration_moves_pod_key_annotations_into_a_secret() -> None:
    migration = importlib.import_module("jobs.migrations.0004_ssh_keys_to_secrets")
    job = ssh_job()
    start(job)
    secret = secret_of(job)
    files = secret.decoded()
    secret.delete()
    # The shape earlier versions stored: every pod carried the files as annotations.
    for pod in Pod.objects.filter(job=job):
        pod.annotations = {
            **pod.annotations,
            **{f"ssh.volcano.sh/{name}": value for name, value in files.items()},
        }
        pod.save()

    migration.keys_to_secrets(_MovedModels(), None)

    moved = secret_of(job)
    assert moved.decoded() == files
    assert moved.job == job
    for pod in Pod.objects.filter(job=job):
        assert not any(key.startswith("ssh.volcano.sh/") for key in pod.annotations)
        assert "volcano.sh/job-name" in pod.annotations

    migration.secrets_to_keys(_MovedModels(), None)  # and back

    assert not Secret.objects.exists()
    for pod in Pod.objects.filter(job=job):
        assert pod.annotations["ssh.volcano.sh/id_rsa"] == files["id_rsa"]


def test_a_completed_job_no_longer_holds_its_keys() -> None:
    job = ssh_job()
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    tick(job)

    assert job.phase == "Completed"
    assert not Secret.objects.exists()  # every full kill deletes it, as Volcano's OnJobDelete
