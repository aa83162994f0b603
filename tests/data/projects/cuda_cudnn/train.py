"""A training script written for one NVIDIA box."""

import torch
import torch.distributed as dist
from torch import nn

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False


def main() -> None:
    dist.init_process_group(backend="nccl")
    model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10)).cuda()
    scaler = torch.cuda.amp.GradScaler()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        images = torch.randn(32, 3, 32, 32).to("cuda")
        labels = torch.randint(0, 10, (32,), device="cuda:0")
        with torch.cuda.amp.autocast():
            loss = nn.functional.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch.cuda.synchronize()
    print(torch.cuda.max_memory_allocated() / 2**30, "GiB")


if __name__ == "__main__":
    main()
