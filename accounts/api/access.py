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
from kube.schemas import free_object, integer, string

__all__ = ["register"]

# The audit entry's OpenAPI schema (``kubectl explain auditentries``); its ``kind`` is the kind
# of the object acted on, as ``accounts.api.views.render_entry`` shows it.
SCHEMA = (
    "One recorded change made by a person: who did what to which object, before and after.",
    {
        "id": integer("The entry's number (newer entries have larger ones)."),
        "time": string("When the change was made (RFC 3339).", format="date-time"),
        "user": string("Who made it."),
        "action": string("What was done: create, update, delete or activate."),
        "kind": string("The kind of the object acted on."),
        "name": string("The name of the object acted on."),
        "before": free_object("The audited fields before the change."),
        "after": free_object("The audited fields after the change."),
    },
)


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
        schema=SCHEMA,
    )
