from .backend import SimulStreamingASR, SimulStreamingOnlineProcessor

__all__ = [
    "SimulStreamingASR",
    "SimulStreamingOnlineProcessor",
]
