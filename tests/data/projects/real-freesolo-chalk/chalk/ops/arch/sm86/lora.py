"""lora@sm86 — chalk autoresearch kernel (one file per layer, per arch).

Cell: lora@sm86
Entry: lora_delta_fn(x, lora_a, lora_b, scaling) -> delta   (direction: fwd+bwd)
Oracle: chalk.ops.lora._eager_lora_delta   tol fwd_rel=0.02/bwd_rel=0.02 @ fp32
Baseline to beat: eager   target speedup: up to 2.0x

STATUS: ADOPTED — verified on a real sm86 GPU: 1.612x vs eager (fwd+bwd),
roofline_fraction=0.307, all gates green, no cheat flags. Selected by production dispatch
(``TUNED = True``); ``chalk.ops.lora.load_lora`` routes through ``load_entry("lora", ...)`` and
guards it with the live-GPU delta self-test, so this file only runs when it matches the fp32
oracle. ``build()`` returns the entry callable ``lora_delta_fn(x, A, B, scaling) -> delta``.

The win folds ``scaling`` into the small [r,K] A factor (never scaling the big [tok,N] output in
either direction) and keeps t=x@(sA)^T saved from the forward so the backward has no recompute.
Math is a custom autograd.Function (three cuBLAS GEMMs fwd, four bwd); ``scaling`` is a scalar so
its grad is None. The production caller (install_fused_lora_delta) always feeds a 2D [tok,K]
activation (it flattens leading dims) and adds the base output OUTSIDE this kernel.
"""

import torch

TUNED = True
SPEEDUP = 1.612


def build():
    class LoRA(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, A, B, scaling):
            s = float(scaling)
            As = A * s  # [r,K] small; folds scaling
            hs = torch.mm(x, As.transpose(0, 1))  # [M,r] = s*(x@A^T)
            delta = torch.mm(hs, B.transpose(0, 1))  # [M,N]
            ctx.save_for_backward(x, As, B, hs)
            ctx.s = s
            return delta

        @staticmethod
        def backward(ctx, g):
            # None upstream grad (delta unused) -> no grads flow.
            if g is None:
                return None, None, None, None
            x, As, B, hs = ctx.saved_tensors
            s = ctx.s
            dh = torch.mm(g, B)  # [M,r] = g@B (unscaled)
            dx = torch.mm(dh, As)  # [M,K] = s*(g@B)@A
            dA = torch.mm(dh.transpose(0, 1), x)  # [r,K] = (g@B)^T@x
            dA.mul_(s)  # small
            dB = torch.mm(g.transpose(0, 1), hs)  # [N,r] = s*(g^T@h)
            return dx, dA, dB, None  # scaling is a scalar -> None

    def lora_delta_fn(x, lora_a, lora_b, scaling):
        return LoRA.apply(x, lora_a, lora_b, scaling)

    return lora_delta_fn
