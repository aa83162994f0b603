"""Legacy postprocessing implementations."""
