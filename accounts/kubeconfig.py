"""A kubeconfig for one user: this server as the cluster, a fresh API token as the credential.

kubectl and the ``kubernetes`` Python package read the same file, so with it
``kubectl apply -f job.yaml`` and ``config.load_kube_config()`` reach this
server as they would a Kubernetes API server running Volcano.
"""

from __future__ import annotations

import base64
from typing import Any

import yaml

from accounts.services import token_create

__all__ = ["kubeconfig_create", "kubeconfig_text"]

CLUSTER = "volcano-console"


def kubeconfig_text(
    *,
    server: str,
    username: str,
    token: str,
    namespace: str = "default",
    ca_pem: bytes = b"",
    insecure: bool = False,
) -> str:
    """Return a kubeconfig (YAML) naming ``server`` and authenticating with ``token``.

    ``ca_pem`` (the server certificate's issuer) is embedded as
    ``certificate-authority-data``; ``insecure`` skips TLS verification instead.
    """
    context = f"{username}@{CLUSTER}"
    cluster: dict[str, Any] = {"server": server.rstrip("/")}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    elif insecure:
        cluster["insecure-skip-tls-verify"] = True
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CLUSTER, "cluster": cluster}],
        "users": [{"name": username, "user": {"token": token}}],
        "contexts": [
            {
                "name": context,
                "context": {"cluster": CLUSTER, "user": username, "namespace": namespace},
            }
        ],
        "current-context": context,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def kubeconfig_create(
    *,
    user: Any,
    server: str,
    namespace: str = "default",
    ca_pem: bytes = b"",
    insecure: bool = False,
) -> str:
    """Issue a token named ``kubeconfig`` for ``user`` and return a kubeconfig holding it."""
    _, token = token_create(user=user, name="kubeconfig")
    return kubeconfig_text(
        server=server,
        username=user.get_username(),
        token=token,
        namespace=namespace,
        ca_pem=ca_pem,
        insecure=insecure,
    )
