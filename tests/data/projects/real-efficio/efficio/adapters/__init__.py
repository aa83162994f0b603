"""Planned for a future release: adapters for the Hugging Face Trainer and PyTorch Lightning."""
