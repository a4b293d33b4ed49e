"""A refused page is one line in the log, never a traceback; a server error keeps its own."""

from __future__ import annotations

import logging
import sys

from volcano_site.log_filters import ClientErrorsWithoutTraceback


def _record(status: int) -> logging.LogRecord:
    try:
        raise PermissionError("your role does not allow this page")
    except PermissionError:
        record = logging.LogRecord(
            "django.request", logging.WARNING, __file__, 1, "Forbidden: /policy/", (),
            sys.exc_info(),
        )  # fmt: skip
    record.status_code = status
    return record


def test_a_403_is_logged_without_its_traceback() -> None:
    record = _record(403)

    assert ClientErrorsWithoutTraceback().filter(record)
    assert record.exc_info is None
    assert "Traceback" not in logging.Formatter().format(record)


def test_a_500_keeps_its_traceback() -> None:
    record = _record(500)

    ClientErrorsWithoutTraceback().filter(record)

    assert "Traceback" in logging.Formatter().format(record)
