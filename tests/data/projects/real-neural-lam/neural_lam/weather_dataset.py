"""Dataset helpers wrapping Neural-LAM datastores for PyTorch Lightning."""

# Standard library
import datetime
import warnings
from typing import Iterator

# Third-party
import numpy as np
import pytorch_lightning as pl
import torch
import xarray as xr

# First-party
from neural_lam.datastore.base import BaseDatastore


class WeatherDataset(torch.utils.data.Dataset):
    """Dataset class for weather data.

    Loads and processes weather data from a given datastore. See
    :meth:`__init__` for the full parameter list.
    """

    def __init__(
        self,
        datastore: BaseDatastore,
        split: str = "train",
        ar_steps: int = 3,
        num_past_forcing_steps: int = 1,
        num_future_forcing_steps: int = 1,
        load_single_member: bool = False,
    ) -> None:
        """
        Parameters
        ----------
        datastore : BaseDatastore
            Datastore providing access to state/forcing/static arrays.
        split : str, optional
            Data split (``"train"``, ``"val"``, or ``"test"``).
            Default ``"train"``.
        ar_steps : int, optional
            Number of autoregressive steps per training sample. Default ``3``.
        num_past_forcing_steps : int, optional
            Past forcing window length ``i`` so that ``[t-i, ..., t]`` forcings
            are concatenated. Default ``1``.
        num_future_forcing_steps : int, optional
            Future forcing window length ``j`` so that ``[t, ..., t+j]``
            forcings are available. Default ``1``.
        load_single_member : bool, optional
            If ``False`` and the datastore returns an ensemble of state
            realisations, treat each state ensemble member as an independent
            sample. If ``True``, only ensemble member 0 is used. Default
            ``False``.

        Raises
        ------
        ValueError
            If the datastore does not provide state data, if the configured
            ``ar_steps`` and forcing windows leave zero samples in ``split``,
            or if the state/forcing dimension order does not match the
            datastore's expected dimension order.
        """
        super().__init__()

        self.split = split
        self.ar_steps = ar_steps
        self.datastore = datastore
        self.num_past_forcing_steps = num_past_forcing_steps
        self.num_future_forcing_steps = num_future_forcing_steps
        self.load_single_member = load_single_member

        da_state = self.datastore.get_dataarray(
            category="state", split=self.split
        )
        if da_state is None:
            raise ValueError(
                "The datastore must provide state data for the WeatherDataset."
            )
        self.da_state = da_state
        self.da_forcing = self.datastore.get_dataarray(
            category="forcing", split=self.split
        )

        if self.datastore.is_ensemble and self.load_single_member:
            warnings.warn(
                "only using first ensemble member, so dataset size is "
                "effectively reduced by the number of ensemble members "
                f"({self.da_state.ensemble_member.size})",
                UserWarning,
                stacklevel=2,
            )

        # check that with the provided data-arrays and ar_steps that we have a
        # non-zero amount of samples
        if self.__len__() <= 0 and self.da_state is not None:
            raise ValueError(
                "The provided datastore only provides "
                f"{len(self.da_state.time)} total time steps, which is too few "
                "to create a single sample for the WeatherDataset "
                f"configuration used in the `{split}` split. You could try "
                "either reducing the number of autoregressive steps "
                "(`ar_steps`) and/or the forcing window size "
                "(`num_past_forcing_steps` and `num_future_forcing_steps`)"
            )

        # Check the dimensions and their ordering
        parts = dict(state=self.da_state)
        if self.da_forcing is not None:
            parts["forcing"] = self.da_forcing

        for part, da in parts.items():
            if da is not None:
                expected_dim_order = self.datastore.expected_dim_order(
                    category=part
                )
                if da.dims != expected_dim_order:
                    raise ValueError(
                        f"The dimension order of the `{part}` data ({da.dims}) "
                        f"does not match the expected dimension order "
                        f"({expected_dim_order}). Maybe you forgot to "
                        "transpose the data in `BaseDatastore.get_dataarray`?"
                    )

    def __len__(self) -> int:
        """
        Return the number of autoregressive training samples available.

        Returns
        -------
        int
            Number of (init, target) pairs derivable from the datastore.
        """
        assert self.da_state is not None
        if self.datastore.is_forecast:
            # for now we simply create a single sample for each analysis time
            # and then take the first (2 + ar_steps) forecast times.
            # If the datastore returns an ensemble of state realisations and
            # `load_single_member=False`, each ensemble member is exposed as an
            # independent sample by scaling the base dataset length below.

            # Check that there are enough forecast steps available to create
            # samples. The required minimum is the larger of 2 (for the two
            # initial states) and num_past_forcing_steps, plus ar_steps.
            n_forecast_steps = self.da_state.elapsed_forecast_duration.size
            required_state_steps = (
                max(2, self.num_past_forcing_steps) + self.ar_steps
            )
            if n_forecast_steps < required_state_steps:
                raise ValueError(
                    "The number of forecast steps available "
                    f"({n_forecast_steps}) is less than the required "
                    f"{required_state_steps} (max(2, "
                    f"num_past_forcing_steps={self.num_past_forcing_steps})"
                    f" + ar_steps={self.ar_steps}) for creating a sample "
                    "with initial and target states."
                )

            if self.da_forcing is not None:
                # When forcing is present, the forecast horizon must also
                # cover num_future_forcing_steps beyond the last target step.
                n_forcing_forecast_steps = (
                    self.da_forcing.elapsed_forecast_duration.size
                )
                required_forcing_steps = (
                    required_state_steps + self.num_future_forcing_steps
                )
                if n_forcing_forecast_steps < required_forcing_steps:
                    raise ValueError(
                        "The number of forcing forecast steps available "
                        f"({n_forcing_forecast_steps}) is less than the "
                        f"required {required_forcing_steps} "
                        f"(max(2, num_past_forcing_steps="
                        f"{self.num_past_forcing_steps}) + ar_steps="
                        f"{self.ar_steps} + num_future_forcing_steps="
                        f"{self.num_future_forcing_steps}) for "
                        "constructing forcing windows."
                    )

            base_len = self.da_state.analysis_time.size
        else:
            # Number of valid sample start indices in a contiguous time
            # series. With T total time steps and a per-sample window of
            # W = max(2, num_past_forcing_steps) + ar_steps +
            # num_future_forcing_steps, valid start indices are
            # [0 .. T - W], i.e. (T - W + 1) samples in total.
            window = (
                max(2, self.num_past_forcing_steps)
                + self.ar_steps
                + self.num_future_forcing_steps
            )
            n_state_samples = len(self.da_state.time) - window + 1
            if self.da_forcing is not None:
                n_forcing_samples = len(self.da_forcing.time) - window + 1
                base_len = max(0, min(n_state_samples, n_forcing_samples))
            else:
                base_len = max(0, n_state_samples)
        if self.datastore.is_ensemble and not self.load_single_member:
            return base_len * self.da_state.ensemble_member.size
        return base_len

    def _slice_state_time(
        self, da_state: xr.DataArray, idx: int, n_steps: int
    ) -> xr.DataArray:
        """
        Produce a time slice of the given dataarray `da_state` (state) starting
        at `idx` and with `n_steps` steps. An `offset` is calculated based on
        the `num_past_forcing_steps` class attribute. `Offset` is used to offset
        the start of the sample, to assert that enough previous time steps
        are available for the 2 initial states and any corresponding
        forcings (calculated in `_slice_forcing_time`).

        Parameters
        ----------
        da_state : xr.DataArray
            The dataarray to slice. This is expected to have a `time` dimension
            if the datastore is providing analysis only data, and a
            `analysis_time` and `elapsed_forecast_duration` dimensions if the
            datastore is providing forecast data.
        idx : int
            The index of the time step to start the sample from.
        n_steps : int
            The number of time steps to include in the sample.

        Returns
        -------
        da_sliced : xr.DataArray
            The sliced dataarray with dims ('time', 'grid_index',
            'state_feature').
        """
        # The current implementation requires at least 2 time steps for the
        # initial state (see GraphCast).
        init_steps = 2
        # slice the dataarray to include the required number of time steps
        if self.datastore.is_forecast:
            start_idx = max(0, self.num_past_forcing_steps - init_steps)
            end_idx = max(init_steps, self.num_past_forcing_steps) + n_steps
            # this implies that the data will have both `analysis_time` and
            # `elapsed_forecast_duration` dimensions for forecasts. We for now
            # simply select a analysis time and the first `n_steps` forecast
            # times (given no offset). Note that this means that we get one
            # sample per forecast, always starting at forecast time 2.
            da_sliced = da_state.isel(
                analysis_time=idx,
                elapsed_forecast_duration=slice(start_idx, end_idx),
            )
            # create a new time dimension so that the produced sample has a
            # `time` dimension, similarly to the analysis only data
            da_sliced["time"] = (
                da_sliced.analysis_time + da_sliced.elapsed_forecast_duration
            )
            da_sliced = da_sliced.swap_dims(
                {"elapsed_forecast_duration": "time"}
            )
        else:
            # For analysis data we slice the time dimension directly. The offset
            # is only relevant for the very first (and last) samples in the
            # dataset.
            start_idx = idx + max(0, self.num_past_forcing_steps - init_steps)
            end_idx = (
                idx + max(init_steps, self.num_past_forcing_steps) + n_steps
            )
            da_sliced = da_state.isel(time=slice(start_idx, end_idx))
        return da_sliced

    def _slice_forcing_time(
        self, da_forcing: xr.DataArray, idx: int, n_steps: int
    ) -> xr.DataArray:
        """
        Produce a time slice of the given dataarray `da_forcing` (forcing)
        starting at `idx` and with `n_steps` steps. An `offset` is calculated
        based on the `num_past_forcing_steps` class attribute. It is used to
        offset the start of the sample, to ensure that enough previous time
        steps are available for the forcing data. The forcing data is windowed
        around the current autoregressive time step to include the past and
        future forcings.

        Parameters
        ----------
        da_forcing : xr.DataArray
            The forcing dataarray to slice. This is expected to have a `time`
            dimension if the datastore is providing analysis only data, and a
            `analysis_time` and `elapsed_forecast_duration` dimensions if the
            datastore is providing forecast data.
        idx : int
            The index of the time step to start the sample from.
        n_steps : int
            The number of time steps to include in the sample.

        Returns
        -------
        da_concat : xr.DataArray
            The sliced dataarray with dims ('time', 'grid_index',
            'window', 'forcing_feature').
        """
        # The current implementation requires at least 2 time steps for the
        # initial state (see GraphCast). The forcing data is windowed around the
        # current autoregressive time step. The two `init_steps` can also be
        # used as past forcings.
        init_steps = 2
        da_list = []

        if self.datastore.is_forecast:
            # This implies that the data will have both `analysis_time` and
            # `elapsed_forecast_duration` dimensions for forecasts. We for now
            # simply select an analysis time and the first `n_steps` forecast
            # times (given no offset). Note that this means that we get one
            # sample per forecast.
            # Add a 'time' dimension using the actual forecast times
            offset = max(init_steps, self.num_past_forcing_steps)
            for step in range(n_steps):
                start_idx = offset + step - self.num_past_forcing_steps
                end_idx = offset + step + self.num_future_forcing_steps

                current_time = (
                    da_forcing.analysis_time[idx]
                    + da_forcing.elapsed_forecast_duration[offset + step]
                )

                da_sliced = da_forcing.isel(
                    analysis_time=idx,
                    elapsed_forecast_duration=slice(start_idx, end_idx + 1),
                )

                da_sliced = da_sliced.rename(
                    {"elapsed_forecast_duration": "window"}
                )

                # Assign the 'window' coordinate to be relative positions
                da_sliced = da_sliced.assign_coords(
                    window=np.arange(len(da_sliced.window))
                )

                da_sliced = da_sliced.expand_dims(
                    dim={"time": [current_time.values]}
                )

                da_list.append(da_sliced)

            # Concatenate the list of DataArrays along the 'time' dimension
            da_concat = xr.concat(da_list, dim="time")

        else:
            # For analysis data, we slice the time dimension directly. The
            # offset is only relevant for the very first (and last) samples in
            # the dataset.
            offset = idx + max(init_steps, self.num_past_forcing_steps)
            for step in range(n_steps):
                start_idx = offset + step - self.num_past_forcing_steps
                end_idx = offset + step + self.num_future_forcing_steps

                # Slice the data over the desired time window
                da_sliced = da_forcing.isel(time=slice(start_idx, end_idx + 1))

                da_sliced = da_sliced.rename({"time": "window"})

                # Assign the 'window' coordinate to be relative positions
                da_sliced = da_sliced.assign_coords(
                    window=np.arange(len(da_sliced.window))
                )

                # Add a 'time' dimension to keep track of steps using actual
                # time coordinates
                current_time = da_forcing.time[offset + step]
                da_sliced = da_sliced.expand_dims(
                    dim={"time": [current_time.values]}
                )

                da_list.append(da_sliced)

            # Concatenate the list of DataArrays along the 'time' dimension
            da_concat = xr.concat(da_list, dim="time")

        return da_concat

    def _build_item_dataarrays(
        self, idx: int
    ) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, xr.DataArray]:
        """
        Create the dataarrays for the initial states, target states and forcing
        data for the sample at index `idx`.

        Parameters
        ----------
        idx : int
            The index of the sample to create the dataarrays for.

        Returns
        -------
        da_init_states : xr.DataArray
            The dataarray for the initial states.
        da_target_states : xr.DataArray
            The dataarray for the target states.
        da_forcing_windowed : xr.DataArray
            The dataarray for the forcing data, windowed for the sample.
        da_target_times : xr.DataArray
            The dataarray for the target times.
        """
        # Handle indexing over state ensemble members. If forcing data also
        # has an ensemble dimension, we select the same member below.
        sample_idx = idx
        i_ensemble = 0
        assert self.da_state is not None

        if self.datastore.is_ensemble:
            n_ensemble_members = self.da_state.ensemble_member.size
            if not self.load_single_member:
                sample_idx, i_ensemble = divmod(idx, n_ensemble_members)
            da_state = self.da_state.isel(ensemble_member=i_ensemble)
        else:
            da_state = self.da_state

        if self.da_forcing is not None:
            if self.datastore.has_ensemble_forcing:
                da_forcing = self.da_forcing.isel(ensemble_member=i_ensemble)
            else:
                da_forcing = self.da_forcing
        else:
            da_forcing = None

        # handle time sampling in a way that is compatible with both analysis
        # and forecast data
        da_state = self._slice_state_time(
            da_state=da_state, idx=sample_idx, n_steps=self.ar_steps
        )
        if da_forcing is not None:
            da_forcing_windowed = self._slice_forcing_time(
                da_forcing=da_forcing, idx=sample_idx, n_steps=self.ar_steps
            )

        # load the data into memory
        da_state.load()
        if da_forcing is not None:
            da_forcing_windowed.load()

        da_init_states = da_state.isel(time=slice(0, 2))
        da_target_states = da_state.isel(time=slice(2, None))
        da_target_times = da_target_states.time

        if da_forcing is not None:
            # stack the `forcing_feature` and `window_sample` dimensions into a
            # single `forcing_feature` dimension
            da_forcing_windowed = da_forcing_windowed.stack(
                forcing_feature_windowed=("forcing_feature", "window")
            )
        else:
            # create an empty forcing tensor with the right shape
            da_forcing_windowed = xr.DataArray(
                data=np.empty(
                    (self.ar_steps, da_state.grid_index.size, 0),
                ),
                dims=("time", "grid_index", "forcing_feature"),
                coords={
                    "time": da_target_times,
                    "grid_index": da_state.grid_index,
                    "forcing_feature": [],
                },
            )

        return (
            da_init_states,
            da_target_states,
            da_forcing_windowed,
            da_target_times,
        )

    def __getitem__(  # ty: ignore[invalid-method-override]
        self, idx: int
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """
        Return a single training sample, which consists of the initial states,
        target states, forcing and batch times.

        The returned data is unstandardized; normalization is applied on-device
        in `ForecasterModule.on_after_batch_transfer`.

        Parameters
        ----------
        idx : int
            The index of the sample to return, this will refer to the time of
            the initial state. Negative indices follow Python sequence
            convention. Out-of-range indices raise ``IndexError``.

        Returns
        -------
        init_states : torch.Tensor
            Initial states, shape ``(2, num_grid_nodes, num_state_vars)``.
        target_states : torch.Tensor
            Target states, shape ``(ar_steps, num_grid_nodes, num_state_vars)``.
        forcing : torch.Tensor
            Windowed forcing, shape ``(ar_steps, num_grid_nodes, F)`` where
            ``F = num_forcing_vars * (num_past_forcing_steps``
            ``+ num_future_forcing_steps + 1)``.
        target_times : torch.Tensor
            Times of the target steps, shape ``(ar_steps,)``.

        """
        n_samples = len(self)
        if idx < 0:
            idx += n_samples
        if not 0 <= idx < n_samples:
            raise IndexError(
                f"index {idx} out of range for WeatherDataset of length "
                f"{n_samples}"
            )

        (
            da_init_states,
            da_target_states,
            da_forcing_windowed,
            da_target_times,
        ) = self._build_item_dataarrays(idx=idx)

        tensor_dtype = torch.float32

        init_states = torch.tensor(da_init_states.values, dtype=tensor_dtype)
        target_states = torch.tensor(
            da_target_states.values, dtype=tensor_dtype
        )

        target_times = torch.tensor(
            da_target_times.astype("datetime64[ns]").astype("int64").values,
            dtype=torch.int64,
        )

        forcing = torch.tensor(da_forcing_windowed.values, dtype=tensor_dtype)

        # init_states: (2, num_grid_nodes, num_state_vars)
        # target_states: (ar_steps, num_grid_nodes, num_state_vars)
        # forcing: (ar_steps, num_grid_nodes, num_forcing_vars * window)
        # target_times: (ar_steps,)

        return init_states, target_states, forcing, target_times

    def __iter__(
        self,
    ) -> Iterator[
        tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]
    ]:
        """
        Convenience method to iterate over the dataset.

        This isn't used by pytorch DataLoader which itself implements an
        iterator that uses Dataset.__getitem__ and Dataset.__len__.

        """
        for i in range(len(self)):
            yield self[i]

    def create_dataarray_from_tensor(
        self,
        tensor: torch.Tensor,
        time: datetime.datetime | list[datetime.datetime] | np.ndarray,
        category: str,
    ) -> xr.DataArray:
        """
        Construct a xarray.DataArray from a `pytorch.Tensor` with coordinates
        for `grid_index`, `time` and `{category}_feature` matching the shape
        and number of times provided and add the x/y coordinates from the
        datastore.

        The number if times provided is expected to match the shape of the
        tensor. For a 2D tensor, the dimensions are assumed to be (grid_index,
        {category}_feature) and only a single time should be provided. For a 3D
        tensor, the dimensions are assumed to be (time, grid_index,
        {category}_feature) and a list of times should be provided.

        Parameters
        ----------
        tensor : torch.Tensor
            The tensor to construct the DataArray from, this assumed to have
            the same dimension ordering as returned by the __getitem__ method
            (i.e. time, grid_index, {category}_feature). The tensor will be
            copied to the CPU before constructing the DataArray.
        time : datetime.datetime or list[datetime.datetime]
            The time or times of the tensor.
        category : str
            The category of the tensor, either "state", "forcing" or "static".

        Returns
        -------
        da : xr.DataArray
            The constructed DataArray.
        """

        def _is_listlike(obj: object) -> bool:
            """Return ``True`` for list/tuple/ndarray-like containers."""
            return hasattr(obj, "__iter__") and not isinstance(obj, str)

        add_time_as_dim = False
        if len(tensor.shape) == 2:
            dims = ["grid_index", f"{category}_feature"]
            if _is_listlike(time):
                raise ValueError(
                    "Expected a single time for a 2D tensor with assumed "
                    "dimensions (grid_index, {category}_feature), but got "
                    f"{len(time)} times"  # ty: ignore[invalid-argument-type]
                )
        elif len(tensor.shape) == 3:
            add_time_as_dim = True
            dims = ["time", "grid_index", f"{category}_feature"]
            if not _is_listlike(time):
                raise ValueError(
                    "Expected a list of times for a 3D tensor with assumed "
                    "dimensions (time, grid_index, {category}_feature), but "
                    "got a single time"
                )
        else:
            raise ValueError(
                "Expected tensor to have 2 or 3 dimensions, but got "
                f"{len(tensor.shape)}"
            )

        da_datastore_state = getattr(self, f"da_{category}")
        da_grid_index = da_datastore_state.grid_index
        da_state_feature = da_datastore_state.state_feature

        coords = {
            f"{category}_feature": da_state_feature,
            "grid_index": da_grid_index,
        }
        if add_time_as_dim:
            coords["time"] = time

        da = xr.DataArray(
            tensor.cpu().numpy(),
            dims=dims,
            coords=coords,
        )

        for grid_coord in ["x", "y"]:
            if (
                grid_coord in da_datastore_state.coords
                and grid_coord not in da.coords
            ):
                da.coords[grid_coord] = da_datastore_state[grid_coord]

        if not add_time_as_dim:
            da.coords["time"] = time

        return da


class WeatherDataModule(pl.LightningDataModule):
    """DataModule for weather data."""

    def __init__(
        self,
        datastore: BaseDatastore,
        ar_steps_train: int = 3,
        ar_steps_eval: int = 25,
        num_past_forcing_steps: int = 1,
        num_future_forcing_steps: int = 1,
        load_single_member: bool = False,
        batch_size: int = 4,
        num_workers: int = 16,
        eval_split: str = "test",
    ) -> None:
        """
        Parameters
        ----------
        datastore : BaseDatastore
            Datastore used for all splits.
        ar_steps_train : int, optional
            Number of autoregressive steps for training batches. Default ``3``.
        ar_steps_eval : int, optional
            Number of autoregressive steps for validation/test batches.
            Default ``25``.
        num_past_forcing_steps : int, optional
            Number of past forcing steps to include. Default ``1``.
        num_future_forcing_steps : int, optional
            Number of future forcing steps to include. Default ``1``.
        load_single_member : bool, optional
            If ``True``, load only a single ensemble member per sample.
            Default ``False``.
        batch_size : int, optional
            Mini-batch size for dataloaders. Default ``4``.
        num_workers : int, optional
            Number of background workers per dataloader. Default ``16``.
        eval_split : str, optional
            Dataset split to use for ``test_dataloader``. Default ``"test"``.
        """
        super().__init__()
        self._datastore = datastore
        self.num_past_forcing_steps = num_past_forcing_steps
        self.num_future_forcing_steps = num_future_forcing_steps
        self.ar_steps_train = ar_steps_train
        self.ar_steps_eval = ar_steps_eval
        self.load_single_member = load_single_member
        self.batch_size = batch_size
        self.num_workers: int = num_workers
        self.train_dataset: WeatherDataset | None = None
        self.val_dataset: WeatherDataset | None = None
        self.test_dataset: WeatherDataset | None = None
        self.multiprocessing_context: str | None = None
        self.eval_split = eval_split
        if num_workers > 0:
            # default to spawn for now, as the default on linux "fork" hangs
            # when using dask (which the npyfilesmeps datastore uses)
            self.multiprocessing_context = "spawn"

    def setup(self, stage: str | None = None) -> None:
        """
        Instantiate datasets for the requested trainer stage.

        Parameters
        ----------
        stage : str or None, optional
            Trainer stage identifier (``"fit"``/``"test"``/``None``). When
            ``None``, both the training split and the validation/test
            evaluation splits are prepared.
        """
        if stage == "fit" or stage is None:
            self.train_dataset = WeatherDataset(
                datastore=self._datastore,
                split="train",
                ar_steps=self.ar_steps_train,
                num_past_forcing_steps=self.num_past_forcing_steps,
                num_future_forcing_steps=self.num_future_forcing_steps,
                load_single_member=self.load_single_member,
            )
            self.val_dataset = WeatherDataset(
                datastore=self._datastore,
                split="val",
                ar_steps=self.ar_steps_eval,
                num_past_forcing_steps=self.num_past_forcing_steps,
                num_future_forcing_steps=self.num_future_forcing_steps,
                load_single_member=self.load_single_member,
            )

        if stage == "test" or stage is None:
            self.test_dataset = WeatherDataset(
                datastore=self._datastore,
                split=self.eval_split,
                ar_steps=self.ar_steps_eval,
                num_past_forcing_steps=self.num_past_forcing_steps,
                num_future_forcing_steps=self.num_future_forcing_steps,
                load_single_member=self.load_single_member,
            )

    def train_dataloader(self) -> torch.utils.data.DataLoader:
        """Load train dataset."""
        assert self.train_dataset is not None
        return torch.utils.data.DataLoader(
            self.train_dataset,
            batch_size=self.batch_size,
            num_workers=self.num_workers,
            shuffle=True,
            multiprocessing_context=self.multiprocessing_context,
            persistent_workers=self.num_workers > 0,
            pin_memory=torch.cuda.is_available(),
        )

    def val_dataloader(self) -> torch.utils.data.DataLoader:
        """Load validation dataset."""
        assert self.val_dataset is not None
        return torch.utils.data.DataLoader(
            self.val_dataset,
            batch_size=self.batch_size,
            num_workers=self.num_workers,
            shuffle=False,
            multiprocessing_context=self.multiprocessing_context,
            persistent_workers=self.num_workers > 0,
            pin_memory=torch.cuda.is_available(),
        )

    def test_dataloader(self) -> torch.utils.data.DataLoader:
        """Load test dataset."""
        assert self.test_dataset is not None
        return torch.utils.data.DataLoader(
            self.test_dataset,
            batch_size=self.batch_size,
            num_workers=self.num_workers,
            shuffle=False,
            multiprocessing_context=self.multiprocessing_context,
            persistent_workers=self.num_workers > 0,
            pin_memory=torch.cuda.is_available(),
        )
