import os
import typing as ty

#: Type for path to a file.
FilePath = ty.Union[str, os.PathLike]
