"""TODO registry."""
