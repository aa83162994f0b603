"""
stream_transformer/trainer.py – Layer-Wise Streaming Backpropagation & Training Engine
Decouples backward pass and optimizer states from VRAM using CPU boundary stashing.
Author: Ranveer Kumar (Independent AI Researcher)
"""

import os
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Callable, Dict, Any, List, Optional

class StreamTrainer:
    """
    Universal Layer-Streaming Training Engine.
    Executes layer-by-layer forward pass with CPU boundary stashing,
    reverse backward pass with on-the-fly recomputation, and in-place layer AdamW updates.
    """
    def __init__(
        self,
        resident_modules: nn.ModuleDict,
        layer_constructor: Callable[[], nn.Module],
        shard_dir: str = "train_shards",
        num_layers: int = 12,
        device: str = "cpu",
        lr: float = 6e-4,
        weight_decay: float = 0.1
    ):
        self.resident = resident_modules.to(device)
        self.layer_constructor = layer_constructor
        self.shard_dir = shard_dir
        self.num_layers = num_layers
        self.device = device or ('cuda' if torch.cuda.is_available() else 'cpu')
        self.lr = lr
        self.weight_decay = weight_decay
        os.makedirs(shard_dir, exist_ok=True)

        # Resident Optimizer for embeddings & heads
        self.resident_optimizer = torch.optim.AdamW(
            self.resident.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=weight_decay
        )

        # CPU-Staged Optimizer State Buffers (m and v per layer)
        self.layer_adam_states: Dict[int, Dict[str, Any]] = {}
        self._init_adam_states()

    def _init_adam_states(self):
        dummy_layer = self.layer_constructor()
        for l in range(self.num_layers):
            if l not in self.layer_adam_states:
                self.layer_adam_states[l] = {
                    'step': 0,
                    'exp_avg': {name: torch.zeros_like(p) for name, p in dummy_layer.named_parameters()},
                    'exp_avg_sq': {name: torch.zeros_like(p) for name, p in dummy_layer.named_parameters()},
                }

    def _adamw_step(self, block: nn.Module, layer_idx: int, beta1=0.9, beta2=0.95, eps=1e-8):
        state = self.layer_adam_states[layer_idx]
        state['step'] += 1
        step = state['step']
        bc1 = 1.0 - beta1 ** step
        bc2 = 1.0 - beta2 ** step

        with torch.no_grad():
            for name, param in block.named_parameters():
                if param.grad is None:
                    continue
                grad = param.grad
                if self.weight_decay != 0 and param.dim() >= 2:
                    param.data.mul_(1.0 - self.lr * self.weight_decay)

                m = state['exp_avg'][name].to(param.device)
                v = state['exp_avg_sq'][name].to(param.device)

                m.mul_(beta1).add_(grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                denom = (v.sqrt() / math.sqrt(bc2)).add_(eps)
                param.data.addcdiv_(m, denom, value=-self.lr / bc1)

                state['exp_avg'][name].copy_(m.cpu())
                state['exp_avg_sq'][name].copy_(v.cpu())
                del m, v

    def train_step(
        self,
        x: torch.Tensor,
        y: torch.Tensor,
        embed_fn: Callable[[torch.Tensor, nn.ModuleDict], torch.Tensor],
        head_fn: Callable[[torch.Tensor, nn.ModuleDict], torch.Tensor],
        loss_fn: Optional[Callable] = None
    ) -> float:
        """
        Executes one full streaming forward-backward pretraining step.
        Peak GPU VRAM is strictly O(1 layer).
        """
        self.resident_optimizer.zero_grad()
        cpu_stashes: List[torch.Tensor] = []

        # 1. Resident Embedding Forward
        h_0 = embed_fn(x, self.resident)
        curr_h = h_0

        # 2. Forward Streaming Pass with CPU Boundary Stashing
        for l in range(self.num_layers):
            cpu_stashes.append(curr_h.detach().cpu())
            shard_path = os.path.join(self.shard_dir, f"layer_{l}.pt")
            if not os.path.exists(shard_path):
                shard_path = os.path.join(self.shard_dir, f"train_layer_{l}.pt")
            state = torch.load(shard_path, map_location=self.device, weights_only=False)
            
            block = self.layer_constructor().to(self.device)
            block.load_state_dict(state)
            block.eval()

            with torch.no_grad():
                curr_h = block(curr_h)

            del block, state
            if self.device == 'cuda':
                torch.cuda.empty_cache()

        # 3. Resident Head Forward & Loss Computation
        h_final = curr_h.detach().requires_grad_(True)
        logits = head_fn(h_final, self.resident)

        if loss_fn is None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-1)
        else:
            loss = loss_fn(logits, y)
            
        loss_val = loss.item()
        loss.backward()
        delta_incoming = h_final.grad

        # 4. Reverse Backward Pass with On-the-Fly Recomputation
        for l in reversed(range(self.num_layers)):
            shard_path = os.path.join(self.shard_dir, f"layer_{l}.pt")
            if not os.path.exists(shard_path):
                shard_path = os.path.join(self.shard_dir, f"train_layer_{l}.pt")
            state = torch.load(shard_path, map_location=self.device, weights_only=False)
            
            block = self.layer_constructor().to(self.device)
            block.load_state_dict(state)
            block.train()

            h_in = cpu_stashes[l].to(self.device).requires_grad_(True)
            h_out = block(h_in)
            h_out.backward(delta_incoming)
            delta_incoming = h_in.grad.detach()

            # In-place AdamW step & persist updated weights to disk/RAM
            self._adamw_step(block, layer_idx=l)
            torch.save(block.state_dict(), shard_path)

            del block, state, h_in, h_out
            if self.device == 'cuda':
                torch.cuda.empty_cache()

        # 5. Backprop through resident embeddings
        h_0.backward(delta_incoming)
        self.resident_optimizer.step()

        return loss_val
