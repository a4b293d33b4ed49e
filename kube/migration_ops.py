"""Migration operations for a model that moved to another app: its label follows it.

A model's label (``jobs.pod``) is stored outside its own table: in Django's content types
(which the admin log and permissions point at), in the change stream (``ChangeEvent.kind``,
so a watch resumed across the upgrade still finds its kind) and in owner links
(``OwnerLink.owner_kind``/``dependent_kind``). ``relabel`` rewrites all three in one step, and
back again when the migration is reversed, so a database made before a move keeps every row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import migrations

__all__ = ["relabel"]


def _rename(apps: Any, moves: Mapping[str, str]) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    change_event = apps.get_model("kube", "ChangeEvent")
    owner_link = apps.get_model("kube", "OwnerLink")
    for old, new in moves.items():
        old_app, old_model = old.split(".")
        new_app, new_model = new.split(".")
        stale = content_type.objects.filter(app_label=old_app, model=old_model).first()
        if stale is not None:
            # A content type made for the new label already (a post_migrate run between the
            # move and this step) holds nothing worth more than the old one's permissions and
            # admin history: the old one takes its place.
            content_type.objects.filter(app_label=new_app, model=new_model).delete()
            stale.app_label, stale.model = new_app, new_model
            stale.save(update_fields=["app_label", "model"])
        change_event.objects.filter(kind=old).update(kind=new)
        owner_link.objects.filter(owner_kind=old).update(owner_kind=new)
        owner_link.objects.filter(dependent_kind=old).update(dependent_kind=new)


def relabel(moves: Mapping[str, str]) -> migrations.RunPython:
    """Return an operation renaming the labels ``old → new`` wherever rows store them."""
    backwards = {new: old for old, new in moves.items()}
    return migrations.RunPython(
        lambda apps, schema_editor: _rename(apps, moves),
        lambda apps, schema_editor: _rename(apps, backwards),
    )
