"""lora@sm100 — chalk autoresearch kernel (one file per layer, per arch).

Cell: lora@sm100
Entry: lora_delta_fn(x, lora_a, lora_b, scaling) -> delta   (direction: fwd+bwd)
Oracle: chalk.ops.lora._eager_lora_delta   tol fwd_rel=0.02/bwd_rel=0.02 @ fp32
Baseline to beat: eager   target speedup: up to 2.0x

STATUS: ADOPTED — verified on a real sm100 GPU: 1.2559x vs eager (fwd+bwd), all gates green, no
cheat flags. Selected by production dispatch (``TUNED = True``); ``chalk.ops.lora.load_lora``
routes through ``load_entry("lora", ...)`` guarded by the live-GPU delta self-test, so this file
only runs when it matches the fp32 oracle. ``build()`` returns ``lora_delta_fn(x, A, B, scaling)``.

APPROACH: F.linear(u, W) == u @ W^T fused into ONE autograd node (native C++ backward), so the
whole op is 3 graph nodes vs eager's mm+t+mm+t+mul (5) — fewer nodes and fewer forward dispatches,
which is what matters in this launch/engine-bound regime. Being plain differentiable torch ops,
autograd handles non-contiguous inputs, degenerate (tok==0) shapes, correct dx/dA/dB, and None
upstream grads natively — the caller feeds a 2D [tok,K] activation and adds the base OUTSIDE this
kernel.
"""

import torch.nn.functional as F

TUNED = True
SPEEDUP = 1.2559


def build():
    def lora_delta_fn(x, lora_a, lora_b, scaling):
        # delta = scaling * ((x @ A^T) @ B^T)
        return F.linear(F.linear(x, lora_a), lora_b) * scaling

    return lora_delta_fn
