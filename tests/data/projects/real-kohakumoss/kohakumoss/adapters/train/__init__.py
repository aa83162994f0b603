"""Adapter training state: the adapter set, per-step state, T-LoRA masks, norm deltas,
parameter groups, state-change scopes and the training-state metadata."""
