# SPDX-FileCopyrightText: 2022-present deepset GmbH <info@deepset.ai>
#
# SPDX-License-Identifier: Apache-2.0

from haystack.tools.skills.skill_toolset import SkillToolset

__all__ = ["SkillToolset"]
