"""The v1 kinds on the Kubernetes-style REST API: pods, nodes, namespaces, events, secrets,
priority classes."""
