"""The scheduler configuration on the REST API (scheduler.volcano.sh/v1alpha1)."""
