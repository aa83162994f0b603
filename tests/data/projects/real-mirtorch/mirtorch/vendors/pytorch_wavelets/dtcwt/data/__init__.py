"""Bundled filter coefficients used by the vendored DTCWT implementation."""
