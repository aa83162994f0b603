"""Live observation: the telemetry sampler, process-level CPU-fallback detection, in-process op guard."""
