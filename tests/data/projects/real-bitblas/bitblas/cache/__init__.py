# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .operator import (
    global_operator_cache,  # noqa: F401
    load_global_ops_cache,  # noqa: F401
    get_database_path,  # noqa: F401
    set_database_path,  # noqa: F401
    OperatorCache,  # noqa: F401
)
