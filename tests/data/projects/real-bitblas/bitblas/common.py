# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

import os

BITBLAS_DEFAULT_CACHE_PATH = os.path.expanduser("~/.cache/bitblas")

MAX_ERROR_MESSAGE_LENGTH = 500
