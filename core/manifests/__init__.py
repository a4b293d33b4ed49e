"""Manifests of the v1 kinds (YAML/JSON ⇄ models), one module per kind."""
