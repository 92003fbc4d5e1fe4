"""Relations."""
