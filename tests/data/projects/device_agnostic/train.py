"""Already device-agnostic: the accelerator is chosen once, at run time."""

import torch
from torch import nn

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")


def step(model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    model = model.to(device)
    with torch.amp.autocast(device_type=device.type, dtype=torch.bfloat16):
        loss = model(batch.to(device)).float().pow(2).mean()
    loss.backward()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return loss
