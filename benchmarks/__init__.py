"""Benchmark scripts: each measures one number an issue names (time, calls, tokens)."""
