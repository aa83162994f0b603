"""
stream_transformer/prefetcher.py – CUDA Streams Non-Blocking DMA Double-Buffer Prefetcher
Overlaps GPU computation of Layer (i) with PCIe transfer of Layer (i+1) via dedicated CUDA streams.
Author: Ranveer Kumar (Independent AI Researcher)
"""

import os
import torch
import torch.nn as nn
from typing import Dict, Any, Callable, Optional, List

class AsyncLayerPrefetcher:
    """
    CUDA Streams Double-Buffering Prefetcher.
    Uses two distinct CUDA hardware streams to completely hide PCIe transfer latencies.
    """
    def __init__(
        self,
        shard_dir: str,
        layer_constructor: Callable[[], nn.Module],
        num_layers: int,
        device: str = "cuda"
    ):
        self.shard_dir = shard_dir
        self.layer_constructor = layer_constructor
        self.num_layers = num_layers
        self.device = torch.device(device)
        self.is_cuda = self.device.type == "cuda" and torch.cuda.is_available()

        # Two CUDA Streams for Double-Buffering
        self.compute_stream = torch.cuda.Stream(device=self.device) if self.is_cuda else None
        self.transfer_stream = torch.cuda.Stream(device=self.device) if self.is_cuda else None

        # Double-buffer pre-allocated layer instances on GPU
        self.buffer_slots = [
            self.layer_constructor().to(self.device).eval() if self.is_cuda else None,
            self.layer_constructor().to(self.device).eval() if self.is_cuda else None
        ]

        # In-memory pinned CPU weight cache for lightning-fast DMA transfers
        self.pinned_weights: Dict[int, Dict[str, torch.Tensor]] = {}
        self._load_and_pin_all()

    def _load_and_pin_all(self):
        """Pre-loads layer weights into page-locked (pinned) host RAM for instant PCIe DMA transfers."""
        for i in range(self.num_layers):
            shard_path = os.path.join(self.shard_dir, f"layer_{i}.pt")
            if os.path.exists(shard_path):
                state = torch.load(shard_path, map_location="cpu", weights_only=False)
                if self.is_cuda:
                    for k, v in state.items():
                        if isinstance(v, torch.Tensor) and not v.is_pinned():
                            state[k] = v.pin_memory()
                self.pinned_weights[i] = state

    def load_layer_to_slot(self, layer_idx: int, slot_idx: int):
        """Transfers layer weights to a specific GPU buffer slot via non-blocking DMA."""
        if not self.is_cuda:
            return

        state = self.pinned_weights.get(layer_idx)
        if state is None:
            shard_path = os.path.join(self.shard_dir, f"layer_{layer_idx}.pt")
            state = torch.load(shard_path, map_location="cpu", weights_only=False)

        with torch.cuda.stream(self.transfer_stream):
            gpu_state = {
                k: v.to(self.device, non_blocking=True) if isinstance(v, torch.Tensor) else v
                for k, v in state.items()
            }
            self.buffer_slots[slot_idx].load_state_dict(gpu_state)

    def get_layer(self, layer_idx: int) -> nn.Module:
        """Fallback synchronous layer fetch for CPU execution."""
        block = self.layer_constructor().to(self.device)
        state = self.pinned_weights.get(layer_idx)
        if state is None:
            shard_path = os.path.join(self.shard_dir, f"layer_{layer_idx}.pt")
            state = torch.load(shard_path, map_location=self.device, weights_only=False)
        block.load_state_dict(state)
        block.eval()
        return block
