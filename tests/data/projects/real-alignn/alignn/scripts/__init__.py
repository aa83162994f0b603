"""Modules for HT jobs."""
