# (C) Copyright 2025-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.


"""Code to wrap and unwrap state dictionaries into earthkit.data field lists. So that we can pass them through anemoi-transorm filters."""

import datetime
import logging
from collections.abc import Callable
from functools import cached_property
from typing import Any

import earthkit.data as ekd
import numpy as np
from anemoi.transform.variables import Variable
from earthkit.data.core.metadata import RawMetadata
from earthkit.data.indexing.fieldlist import SimpleFieldList

from anemoi.inference.types import FloatArray
from anemoi.inference.types import Shape
from anemoi.inference.types import State

LOG = logging.getLogger(__name__)


class StateFieldGeography:
    """Geographical information of a state field.

    Parameters
    ----------
    field : Any
        The field containing geographical data.
    """

    def __init__(self, field: Any) -> None:
        self._field = field

    @property
    def shape(self) -> Shape:
        """Tuple: Shape of the geographical field."""
        return self._field.shape


class StateFieldMetadata(RawMetadata):
    """Metadata for a state field.

    Parameters
    ----------
    field : Any
        The field containing metadata.
    """

    def __init__(self, field: Any) -> None:
        metadata = dict(field._raw_metadata.get("mars", field._raw_metadata))
        metadata.update(
            name=field.name,
            **{
                k: v
                for k, v in field.state.items()
                if isinstance(v, (str, int, float, bool, datetime.datetime, datetime.timedelta))
            },
        )
        super().__init__(**metadata)
        self._field = field

    def as_namespace(self, ns: str) -> dict[str, Any]:
        """Convert metadata to a specific namespace.

        Parameters
        ----------
        ns : str
            The namespace to convert the metadata to.

        Returns
        -------
        Dict[str, Any]
            The metadata in the specified namespace.
        """
        assert ns == "mars"
        return {k: v for k, v in self.items() if k != "name"}

    @property
    def geography(self) -> StateFieldGeography:
        """StateFieldGeography: Geographical information of the field."""
        return StateFieldGeography(self._field)


class StateField(ekd.Field):
    """State field containing name, values, and state information.

    Parameters
    ----------
    name : str
        The name of the field.
    values : FloatArray
        The values of the field.
    state : Dict[str, Any]
        The state information associated with the field.
    metadata : Dict[str, Any]
        Metadata for the field.
    """

    def __init__(self, name: str, values: FloatArray, state: State, metadata: dict[str, Any]) -> None:
        self.name = name
        self.__values = values
        self.state = state
        self._raw_metadata = metadata

    def _values(self, dtype: np.dtype) -> FloatArray:
        """Get the values of the field with a specific data type.

        Parameters
        ----------
        dtype : np.dtype
            The data type to convert the values to.

        Returns
        -------
        FloatArray
            The values of the field in the specified data type.
        """
        return np.asarray(self.__values, dtype=dtype)

    @property
    def shape(self) -> Shape:
        """Tuple: Shape of the field."""
        return self.__values.shape

    @cached_property
    def _metadata(self) -> StateFieldMetadata:
        """StateFieldMetadata: Metadata of the field."""
        return StateFieldMetadata(self)

    def __repr__(self) -> str:
        """Str: String representation of the StateField."""
        return f"{self.__class__.__name__}({self._metadata})"


def wrap_state(state: State, typed_variables: dict[str, Variable]) -> ekd.FieldList:
    """Transform a state dictionary into an earthkit.data field list.

    Parameters
    ----------
    state : Dict[str, Any]
        The state dictionary to be transformed.
    typed_variables : dict[str, Variable]
        Metadata for the variables in the state.

    Returns
    -------
    ekd.FieldList
        The transformed field list.
    """
    assert isinstance(state["date"], datetime.datetime)  # Only works on single dates for now
    fields = []
    for f in state["fields"]:
        variable = typed_variables[f]
        metadata = variable.grib_keys.copy()
        metadata.update(
            name=f,
            **{
                k: v
                for k, v in state.items()
                if isinstance(v, (str, int, float, bool, datetime.datetime, datetime.timedelta))
            },
        )
        fields.append(StateField(f, state["fields"][f], state, metadata))
    return SimpleFieldList(fields)


def unwrap_state(fields: ekd.FieldList, state: State, namer: Callable, flatten: bool = True) -> State:
    """Transform a earthkit.data field list into a state dictionary.

    Parameters
    ----------
    fields : ekd.FieldList
        The field list to be transformed.
    state : State
        The original state dictionary.
    namer : Callable
        A function to generate new field names.
    flatten : bool, optional
        Whether to flatten the field values of non-``StateField`` fields.
        ``StateField`` values are already flat and are never flattened again,
        which avoids an unnecessary copy. Defaults to True.

    Returns
    -------
    Dict[str, Any]
        The transformed state dictionary.
    """
    new_fields = {}

    # namer(field: ekd.Field, metadata: Dict[str, Any]) -> str:

    for n in fields:
        name = namer(n, n.metadata())
        flatten = (not isinstance(n, StateField)) and flatten
        # StateField values are already flat 1D numpy arrays.
        # Use to_numpy() without flatten=True to avoid the always-copy
        # behavior of ndarray.flatten(). Combined with np.asarray in
        # _values(), this avoids unnecessary copies for pass-through
        # fields that were not transformed.
        new_fields[name] = n.to_numpy(flatten=flatten)

    state = state.copy()
    state["fields"] = new_fields

    return state
