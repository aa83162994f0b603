"""Silero VAD adapter for the FunASR AutoModel pipeline."""
