from . import backend, kernel_ridge, lasso, progress_bar, ridge, scoring, utils, viz

__version__ = "0.4.11"

__all__ = [
    backend,
    kernel_ridge,
    lasso,
    ridge,
    progress_bar,
    scoring,
    utils,
    viz,
]
