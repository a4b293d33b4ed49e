"""Command manifests (bus.volcano.sh/v1alpha1): an action on a target job or queue."""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest
from jobs.admission.command import admit_command
from jobs.models import Command, CommandAction, TargetKind
from kube.manifest_kinds import Kind, Loaded

__all__ = ["CommandKind"]

_TARGET_API = {
    TargetKind.JOB: "batch.volcano.sh/v1alpha1",
    TargetKind.QUEUE: "scheduling.volcano.sh/v1beta1",
}


class CommandKind(Kind):
    """``bus.volcano.sh/v1alpha1`` Command."""

    api_version = "bus.volcano.sh/v1alpha1"
    kind = "Command"
    resource = "command.bus.volcano.sh"
    model = Command
    spec_fields = ("action", "target_kind", "target_name", "target_uid", "reason", "message")
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name", "action": "action"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        command: Command = loaded.instance
        # vcctl sends an owner reference to the command's target (its job or queue); the
        # target is the owner, so the reference is read here and written back from it.
        owners = list(meta.objects("ownerReferences"))
        command.action = doc.string("action", required=True)
        if command.action not in CommandAction.values:
            allowed = ", ".join(CommandAction.values)
            raise doc.error("action", f"unsupported value {command.action!r} ({allowed})")
        target = doc.obj("target")
        command.target_kind = target.string("kind", required=True)
        if command.target_kind not in TargetKind.values:
            raise target.error("kind", f"unsupported value {command.target_kind!r} (Job, Queue)")
        target.string("apiVersion")
        command.target_name = target.string("name", required=True)
        command.target_uid = target.uid("uid")
        target.boolean("controller", False)
        target.boolean("blockOwnerDeletion", False)
        target.done()
        command.reason = doc.string("reason")
        command.message = doc.string("message")
        for ref in owners:
            kind, name = ref.string("kind", required=True), ref.string("name", required=True)
            ref.string("apiVersion")
            uid = ref.uid("uid")
            ref.boolean("controller", False)
            ref.boolean("blockOwnerDeletion", False)
            ref.done()
            if (kind, name) != (command.target_kind, command.target_name):
                raise meta.error("ownerReferences", f"{kind}/{name} is not the command's target "
                                 f"{command.target_kind}/{command.target_name}")  # fmt: skip
            if command.target_uid is None:
                command.target_uid = uid
        # The target is the owner, written back from it: nothing else to keep.
        command.owner_references = []

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse a Command whose creator may not act on its target, or that cannot fit it."""
        admit_command(loaded.instance)

    def write_metadata(self, instance: Any) -> Manifest:
        """The common metadata, and the owner reference to the target (as vcctl writes it)."""
        meta = super().write_metadata(instance)
        command: Command = instance
        if command.target_uid is not None:
            meta["ownerReferences"] = [{
                "apiVersion": _TARGET_API[TargetKind(command.target_kind)],
                "kind": command.target_kind, "name": command.target_name,
                "uid": str(command.target_uid), "controller": True, "blockOwnerDeletion": True,
            }]  # fmt: skip
        return meta

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        command: Command = instance
        target: Manifest = {
            "apiVersion": _TARGET_API[TargetKind(command.target_kind)],
            "kind": command.target_kind,
            "name": command.target_name,
        }
        if command.target_uid is not None:
            target["uid"] = str(command.target_uid)
        body: Manifest = {"action": command.action, "target": target}
        if command.reason:
            body["reason"] = command.reason
        if command.message:
            body["message"] = command.message
        return body
