import hydra_slayer

REGISTRY = hydra_slayer.Registry()
# Registry = REGISTRY.add


__all__ = ["REGISTRY"]
