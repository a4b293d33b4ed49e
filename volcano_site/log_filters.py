"""Logging filters: a refusal is one line in the log, not a traceback.

Django logs every 403 (``PermissionDenied``) through ``django.request`` with the exception
attached, so each refused page printed a full traceback: noise that hides real errors. A 4xx
answer is the system working; its line (method, path, status) stays, its traceback goes.
"""

from __future__ import annotations

import logging

__all__ = ["ClientErrorsWithoutTraceback"]


class ClientErrorsWithoutTraceback(logging.Filter):
    """Drop the traceback of ``django.request`` records about a 4xx answer."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
