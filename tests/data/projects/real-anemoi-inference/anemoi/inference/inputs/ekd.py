# (C) Copyright 2024-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

import glob
import logging
import os
import re
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from functools import cached_property
from typing import Any

import earthkit.data as ekd
import numpy as np
from anemoi.transform.variables import Variable
from anemoi.utils.humanize import dict_to_human
from anemoi.utils.timer import Timer
from earthkit.data.utils.dates import to_datetime
from numpy.typing import DTypeLike

from anemoi.inference.context import Context
from anemoi.inference.decorators import format_dataset_name
from anemoi.inference.decorators import main_argument
from anemoi.inference.metadata import Metadata
from anemoi.inference.types import Date
from anemoi.inference.types import FloatArray
from anemoi.inference.types import State

from ..checks import check_data
from ..input import Input

LOG = logging.getLogger(__name__)


def find_variable(data: ekd.FieldList, name: str, namer: callable, **kwargs: Any) -> ekd.FieldList:
    """Find a variable in an earthkit FieldList.

    Parameters
    ----------
    data : ekd.FieldList
        The data to search.
    name : str
        The name of the variable to find.
    namer: callable
        The namer function to use for naming fields.
    **kwargs : Any
        Additional arguments for selecting the variable.

    Returns
    -------
    ekd.FieldList
        The selected variable (FieldList subset).
    """

    def _name(field: Any, _: Any, original_metadata: dict[str, Any]) -> str:
        return namer(field, original_metadata)

    data = ekd.SimpleFieldList([f.clone(name=_name) for f in data])
    return data.sel(name=name, **kwargs)


class RulesNamer:
    """A namer that uses rules to generate names."""

    def __init__(self, rules: Any, default_namer: Callable[[Any, dict[str, Any]], str]) -> None:
        """Initialize the RulesNamer.

        Parameters
        ----------
        rules : List[List[Dict[str, Any], Dict[str, Any]]]
            The rules for naming.
        default_namer : Callable[[Any, Dict[str, Any]], str]
            The default namer to use if no rules match.
        """
        self.rules = rules
        self.default_namer = default_namer

    def __call__(self, field: ekd.Field, original_metadata: dict[str, Any]) -> str:
        """Generate a name for the field.

        Parameters
        ----------
        field : ekd.Field
            The field for which to generate a name.
        original_metadata : Dict[str, Any]
            The original metadata of the field.

        Returns
        -------
        str
            The generated name.
        """
        for rule in self.rules:
            assert len(rule) == 2, rule
            ok = True
            for k, v in rule[0].items():
                if original_metadata.get(k) != v:
                    ok = False
            if ok:
                return self.substitute(rule[1], field, original_metadata)

        return self.default_namer(field, original_metadata)

    def substitute(self, template: str, field: ekd.Field, original_metadata: dict[str, Any]) -> str:
        """Substitute placeholders in the template with metadata values.

        Parameters
        ----------
        template : str
            The template string with placeholders.
        field : ekd.Field
            The field for which to generate a name.
        original_metadata : Dict[str, Any]
            The original metadata of the field.

        Returns
        -------
        str
            The generated name with placeholders substituted.
        """
        matches = re.findall(r"\{(.+?)\}", template)
        matches = {m: original_metadata.get(m) for m in matches}
        return template.format(**matches)


class EkdInput(Input):
    """Handles earthkit-data FieldList as input."""

    def __init__(
        self,
        context: Context,
        metadata: Metadata,
        *,
        namer: Any | None = None,
        **kwargs,
    ) -> None:
        """Initialize the EkdInput.

        Parameters
        ----------
        context : Any
            The context in which the input is used.
        metadata : Metadata
            Metadata corresponding to the dataset this input is handling.
        namer : Optional[Union[Callable[[Any, Dict[str, Any]], str], Dict[str, Any]]]
            Optional namer for the input.
        """
        super().__init__(context, metadata, **kwargs)

        if isinstance(namer, dict):
            # TODO: a factory for namers
            assert "rules" in namer, namer
            assert len(namer) == 1, namer
            namer = RulesNamer(namer["rules"], self.metadata.default_namer())

        self._namer = namer if namer is not None else self.metadata.default_namer()
        assert callable(self._namer), type(self._namer)

    def _filter_by_time(
        self, data: ekd.FieldList, *, dates: list[datetime], select_reference_date: bool = False
    ) -> ekd.FieldList:
        """Filter by dates,
        Selects upon the valid_datetime field in the data by dates, optionally including the reference date.

        Parameters
        ----------
        data : ekd.FieldList
            The data to filter by time.
        dates : list[datetime]
            The list of valid dates to filter by.
        select_reference_date : bool, optional
            Whether to also include the reference date when filtering, by default False

        Returns
        -------
        ekd.FieldList
            The filtered data.
        """
        valid_datetime = [date.isoformat() for date in dates]
        datetime_selection: dict = dict(valid_datetime=valid_datetime)

        if select_reference_date:
            assert self.reference_date is not None, "Reference date must be set when selecting reference date."
            datetime_selection.update(
                dataDate=int(self.reference_date.strftime("%Y%m%d")),
                dataTime=int(self.reference_date.strftime("%H%M")),
            )
        with Timer("") as timer:
            subset_data = data.sel(**datetime_selection)
            timer.title = f"Selecting {len(subset_data)}/{len(data)} fields by {dict_to_human(datetime_selection)}"
        return subset_data

    def _filter_and_sort_by_variable(self, data: ekd.FieldList) -> ekd.FieldList:
        """Filter and sort by variables.
        Applies the namer configured to convert ids.

        Parameters
        ----------
        data : ekd.FieldList
            Data to filter and sort

        Returns
        -------
        ekd.FieldList
            The filtered and sorted data.
        """

        def _name(field: ekd.Field, _: Any, original_metadata: dict[str, Any]) -> str:
            return self._namer(field, original_metadata)

        data = ekd.SimpleFieldList([f.clone(name=_name) for f in data])
        with Timer("") as timer:
            subset_data = data.sel(name=self.variables).order_by(
                name=self.variables,
                valid_datetime="ascending",
            )
            timer.title = (
                f"Selecting {len(subset_data)}/{len(data)} fields by {dict_to_human({'name': self.variables})}"
            )
        return subset_data

    def _find_variable(self, data: ekd.FieldList, name: str, **kwargs: Any) -> ekd.FieldList:
        """Find a variable in the earthkit FieldList selection.

        Parameters
        ----------
        data : ekd.FieldList
            The data to search.
        name : str
            The name of the variable to find.
        **kwargs : Any
            Additional arguments for selecting the variable.

        Returns
        -------
        ekd.FieldList
            The selected variable (FieldList subset).
        """

        return find_variable(data, name, self._namer, **kwargs)

    def _create_state(
        self,
        fields: ekd.FieldList,
        *,
        dates: list[Date],
        latitudes: FloatArray | None = None,
        longitudes: FloatArray | None = None,
        dtype: DTypeLike = np.float32,
        flatten: bool = True,
        ref_date_index: int = -1,
        **kwargs,
    ) -> State:
        """Create a state from an ekd.FieldList.

        Notes
        -----
        - The `fields` argument must be an earthkit FieldList.
        - This method intentionally converts state["fields"] from a FieldList to
          a Dict[str, np.ndarray] with shape (len(dates), n_points).
        - Pre-processors are run while state["fields"] is still a FieldList.

        Parameters
        ----------
        fields : ekd.FieldList
            The ekd fields.
        dates : List[Date]
            The dates for which to create the input state.
        latitudes : Optional[FloatArray]
            The latitudes.
        longitudes : Optional[FloatArray]
            The longitudes.
        dtype : DTypeLike
            The data type.
        flatten : bool
            Whether to flatten the data.
        ref_date_index: int = -1
            The index in `dates` to use as reference date for the state.
        **kwargs : Any
            Additional arguments for selecting the variable.

        Returns
        -------
        State
            The created input state with state["fields"] as Dict[str, np.ndarray].
        """
        if latitudes is None and longitudes is None:
            try:
                latitudes, longitudes = fields[0].grid_points()
                LOG.info(
                    "%s: using `latitudes` and `longitudes` from the first input field",
                    self.__class__.__name__,
                )
            except Exception as e:
                LOG.info(
                    "%s: could not get `latitudes` and `longitudes` from the input fields.\n%s",
                    self.__class__.__name__,
                    e,
                )
                latitudes = self.metadata.latitudes
                longitudes = self.metadata.longitudes
                if latitudes is not None and longitudes is not None:
                    LOG.info(
                        "%s: using `latitudes` and `longitudes` found in the checkpoint.",
                        self.__class__.__name__,
                    )
                else:
                    LOG.error(
                        "%s: could not find `latitudes` and `longitudes` in the input fields or the checkpoint.",
                        self.__class__.__name__,
                    )
                    raise e

        state = dict(date=dates[ref_date_index], latitudes=latitudes, longitudes=longitudes, fields=fields)

        dates = sorted([to_datetime(d) for d in dates])
        state["fields"] = self._filter_by_time(
            state["fields"], dates=dates, select_reference_date=kwargs.get("select_reference_date", False)
        )

        # allow hooks to operate on the FieldList before conversion to numpy, but after subsetting by time
        state = self.pre_process(state)

        state_fields = {}

        if len(state["fields"]) == 0:
            raise ValueError("No input fields provided")

        fields = self._filter_and_sort_by_variable(state["fields"])
        check_data("Create input state", fields, self.variables, dates, self.metadata)

        date_to_index = {d.isoformat(): i for i, d in enumerate(dates)}

        check = defaultdict(set)
        state_variables = {}

        n_points = fields[0].to_numpy(dtype=dtype, flatten=flatten).size
        for field in fields:
            name, valid_datetime = field.metadata("name"), field.metadata("valid_datetime")
            if name not in state_fields:
                state_fields[name] = np.full(
                    shape=(len(dates), n_points),
                    fill_value=np.nan,
                    dtype=dtype,
                )

            date_idx = date_to_index[valid_datetime]

            try:
                state_fields[name][date_idx] = field.to_numpy(dtype=dtype, flatten=flatten)
            except ValueError:
                LOG.error(
                    "Error with field %s: expected shape=%s, got shape=%s", name, state_fields[name].shape, field.shape
                )
                LOG.error("dates %s", dates)
                LOG.error("number_of_grid_points %s", self.metadata.number_of_grid_points)
                raise

            state_variables[name] = Variable.from_earthkit(name, field)

            if date_idx in check[name]:
                LOG.error("Duplicate dates for %s: %s", name, date_idx)
                LOG.error("Expected %s", list(date_to_index.keys()))
                LOG.error("Got %s", list(check[name]))
                raise ValueError(f"Duplicate dates for {name}")

            check[name].add(date_idx)

        state["fields"] = state_fields

        for name, idx in check.items():
            if len(idx) != len(dates):
                LOG.error("Missing dates for %s: %s", name, idx)
                LOG.error("Expected %s", list(date_to_index.keys()))
                LOG.error("Got %s", list(idx))
                raise ValueError(f"Missing dates for {name}")

        if trace := self.context.tensor_handlers[self.dataset_name].trace:
            for name in check.keys():
                trace.from_input(name, self)

        # This is our chance to communicate output object
        # This is useful for GRIB that requires a template field
        # to be used as output
        self.set_private_attributes(state, fields)

        state["_input"] = self
        state["_variables"] = state_variables

        return state

    def _create_input_state(
        self,
        input_fields: ekd.FieldList,
        *,
        dates: list[Date],
        variables: list[str] | None = None,
        latitudes: FloatArray | None = None,
        longitudes: FloatArray | None = None,
        dtype: DTypeLike = np.float32,
        flatten: bool = True,
        ref_date_index: int = -1,
        **kwargs,
    ) -> State:
        """Create the input state.

        Parameters
        ----------
        input_fields : ekd.FieldList
            The input fields.
        dates : list[Date]
            The dates for which to create the input state.
        variables : Optional[List[str]]
            List of variables.
        latitudes : Optional[FloatArray]
            The latitudes.
        longitudes : Optional[FloatArray]
            The longitudes.
        dtype : DTypeLike
            The data type.
        flatten : bool
            Whether to flatten the data.
        ref_date_index : int = -1
            The index in `dates` to use as reference date for the state.
        **kwargs : Any
            Additional arguments for selecting the variable.
        Returns
        -------
        State
            The created input state.
        """

        return self._create_state(
            input_fields,
            dates=dates,
            latitudes=latitudes,
            longitudes=longitudes,
            dtype=dtype,
            flatten=flatten,
            ref_date_index=ref_date_index,
            **kwargs,
        )

    def _load_forcings_state(self, fields: ekd.FieldList, *, dates: list[Date], current_state: State) -> State:
        """Load the forcings state.

        Parameters
        ----------
        fields : ekd.FieldList
            The fields to load.
        dates : List[Any]
            The list of dates to load.
        current_state : Dict[str, Any]
            The current state.

        Returns
        -------
        State
            The loaded forcings state.
        """
        return self._create_state(
            fields,
            dates=dates,
            latitudes=current_state.get("latitudes", None),
            longitudes=current_state.get("longitudes", None),
            dtype=np.float32,
            flatten=True,
        )

    def set_private_attributes(self, state: State, fields: ekd.FieldList) -> None:  # type: ignore
        """Set private attributes to the state.

        Provides geography information if available retrieved from the fields.
        """
        geography_information = {}

        def get_geography_info(key: str) -> str | None:
            try:
                combo = list(getattr(f.metadata().geography, key, lambda: None)() for f in fields)
            except NotImplementedError:  # Issue with earthkit.data throwing error here
                return None
            if len(set(map(str, combo))) == 1 and combo[0] != "None":
                return combo[0]
            return None

        grid = get_geography_info("mars_grid")
        if grid == "undefined":
            grid = {"latitudes": list(state["latitudes"]), "longitudes": list(state["longitudes"])}
            geography_information["grid"] = grid

        else:  # If grid is undefined we don't want to add the area
            if grid:
                geography_information["grid"] = grid

            if area := get_geography_info("mars_area"):
                geography_information["area"] = area

        if geography_information:
            state["_geography"] = geography_information


@main_argument("path")
@format_dataset_name("path")
class FieldlistInput(EkdInput):
    """Handles earthkit-data FieldList as input."""

    patterns: tuple[str, ...]

    def __init__(
        self,
        context: Context,
        metadata: Metadata,
        *,
        path: str,
        **kwargs: Any,
    ) -> None:
        """Initialise the FieldlistInput.

        Parameters
        ----------
        context : Any
            The context in which the input is used.
        path : str
            Path, directory or glob pattern to file(s). Examples:
              - "/path/to/file.grib"
              - "/path/to/*.grib"
              - "/path/to/**/*.grib2"
              - "/path/to/directory/"
        **kwargs : Any
            Additional keyword arguments.
        """
        super().__init__(context, metadata, **kwargs)
        self.path = path

    def create_input_state(self, *, dates: list[Date], ref_date_index: int = -1, **kwargs) -> State:
        """Create the input state for the given date.

        Parameters
        ----------
        dates : list[Date]
            The dates for which to create the input state.
        ref_date_index : int = -1
            The index in `dates` to use as reference date for the state.
        **kwargs : Any
            Additional keyword arguments.

        Returns
        -------
        State
            The created input state.
        """
        return self._create_input_state(self._fieldlist, dates=dates, ref_date_index=ref_date_index, **kwargs)

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

        return self._load_forcings_state(
            self._fieldlist,
            dates=dates,
            current_state=current_state,
        )

    def default_initial_date(self) -> datetime:
        # most recent valid datetime from the fieldlist
        return self._fieldlist.order_by(valid_datetime="ascending")[-1].datetime()["valid_time"]

    @cached_property
    def _fieldlist(self) -> ekd.FieldList:
        """Get the input fieldlist from the file or collection."""
        path = self.path

        # Case 1: explicit glob pattern
        if glob.has_magic(path):
            matches = glob.glob(path, recursive=True)
            files = [p for p in matches if os.path.isfile(p)]
            if not files:
                LOG.warning("No files matched pattern %r", path)
                return ekd.from_source("empty")  # type: ignore[reportReturnType]
            return ekd.from_source("file", sorted(files))  # type: ignore[reportReturnType]

        # Case 2: directory path -> search for files recursively
        if os.path.isdir(path):
            files = []
            for pat in self.patterns:
                files.extend(glob.glob(os.path.join(path, "**", pat), recursive=True))
            files = [f for f in sorted(set(files)) if os.path.isfile(f)]
            if not files:
                LOG.warning("Directory %r contains no files which match patterns %r", path, self.patterns)
                return ekd.from_source("empty")  # type: ignore[reportReturnType]
            return ekd.from_source("file", files)  # type: ignore[reportReturnType]

        # Case 3: single file path
        try:
            if os.path.getsize(path) == 0:
                LOG.warning("File %r is empty", path)
                return ekd.from_source("empty")  # type: ignore[reportReturnType]
        except FileNotFoundError:
            LOG.warning("Path %r not found", path)
            return ekd.from_source("empty")  # type: ignore[reportReturnType]

        return ekd.from_source("file", path)  # type: ignore[reportReturnType]
