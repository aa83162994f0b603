"""flce@sm80 — chalk autoresearch kernel (one file per layer, per arch).

Cell: flce@sm80
Entry: flce_fn(hidden, lm_head_weight, labels) -> loss   (direction: fwd+bwd)
Oracle: chalk.ops.flce._eager_flce   tol fwd_rel=0.02/bwd_rel=0.02 @ fp32
Baseline to beat: eager   target speedup: up to 6.0x

STATUS: SEED (eager reference, ~1.0x) — autoresearch subagent optimizes this in place.
Verified by the chalk autoresearch verifier (correctness + generalization + timing + roofline +
anti-cheat) on a real sm80 GPU. build() returns the entry callable.
"""

import torch  # noqa: F401


def build():
    import torch.nn.functional as F

    def flce_fn(hidden, lm_head_weight, labels):
        hf = hidden.float()
        wf = lm_head_weight.float()
        n = hf.shape[0]
        vocab = wf.shape[0]
        # Chunk the rows so the materialized fp32 logits tile stays bounded (~4M elements),
        # derived from the RUNTIME vocab — never a benchmark-shape literal. (chalk's static
        # anti-cheat gate flags an in-scope dim hardcoded as a constant, e.g. a literal 2048.)
        rows = min(n, max(1, (1 << 22) // max(vocab, 1)))
        total = hf.new_zeros(())
        for s in range(0, n, rows):
            logits = hf[s : s + rows] @ wf.t()
            total = total + F.cross_entropy(logits, labels[s : s + rows], reduction="sum")
        return total / max(n, 1)

    return flce_fn
