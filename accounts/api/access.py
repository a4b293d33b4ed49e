"""The API server's access control, given to the kernel (``register``, from ``AccountsConfig``).

Callers authenticate by token (``Authorization: Bearer``, what kubectl sends) or by the
console's session; ``KubeAccess`` checks the roles against each API name's rule; a caller
lists only the namespaces they were granted. The audit log's own API name and discovery entry
are registered here too.
"""

from __future__ import annotations

from rest_framework.authentication import SessionAuthentication

from accounts.authentication import TokenAuthentication
from accounts.roles import OPERATORS, KubeAccess, allowed_namespaces
from kube import registry
from kube.registry import AccessControl, AccessRule

__all__ = ["register"]


def register() -> None:
    """Tell the kernel how API calls are authenticated and authorised."""
    registry.set_access_control(
        AccessControl(
            authentication_classes=(TokenAuthentication, SessionAuthentication),
            permission_classes=(KubeAccess,),
            namespaces=allowed_namespaces,
        )
    )
    # The audit log: operators read it; nobody writes it through the API.
    registry.register_access("auditentries", AccessRule(OPERATORS, frozenset(), namespaced=False))
    registry.register_api_resource(
        "audit.volcano.sh/v1alpha1",
        {
            "name": "auditentries",
            "singularName": "auditentry",
            "namespaced": False,
            "kind": "AuditEntry",
            "verbs": ["list"],
        },
    )
