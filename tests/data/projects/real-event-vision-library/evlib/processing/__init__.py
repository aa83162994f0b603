"""Processing module."""
