"""Optimiser and gradient offload engines: host and GPU AdamW over fp32 masters, the
streamed-block AdamW, the in-backward fused step, gradient offload and host
accumulation."""
