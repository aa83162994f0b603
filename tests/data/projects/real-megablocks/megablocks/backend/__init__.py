# Copyright 2024 Databricks
# SPDX-License-Identifier: Apache-2.0
