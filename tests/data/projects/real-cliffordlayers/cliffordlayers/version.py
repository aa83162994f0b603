# Copyright (c) Microsoft Corporation.
# Licensed under the MIT license.

__version__ = "0.1.1"
