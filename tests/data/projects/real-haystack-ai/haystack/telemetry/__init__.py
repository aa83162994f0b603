# SPDX-FileCopyrightText: 2022-present deepset GmbH <info@deepset.ai>
#
# SPDX-License-Identifier: Apache-2.0

# ruff: noqa: F401

from haystack.telemetry._telemetry import pipeline_running, tutorial_running
