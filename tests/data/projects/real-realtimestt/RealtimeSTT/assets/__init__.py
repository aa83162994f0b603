"""Package data assets used by RealtimeSTT."""
