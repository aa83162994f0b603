from tabpfn_extensions.hurdle.hurdle import AutoHurdleRegressor

__all__ = ["AutoHurdleRegressor"]
