"""Pure vocabulary every layer shares; imports nothing of ours.

Quantities, durations, bounded YAML, manifest errors, the wire form of fields, and the
Prometheus text format. The engine and the web side both build on it.
"""
