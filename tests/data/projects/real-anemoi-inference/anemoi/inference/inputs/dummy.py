# (C) Copyright 2024-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

"""Dummy input used for testing.

It will generate fields with constant values for each variable and date.
These values are then tested in the mock model.
"""

import logging
from datetime import datetime
from datetime import time
from datetime import timezone

import earthkit.data as ekd
import numpy as np

from anemoi.inference.context import Context
from anemoi.inference.metadata import Metadata
from anemoi.inference.testing import float_hash
from anemoi.inference.types import Date
from anemoi.inference.types import State

from . import input_registry
from .ekd import EkdInput

LOG = logging.getLogger(__name__)
SKIP_KEYS = ["date", "time", "step", "valid_datetime"]


@input_registry.register("dummy")
class DummyInput(EkdInput):
    """Dummy input used for testing."""

    trace_name = "dummy"

    def __init__(self, context: Context, metadata: Metadata, **kwargs) -> None:
        super().__init__(context, metadata, **kwargs)

    def create_input_state(self, *, dates: list[Date], **kwargs) -> State:
        """Create the input state for the given date.

        Parameters
        ----------
        dates : list[Date]
            The dates for which to create the input state.
        **kwargs : Any
            Additional keyword arguments.

        Returns
        -------
        State
            The created input state.
        """
        return self._create_input_state(self._fields(dates, self.variables), variables=None, dates=dates, **kwargs)

    def load_forcings_state(self, *, dates: list[Date], current_state: State) -> State:
        """Load the forcings state for the given variables and dates.

        Parameters
        ----------
        dates : list[Date]
            List of dates for which to load the forcings.
        current_state : State
            The current state of the input.

        Returns
        -------
        Any
            The loaded forcings state.
        """
        return self._load_forcings_state(
            self._fields(dates, self.variables),
            dates=dates,
            current_state=current_state,
        )

    def _fields(self, dates: list[Date], variables) -> ekd.FieldList:
        """Generate fields for the given dates and variables.

        Parameters
        ----------
        dates : List[Date]
            List of dates for which to generate fields, by default None.
        variables : Optional[List[str]], optional
            List of variables for which to generate fields, by default None.

        Returns
        -------
        ekd.FieldList
            The generated fields.
        """

        LOG.info("Generating fields for %s", variables)

        typed_variables = self.metadata.typed_variables

        result = []
        for variable in variables:
            is_constant_in_time = typed_variables[variable].is_constant_in_time

            keys = {k: v for k, v in typed_variables[variable].grib_keys.items() if k not in SKIP_KEYS}

            for date in dates:
                x = float_hash(variable, dates[0] if is_constant_in_time else date)

                handle = dict(
                    values=np.ones(self.metadata.number_of_grid_points, dtype=np.float32) * x,
                    latitudes=np.zeros(self.metadata.number_of_grid_points, dtype=np.float32),
                    longitudes=np.zeros(self.metadata.number_of_grid_points, dtype=np.float32),
                    date=date.strftime("%Y%m%d"),
                    time=date.strftime("%H%M"),
                    name=variable,
                    **keys,
                )
                result.append(handle)

        return ekd.from_source("list-of-dicts", result)

    def template_lookup(self, name: str) -> dict:
        """Lookup a template by name.

        Parameters
        ----------
        name : str
            The name of the template to lookup.

        Returns
        -------
        dict
            The template dictionary.
        """
        # Unused, but required by the TemplateManager
        return {}

    def default_initial_date(self) -> datetime:
        # midnight of the current date in UTC
        return datetime.combine(datetime.now(timezone.utc).date(), time())
