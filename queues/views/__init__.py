"""The queue pages of the console (one module per page)."""
