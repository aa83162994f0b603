"""Tasks for audio processing."""
