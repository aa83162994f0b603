# Copyright (c) 2025-2026, Tri Dao.

"""Spec-layer helpers for TensorSpec, TMA descriptors, and TMEM layouts."""
