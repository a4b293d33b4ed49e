"""Kubernetes API behaviour shared by every resource of the REST API.

Objects rendered with kind/apiVersion/metadata, ``Status`` errors, JSON and YAML
bodies, merge and JSON patches, label and field selectors, limit/continue
paging and the change stream behind ``?watch=1``. The per-app ``api/``
packages describe their resources; this package does the rest the same way
for all of them.
"""
