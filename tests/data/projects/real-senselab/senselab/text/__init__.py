"""This module contains implementations related to text processing."""
