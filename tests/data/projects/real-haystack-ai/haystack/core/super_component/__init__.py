# SPDX-FileCopyrightText: 2022-present deepset GmbH <info@deepset.ai>
#
# SPDX-License-Identifier: Apache-2.0

from .super_component import SuperComponent, super_component

__all__ = ["SuperComponent", "super_component"]
