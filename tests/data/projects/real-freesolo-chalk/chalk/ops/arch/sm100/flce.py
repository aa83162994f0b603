"""flce@sm100 — chalk autoresearch kernel (one file per layer, per arch).

Cell: flce@sm100
Entry: flce_fn(hidden, lm_head_weight, labels) -> loss   (direction: fwd+bwd)
Oracle: chalk.ops.flce._eager_flce   tol fwd_rel=0.02/bwd_rel=0.02 @ fp32
Baseline to beat: eager   target speedup: up to 6.0x

STATUS: NO WIN: autoresearch found no kernel beating eager fwd+bwd on sm100 (eager optimal here). Last: Kernel numerically correct (fwd_rel~1e-6, grad_hidden~2.5e-3, grad_weight~2.0e-3 vs fp32 oracle) but blocked by verifier's input-sensitivity cheat-probe: it perturbs lm_head_weight[0,0] (vocab item 0,
Verified by the chalk autoresearch verifier (correctness + generalization + timing + roofline +
anti-cheat) on a real sm100 GPU. build() returns the entry callable.
"""

import torch  # noqa: F401


def build():
    import torch.nn.functional as F

    def flce_fn(hidden, lm_head_weight, labels, chunk=2048):
        hf = hidden.float()
        wf = lm_head_weight.float()
        n = hf.shape[0]
        total = hf.new_zeros(())
        for s in range(0, n, chunk):
            logits = hf[s : s + chunk] @ wf.t()
            total = total + F.cross_entropy(logits, labels[s : s + chunk], reduction="sum")
        return total / max(n, 1)

    return flce_fn
