"""The OptimBundle: the plain bundle (`base`), the fused per-parameter bundle, its build
from knobs, schedule mirrors, the non-finite report and skipped updates."""
