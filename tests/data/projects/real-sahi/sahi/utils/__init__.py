"""Utilities for SAHI object detection and image processing."""
