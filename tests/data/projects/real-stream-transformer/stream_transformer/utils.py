"""
stream_transformer/utils.py – Memory Profiling & GPU Telemetry
Author: Ranveer Kumar (Independent AI Researcher)
"""

import os
import psutil
import torch
from typing import Dict

class MemoryProfiler:
    """
    Tracks and formats CPU System RAM and GPU VRAM telemetry.
    """
    @staticmethod
    def get_gpu_memory_mb(device: int = 0) -> Dict[str, float]:
        if not torch.cuda.is_available():
            return {"active_mb": 0.0, "peak_mb": 0.0, "total_mb": 0.0}
        return {
            "active_mb": torch.cuda.memory_allocated(device) / (1024 ** 2),
            "peak_mb": torch.cuda.max_memory_allocated(device) / (1024 ** 2),
            "total_mb": torch.cuda.get_device_properties(device).total_memory / (1024 ** 2)
        }

    @staticmethod
    def get_cpu_memory_gb() -> float:
        return psutil.Process().memory_info().rss / (1024 ** 3)

    @staticmethod
    def print_snapshot(label: str = "Snapshot", device: str = "cuda"):
        cpu_gb = MemoryProfiler.get_cpu_memory_gb()
        if device == "cuda" and torch.cuda.is_available():
            gpu = MemoryProfiler.get_gpu_memory_mb()
            print(f"[{label:20s}] CPU RAM: {cpu_gb:5.2f} GB | GPU Active: {gpu['active_mb']:7.2f} MB | GPU Peak: {gpu['peak_mb']:7.2f} MB")
        else:
            print(f"[{label:20s}] CPU RAM: {cpu_gb:5.2f} GB (Host Memory Arena)")
