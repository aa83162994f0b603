"""Runtime block streaming: meta-device model, hooks, prefetch ring, budget solver."""
