# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .operator import BitblasOperatorBenchmarkBase  # noqa: F401
