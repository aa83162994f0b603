"""CLI module for SAM Annotator."""

# This module contains components for the command-line interface 