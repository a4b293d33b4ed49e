"""The jobs app's resources on the Kubernetes-style REST API."""
