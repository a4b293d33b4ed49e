"""Pure vocabulary every layer shares; imports nothing of ours.

Quantities, durations, bounded YAML, manifest errors, the wire form of fields, the
Prometheus text format and Volcano's histogram buckets. The engine and the web side both build on it.
"""
