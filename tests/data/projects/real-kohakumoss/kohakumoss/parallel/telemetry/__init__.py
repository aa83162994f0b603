"""Multi-device telemetry: step timing, kernel timelines and profiled windows, per-rank
reports, and the model-free multi-process self-tests."""
