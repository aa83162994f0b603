from imaginairy.vendored.refiners.fluxion.utils import load_from_safetensors, manual_seed, norm, pad, save_to_safetensors

__all__ = ["norm", "manual_seed", "save_to_safetensors", "load_from_safetensors", "pad"]
