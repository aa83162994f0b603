"""Core engine: batching, scheduling, and result reassembly. Torch-free."""

from embedx.engine.batching import make_batches, pack_count
from embedx.engine.engine import Engine
from embedx.engine.scheduling import Scheduler, Side, assign_sides

__all__ = ["Engine", "Scheduler", "Side", "assign_sides", "make_batches", "pack_count"]
