"""Low-memory recipes.

A preset is nothing but a set of TrainConfig overrides. `max_params` is the largest
base model the recipe was sized for; tests check each recipe against its own budget
using the same arithmetic as `bengo estimate`.
"""

PRESETS = {
    "cpu": {
        "vram": 0.0,
        "max_params": 0.5,
        "target": "no GPU: smoke tests and tiny models",
        "values": {"method": "lora", "device": "auto", "precision": "auto", "batch_size": 1,
                   "max_length": 256, "lora_rank": 8, "lora_alpha": 16,
                   "gradient_accumulation_steps": 8, "gradient_checkpointing": True},
    },
    "6gb": {
        "vram": 6.0,
        "max_params": 7.0,
        "target": "6 GB card: up to about 7B, 256 tokens",
        "values": {"method": "qlora", "batch_size": 1, "max_length": 256, "lora_rank": 8,
                   "lora_alpha": 16, "gradient_accumulation_steps": 16,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
    "8gb": {
        "vram": 8.0,
        "max_params": 8.0,
        "target": "8 GB card: up to about 8B, 512 tokens",
        "values": {"method": "qlora", "batch_size": 1, "max_length": 512, "lora_rank": 8,
                   "lora_alpha": 16, "gradient_accumulation_steps": 16,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
    "12gb": {
        "vram": 12.0,
        "max_params": 14.0,
        "target": "12 GB card: up to about 14B, 1k tokens",
        "values": {"method": "qlora", "batch_size": 1, "max_length": 1024, "lora_rank": 16,
                   "lora_alpha": 32, "gradient_accumulation_steps": 8,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
    "16gb": {
        "vram": 16.0,
        "max_params": 20.0,
        "target": "16 GB card: up to about 20B, 1k tokens",
        "values": {"method": "qlora", "batch_size": 2, "max_length": 1024, "lora_rank": 16,
                   "lora_alpha": 32, "gradient_accumulation_steps": 8,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
    "24gb": {
        "vram": 24.0,
        "max_params": 34.0,
        "target": "24 GB card: up to about 34B, 1k tokens",
        "values": {"method": "qlora", "batch_size": 1, "max_length": 1024, "lora_rank": 32,
                   "lora_alpha": 64, "gradient_accumulation_steps": 8,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
    "48gb": {
        "vram": 48.0,
        "max_params": 48.0,
        "target": "48 GB card: up to about 48B, 2k tokens",
        "values": {"method": "qlora", "batch_size": 1, "max_length": 2048, "lora_rank": 64,
                   "lora_alpha": 128, "gradient_accumulation_steps": 4,
                   "gradient_checkpointing": True, "optim": "paged_adamw_8bit"},
    },
}

NAMES = tuple(PRESETS)


def get(name):
    key = str(name).strip().lower()
    if key not in PRESETS:
        raise KeyError(key)
    return dict(PRESETS[key]["values"])


def recommend(vram_gb):
    """Largest recipe that fits the detected card; cpu when there is no GPU."""
    if not vram_gb:
        return "cpu"
    best = "6gb"
    for name, preset in PRESETS.items():
        if 0 < preset["vram"] <= vram_gb + 0.5:
            best = name
    return best


def summary(name):
    values = PRESETS[name]["values"]
    parts = [values["method"], f"len {values['max_length']}"]
    if values["method"] != "full":
        parts.append(f"rank {values['lora_rank']}")
    parts.append(f"batch {values['batch_size']}x{values['gradient_accumulation_steps']}")
    return ", ".join(parts)
