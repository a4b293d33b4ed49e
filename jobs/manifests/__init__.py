"""Manifests of the jobs app's kinds: batch.volcano.sh Job and bus.volcano.sh Command."""
