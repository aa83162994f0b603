# (C) Copyright 2025-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.


import logging
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from anemoi.inference.context import Context
from anemoi.inference.input import Input
from anemoi.inference.inputs import create_input
from anemoi.inference.inputs import input_registry
from anemoi.inference.metadata import Metadata
from anemoi.inference.post_processors.earthkit_state import unwrap_state
from anemoi.inference.post_processors.earthkit_state import wrap_state
from anemoi.inference.types import Date
from anemoi.inference.types import State

LOG = logging.getLogger(__name__)


def _mask_and_combine_states(
    existing_state: State,
    new_state: State,
    mask: np.ndarray | slice,
    fields: Iterable[str],
) -> State:
    """Mask and combine two states.

    Existing can be None, in which case new_state masked is returned.

    Parameters
    ----------
    existing_state : State
        The state to be combined into.
    new_state : State
        The other state to combine.
    mask : np.ndarray
        The mask to apply to new_state.
    fields: Iterable[str]
        The fields to combine in the states.

    Returns
    -------
    State
        The combined state
    """
    was_empty = existing_state == {}

    for field in fields:
        if was_empty:
            existing_state[field] = new_state[field][..., mask]
        else:
            existing_state[field] = np.concatenate(
                [existing_state[field], new_state[field][..., mask]],
                axis=-1,
            )

    return existing_state


def _realise_mask(sli: slice | np.ndarray, state: dict) -> np.ndarray:
    """Realise a slice or array into an bool array based on the state shape."""
    return np.ones(len(state["latitudes"]), dtype=bool)[sli]


def _extract_and_add_private_attributes(
    private_attributes: defaultdict[str, dict], state: State, name: str
) -> defaultdict[str, dict]:
    """Extract and add private attributes to the state.

    Will nest the attributes under the name provided, maintaining the original key.

    Parameters
    ----------
    private_attributes : defaultdict[str, dict]
        The dictionary to contain private attributes.
    state : State
        The state to which the attributes will be retrieved.
    name : str
        The name of the sub-state to record the attributes under.

    Returns
    -------
    defaultdict[str, dict]
        The updated private attributes dictionary.
    """

    for key in (k for k in state.keys() if k.startswith("_")):
        private_attributes[key][name] = state[key]
    return private_attributes


class BlockedContext:
    def __init__(self, context: "Context", blocked_attributes: set[str]):
        self.context = context
        self.blocked_attributes = blocked_attributes

    def __getattr__(self, name: str) -> Any:
        if name in self.blocked_attributes:
            raise AttributeError(f"Access to attribute '{name}' is blocked.")
        return getattr(self.context, name)


@input_registry.register("cutout")
class Cutout(Input):
    """Combines one or more LAMs into a global source using cutouts."""

    def __init__(
        self,
        context: Context,
        metadata: Metadata,
        *args: dict[str, dict],
        sources: list[dict[str, dict]] | None = None,
        **kwargs,
    ):
        """Create a cutout input from a list of sources.

        Parameters
        ----------
        context : Context
            The context runner.
        metadata : Metadata
            Metadata corresponding to the dataset this input is handling.
        sources : list[dict[str, dict]]
            List of sources / inputs to combine, the order defines the order in which they are combined.
        """
        if any(x in kwargs for x in ["lam_0", "global"]):  # Capture common update issues
            raise KeyError(
                "Cutout input has changed to set the sub-inputs as a list, if using the config, prefix each input with `-` to update."
            )

        super().__init__(context, metadata, **kwargs)

        if not sources:
            sources = []
        sources = [*args, *sources]

        self.sources: dict[str, Input] = {}
        self.masks: dict[str, np.ndarray | slice] = {}

        input_context = BlockedContext(context, blocked_attributes={"pre_processors"})
        # Inputs look back at the context to apply it's pre-processors,
        # rather than the runner doing it. If they were to do so, the processors would be applied twice
        # TODO: Fix that interaction and remove this blocked context

        for inp in sources:
            if not isinstance(inp, dict) or len(inp) != 1:
                raise ValueError("Each source in cutout inputs must be a dict with a single key-value pair.")
            src, cfg = next(iter(inp.items()))

            if isinstance(cfg, str):
                mask = f"{src}/cutout_mask"
            else:
                cfg = cfg.copy()
                mask = cfg.pop("mask", f"{src}/cutout_mask")

            self.sources[src] = create_input(
                input_context, cfg, self.metadata, variables=self.variables, purpose=self.purpose  # type: ignore[reportArgumentType]
            )

            if isinstance(mask, str):
                self.masks[src] = self.sources[src].metadata.load_supporting_array(mask)
            else:
                self.masks[src] = mask if mask is not None else slice(0, None)  # type: ignore

    def __repr__(self):
        """Return a string representation of the Cutout object."""
        return f"Cutout({self.sources})"

    def pre_process(self, x: State) -> State:
        """Pre-process the input state after it has been combined from the sources.

        Exists as an override to the `pre_process` method of the parent `Input` class,
        as this class operates on the state objects aggregated from multiple sources,
        which need to be wrapped and unwrapped appropriately to maintain the structure expected by the parent class.

        In order for coordinates to be correct, this must be called after the state has been combined from the sources.

        Parameters
        ----------
        x : State
            The input state to be pre-processed.

        Returns
        -------
        State
            The pre-processed input state.
        """

        field_state = x.copy()
        field_state["fields"] = wrap_state(field_state, self.metadata.typed_variables)

        processed_state = super().pre_process(field_state)

        processed_state["fields"] = unwrap_state(
            processed_state["fields"], processed_state, namer=self.metadata.default_namer(), flatten=False
        )["fields"]

        return processed_state

    def create_input_state(self, *, dates: list[Date], **kwargs) -> State:
        """Create the input state for the given date.

        Parameters
        ----------
        dates : list[Date]
            The dates for which to create the input state.
        **kwargs : dict
            Additional keyword arguments for the source input state creation.

        Returns
        -------
        State
            The created input state.
        """

        LOG.info(f"Concatenating states from {self.sources}")

        _mask_private_attributes = {}
        _private_attributes = defaultdict(dict)

        combined_state = {}

        for i, source in enumerate(self.sources.keys()):
            source_mask = self.masks[source]

            source_state = self.sources[source].create_input_state(dates=dates, **kwargs)

            field_shape = next(iter(source_state["fields"].values())).shape[-1]

            # In the case of a mismatch between latitudes and field points, attempt to load coordinates from supporting arrays
            # Detect if the number of latitudes does not match the number of field points
            # This can occur when `ekd.py` fails over to read the coords from the metadata, which at times is wrong,
            # so we attempt to load the correct coordinates from the supporting arrays.
            if "latitudes" not in source_state or source_state["latitudes"].shape[-1] != field_shape:
                LOG.warning(
                    "Mismatch between latitudes and field points for source %s: %s vs %s",
                    source,
                    source_state["latitudes"].shape[-1] if "latitudes" in source_state else None,
                    field_shape,
                )
                LOG.warning(
                    "Loading coordinates from supporting arrays  %s and %s",
                    f"source{i}/latitudes",
                    f"source{i}/longitudes",
                )
                latitudes = self.metadata.load_supporting_array(f"source{i}/latitudes")
                longitudes = self.metadata.load_supporting_array(f"source{i}/longitudes")

                source_state["latitudes"] = latitudes
                source_state["longitudes"] = longitudes

                # this fallback for getting coordinates is index-based and therefore sensitive to
                # the order of the sources in the configuration
                assert field_shape == latitudes.shape[-1], (
                    "Expected source mask shape to match coordinates shape. "
                    f"Got mask of shape {field_shape} and latitudes of shape {latitudes.shape[-1]}. "
                    "Check that the cutout sources are in the correct order."
                )

            # Create the mask front padded with zeros
            # to match the length of the combined state
            _realised_mask = _realise_mask(source_mask, source_state)
            current_length = len(combined_state.get("latitudes", []))

            _mask_private_attributes[source] = np.concatenate(
                (
                    np.zeros((current_length,), dtype=bool),
                    _realised_mask,
                ),
                axis=-1,
            )
            # Combine the private attributes
            _private_attributes = _extract_and_add_private_attributes(_private_attributes, source_state, source)

            combined_state = _mask_and_combine_states(
                combined_state, source_state, source_mask, ["longitudes", "latitudes"]
            )
            combined_state["fields"] = _mask_and_combine_states(
                combined_state.get("fields", {}), source_state["fields"], source_mask, source_state["fields"].keys()
            )

            for key in (k for k in source_state.keys() if not k.startswith("_")):
                combined_state.setdefault(key, source_state[key])

        # Pad the masks to the total length of the combined state
        # then add them to the private attributes
        total_length = len(combined_state["latitudes"])
        for sub_mask in _mask_private_attributes:
            mask = _mask_private_attributes[sub_mask]
            _mask_private_attributes[sub_mask] = np.pad(mask, (0, total_length - len(mask)), constant_values=False)

        combined_state = self.pre_process(combined_state)
        _private_attributes["_mask"] = _mask_private_attributes

        combined_state.update(_private_attributes)
        combined_state["_input"] = self

        return combined_state

    def load_forcings_state(self, *, dates: list[Date], current_state: State) -> State:
        """Load the forcings state for the given variables and dates.

        Parameters
        ----------

        dates : List[Date]
            List of dates for which to load the forcings.
        current_state : State
            The current state of the input.

        Returns
        -------
        State
            The loaded forcings state.
        """

        combined_fields = {}

        for source in self.sources.keys():
            source_state = self.sources[source].load_forcings_state(dates=dates, current_state={})["fields"]
            source_mask = self.masks[source]

            combined_fields = _mask_and_combine_states(combined_fields, source_state, source_mask, source_state.keys())

        current_state["fields"] |= combined_fields
        current_state = self.pre_process(current_state)

        current_state["_input"] = self

        return current_state
