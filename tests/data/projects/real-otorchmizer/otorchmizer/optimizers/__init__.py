# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Nature-inspired optimizer families.

Import concrete optimizer classes from their family modules.

"""
