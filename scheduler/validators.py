"""Kubernetes name rules, shared by every model that has a Kubernetes name.

Names are checked twice: by these validators (model ``full_clean``, forms, the
manifest loaders) and, for the most important ones, by database check
constraints, so a bad row cannot be written even by a bulk path.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

__all__ = [
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "dns1123_label_error",
    "dns1123_subdomain_error",
    "validate_dns1123_label",
    "validate_dns1123_subdomain",
]

# RFC 1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric, <= 63.
DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
# RFC 1123 subdomain: dot-separated labels, <= 253 characters.
DNS1123_SUBDOMAIN = rf"{DNS1123_LABEL}(\.{DNS1123_LABEL})*"
_LABEL_RE = re.compile(rf"^{DNS1123_LABEL}$")
_SUBDOMAIN_RE = re.compile(rf"^{DNS1123_SUBDOMAIN}$")


def dns1123_label_error(value: str) -> str:
    """Return why ``value`` is not a DNS-1123 label, or ``""`` when it is one."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_RE.match(value):
        return (
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
            "or '-', and must start and end with an alphanumeric character"
        )
    return ""


def dns1123_subdomain_error(value: str) -> str:
    """Return why ``value`` is not a DNS-1123 subdomain, or ``""`` when it is one."""
    if len(value) > 253:
        return "must be no more than 253 characters"
    if not _SUBDOMAIN_RE.match(value):
        return (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character"
        )
    return ""


def validate_dns1123_label(value: str) -> None:
    """Raise ``ValidationError`` unless ``value`` is a DNS-1123 label (queue, namespace)."""
    if error := dns1123_label_error(value):
        raise ValidationError(f"{value!r}: {error}", code="invalid")


def validate_dns1123_subdomain(value: str) -> None:
    """Raise ``ValidationError`` unless ``value`` is a DNS-1123 subdomain (job, node, class)."""
    if error := dns1123_subdomain_error(value):
        raise ValidationError(f"{value!r}: {error}", code="invalid")
