# SPDX-FileCopyrightText: The Docling Contributors
# SPDX-License-Identifier: MIT

"""Shared inference-engine utilities."""

from docling.models.inference_engines.common.hf_vision_base import HfVisionModelMixin
from docling.models.inference_engines.common.kserve_v2_client_base import KserveV2Client
from docling.models.inference_engines.common.kserve_v2_http import KserveV2HttpClient

__all__ = ["HfVisionModelMixin", "KserveV2Client", "KserveV2HttpClient"]
