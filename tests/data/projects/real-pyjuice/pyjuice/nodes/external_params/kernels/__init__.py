from .lowrank_forward import fw_lowrank
