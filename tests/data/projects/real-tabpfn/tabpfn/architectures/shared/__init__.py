#  Copyright (c) Prior Labs GmbH 2026.

"""Shared code between the different architectures."""
