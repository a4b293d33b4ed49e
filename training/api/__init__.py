"""The training operator's kinds on the Kubernetes-style REST API (kubeflow.org/v1)."""
