"""The :mod:`vak.common` module contains helper or utility functions
that are used in multiple other modules, e.g., validators
or logging functions.

If a helper/utility function is only used in one module,
it should live either in that module or another at the same level.
See for example :mod:`vak.prep.prep_helper` or
:mod:`vak.datsets.train_datapipe._helper`.
"""

from . import (
    accelerator,
    annotation,
    constants,
    converters,
    files,
    labels,
    learncurve,
    logging,
    paths,
    tensorboard,
    timebins,
    timenow,
    typing,
    validators,
)

__all__ = [
    "annotation",
    "constants",
    "converters",
    "accelerator",
    "files",
    "labels",
    "learncurve",
    "logging",
    "paths",
    "tensorboard",
    "timebins",
    "timenow",
    "typing",
    "validators",
]
