# SPDX-FileCopyrightText: 2022-present deepset GmbH <info@deepset.ai>
#
# SPDX-License-Identifier: Apache-2.0

from .protocol import ChatGenerator

__all__ = ["ChatGenerator"]
