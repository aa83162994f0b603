# Copyright © 2023-2024 Apple Inc.

# This module defines classes and functions internal to pfl.
# This is not considered a part of the pfl public API.
from .selector import get_platform
