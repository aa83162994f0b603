from .calculator import UPETCalculator


__all__ = ["UPETCalculator"]
