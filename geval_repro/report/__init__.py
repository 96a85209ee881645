"""TODO report."""
