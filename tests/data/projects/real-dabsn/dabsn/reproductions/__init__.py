"""Standalone paper-1 reproduction programs."""
