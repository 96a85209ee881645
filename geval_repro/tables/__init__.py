"""TODO tables."""
