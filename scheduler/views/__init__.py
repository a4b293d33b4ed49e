"""The scheduler app's console pages, one module per page family (``nodes``, ``policy``)."""
