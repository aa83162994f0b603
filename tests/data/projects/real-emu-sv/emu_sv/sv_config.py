import copy
import logging
import pathlib
from types import MethodType
from typing import Any, ClassVar

from emu_base import DEVICE_COUNT, init_logging
from emu_sv.utils import choose
from emu_sv.dense_state import DenseState
from emu_sv.matrix_operator import MatrixOperator

from emu_sv.custom_callback_implementations import (
    qubit_occupation_sv_impl,
    qubit_occupation_sv_den_mat_impl,
    correlation_matrix_sv_impl,
    correlation_matrix_sv_den_mat_impl,
    energy_second_moment_sv_impl,
    energy_second_moment_den_mat_impl,
    energy_variance_sv_impl,
    energy_variance_sv_den_mat_impl,
)

from pulser.backend import (
    CorrelationMatrix,
    EmulationConfig,
    EnergySecondMoment,
    EnergyVariance,
    Expectation,
    Fidelity,
    Occupation,
)
from emu_sv.solver import Solver


class SVConfig(EmulationConfig):
    """
    The configuration of the emu-sv SVBackend. The kwargs passed to this class
    are passed on to the base class.
    See the API for that class for a list of available options.

    Args:
        dt: the timestep size that the solver uses. Note that observables are
            only calculated if the evaluation_times are divisible by dt.
        max_krylov_dim:
            the size of the krylov subspace that the Lanczos algorithm maximally builds
        krylov_tolerance:
            the Lanczos algorithm uses this as the convergence tolerance
        gpu: whether to run the simulation on GPU
            - if `gpu = True`, use 1 GPU to store the state.
            (causes errors if True when GPU not available)
            - if `gpu = False`, use CPU to run the entire simulation.
            - if `gpu = None` (the default value), the backend internally chooses 1 GPU.
        interaction_cutoff: Set interaction coefficients below this value to `0`.
            Potentially improves runtime and memory consumption.
        log_level: How much to log. Set to `logging.WARN` to get rid of the timestep info.
        log_file: If specified, log to this file rather than stout.
        solver: The solver to use in the presence of Lindblad noise.
            By default it will use Monte Carlo quantum jumps if shot noise is present,
            and the Lindblad equation with density matrices otherwise.
        kwargs: arguments that are passed to the base class

    Examples:
        ```python
        gpu = True
        dt = 1.0 #this will impact the runtime
        krylov_tolerance = 1e-8 #the simulation will be faster, but less accurate
        SVConfig(gpu=gpu, dt=dt, krylov_tolerance=krylov_tolerance,
            with_modulation=True) #the last arg is taken from the base class
        ```
    """

    # Whether to warn if unexpected kwargs are received
    _enforce_expected_kwargs: ClassVar[bool] = True
    _state_type = DenseState
    _operator_type = MatrixOperator

    def __init__(
        self,
        *,
        dt: float = 10.0,
        max_krylov_dim: int = 100,
        krylov_tolerance: float = 1e-10,
        gpu: bool | None = None,
        interaction_cutoff: float = 0.0,
        log_level: int = logging.INFO,
        log_file: pathlib.Path | None = None,
        solver: Solver = Solver.DEFAULT,
        **kwargs: Any,
    ):
        super().__init__(
            solver=solver,
            dt=dt,
            max_krylov_dim=max_krylov_dim,
            gpu=gpu,
            krylov_tolerance=krylov_tolerance,
            interaction_cutoff=interaction_cutoff,
            log_level=log_level,
            log_file=log_file,
            **kwargs,
        )

        self.move_observable_tensors_to_correct_device()
        self.monkeypatch_observables()
        logger = init_logging(log_level, log_file)

        if (self.noise_model.runs != 1 and self.noise_model.runs is not None) or (
            self.noise_model.samples_per_run != 1
            and self.noise_model.samples_per_run is not None
        ):
            logger.warning(
                "Warning: The runs and samples_per_run "
                "values of the NoiseModel are ignored!"
            )

    def _expected_kwargs(self) -> set[str]:
        return super()._expected_kwargs() | {
            "dt",
            "max_krylov_dim",
            "krylov_tolerance",
            "gpu",
            "interaction_cutoff",
            "log_level",
            "log_file",
            "solver",
        }

    def move_observable_tensors_to_correct_device(self) -> None:
        """Observables carry their own tensors, wherever they were created.
        Move them to the device the simulation will run on, copying the
        observable so the objects given by the user are left untouched.
        """
        device = "cuda" if self.gpu is not False and DEVICE_COUNT > 0 else "cpu"

        obs_list = []
        for obs in self.observables:
            if isinstance(obs, Fidelity):
                attr = "state"
            elif isinstance(obs, Expectation):
                attr = "operator"
            else:
                obs_list.append(obs)
                continue

            # pulser's StateRepr/OperatorRepr carry no tensors, so there is nothing
            # to move; a backend casts them to our types and rebuilds the config,
            # which calls this method again on the converted objects
            holder = getattr(obs, attr)
            if (
                isinstance(holder, (DenseState, MatrixOperator))
                and holder.data.device.type != device
            ):
                obs = copy.copy(obs)
                moved = copy.copy(holder)
                moved.data = holder.data.to(device)
                setattr(obs, attr, moved)
            obs_list.append(obs)
        self._backend_options["observables"] = tuple(obs_list)

    def monkeypatch_observables(self) -> None:
        obs_list = []

        for _, obs in enumerate(self.observables):  # monkey patch

            if isinstance(obs, Occupation):
                method = choose(
                    qubit_occupation_sv_impl, qubit_occupation_sv_den_mat_impl
                )
            elif isinstance(obs, CorrelationMatrix):
                method = choose(
                    correlation_matrix_sv_impl, correlation_matrix_sv_den_mat_impl
                )
            elif isinstance(obs, EnergyVariance):
                method = choose(energy_variance_sv_impl, energy_variance_sv_den_mat_impl)
            elif isinstance(obs, EnergySecondMoment):
                method = choose(
                    energy_second_moment_sv_impl, energy_second_moment_den_mat_impl
                )
            else:
                obs_list.append(obs)
                continue

            obs_copy = copy.deepcopy(obs)
            obs_copy.apply = MethodType(method, obs_copy)  # type: ignore[method-assign]
            obs_list.append(obs_copy)
        self._backend_options["observables"] = tuple(obs_list)
