"""
Copyright (c) 2022 Poutyne and all respective contributors.

Each contributor holds copyright over their respective contributions. The project versioning (Git)
records all such contribution source information.

This file is part of Poutyne.

Poutyne is free software: you can redistribute it and/or modify it under the terms of the GNU Lesser General Public
License as published by the Free Software Foundation, either version 3 of the License, or (at your option) any later
version.

Poutyne is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY; without even the implied warranty
of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the GNU Lesser General Public License for more details.

You should have received a copy of the GNU Lesser General Public License along with Poutyne. If not, see
<https://www.gnu.org/licenses/>.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version

# pylint: disable=wildcard-import
from .framework import *
from .layers import *
from .plotting import *
from .utils import *
from .warning_manager import *

try:
    __version__ = _pkg_version("poutyne")
except PackageNotFoundError:
    __version__ = "unknown"
