"""Optimiser algorithms and their registry: AdamW16, the 8-bit AdamW kernel, Muon, the
16-bit write-back rounding, `OPTIMIZERS` and the OPTIMIZER_KWARGS checks."""
