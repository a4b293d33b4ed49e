"""The scheduler's console pages (one module per page family)."""
