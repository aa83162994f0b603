"""Probes: the only code that reads the machine. Each returns a model section and never raises."""
