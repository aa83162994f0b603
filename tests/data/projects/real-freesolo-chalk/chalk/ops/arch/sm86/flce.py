"""flce@sm86 — chalk autoresearch kernel (one file per layer, per arch).

Cell: flce@sm86
Entry: flce_fn(hidden, lm_head_weight, labels) -> loss   (direction: fwd+bwd)
Oracle: chalk.ops.flce._eager_flce   tol fwd_rel=0.02/bwd_rel=0.02 @ fp32
Baseline to beat: eager   target speedup: up to 6.0x

STATUS: NO WIN: autoresearch found no kernel beating eager fwd+bwd on sm86 (eager optimal here). Last: Correct kernel (sandbox+correctness green: fwd_rel 1.5e-7, bwd_rel 3.3e-3, oracle-relative sensitivity ok); fails only gen OOM on one oversized fuzz shape (12864x4026x351693) where the verifier's own
Verified by the chalk autoresearch verifier (correctness + generalization + timing + roofline +
anti-cheat) on a real sm86 GPU. build() returns the entry callable.
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
