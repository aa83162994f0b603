# Copyright 2022-2024 MosaicML Streaming authors
# SPDX-License-Identifier: Apache-2.0

"""Dataset conversion for natively supported multimodal datasets."""
