"""``metadata.ownerReferences`` and ``metadata.finalizers`` as kube-apiserver validates them.

Every kind keeps both as a client sent them (``ObjectMeta.owner_references`` and
``.finalizers``). The rules are apimachinery's ``ValidateOwnerReferences`` and
``ValidateFinalizers``: an owner reference names its owner fully (apiVersion, kind, name,
uid), at most one reference is the controller, and a finalizer is a qualified name
(``example.com/cleanup``). Errors name the field path (``metadata.ownerReferences[0].uid``).
"""

from __future__ import annotations

from typing import Any

from apis.wire import Fields, Manifest
from kube.validators import label_key_error

__all__ = ["merge_owner_references", "read_finalizers", "read_owner_references"]

_REQUIRED = ("apiVersion", "kind", "name")


def read_owner_references(meta: Fields) -> list[Manifest]:
    """Return ``metadata.ownerReferences`` checked and in a stable shape; ``ManifestError``."""
    refs: list[Manifest] = []
    controller_of = ""
    for ref in meta.objects("ownerReferences"):
        item: Manifest = {key: ref.string(key, required=True) for key in _REQUIRED}
        uid = ref.uid("uid")
        if uid is None:
            raise ref.error("uid", 'Invalid value: "": uid must not be empty')
        item["uid"] = str(uid)
        for flag in ("controller", "blockOwnerDeletion"):
            if ref.has(flag):
                item[flag] = ref.boolean(flag, False)
        ref.done()
        if item.get("controller"):
            if controller_of:
                raise meta.error(
                    "ownerReferences",
                    'Only one reference can have Controller set to true. Found "true" in '
                    f"references for {controller_of} and {item['kind']}/{item['name']}",
                )
            controller_of = f"{item['kind']}/{item['name']}"
        refs.append(item)
    return refs


def read_finalizers(meta: Fields) -> list[str]:
    """Return ``metadata.finalizers``: qualified names (``[prefix/]name``); ``ManifestError``."""
    names = meta.strings("finalizers")
    for index, name in enumerate(names):
        if error := label_key_error(name):
            raise meta.error(f"finalizers[{index}]", f"Invalid value: {name!r}: {error}")
    return names


def merge_owner_references(implicit: list[Manifest], stored: Any) -> list[Manifest]:
    """Return the references our controllers imply, then the stored ones they do not repeat.

    A pod of a Job is owned by it through a foreign key; a client that also sent that
    reference sees it once, as the controller's.
    """
    seen = {(ref["kind"], ref["name"]) for ref in implicit}
    extra = [dict(ref) for ref in stored or () if (ref.get("kind"), ref.get("name")) not in seen]
    return [*implicit, *extra]
