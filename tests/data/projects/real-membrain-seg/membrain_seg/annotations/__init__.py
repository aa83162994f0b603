"""empty init."""

from .cli import cli  # noqa: F401
from .extract_patch_cli import extract_patches  # noqa: F401
from .merge_corrections_cli import merge_corrections  # noqa: F401
