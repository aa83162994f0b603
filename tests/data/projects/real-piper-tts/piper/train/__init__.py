"""Training code for Piper 1."""
