"""The audit log on the REST API."""
