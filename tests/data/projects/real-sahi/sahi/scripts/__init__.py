"""Command-line scripts for SAHI utilities."""
