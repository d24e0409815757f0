"""normlab: measure and simulate how LLM agents read, follow, enforce and create group norms."""

__version__ = "0.1.0"
