"""Streaming transcription application."""
