from rin_pytorch.rin_pytorch import GaussianDiffusion, RIN, Trainer
