from os import PathLike
from pathlib import Path
from typing import Union

PathOrStr = Union[Path, PathLike, str]
