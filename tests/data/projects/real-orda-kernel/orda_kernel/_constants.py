from __future__ import annotations

# ── Kernel limits ────────────────────────────────────────────────────────────
DEFAULT_MAX_FUSED_SIZE = 65536 // 2
