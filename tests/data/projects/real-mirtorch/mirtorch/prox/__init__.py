from .prox import (
    BoxConstraint,
    Conj,
    Const,
    L0Regularizer,
    L1Regularizer,
    L2Regularizer,
    Prox,
    SquaredL2Regularizer,
    Stack,
)

__all__ = [
    "BoxConstraint",
    "Conj",
    "Const",
    "L0Regularizer",
    "L1Regularizer",
    "L2Regularizer",
    "Prox",
    "SquaredL2Regularizer",
    "Stack",
]
