"""
stream_transformer/sharder.py – Universal Checkpoint Sharding Tool
Decomposes standard monolithic PyTorch / Hugging Face model checkpoints into atomic layer shards.
Author: Ranveer Kumar (Independent AI Researcher)
"""

import os
import torch
import torch.nn as nn
from typing import Dict, Any, Optional, Union

class CheckpointSharder:
    """
    Shards monolithic transformer checkpoints into discrete layer state dictionaries.
    Supports both object instance methods and static helper methods.
    """
    def __init__(self, output_dir: str):
        self.output_dir = output_dir
        os.makedirs(output_dir, exist_ok=True)

    def save_resident(self, resident_modules: Union[nn.Module, Dict[str, Any]]) -> str:
        """Saves embeddings, final norms, and LM head to resident.pt."""
        state = resident_modules.state_dict() if hasattr(resident_modules, "state_dict") else resident_modules
        path = os.path.join(self.output_dir, "resident.pt")
        torch.save(state, path)
        return path

    def save_layer(self, layer_idx: int, layer_module: Union[nn.Module, Dict[str, Any]]) -> str:
        """Saves a single transformer layer block to layer_{i}.pt."""
        state = layer_module.state_dict() if hasattr(layer_module, "state_dict") else layer_module
        path = os.path.join(self.output_dir, f"layer_{layer_idx}.pt")
        torch.save(state, path)
        return path

    def load_layer(self, layer_idx: int, target_module: Optional[nn.Module] = None) -> Union[nn.Module, Dict[str, Any]]:
        """Loads layer_{i}.pt into an optional target module or returns state dict."""
        path = os.path.join(self.output_dir, f"layer_{layer_idx}.pt")
        state = torch.load(path, map_location="cpu", weights_only=False)
        if target_module is not None:
            target_module.load_state_dict(state)
            return target_module
        return state

    @staticmethod
    def shard_pytorch_model(
        model: nn.Module,
        output_dir: str,
        layer_list_attr: str = "transformer.h",
        save_resident: bool = True
    ) -> int:
        """
        Shards an in-memory PyTorch model into individual layer files.
        """
        os.makedirs(output_dir, exist_ok=True)
        state_dict = model.state_dict()
        return CheckpointSharder.shard_checkpoint_file_dict(state_dict, output_dir, layer_list_attr)

    @staticmethod
    def shard_checkpoint_file(
        checkpoint_path: str,
        output_dir: str,
        layer_prefix: str = "transformer.h."
    ) -> int:
        """
        Loads a .pt or .bin checkpoint and splits it into layer_{i}.pt shards.
        """
        os.makedirs(output_dir, exist_ok=True)
        print(f"[SHARDER] Loading checkpoint: {checkpoint_path}")
        checkpoint = torch.load(checkpoint_path, map_location="cpu", weights_only=False)
        state_dict = checkpoint.get("model", checkpoint)
        return CheckpointSharder.shard_checkpoint_file_dict(state_dict, output_dir, layer_prefix)

    @staticmethod
    def shard_checkpoint_file_dict(
        state_dict: Dict[str, Any],
        output_dir: str,
        layer_prefix: str = "transformer.h."
    ) -> int:
        os.makedirs(output_dir, exist_ok=True)
        cleaned_dict = {k.replace("module.", ""): v for k, v in state_dict.items()}

        # Identify layer indices
        layer_indices = set()
        for k in cleaned_dict.keys():
            if k.startswith(layer_prefix):
                parts = k[len(layer_prefix):].split(".")
                if parts[0].isdigit():
                    layer_indices.add(int(parts[0]))

        num_layers = len(layer_indices)
        print(f"[SHARDER] Found {num_layers} transformer blocks to shard...")

        for i in sorted(layer_indices):
            prefix = f"{layer_prefix}{i}."
            block_state = {
                k[len(prefix):]: v for k, v in cleaned_dict.items() if k.startswith(prefix)
            }
            shard_path = os.path.join(output_dir, f"layer_{i}.pt")
            torch.save(block_state, shard_path)

        # Save resident parameters (embeddings, norms, heads)
        resident_state = {
            k: v for k, v in cleaned_dict.items() if not k.startswith(layer_prefix)
        }
        torch.save(resident_state, os.path.join(output_dir, "resident.pt"))
        print(f"[SHARDER] Successfully created {num_layers} layer shards in '{output_dir}/'")
        return num_layers
