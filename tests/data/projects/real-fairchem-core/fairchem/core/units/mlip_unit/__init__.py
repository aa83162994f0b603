"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the LICENSE
file in the root directory of this source tree.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import torch

from fairchem.core.units.mlip_unit.api.inference import (
    InferenceSettings,
    guess_inference_settings,
)
from fairchem.core.units.mlip_unit.predict import MLIPPredictUnit

if TYPE_CHECKING:
    from pathlib import Path


def load_predict_unit(
    path: str | Path,
    inference_settings: InferenceSettings | str = "default",
    overrides: dict | None = None,
    device: Literal["cuda", "cpu"] | None = None,
    atom_refs: dict | None = None,
    form_elem_refs: dict | None = None,
    workers: int = 1,
    seed: int = 41,
    gp_config=None,
) -> MLIPPredictUnit:
    """Load a MLIPPredictUnit from a checkpoint file.

    Args:
        path: Path to the checkpoint file
        inference_settings: Settings for inference. "default" (the same as "nitro") runs
            UMA Nitro for uma-s-1p2p1 on CUDA capability 8.x-12.x and "multigpu"
            otherwise. "multigpu" is a reduced-precision mode (merge_mole + compile with
            TF32 matrix multiplies on CUDA); "high-precision" uses merge_mole + compile
            in full FP32. Both fall back automatically if their fixed-input contract is
            broken. "batch" keeps MOLE unmerged for heterogeneous inputs. More advanced
            use cases can use a custom InferenceSettings object.
        overrides: Optional dictionary of settings to override default inference settings.
        device: Optional torch device to load the model onto.
        atom_refs: Optional dictionary of isolated atom reference energies.
        form_elem_refs: Optional dictionary of element reference energies for formation energy calculations.
        workers: Number of parallel workers for prediction unit. Default is 1. If greater than 1,
            we will instantiate a ParallelMLIPPredictUnit instead of the normal predict unit.
        seed: Optional random seed for reproducibility. If provided, will set the random seed for
            Python's random module, NumPy, and PyTorch to ensure reproducible predictions.

    Returns:
        A MLIPPredictUnit instance ready for inference
    """

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
        logging.warning(f"device was not explicitly set, using {device=}.")

    inference_settings = guess_inference_settings(inference_settings)
    if workers > 1:
        from fairchem.core.units.mlip_unit.predict import ParallelMLIPPredictUnit

        return ParallelMLIPPredictUnit(
            path,
            device=device,
            inference_settings=inference_settings,
            overrides=overrides,
            atom_refs=atom_refs,
            form_elem_refs=form_elem_refs,
            num_workers=workers,
            seed=seed,
            gp_config=gp_config,
        )
    else:
        return MLIPPredictUnit(
            path,
            device=device,
            inference_settings=inference_settings,
            overrides=overrides,
            atom_refs=atom_refs,
            form_elem_refs=form_elem_refs,
            seed=seed,
        )
