"""The scheduler app's resources on the REST API: nodes and the scheduler configuration."""
