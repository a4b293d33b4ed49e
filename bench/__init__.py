"""Benchmarks (not part of make test): ``python bench/engine.py --set S-yk``."""
