# Copyright (c) 2026, Tri Dao.

"""Synchronization helpers for CuTe DSL kernels."""

from quack.sync.barrier import (
    GlobalSemaphore,
    Semaphore,
    release_add,
    release_store,
    wait_eq,
)

__all__ = ["Semaphore", "GlobalSemaphore", "wait_eq", "release_store", "release_add"]
