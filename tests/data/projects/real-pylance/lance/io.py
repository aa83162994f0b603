# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright The Lance Authors

"""I/O utilities for Lance datasets.

This module provides utilities for customizing how Lance datasets interact with
cloud storage.
"""
