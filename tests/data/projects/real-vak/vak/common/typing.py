import pathlib
from typing import Union

PathLike = Union[str, pathlib.Path]
