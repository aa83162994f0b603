"""Package for additional scripts in the whisper_lm_transformers library."""
