"""What the kubelet serves through the API: pod logs, metrics.k8s.io, injected faults."""
