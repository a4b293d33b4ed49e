"""Commands through kubectl, as a submitter meets them: refused unless the submitter may do
the action itself to a target of the right kind in the Command's namespace."""

from __future__ import annotations

import json

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def _command(name: str, action: str, kind: str, target: str) -> str:
    api = "scheduling.volcano.sh/v1beta1" if kind == "Queue" else "batch.volcano.sh/v1alpha1"
    return json.dumps({
        "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
        "metadata": {"name": name, "namespace": "default"},
        "action": action, "target": {"apiVersion": api, "kind": kind, "name": target},
    })  # fmt: skip


@pytest.mark.parametrize(
    ("action", "kind", "target", "says"),
    [
        (
            "CloseQueue",
            "Queue",
            "default",
            'Error from server (Forbidden): error when creating "STDIN": commands.bus.volcano.sh '
            '"refused" is forbidden: User "kube-sub" cannot update resource "queues" in API group '
            '"scheduling.volcano.sh"',
        ),
        (
            "AbortJob",
            "Job",
            "ghost",
            'Error from server (NotFound): error when creating "STDIN": jobs.batch.volcano.sh '
            '"ghost" not found',
        ),
        (
            "AbortJob",
            "Queue",
            "default",
            'The Command "refused" is invalid: target: AbortJob acts on a Job, not a Queue',
        ),
    ],
    ids=["close-queue", "missing-job", "job-action-on-a-queue"],
)
def test_a_submitter_s_command_beyond_its_rights_is_refused(
    kube_server: KubeServer, action: str, kind: str, target: str, says: str
) -> None:
    created = kubectl(kube_server, "create", "-f", "-", stdin=_command("refused", action, kind,
                      target), kubeconfig=kube_server.submitter_kubeconfig)  # fmt: skip

    assert created.returncode != 0
    assert created.stderr.startswith(says), created.stderr
    listed = kubectl(kube_server, "get", "commands.bus.volcano.sh", "-o", "name")
    assert "refused" not in listed.stdout
    state = kubectl(kube_server, "get", "queue", "default", "-o", "jsonpath={.status.state}")
    assert state.stdout == "Open"
