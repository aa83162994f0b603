# Copyright © 2023-2024 Apple Inc.

# This module defines Classes and functions internal to pfl.
# This is not considered a part of the pfl public API.
