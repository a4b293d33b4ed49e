"""``evicted_by``: what a page says of an evicted pod, naming who chose it.

The scheduler writes its eviction's action, and the plugin that named the victim when one did,
as the pod's ``status.message`` (``shuffle (tdm)``, ``reclaim``, ``gangpreempt``); an operator's
fault injection writes a sentence of its own ("evicted by an operator"). The first reads
"evicted by shuffle (tdm)", the second as it was written.
"""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.utils.translation import gettext as _

register = template.Library()

# An action's name, optionally followed by the plugin in brackets: what the scheduler writes.
_SCHEDULER_WORDS = re.compile(r"^[a-z][a-z0-9-]*( \([a-z0-9_.-]+\))?$")


@register.filter
def evicted_by(pod: Any) -> str:
    """Return how an evicted pod's page names its eviction ("" for a pod not evicted)."""
    if getattr(pod, "reason", "") != "Evicted":
        return ""
    message = str(getattr(pod, "message", "") or "")
    if not message:
        return _("evicted")
    if _SCHEDULER_WORDS.match(message):
        return _("evicted by %(by)s") % {"by": message}
    return message
