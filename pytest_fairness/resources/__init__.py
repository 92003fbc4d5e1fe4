"""Resources read from installed packages at run time."""
