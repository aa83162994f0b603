# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright The Lance Authors
"""
Debug utilities for Lance.
"""

# re-export from the native module.
from .lance import format_fragment as format_fragment
from .lance import format_manifest as format_manifest
from .lance import format_schema as format_schema
from .lance import list_transactions as list_transactions
