from imaginairy.vendored.refiners.fluxion.adapters.adapter import Adapter

__all__ = ["Adapter"]
