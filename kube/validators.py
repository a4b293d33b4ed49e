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


_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
MAX_ANNOTATIONS_BYTES = 256 * 1024  # kube-apiserver's TotalAnnotationSizeLimitB


def label_key_error(key: str) -> str:
    """Return why ``key`` is not a label or annotation key (``[prefix/]name``), or ``""``."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or dns1123_subdomain_error(prefix)):
        return "the prefix must be a DNS-1123 subdomain (e.g. example.com/name)"
    if not name or len(name) > 63:
        return "the name part must be 1 to 63 characters"
    if not _NAME_PART.match(name):
        return ("the name part must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character")  # fmt: skip
    return ""


def label_value_error(value: str) -> str:
    """Return why ``value`` is not a label value (empty, or 63 characters of the name set)."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if value and not _NAME_PART.match(value):
        return ("must be empty or consist of alphanumeric characters, '-', '_' or '.', and "
                "start and end with an alphanumeric character")  # fmt: skip
    return ""


def annotations_error(annotations: dict[str, str]) -> tuple[str, str]:
    """Return ``(key, why)`` of the first bad annotation, or ``("", why)`` when too large."""
    for key in annotations:
        if error := label_key_error(key):
            return key, error
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > MAX_ANNOTATIONS_BYTES:
        return "", f"may not have more than {MAX_ANNOTATIONS_BYTES} bytes in all, got {size}"
    return "", ""
