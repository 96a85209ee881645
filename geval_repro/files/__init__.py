"""TODO files."""
