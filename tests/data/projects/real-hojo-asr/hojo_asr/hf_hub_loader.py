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

"""Resolve and download HOJO ASR model assets from a local path or Hugging Face Hub."""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import torch
import torch.nn as nn
from huggingface_hub import snapshot_download

MERGED_WEIGHTS_FILENAME = "merged_full_model.safetensors"
CONFIG_FILENAME = "config.yaml"

_EMPTY_INIT_ACTIVE = False
_FAST_LOAD_PATCHED = False


@contextlib.contextmanager
def empty_weights_init() -> Iterator[None]:
    """Build modules without random weight initialization (for merged checkpoint load)."""
    global _EMPTY_INIT_ACTIVE
    _EMPTY_INIT_ACTIVE = True
    try:
        try:
            from accelerate import init_empty_weights
        except ImportError:
            logging.warning(
                "accelerate not installed; using torch.device('meta') for skeleton init"
            )
            with torch.device("meta"):
                yield
        else:
            with init_empty_weights():
                yield
    finally:
        _EMPTY_INIT_ACTIVE = False


def _patch_linear_reset_parameters() -> None:
    """Skip kaiming/normal init on Linear layers while ``empty_weights_init`` is active."""
    if getattr(nn.Linear, "_hojo_skip_reset_patched", False):
        return

    original_reset = nn.Linear.reset_parameters

    def reset_parameters(self: nn.Linear) -> None:
        if _EMPTY_INIT_ACTIVE:
            return
        return original_reset(self)

    nn.Linear.reset_parameters = reset_parameters  # type: ignore[method-assign]
    nn.Linear._hojo_skip_reset_patched = True


def _patch_pretrained_from_config() -> None:
    """Wrap ``PreTrainedModel._from_config`` so HF models skip random weight init."""
    from transformers.modeling_utils import PreTrainedModel

    if getattr(PreTrainedModel, "_hojo_fast_from_config_patched", False):
        return

    original_from_config = PreTrainedModel._from_config.__func__

    @classmethod
    def _from_config_fast(
        cls: type[PreTrainedModel],
        config: Any,
        **kwargs: Any,
    ) -> PreTrainedModel:
        with empty_weights_init():
            return original_from_config(cls, config, **kwargs)

    PreTrainedModel._from_config = _from_config_fast  # type: ignore[method-assign]
    PreTrainedModel._hojo_fast_from_config_patched = True


def enable_fast_checkpoint_loading() -> None:
    """Install patches used when weights come from ``merged_full_model.safetensors``.

    Safe to call multiple times. Activated automatically when this module is imported,
    and again at the start of :func:`load_model`.
    """
    global _FAST_LOAD_PATCHED
    if _FAST_LOAD_PATCHED:
        return
    _patch_linear_reset_parameters()
    _patch_pretrained_from_config()
    _FAST_LOAD_PATCHED = True
    logging.debug("HOJO fast checkpoint loading enabled (empty-weight skeleton init)")


def resolve_bundle_subpath(base_folder: str, subpath: str) -> str:
    """Join a bundle-relative subpath (from ``config.yaml``) to ``base_folder``."""
    subpath = (subpath or "").strip()
    if not subpath:
        return base_folder
    if os.path.isabs(subpath):
        return subpath
    return os.path.join(base_folder, subpath)


@dataclass(frozen=True)
class ModelAssets:
    """Resolved on-disk paths for a HOJO ASR model bundle."""

    base_folder: str
    config_path: str
    safetensors_path: str
    source: str  # "local" or "huggingface"


class HuggingFaceResourceLoader:
    """Download and locate HOJO ASR resources from Hugging Face Hub or local storage."""

    def __init__(
        self,
        *,
        cache_dir: Optional[str] = None,
        revision: Optional[str] = None,
        token: Optional[str] = None,
        local_files_only: bool = False,
    ) -> None:
        self.cache_dir = cache_dir
        self.revision = revision
        self.token = token
        self.local_files_only = local_files_only

    @staticmethod
    def is_local_directory(folder_path: str) -> bool:
        """Return True if ``folder_path`` points to an existing local directory."""
        path = os.path.expanduser(folder_path.strip())
        return os.path.isdir(path)

    @staticmethod
    def is_huggingface_repo_id(folder_path: str) -> bool:
        """Return True if ``folder_path`` should be treated as a Hub repo id."""
        return not HuggingFaceResourceLoader.is_local_directory(folder_path)

    @staticmethod
    def validate_bundle(base_folder: str) -> None:
        """Ensure required model files exist under ``base_folder``."""
        missing = []
        for name in (MERGED_WEIGHTS_FILENAME, CONFIG_FILENAME):
            if not os.path.isfile(os.path.join(base_folder, name)):
                missing.append(name)
        if missing:
            raise FileNotFoundError(
                f"Model bundle at {base_folder} is missing required file(s): "
                f"{', '.join(missing)}"
            )

    def download_repo(self, repo_id: str) -> str:
        """Download a Hugging Face repo snapshot and return the local directory."""
        logging.info("Downloading model from Hugging Face Hub: %s", repo_id)
        local_dir = snapshot_download(
            repo_id=repo_id,
            cache_dir=self.cache_dir,
            revision=self.revision,
            token=self.token,
            local_files_only=self.local_files_only,
        )
        self.validate_bundle(local_dir)
        logging.info("Model downloaded to %s", local_dir)
        return local_dir

    def resolve_directory(self, folder_path: str) -> tuple[str, str]:
        """Resolve ``folder_path`` to a local directory.

        Returns:
            ``(absolute_directory, source)`` where ``source`` is ``"local"`` or
            ``"huggingface"``.
        """
        path = os.path.expanduser(folder_path.strip())
        if os.path.isdir(path):
            local_dir = os.path.abspath(path)
            self.validate_bundle(local_dir)
            return local_dir, "local"

        if os.path.isfile(path):
            raise ValueError(f"Expected a model directory, got file: {path}")

        if os.path.isabs(path) or path.startswith((".", "./", "../")):
            raise FileNotFoundError(f"Local model directory not found: {path}")

        local_dir = os.path.abspath(self.download_repo(folder_path))
        return local_dir, "huggingface"

    def load_model_assets(self, folder_path: str) -> ModelAssets:
        """Resolve ``folder_path`` and return paths to config and weights."""
        enable_fast_checkpoint_loading()
        base_folder, source = self.resolve_directory(folder_path)
        return ModelAssets(
            base_folder=base_folder,
            config_path=os.path.join(base_folder, CONFIG_FILENAME),
            safetensors_path=os.path.join(base_folder, MERGED_WEIGHTS_FILENAME),
            source=source,
        )


def load_model(
    folder_path: str,
    *,
    cache_dir: Optional[str] = None,
    revision: Optional[str] = None,
    token: Optional[str] = None,
    local_files_only: bool = False,
) -> ModelAssets:
    """Load HOJO ASR model assets from a local folder or Hugging Face repo id.

    Also enables fast skeleton initialization so ``HOJO_ASR.__init__`` does not
    randomly initialize billions of parameters before ``merged_full_model.safetensors``
    is applied.

    Args:
        folder_path: Absolute/relative local directory, or Hub repo id
            (e.g. ``"org/model-name"``).
        cache_dir: Optional Hugging Face cache directory.
        revision: Optional Hub revision (branch, tag, or commit).
        token: Optional Hugging Face API token.
        local_files_only: If True, only use cached Hub files (no network).

    Returns:
        :class:`ModelAssets` with resolved ``base_folder``, ``config_path``, and
        ``safetensors_path``.
    """
    enable_fast_checkpoint_loading()
    loader = HuggingFaceResourceLoader(
        cache_dir=cache_dir,
        revision=revision,
        token=token,
        local_files_only=local_files_only,
    )
    return loader.load_model_assets(folder_path)


# ``hojo_asr_model`` imports this module before constructing ``HOJO_ASR``.
enable_fast_checkpoint_loading()