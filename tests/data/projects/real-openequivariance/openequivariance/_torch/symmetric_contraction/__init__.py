from openequivariance._torch.symmetric_contraction.SymmetricContraction import (
    SymmetricContraction,
)

__all__ = ["SymmetricContraction"]
