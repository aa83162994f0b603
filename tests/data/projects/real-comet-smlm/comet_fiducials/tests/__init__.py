"""Tests for :mod:`comet_fiducials`."""
