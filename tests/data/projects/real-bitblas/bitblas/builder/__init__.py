# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .lib_generator import LibraryGenerator  # noqa: F401
from .wrapper import TIRWrapper  # noqa: F401
