from cvxpylayers.torch.cvxpylayer import (
    CvxpyLayer,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
