"""Command-line tools shipped with SCAO."""
