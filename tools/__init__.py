"""Scripts that keep the repository's generated files current (``python -m tools.NAME``)."""
