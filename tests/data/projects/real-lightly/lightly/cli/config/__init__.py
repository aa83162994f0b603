"""lightly.cli.config

The lightly.cli.config module holds default configs for the command-line
interface.
"""

# Copyright (c) 2020. Lightly AG and its affiliates.
# All Rights Reserved
