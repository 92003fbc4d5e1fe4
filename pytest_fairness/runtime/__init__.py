"""Runtime helpers shared by the layers: optional imports, progress, threads, stack."""
