#
# Copyright 2026 HojoAI
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#

"""HOJO ASR: speech recognition with audio encoder, Conformer adapter, and causal LM."""

__version__ = "0.1.2"
from hojo_asr.hf_hub_loader import HuggingFaceResourceLoader, ModelAssets, load_model as load_model_assets
from hojo_asr.hojo_asr_model import HOJO_ASR
__all__ = ["HOJO_ASR", "__version__"]
__all__ = [
    "HOJO_ASR",
    "HuggingFaceResourceLoader",
    "ModelAssets",
    "load_model_assets",
    "__version__",
]
