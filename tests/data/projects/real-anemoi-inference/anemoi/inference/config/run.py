# (C) Copyright 2024-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

from __future__ import annotations

import datetime
import logging
import os
from pathlib import Path
from typing import Any
from typing import Literal

import yaml
from pydantic import Field
from pydantic import FilePath
from pydantic import field_validator

from anemoi.inference.types import ProcessorConfig

from . import Configuration

LOG = logging.getLogger(__name__)


class RunConfiguration(Configuration):
    """Configuration class for a default runner."""

    description: str | None = None

    checkpoint: str | dict[Literal["huggingface"], dict[str, Any] | str]
    """A path to an Anemoi checkpoint file."""

    runner: str | dict[str, Any] = "auto"
    """The runner to use. For runners that take extra options, they can be passed here in dictionary format with the runner name as the top level dictionary key. For example, if using `parallel`, the `cluster` option can be set here."""

    lead_time: str | int | datetime.timedelta = "10d"
    """The lead time for the forecast. This can be a string, an integer or a timedelta object.
    If an integer, it represents a number of hours. Otherwise, it is parsed by :func:`anemoi.utils.dates.as_timedelta`.
    """

    name: str | None = None
    """Used by prepml."""

    verbosity: int = 0
    """The verbosity level of the runner. This can be 0 (default), 1, 2 or 3."""

    use_profiler: bool = False
    """If True, the inference will be profiled, producing time and memory report."""

    input: str | dict[str, Any] = "test"
    output: str | dict[str, Any] = "printer"

    pre_processors: list[ProcessorConfig] = []
    mid_processors: list[ProcessorConfig] = []
    post_processors: list[ProcessorConfig] = []

    dynamic_forcings: str | dict[str, Any] | None = None
    """Where to find the dinamic forcings. (default is input)"""

    constant_forcings: str | dict[str, Any] | None = None
    """Where to find the constant forcings (default to input)."""

    device: str | None = None
    """
    The device on which the model should run. This can be "cpu", "cuda" or any other value supported by PyTorch.
    If None, the device will be automatically detected using :func:`anemoi.inference.device.get_available_device`.
    """

    precision: str | None = None
    """The precision in which the model should run. If not provided, the model will use the precision used during training."""

    seed: int | None = Field(default=None, validate_default=True)
    """Seed value to pass to `torch.manual_seed()` before running the model.
    If not provided, will rely on the default random seed behavior of PyTorch.
    Seed can optionally be passed via environment variable `ANEMOI_BASE_SEED`.
    The config entry takes precedence over the environment variable.
    """

    allow_nans: bool | None = None
    """
    - If None (default), the model will check for NaNs in the input. If NaNs are found, the model issue a warning and `allow_nans` to True.
    - If False, the model will raise an exception if NaNs are found in the input and output.
    - If True, the model will allow NaNs in the input and output.
    """

    use_grib_paramid: bool = False
    """If True, the runner will use the grib parameter ID when generating MARS requests."""

    write_initial_state: bool = True
    """Wether to write the initial state to the output file. If the model is multi-step, only fields at the forecast reference date are
    written.
    """

    initial_state_categories: list[str] = ["prognostics", "constant_forcings"]
    """A list of categories to use when writing step zero."""

    predict_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments to pass to the model's predict_step method. Will ignore kwargs that are already passed by the runner."""

    typed_variables: dict[str, dict] = Field(default_factory=dict)
    """A list of typed variables to support the encoding of outputs."""

    output_frequency: str | None = None
    """The frequency at which to write the output. This can be a string or an integer. If a string, it is parsed by :func:`anemoi.utils.dates.as_timedelta`."""

    check_variables_compatibility: dict | None = None
    """Control how to check the compatibility between variables (checkpoint vs inputs)."""

    env: dict[str, str | int] = {}
    """Environment variables to set before running the model. This may be useful to control some packages
    such as `eccodes`. In certain cases, the variables mey be set too late, if the package for which they are intended
    is already loaded when the runner is configured.
    """

    patch_metadata: dict[str, Any] | FilePath = {}
    """A dictionary of metadata to patch the checkpoint metadata with, or a path to a YAML file containing the metadata.
    This is used to test new features or to work around issues with the checkpoint metadata.
    """

    development_hacks: dict[str, Any] = {}
    """A dictionary of development hacks to apply to the runner. This is used to test new features or to work around."""

    trace_path: dict | str | None = None
    """A path to a file where to store the trace of the runner. This is useful to debug the runner."""

    debugging_info: dict[str, Any] = {}
    """A dictionary to store debug information. This is ignored."""

    preload_checkpoint: bool = False
    """Whether to read the checkpoint file from disk before loading the model."""

    preload_buffer_size: int = 32 * 1024 * 1024
    """Size of the buffer to use when preloading the checkpoint file, in bytes. Default is 32 MB."""

    @field_validator("patch_metadata", mode="after")
    @classmethod
    def as_dict(cls, patch_metadata: dict | FilePath) -> dict:
        if isinstance(patch_metadata, Path):
            with open(patch_metadata, "r") as f:
                patch_metadata = yaml.safe_load(f)
        return patch_metadata

    @field_validator("seed", mode="after")
    @classmethod
    def seed_from_env_var(cls, seed: int | None) -> int | None:
        """The config entry takes precedence over the environment variable."""

        env_seed = os.getenv("ANEMOI_BASE_SEED")

        if env_seed is None:
            return seed

        if seed is None:
            LOG.info(f"Using seed from environment variable ANEMOI_BASE_SEED={env_seed}")
            return int(env_seed)

        LOG.warning(
            f"Found config seed={seed} and environment variable ANEMOI_BASE_SEED={env_seed}. Using config seed."
        )

        return seed
