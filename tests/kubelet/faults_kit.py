"""What the fault tests share: injecting a fault through the ``/faults`` subresource."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

__all__ = ["inject"]


def inject(client: Client, path: str, spec: dict[str, Any]) -> Any:
    """Post a Fault of ``spec`` to the object at ``path`` as ``client``; return the response."""
    document = {"apiVersion": "faults.volcano.sh/v1alpha1", "kind": "Fault", "spec": spec}
    return client.post(f"{path}/faults", json.dumps(document), content_type="application/json")
