from __future__ import annotations
from typing import Any, Callable, TYPE_CHECKING
import warnings
from collections.abc import Iterable
from types import MappingProxyType
import torch
import deepinv as dinv
from deepinv.optim import optim_iterators as _optim_iterators
from deepinv.optim.optim_iterators import (
    OptimIterator,
    ADMMIteration,
    PGDIteration,
    FISTAIteration,
    PMDIteration,
    CPIteration,
    HQSIteration,
    DRSIteration,
    GDIteration,
    MDIteration,
    MLEMIteration,
    OSEMIteration,
    BSREMIteration,
    SIRTIteration,
    BlindRLIteration,
)
from deepinv.optim.fixed_point import FixedPoint
from deepinv.optim.prior import ZeroPrior, Prior
from deepinv.optim.data_fidelity import (
    DataFidelity,
    PoissonLikelihood,
    StackedPhysicsDataFidelity,
    ZeroFidelity,
)
from deepinv.optim.bregman import Bregman
from deepinv.models import Reconstructor
from deepinv.optim.bregman import BregmanL2
import torch.nn as nn
from contextlib import nullcontext
from dataclasses import dataclass

if TYPE_CHECKING:
    from deepinv.physics import Physics, StackedLinearPhysics
    from deepinv.loss.metric import Metric
    from deepinv.utils import TensorList


@dataclass
class DEQConfig:
    """Configuration parameters for Deep Equilibrium models.

    :param  bool jacobian_free: Whether to use a Jacobian-free backward pass (see :footcite:t:`fung2022jfb`).
    :param  bool anderson_acceleration_backward: Whether to use Anderson acceleration for solving the backward equilibrium.
    :param  int history_size_backward: Number of past iterates used in Anderson acceleration for the backward pass.
    :param  float beta_backward: Momentum coefficient in Anderson acceleration for the backward pass.
    :param  float eps_backward: Regularization parameter for Anderson acceleration in the backward pass.
    :param  int max_iter_backward: Maximum number of iterations in the backward equilibrium solver.
    """

    jacobian_free: bool = False
    anderson_acceleration_backward: bool = False
    history_size_backward: int = 5
    beta_backward: float = 1.0
    eps_backward: float = 1e-4
    max_iter_backward: int = 50


@dataclass
class AndersonAccelerationConfig:
    """Configuration parameters for Anderson acceleration of a fixed-point algorithm.

    :param  int history_size: Number of past iterates used in Anderson acceleration.
    :param  float beta: Momentum coefficient in Anderson acceleration.
    :param  float eps: Regularization parameter for Anderson acceleration.
    :param  bool full_backprop: Compute backpropagation through all iterates of Anderson acceleration instead of the last iterate only. Default: ``False``.
    """

    history_size: int = 10
    beta: float = 0.9
    eps: float = 0.1
    full_backprop: bool = False


@dataclass
class BacktrackingConfig:
    """Configuration parameters for backtracking line search on the stepsize.

    :param  float gamma: Armijo-like parameter (controls sufficient decrease).
    :param  float eta: Step reduction factor (e.g. multiply step by eta on failure).
    :param  int max_iter: Maximum number of backtracking steps.
    """

    gamma: float = 0.1
    eta: float = 0.9
    max_iter: int = 20


class BaseOptim(Reconstructor):
    r"""
    Class for optimization algorithms, consists in iterating a fixed-point operator.

    Module solving the problem

    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}


    where the first term :math:`\datafidname:\xset\times\yset \mapsto \mathbb{R}_{+}` enforces data-fidelity, the second
    term :math:`\regname:\xset\mapsto \mathbb{R}_{+}` acts as a regularization and
    :math:`\lambda > 0` is a regularization parameter. More precisely, the data-fidelity term penalizes the discrepancy
    between the data :math:`y` and the forward operator :math:`A` applied to the variable :math:`x`, as

    .. math::
        \datafid{x}{y} = \distance{Ax}{y}

    where :math:`\distance{\cdot}{\cdot}` is a distance function, and where :math:`A:\xset\mapsto \yset` is the forward
    operator (see :class:`deepinv.physics.Physics`)

    Optimization algorithms for minimising the problem above can be written as fixed point algorithms,
    i.e. for :math:`k=1,2,...`

    .. math::
        \qquad (x_{k+1}, z_{k+1}) = \operatorname{FixedPoint}(x_k, z_k, f, g, A, y, ...)


    where :math:`x_k` is a variable converging to the solution of the minimization problem, and
    :math:`z_k` is an additional "dual" variable that may be required in the computation of the fixed point operator.

    If the algorithm is minimizing an explicit and fixed cost function :math:`F(x) =  \datafid{x}{y} + \lambda \reg{x}`,
    the value of the cost function is computed along the iterations and can be used for convergence criterion.
    Moreover, backtracking can be used to adapt the stepsize at each iteration. Backtracking consists in choosing
    the largest stepsize :math:`\tau` such that, at each iteration, sufficient decrease of the cost function :math:`F` is achieved.
    More precisely, Given :math:`\gamma \in (0,1/2)` and :math:`\eta \in (0,1)` and an initial stepsize :math:`\tau > 0`,
    the following update rule is applied at each iteration :math:`k`:

    .. math::
        \text{ while } F(x_k) - F(x_{k+1}) < \frac{\gamma}{\tau} || x_{k-1} - x_k ||^2, \,\, \text{ do } \tau \leftarrow \eta \tau

    .. note::
        To use backtracking, the optimized function (i.e., both the the data-fidelity and prior) must be explicit and provide a computable cost for the current iterate.
        If the prior is not explicit (e.g. a denoiser) or if the argument ``has_cost`` is set to ``False``, backtracking is automatically disabled.

    The variable ``params_algo`` is a dictionary containing all the relevant parameters for running the algorithm.
    If the value associated with the key is a float, the algorithm will use the same parameter across all iterations.
    If the value is list of length max_iter, the algorithm will use the corresponding parameter at each iteration.

    By default, the intial iterates are initialized with the adjoint applied to the measurement :math:`A^{\top}y`, when the adjoint is defined, and with the observation :math:`y` if the adjoint is not defined.
    Custom initialization can be defined with the ``custom_init`` class argument or via ``init`` argument in the ``forward`` method.

    The variable ``data_fidelity`` is a list of instances of :class:`deepinv.optim.DataFidelity` (or a single instance).
    If a single instance, the same data-fidelity is used at each iteration. If a list, the data-fidelity can change at each iteration.
    The same holds for the variable ``prior`` which is a list of instances of :class:`deepinv.optim.Prior` (or a single instance).

    Setting ``unfold`` to ``True`` enables to turn this iterative optimization algorithm into an unfolded algorithm, i.e. an algorithm
    that can be trained end-to-end, with learnable parameters. These learnable parameters encompass the trainable parameters of the algorithm which
    can be chosen with the ``trainable_params`` argument
    (e.g. ``stepsize`` :math:`\gamma`, regularization parameter ``lambda_reg`` :math:`\lambda`, prior parameter (``g_param`` or ``sigma_denoiser``) :math:`\sigma` ...)
    but also the trainable priors (e.g. a deep denoiser) or forward models.

    If ``DEQ`` is set to ``True``, the algorithm is unfolded as a Deep Equilibrium model, i.e. the algorithm is virtually unrolled infinitely, leveraging the implicit function theorem.
    The backward pass is then performed using fixed point iterations to find solutions of the fixed-point equation

    .. math::

        \begin{equation}
        v = \left(\frac{\partial \operatorname{FixedPoint}(x^\star)}{\partial x^\star} \right )^{\top} v + u.
        \end{equation}

    where :math:`u` is the incoming gradient from the backward pass,
    and :math:`x^\star` is the equilibrium point of the forward pass. See `this tutorial <http://implicit-layers-tutorial.org/deep_equilibrium_models/>`_ for more details.

    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are tranable by default.

    .. note::

        For now DEQ is only possible with PGD, HQS and GD optimization algorithms.
        If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    .. doctest::

        >>> import deepinv as dinv
        >>> # This minimal example shows how to use the BaseOptim class to solve the problem
        >>> #                min_x 0.5  ||Ax-y||_2^2 + \lambda ||x||_1
        >>> # with the PGD algorithm, where A is the identity operator, lambda = 1 and y = [2, 2].
        >>>
        >>> # Create the measurement operator A
        >>> A = torch.tensor([[1, 0], [0, 1]], dtype=torch.float64)
        >>> A_forward = lambda v: A @ v
        >>> A_adjoint = lambda v: A.transpose(0, 1) @ v
        >>>
        >>> # Define the physics model associated to this operator
        >>> physics = dinv.physics.LinearPhysics(A=A_forward, A_adjoint=A_adjoint)
        >>>
        >>> # Define the measurement y
        >>> y = torch.tensor([2, 2], dtype=torch.float64)
        >>>
        >>> # Define the data fidelity term
        >>> data_fidelity = dinv.optim.data_fidelity.L2()
        >>>
        >>> # Define the prior
        >>> prior = dinv.optim.Prior(g = lambda x, *args: torch.linalg.vector_norm(x, ord=1, dim=tuple(range(1, x.ndim))))
        >>>
        >>> # Define the parameters of the algorithm
        >>> params_algo = {"stepsize": 0.5, "lambda": 1.0}
        >>>
        >>> # Define the fixed-point iterator
        >>> iterator = dinv.optim.optim_iterators.PGDIteration()
        >>>
        >>> # Define the optimization algorithm
        >>> optimalgo = dinv.optim.BaseOptim(iterator,
        ...                     data_fidelity=data_fidelity,
        ...                     params_algo=params_algo,
        ...                     prior=prior)
        >>>
        >>> # Run the optimization algorithm
        >>> with torch.no_grad(): xhat = optimalgo(y, physics)
        >>> print(xhat)
        tensor([1., 1.], dtype=torch.float64)


    :param deepinv.optim.OptimIterator iterator: Fixed-point iterator of the optimization algorithm of interest.
    :param dict params_algo: dictionary containing all the relevant parameters for running the algorithm,
        e.g. the stepsize, regularization parameter, denoising standard deviation.
        Each value of the dictionary can be either Iterable (distinct value for each iteration) or
        a single float (same value for each iteration).
        Default: ``{"stepsize": 1.0, "lambda": 1.0}``. See :any:`optim-params` for more details.
    :param deepinv.optim.DataFidelity, list[deepinv.optim.DataFidelity] data_fidelity: data-fidelity term.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param deepinv.optim.Prior, list[deepinv.optim.Prior] prior: regularization prior.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: 100.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: value of the threshold for claiming convergence. Default: ``1e-05``.
    :param bool early_stop: whether to stop the algorithm once the convergence criterion is reached. Default: ``True``.
    :param bool has_cost: whether the algorithm has an explicit cost function or not. Default: `False`.
        If the prior is not explicit (e.g. a denoiser) ``prior.explicit_prior = False``, then ``has_cost`` is automatically set to ``False``.
    :param dict[str, deepinv.loss.metric.Metric] custom_metrics: dictionary containing custom metrics to be computed at each iteration.
    :param BacktrackingConfig, bool backtracking: configuration for using a backtracking line-search strategy for automatic stepsize adaptation.
        If ``None`` (default) or ``False``, stepsize backtracking is disabled. Otherwise, ``backtracking`` must be an instance of :class:`deepinv.optim.BacktrackingConfig`, which defines the parameters for backtracking line-search.
        If ``True``, the default ``BacktrackingConfig`` is used.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:

        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.

        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method.

        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param Callable get_output:  Custom output of the algorithm.
        The callable function ``get_output(X)`` takes as input the dictionary ``X`` containing the primal and auxiliary variables and returns the desired output. Default : ``X['est'][0]``.
    :param bool unfold: whether to unfold the algorithm and make the model parameters trainable. Default: ``False``.
    :param list[str] trainable_params: list of the algorithmic parameters to be made trainable (must be chosen among the keys of the dictionary ``params_algo``).
        Default: ``None``, which means that all parameters in params_algo are trainable. For no trainable parameters, set to an empty list ``[]``.
    :param DEQConfig, bool DEQ: Configuration for a Deep Equilibrium (DEQ) unfolding strategy.
        DEQ algorithms are virtually unrolled infinitely, leveraging the implicit function theorem.
        If ``None`` (default) or ``False``, DEQ is disabled and the algorithm runs a standard finite number of iterations.
        Otherwise, ``DEQ`` must be an instance of :class:`deepinv.optim.DEQConfig`, which defines the parameters
        for forward and backward equilibrium-based implicit differentiation.
        If ``True``, the default ``DEQConfig`` is used.
    :param AndersonAccelerationConfig, bool anderson_acceleration: Configuration of Anderson acceleration for the fixed-point iterations.
        If ``None`` (default) or ``False``, Anderson acceleration is disabled.
        Otherwise, ``anderson_acceleration`` must be an instance of :class:`deepinv.optim.AndersonAccelerationConfig`, which defines the parameters for Anderson acceleration.
        If ``True``, the default ``AndersonAccelerationConfig`` is used.
    :param bool verbose: whether to print relevant information of the algorithm during its run,
        such as convergence criterion at each iterate. Default: ``False``.
    :param bool show_progress_bar: show progress bar during optimization.
    :return: a torch model that solves the optimization problem.
    """

    def __init__(
        self,
        iterator: OptimIterator,
        params_algo: dict[str, float | Iterable] = MappingProxyType(
            {"lambda": 1.0, "stepsize": 1.0}
        ),
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        has_cost: bool = False,
        backtracking: BacktrackingConfig | bool = None,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        get_output: Callable[[dict], torch.Tensor] = lambda X: X["est"][0],
        unfold: bool = False,
        trainable_params: list[str] = None,
        DEQ: DEQConfig | bool = None,
        anderson_acceleration: AndersonAccelerationConfig | bool = False,
        verbose: bool = False,
        show_progress_bar: bool = False,
        **kwargs,
    ):
        super(BaseOptim, self).__init__()

        self.early_stop = early_stop
        self.crit_conv = crit_conv
        self.verbose = verbose
        self.show_progress_bar = show_progress_bar
        self.max_iter = max_iter
        if isinstance(backtracking, bool):
            self.backtracking = backtracking
            self.backtracking_config = BacktrackingConfig() if backtracking else None
        else:
            self.backtracking = backtracking is not None
            self.backtracking_config = backtracking or BacktrackingConfig()
        self.has_converged = False
        self.thres_conv = thres_conv
        self.custom_metrics = custom_metrics
        self.custom_init = custom_init
        self.get_output = get_output
        self.has_cost = has_cost
        self.unfold = unfold
        if isinstance(DEQ, bool):
            self.DEQ = DEQ
            self.DEQ_config = DEQConfig() if DEQ else None
        else:
            self.DEQ = DEQ is not None
            self.DEQ_config = DEQ or DEQConfig()
        if isinstance(anderson_acceleration, bool):
            self.anderson_acceleration_config = (
                AndersonAccelerationConfig() if anderson_acceleration else None
            )
        else:
            self.anderson_acceleration_config = anderson_acceleration

        # By default, ``self.prior`` should be a list of elements of the class :meth:`deepinv.optim.Prior`. The user could want the prior to change at each iteration. If no prior is given, we set it to a zero prior.
        if prior is None:
            self.prior = [ZeroPrior()]
        elif not isinstance(prior, Iterable):
            self.prior = [prior]
        else:
            self.prior = prior

        # By default, ``self.data_fidelity`` should be a list of elements of the class :meth:`deepinv.optim.DataFidelity`. The user could want the data-fidelity to change at each iteration.
        if data_fidelity is None:
            self.data_fidelity = [ZeroFidelity()]
        elif not isinstance(data_fidelity, Iterable):
            self.data_fidelity = [data_fidelity]
        else:
            self.data_fidelity = data_fidelity

        self.has_cost = (
            self.prior[0].explicit_prior
            if isinstance(self.prior, list)
            else self.prior.explicit_prior
        )
        iterator.has_cost = self.has_cost

        if isinstance(params_algo, MappingProxyType):
            params_algo = params_algo.copy()

        # By default ``params_algo`` should contain a prior parameter named ``g_param`` or ``sigma_denoiser``, set by default to ``None``.
        if "g_param" not in params_algo.keys():
            if "sigma_denoiser" in params_algo.keys():
                params_algo["g_param"] = params_algo.pop("sigma_denoiser")
            else:
                params_algo["g_param"] = None

        # By default ``params_algo`` should contain a regularization parameter ``lambda`` parameter, which multiplies the prior term ``g``. It is set by default to ``1``.
        if "lambda" not in params_algo.keys():
            if "lambda_reg" in params_algo.keys():
                params_algo["lambda"] = params_algo.pop("lambda_reg")
            else:
                params_algo["lambda"] = 1.0

        # By default ``params_algo`` should contain a relaxation ``beta`` parameter, set by default to 1..
        if "beta" not in params_algo.keys():
            params_algo["beta"] = 1.0

        # By default, each parameter in ``params_algo` is a list.
        # If given as a single number, we convert it to a list of 1 element.
        # If given as a list of more than 1 element, it should have lenght ``max_iter``.
        for key, value in params_algo.items():
            if not isinstance(value, Iterable):
                params_algo[key] = [value]
            else:
                if len(params_algo[key]) > 1 and len(params_algo[key]) < self.max_iter:
                    raise ValueError(
                        f"The number of elements in the parameter {key} is inferior to max_iter."
                    )
        # If ``stepsize`` is a list of more than 1 element, backtracking is impossible.
        if (
            "stepsize" in params_algo.keys()
            and len(params_algo["stepsize"]) > 1
            and self.backtracking
        ):
            self.backtracking = None
            warnings.warn(
                "Backtracking impossible when stepsize is predefined as a list. Setting backtracking to False."
            )
        # If no cost function, backtracking is impossible.
        if not self.has_cost and self.backtracking:
            self.backtracking = None
            warnings.warn(
                "Backtracking impossible when no cost function is given. Setting backtracking to False."
            )

        # keep track of initial parameters in case they are changed during optimization (e.g. backtracking)
        self.init_params_algo = params_algo

        # set trainable parameters
        if self.unfold or self.DEQ:
            if trainable_params is not None:
                if "lambda_reg" in trainable_params:
                    trainable_params[trainable_params.index("lambda_reg")] = "lambda"
                if "sigma_denoiser" in trainable_params:
                    trainable_params[trainable_params.index("sigma_denoiser")] = (
                        "g_param"
                    )
            else:
                trainable_params = params_algo.keys()
            for param_key in trainable_params:
                if param_key in self.init_params_algo.keys():
                    param_value = self.init_params_algo[param_key]
                    self.init_params_algo[param_key] = nn.ParameterList(
                        [
                            (
                                nn.Parameter(torch.tensor(el).float())
                                if not isinstance(el, torch.Tensor)
                                else nn.Parameter(el.float())
                            )
                            for el in param_value
                        ]
                    )
            self.params_algo = nn.ParameterDict(self.init_params_algo)
            self.init_params_algo = self.params_algo.copy()
            # The prior (list of instances of :class:`deepinv.optim.Prior`), data_fidelity and bremgna_potentials are converted to a `nn.ModuleList` to be trainable.
            self.prior = nn.ModuleList(self.prior) if self.prior else None
            self.data_fidelity = (
                nn.ModuleList(self.data_fidelity) if self.data_fidelity else None
            )

        # Initialize the fixed-point module
        self.fixed_point = FixedPoint(
            iterator=iterator,
            update_params_fn=self.update_params_fn,
            update_data_fidelity_fn=self.update_data_fidelity_fn,
            update_prior_fn=self.update_prior_fn,
            backtracking_check_fn=self.backtracking_check_fn,
            check_conv_fn=self.check_conv_fn,
            init_metrics_fn=self.init_metrics_fn,
            init_iterate_fn=self.init_iterate_fn,
            update_metrics_fn=self.update_metrics_fn,
            max_iter=max_iter,
            early_stop=early_stop,
            anderson_acceleration_config=self.anderson_acceleration_config,
            backtracking_config=self.backtracking_config,
            verbose=self.verbose,
            show_progress_bar=self.show_progress_bar,
        )

        from deepinv.loss.metric.distortion import PSNR

        self.psnr = PSNR()

    def update_params_fn(self, it: int) -> dict[str, float | Iterable]:
        r"""
        For each parameter ``params_algo``, selects the parameter value for iteration ``it``
        (if this parameter depends on the iteration number).

        :param int it: iteration number.
        :return: a dictionary containing the parameters at iteration ``it``.
        """
        cur_params_dict = {
            key: value[it] if len(value) > 1 else value[0]
            for key, value in self.params_algo.items()
        }
        return cur_params_dict

    def update_prior_fn(self, it: int) -> Prior:
        r"""
        For each prior function in `prior`, selects the prior value for iteration ``it``
        (if this prior depends on the iteration number).

        :param int it: iteration number.
        :return: the prior at iteration ``it``.
        """
        cur_prior = self.prior[it] if len(self.prior) > 1 else self.prior[0]
        return cur_prior

    def update_data_fidelity_fn(self, it: int) -> DataFidelity:
        r"""
        For each data_fidelity function in `data_fidelity`, selects the data_fidelity value for iteration ``it``
        (if this data_fidelity depends on the iteration number).

        :param int it: iteration number.
        :return: the data_fidelity at iteration ``it``.
        """
        cur_data_fidelity = (
            self.data_fidelity[it]
            if len(self.data_fidelity) > 1
            else self.data_fidelity[0]
        )
        return cur_data_fidelity

    def init_iterate_fn(
        self,
        y: torch.Tensor,
        physics: Physics,
        init: (
            Callable[
                [torch.Tensor, Physics], Iterable[torch.Tensor] | torch.Tensor | dict
            ]
            | Iterable[torch.Tensor]
            | torch.Tensor
            | dict
        ) = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float | Iterable],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
    ) -> dict:
        r"""
        Initializes the iterate of the algorithm.
        The first iterate is stored in a dictionary of the form ``X = {'est': (x_0, u_0), 'cost': F_0}`` where:

            * ``est`` is a tuple containing the first primal and auxiliary iterates.
            * ``cost`` is the value of the cost function at the first iterate.

        By default, the first (primal and dual) iterate of the algorithm is chosen as :math:`A^{\top}y` when the adjoint is defined, and with the observation `y` if the adjoint is not defined.
        A custom initialization is possible via the ``custom_init`` class argument or via the ``init`` argument.

        :param torch.Tensor y: measurement vector.
        :param deepinv.physics: physics of the problem.
        :param Callable, torch.Tensor, tuple, dict init:  initialization of the algorithm.
            Either a Callable function of the form ``init(y, physics)`` or a fixed torch.Tensor initialization.
            The output of the function or the fixed initialization can be either:

            - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
            - a :class:`torch.Tensor` :math:`x_0` (if no dual variables :math:`z_0` are used), or
            - a dictionary of the form ``X = {'est': (x_0, z_0)}``.

        :param Callable cost_fn:  function that computes the cost function.
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
        :return: a dictionary containing the first iterate of the algorithm.
        """
        # reset params to initial values
        self.params_algo = self.init_params_algo.copy()
        init = init if init is not None else self.custom_init
        if init is not None:
            if callable(init):
                init = init(y, physics)
            if isinstance(init, torch.Tensor):
                init_X = {"est": (init,)}
            elif isinstance(init, tuple):
                init_X = {"est": init}
            elif isinstance(init, dict):
                init_X = init
            else:
                raise ValueError(
                    f"Custom initial iterate must be a torch.Tensor, a tuple, or a dict. Got {type(self.custom_init)}."
                )
        else:
            x_init, z_init = physics.A_adjoint(y), physics.A_adjoint(y)
            init_X = {"est": (x_init, z_init)}
        F = (
            cost_fn(
                init_X["est"][0],
                self.update_data_fidelity_fn(0),
                self.update_prior_fn(0),
                self.update_params_fn(0),
                y,
                physics,
            )
            if self.has_cost and cost_fn is not None
            else None
        )
        init_X["cost"] = F
        return init_X

    def init_metrics_fn(
        self, X_init: dict[str, list[list[float]]], x_gt: torch.Tensor = None
    ) -> dict[str, list]:
        r"""
        Initializes the metrics.

        Metrics are computed for each batch and for each iteration.
        They are represented by a list of list, and ``metrics[metric_name][i,j]`` contains the metric ``metric_name``
        computed for batch i, at iteration j.

        :param dict X_init: dictionary containing the primal and auxiliary initial iterates.
        :param torch.Tensor x_gt: ground truth image, required for PSNR computation. Default: ``None``.
        :return dict: A dictionary containing the metrics.
        """
        init = {}
        x_init = self.get_output(X_init)
        self.batch_size = x_init.shape[0]

        if x_gt is not None:
            psnr = [
                [self.psnr(x_init[i : i + 1], x_gt[i : i + 1]).cpu().item()]
                for i in range(self.batch_size)
            ]
        else:
            psnr = [[] for i in range(self.batch_size)]
        init["psnr"] = psnr
        if self.has_cost:
            init["cost"] = [[] for i in range(self.batch_size)]
        init["residual"] = [[] for i in range(self.batch_size)]
        if self.custom_metrics is not None:
            for custom_metric_name in self.custom_metrics.keys():
                init[custom_metric_name] = [[] for i in range(self.batch_size)]
        return init

    def update_metrics_fn(
        self,
        metrics: dict[str, list[list[float]]],
        X_prev: dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
        X: dict[str, torch.Tensor] | dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
        x_gt: torch.Tensor = None,
    ) -> dict[str, list]:
        r"""
        Function that compute all the metrics, across all batches, for the current iteration.

        :param dict metrics: dictionary containing the metrics. Each metric is computed for each batch.
        :param dict X_prev: dictionary containing the primal and dual previous iterates.
        :param dict X: dictionary containing the current primal and dual iterates.
        :param torch.Tensor x_gt: ground truth image, required for PSNR computation. Default: None.
        :return dict: a dictionary containing the updated metrics.
        """
        if metrics is not None:
            x_prev = self.get_output(X_prev)
            x = self.get_output(X)
            for i in range(self.batch_size):
                residual = (
                    ((x_prev[i] - x[i]).norm() / (x[i].norm() + 1e-06))
                    .detach()
                    .cpu()
                    .item()
                )
                metrics["residual"][i].append(residual)
                if x_gt is not None:
                    psnr = self.psnr(x[i : i + 1], x_gt[i : i + 1])
                    metrics["psnr"][i].append(psnr.cpu().item())
                if self.has_cost:
                    F = X["cost"][i]
                    metrics["cost"][i].append(F.detach().cpu().item())
                if self.custom_metrics is not None:
                    for (
                        custom_metric_name,
                        custom_metric_fn,
                    ) in self.custom_metrics.items():
                        metrics[custom_metric_name][i].append(
                            custom_metric_fn(
                                metrics[custom_metric_name], x_prev[i], x[i]
                            )
                        )
        return metrics

    def backtracking_check_fn(
        self,
        X_prev: dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
        X: dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
    ) -> bool:
        r"""
        Performs stepsize backtracking if the sufficient decrease condition is not verified.

        :param dict X_prev: dictionary containing the primal and dual previous iterates.
        :param dict X: dictionary containing the current primal and dual iterates.
        """
        if self.backtracking and self.has_cost and X_prev is not None:
            x_prev = X_prev["est"][0]
            x = X["est"][0]
            x_prev = x_prev.reshape((x_prev.shape[0], -1))
            x = x.reshape((x.shape[0], -1))
            F_prev, F = X_prev["cost"], X["cost"]
            diff_F, diff_x = (
                (F_prev - F).mean(),
                torch.linalg.vector_norm(x - x_prev, dim=-1, ord=2).pow(2).mean(),
            )
            stepsize = self.params_algo["stepsize"][0]
            if diff_F < (self.backtracking_config.gamma / stepsize) * diff_x:
                backtracking_check = False
                self.params_algo["stepsize"] = [self.backtracking_config.eta * stepsize]
                if self.verbose:
                    print(
                        f'Backtracking : new stepsize = {self.params_algo["stepsize"][0]:.6f}'
                    )
            else:
                backtracking_check = True
            return backtracking_check
        else:
            return True

    def check_conv_fn(
        self,
        it: int,
        X_prev: dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
        X: dict[str, torch.Tensor | tuple[torch.Tensor, ...]],
    ) -> bool:
        r"""
        Checks the convergence of the algorithm.

        :param int it: iteration number.
        :param dict X_prev: dictionary containing the primal and dual previous iterates.
        :param dict X: dictionary containing the current primal and dual iterates.
        :return bool: ``True`` if the algorithm has converged, ``False`` otherwise.
        """
        if self.crit_conv == "residual":
            x_prev = self.get_output(X_prev)
            x = self.get_output(X)
            x_prev = x_prev.reshape((x_prev.shape[0], -1))
            x = x.reshape((x.shape[0], -1))
            crit_cur = (
                (x_prev - x).norm(p=2, dim=-1) / (x.norm(p=2, dim=-1) + 1e-06)
            ).mean()
        elif self.crit_conv == "cost":
            F_prev = X_prev["cost"]
            F = X["cost"]
            crit_cur = ((F_prev - F).norm(dim=-1) / (F.norm(dim=-1) + 1e-06)).mean()
        else:
            raise ValueError("convergence criteria not implemented")
        if crit_cur < self.thres_conv:
            self.has_converged = True
            if self.verbose:
                print(
                    f"Iteration {it}, current converge crit. = {crit_cur:.2E}, objective = {self.thres_conv:.2E} \r"
                )
            return True
        else:
            return False

    def DEQ_additional_step(
        self, X: dict[str, Any], y: torch.Tensor, physics: Physics, **kwargs
    ):
        r"""
        For Deep Equilibrium models, performs an additional step at the equilibrium point
        to compute the gradient of the fixed point operator with respect to the input.

        :param dict X: dictionary defining the current update at the equilibrium point.
        :param torch.Tensor y: measurement vector.
        :param deepinv.physics.Physics physics: physics of the problem for the acquisition of ``y``.
        """

        # Once, at the equilibrium point, performs one additional iteration with gradient tracking.
        cur_data_fidelity = (
            self.update_data_fidelity_fn(self.max_iter - 1)
            if self.update_data_fidelity_fn
            else None
        )
        cur_prior = (
            self.update_prior_fn(self.max_iter - 1) if self.update_prior_fn else None
        )
        cur_params = (
            self.update_params_fn(self.max_iter - 1) if self.update_params_fn else None
        )
        x = self.fixed_point.iterator(
            X, cur_data_fidelity, cur_prior, cur_params, y, physics, **kwargs
        )["est"][0]

        if not self.DEQ_config.jacobian_free:
            # Another iteration for jacobian computation via automatic differentiation.
            x0 = x.clone().detach().requires_grad_()
            f0 = self.fixed_point.iterator(
                {"est": (x0,)},
                cur_data_fidelity,
                cur_prior,
                cur_params,
                y,
                physics,
                **kwargs,
            )["est"][0]

            # Add a backwards hook that takes the incoming backward gradient `X["est"][0]` and solves the fixed point equation
            def backward_hook(grad):
                class backward_iterator(OptimIterator):
                    def __init__(self, **kwargs):
                        super().__init__(**kwargs)

                    def forward(self, X, *args, **kwargs):
                        return {
                            "est": (
                                torch.autograd.grad(
                                    f0, x0, X["est"][0], retain_graph=True
                                )[0]
                                + grad,
                            )
                        }

                # Use the :class:`deepinv.optim.fixed_point.FixedPoint` class to solve the fixed point equation
                def init_iterate_fn(y, physics, init=None, cost_fn=None):
                    return {"est": (grad,)}  # initialize the fixed point algorithm.

                if self.DEQ_config.anderson_acceleration_backward:
                    anderson_acceleration_config = AndersonAccelerationConfig(
                        self.DEQ_config.history_size_backward,
                        self.DEQ_config.beta_backward,
                        self.DEQ_config.eps_backward,
                    )
                else:
                    anderson_acceleration_config = None

                backward_FP = FixedPoint(
                    backward_iterator(),
                    init_iterate_fn=init_iterate_fn,
                    max_iter=self.DEQ_config.max_iter_backward,
                    check_conv_fn=self.check_conv_fn,
                    anderson_acceleration_config=anderson_acceleration_config,
                )
                g = backward_FP({"est": (grad,)}, None)[0]["est"][0]
                return g

            if x.requires_grad:
                x.register_hook(backward_hook)

        return x

    def forward(
        self,
        y: torch.Tensor,
        physics: Physics,
        init: (
            Callable[
                [torch.Tensor, Physics], Iterable[torch.Tensor] | torch.Tensor | dict
            ]
            | Iterable[torch.Tensor]
            | torch.Tensor
            | dict
        ) = None,
        x_gt: torch.Tensor = None,
        compute_metrics: bool = False,
        **kwargs,
    ):
        r"""
        Runs the fixed-point iteration algorithm for solving :ref:`(1) <optim>`.

        :param torch.Tensor y: measurement vector.
        :param deepinv.physics.Physics physics: physics of the problem for the acquisition of ``y``.
        :param Callable, torch.Tensor, tuple, dict init:  initialization of the algorithm. Default: ``None``.
            if ``None`` (and the class ``custom_init``argument is ``None``), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined, and with the observation `y` if the adjoint is not defined.
            ``init`` can be either a fixed initialization or a Callable function of the form ``init(y, physics)`` that takes as input
            the measurement :math:`y` and the physics ``physics``. The output of the function or the fixed initialization can be either:

            - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
            - a :class:`torch.Tensor` :math:`x_0` (if no dual variables :math:`z_0` are used), or
            - a dictionary of the form ``X = {'est': (x_0, z_0)}``.

            Note that custom initialization can also be defined via the ``custom_init`` class argument.
        :param torch.Tensor x_gt: (optional) ground truth image, for plotting the PSNR across optim iterations.
        :param bool compute_metrics: whether to compute the metrics or not. Default: ``False``.
        :param kwargs: optional keyword arguments for the optimization iterator (see :class:`deepinv.optim.OptimIterator`)
        :return: If ``compute_metrics`` is ``False``,  returns (:class:`torch.Tensor`) the output of the algorithm. Else, returns (torch.Tensor, dict) the output of the algorithm and the metrics.
        """
        train_context = (
            torch.no_grad() if not self.unfold or self.DEQ else nullcontext()
        )
        with train_context:
            X, metrics = self.fixed_point(
                y,
                physics,
                init=init,
                x_gt=x_gt,
                compute_metrics=compute_metrics,
                **kwargs,
            )
        if self.DEQ:
            x = self.DEQ_additional_step(X, y, physics, **kwargs)
        else:
            x = self.get_output(X)
        if compute_metrics:
            return x, metrics
        else:
            return x


def create_iterator(
    iteration: OptimIterator,
    prior: Prior | list[Prior] = None,
    cost_fn: (
        Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ]
        | None
    ) = None,
    g_first: bool = False,
    bregman_potential: Bregman = None,
    **kwargs,
) -> OptimIterator:
    r"""
    Helper function for creating an iterator, instance of the :class:`deepinv.optim.OptimIterator` class,
    corresponding to the chosen minimization algorithm.

    :param str, deepinv.optim.OptimIterator iteration: either the name of the algorithm to be used,
        or directly an optim iterator.
        If an algorithm name (string), should be either ``"GD"`` (gradient descent), ``"PGD"`` (proximal gradient descent), ``"ADMM"`` (ADMM),
        ``"HQS"`` (half-quadratic splitting), ``"PDCP"`` (Primal-Dual Chambolle-Pock),  ``"DRS"`` (Douglas Rachford), ``"MD"`` (Mirror Descent) or ``"PMD"`` (Proximal Mirror Descent).
    :param list, deepinv.optim.Prior: regularization prior.
                            Either a single instance (same prior for each iteration) or a list of instances of
                            deepinv.optim.Prior (distinct prior for each iteration). Default: ``None``.
    :param Callable cost_fn: Custom user input cost function.
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param bool g_first: whether to perform the step on :math:`g` before that on :math:`f` before or not. Default: False
    :param deepinv.optim.Bregman bregman_potential: Bregman potential used for Bregman optimization algorithms such as Mirror Descent. Default: ``None``, uses standard Euclidean optimization.
    """
    if "F_fn" in kwargs:
        F_fn = kwargs.pop("F_fn")
        warnings.warn(
            "`F_fn` is deprecated and will be removed in a future release. "
            "Use `cost_fn` instead.",
            DeprecationWarning,
        )
        cost_fn = F_fn
    # If no prior is given, we set it to a zero prior.
    if prior is None:
        prior = ZeroPrior()
    # If no custom objective function cost_fn is given but g is explicitly given, we have an explicit objective function.
    explicit_prior = (
        prior[0].explicit_prior if isinstance(prior, list) else prior.explicit_prior
    )
    if cost_fn is None and explicit_prior:

        def cost_fn(x, data_fidelity, prior, cur_params, y, physics):
            prior_value = prior(x, cur_params["g_param"], reduce=False)
            if prior_value.dim() == 0:
                reg_value = cur_params["lambda"] * prior_value
            else:
                if isinstance(cur_params["lambda"], float):
                    reg_value = (cur_params["lambda"] * prior_value).sum()
                else:
                    reg_value = (
                        cur_params["lambda"].flatten(1, -1).to(prior_value.device)
                        * prior_value.flatten(1, -1)
                    ).sum()
            return data_fidelity(x, y, physics) + reg_value

        has_cost = True  # boolean to indicate if there is a cost function to evaluate along the iterations
    else:
        has_cost = False
    # Create an instance of :class:`deepinv.optim.OptimIterator`.
    if isinstance(
        iteration, str
    ):  # If the name of the algorithm is given as a string, the correspondong class is automatically called.
        iterator_fn = str_to_class(iteration + "Iteration")
        return iterator_fn(
            g_first=g_first,
            cost_fn=cost_fn,
            has_cost=has_cost,
            bregman_potential=bregman_potential,
        )
    else:
        # If the iteration is directly given as an instance of OptimIterator, nothing to do
        return iteration


def optim_builder(
    iteration: str | OptimIterator,
    max_iter: int = 100,
    params_algo: dict[str, float | Iterable] = MappingProxyType(
        {"lambda": 1.0, "stepsize": 1.0, "g_param": 0.05}
    ),
    data_fidelity: DataFidelity | list[DataFidelity] = None,
    prior: Prior | list[Prior] = None,
    cost_fn: Callable[
        [
            torch.Tensor,
            DataFidelity,
            Prior,
            dict[str, float | Iterable],
            torch.Tensor,
            Physics,
        ],
        torch.Tensor,
    ] = None,
    g_first: bool = False,
    bregman_potential: Bregman = None,
    **kwargs,
) -> BaseOptim:
    r"""
     Helper function for building an instance of the :class:`deepinv.optim.BaseOptim` class.

    .. note::

         Since 0.3.6, instead of using this function, it is possible to define optimization algorithms using directly the algorithm name e.g.
         ``model = PGD(data_fidelity, prior, ...)``.

     :param str, deepinv.optim.OptimIterator iteration: either the name of the algorithm to be used, or directly an optim iterator.
         If an algorithm name (string), should be either ``"GD"`` (gradient descent), ``"PGD"`` (proximal gradient descent), ``"ADMM"`` (ADMM),
         ``"HQS"`` (half-quadratic splitting), ``"PDCP"`` (Primal-Dual Chambolle-Pock),  ``"DRS"`` (Douglas Rachford), ``"MD"`` (Mirror Descent) or ``"PMD"`` (Proximal Mirror Descent).
     :param int max_iter: maximum number of iterations of the optimization algorithm. Default: 100.
     :param dict params_algo: dictionary containing all the relevant parameters for running the algorithm,
                             e.g. the stepsize, regularization parameter, denoising standard deviation.
                             Each value of the dictionary can be either Iterable (distinct value for each iteration) or
                             a single float (same value for each iteration). See :any:`optim-params` for more details.
                             Default: ``{"stepsize": 1.0, "lambda": 1.0}``.
     :param list, deepinv.optim.DataFidelity: data-fidelity term.
                             Either a single instance (same data-fidelity for each iteration) or a list of instances of
                             :class:`deepinv.optim.DataFidelity` (distinct data-fidelity for each iteration). Default: ``None``.
     :param list, deepinv.optim.Prior prior: regularization prior.
                             Either a single instance (same prior for each iteration) or a list of instances of
                             deepinv.optim.Prior (distinct prior for each iteration). Default: ``None``.
     :param Callable cost_fn: Custom user input cost function.
             ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
             the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
             the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
             Default: ``None``.
     :param bool g_first: whether to perform the step on :math:`g` before that on :math:`f` before or not. Default: `False`
     :param deepinv.optim.Bregman bregman_potential: Bregman potential used for Bregman optimization algorithms such as Mirror Descent. Default: ``None``, uses standard Euclidean optimization.
     :param kwargs: additional arguments to be passed to the :class:`deepinv.optim.BaseOptim` class.
     :return: an instance of the :class:`deepinv.optim.BaseOptim` class.

    """
    if "F_fn" in kwargs:
        F_fn = kwargs.pop("F_fn")
        warnings.warn(
            "`F_fn` is deprecated and will be removed in a future release. "
            "Use `cost_fn` instead.",
            DeprecationWarning,
        )
        cost_fn = F_fn

    if isinstance(params_algo, MappingProxyType):
        params_algo = params_algo.copy()

    iterator = create_iterator(
        iteration,
        prior=prior,
        cost_fn=cost_fn,
        g_first=g_first,
        bregman_potential=bregman_potential,
    )
    return BaseOptim(
        iterator,
        has_cost=iterator.has_cost,
        data_fidelity=data_fidelity,
        prior=prior,
        params_algo=params_algo,
        max_iter=max_iter,
        **kwargs,
    ).eval()


def str_to_class(classname: str) -> type:
    return getattr(_optim_iterators, classname)


class ADMM(BaseOptim):
    r"""
    ADMM module for solving the problem

    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}

    where :math:`\datafid{x}{y}` is the data-fidelity term, :math:`\reg{x}` is the regularization term.
    If the attribute ``g_first`` is set to False (by default), the ADMM iterations write (see :footcite:t:`boyd2011distributed` for more details):

    .. math::
        u_{k+1} &= \operatorname{prox}_{\gamma f}(x_k - z_k) \\
        x_{k+1} &= \operatorname{prox}_{\gamma \lambda \regname}(u_{k+1} + z_k) \\
        z_{k+1} &= z_k + \beta (u_{k+1} - x_{k+1})

    where :math:`\gamma>0` is a stepsize and :math:`\beta>0` is a relaxation parameter.  If the attribute ``g_first`` is set to ``True``, the functions :math:`f` and :math:`\regname` are
    inverted in the previous iterations. The ADMM iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.ADMMIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the algorithmic parameters (stepsize, regularization parameter, etc.) of the algorithm are trainable. 
    By default (if the attribute ``unfold`` is set to ``True``) all the algorithm parameters are trainable: the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter and the relaxation parameter :math:`\beta`.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float beta: ADMM relaxation parameter :math:`\beta`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of ADMM parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param", "beta"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the ADMM parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg`, `g_param` and `beta`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        beta: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        g_first: bool = False,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):

        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
                "beta": beta,
            }

        super(ADMM, self).__init__(
            ADMMIteration(g_first=g_first, cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class DRS(BaseOptim):
    r"""
    DRS module for solving the problem

    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}

    where :math:`\datafid{x}{y}` is the data-fidelity term, :math:`\reg{x}` is the regularization term.
     If the attribute ``g_first`` is set to False (by default), the DRS iterations are given by

    .. math::
        u_{k+1} &= \operatorname{prox}_{\gamma f}(z_k) \\
        x_{k+1} &= \operatorname{prox}_{\gamma \lambda \regname}(2*u_{k+1}-z_k) \\
        z_{k+1} &= z_k + \beta (x_{k+1} - u_{k+1})

    where :math:`\gamma>0` is a stepsize and :math:`\beta>0` is a relaxation parameter. If the attribute ``g_first`` is set to True, the functions :math:`f` and :math:`\regname` are inverted in the previous iteration.
    The DRS iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.DRSIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter and the relaxation parameter :math:`\beta`.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float beta: DRS relaxation parameter :math:`\beta`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of DRS parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param", "beta"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the DRS parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg`, `g_param` and `beta`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        beta: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        g_first: bool = False,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
                "beta": beta,
            }
        super(DRS, self).__init__(
            DRSIteration(g_first=g_first, cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class GD(BaseOptim):
    r"""
    Gradient Descent (GD) module for solving the problem

    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}

    where :math:`\datafid{x}{y}` is the data-fidelity term, :math:`\reg{x}` is the regularization term.

    The Gradient Descent iterations are given by

    .. math::
        x_{k+1} = x_k - \gamma \nabla f(x_k) - \gamma \lambda \nabla \regname(x_k)

    where :math:`\gamma>0` is a stepsize. The Gradient Descent iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.GDIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default.
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
        :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param deepinv.optim.BacktrackingConfig, bool backtracking: configuration for using a backtracking line-search strategy for automatic stepsize adaptation.
        If None (default), stepsize backtracking is disabled. Otherwise, ``backtracking`` must be an instance of :class:`deepinv.optim.BacktrackingConfig`, which defines the parameters for backtracking line-search.
        By default, backtracking is disabled (i.e., ``backtracking=None``), and as soon as ``backtracking`` is not ``None``, the default ``BacktrackingConfig`` is used.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:

        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.

        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method.

        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of GD parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param deepinv.optim.DEQConfig, bool DEQ: Configuration for a Deep Equilibrium (DEQ) unfolding strategy.
        DEQ algorithms are virtually unrolled infinitely, leveraging the implicit function theorem.
        If ``None`` (default) or ``False``, DEQ is disabled and the algorithm runs a standard finite number of iterations.
        Otherwise, ``DEQ`` must be an instance of :class:`deepinv.optim.DEQConfig`, which defines the parameters
        for forward and backward equilibrium-based implicit differentiation.
        If ``True``, the default ``DEQConfig`` is used.
    :param bool anderson_acceleration: Configure Anderson acceleration for the fixed-point iterations.
        If ``None`` (default) or ``False``, Anderson acceleration is disabled.
        Otherwise, ``anderson_acceleration`` must be an instance of :class:`deepinv.optim.AndersonAccelerationConfig`, which defines the parameters for Anderson acceleration.
        If ``True``, the default ``AndersonAccelerationConfig`` is used.
    :param Callable cost_fn: Custom user input cost function.
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the GD parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg` and `g_param`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        backtracking: BacktrackingConfig | bool = None,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        DEQ: DEQConfig | bool = None,
        anderson_acceleration: AndersonAccelerationConfig | bool = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
            }
        super(GD, self).__init__(
            GDIteration(cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            backtracking=backtracking,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            DEQ=DEQ,
            anderson_acceleration=anderson_acceleration,
            **kwargs,
        )


class HQS(BaseOptim):
    r"""
    Half-Quadratic Splitting (HQS) module for solving the problem
    
    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}
    
    where :math:`\datafid{x}{y}` is the data-fidelity term, :math:`\reg{x}` is the regularization term.
    If the attribute ``g_first`` is set to False (by default), the HQS iterations are given by
    
    .. math::
        u_{k} &= \operatorname{prox}_{\gamma f}(x_k) \\
        x_{k+1} &= \operatorname{prox}_{\sigma \lambda \regname}(u_k).
    
    If the attribute ``g_first`` is set to True, the functions :math:`f` and :math:`\regname` are inverted in the previous iteration.
    The HQS iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.HQSIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of HQS parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param deepinv.optim.DEQConfig, bool DEQ: Configuration for a Deep Equilibrium (DEQ) unfolding strategy.
        DEQ algorithms are virtually unrolled infinitely, leveraging the implicit function theorem.
        If ``None`` (default) or ``False``, DEQ is disabled and the algorithm runs a standard finite number of iterations.
        Otherwise, ``DEQ`` must be an instance of :class:`deepinv.optim.DEQConfig`, which defines the parameters
        for forward and backward equilibrium-based implicit differentiation.
        If ``True``, the default ``DEQConfig`` is used.
    :param bool anderson_acceleration: Configure Anderson acceleration for the fixed-point iterations.
        If ``None`` (default) or ``False``, Anderson acceleration is disabled.
        Otherwise, ``anderson_acceleration`` must be an instance of :class:`deepinv.optim.AndersonAccelerationConfig`, which defines the parameters for Anderson acceleration.
        If ``True``, the default ``AndersonAccelerationConfig`` is used.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the HQS parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg` and `g_param`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        g_first: bool = False,
        unfold: bool = False,
        trainable_params: list[str] = None,
        DEQ: DEQConfig | bool = None,
        anderson_acceleration: AndersonAccelerationConfig | bool = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
            }
        super(HQS, self).__init__(
            HQSIteration(g_first=g_first, cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            DEQ=DEQ,
            anderson_acceleration=anderson_acceleration,
            **kwargs,
        )


class PGD(BaseOptim):
    r"""
    Proximal Gradient Descent (PGD) module for solving the problem

    .. math::
        \begin{equation}
        \label{eq:min_prob}
        \tag{1}
        \underset{x}{\arg\min} \quad  \datafid{x}{y} + \lambda \reg{x},
        \end{equation}

    where :math:`\datafid{x}{y}` is the data-fidelity term, :math:`\reg{x}` is the regularization term.
    If the attribute ``g_first`` is set to False (by default), the PGD iterations are given by

    .. math::
        x_{k+1} = \operatorname{prox}_{\gamma \lambda \regname}(x_k - \gamma \nabla f(x_k)).

    If the attribute ``g_first`` is set to True, the functions :math:`f` and :math:`\regname` are inverted in the previous iteration.
    The PGD iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.PGDIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default.
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param deepinv.optim.BacktrackingConfig, bool backtracking: configuration for using a backtracking line-search strategy for automatic stepsize adaptation.
        If None (default), stepsize backtracking is disabled. Otherwise, ``backtracking`` must be an instance of :class:`deepinv.optim.BacktrackingConfig`, which defines the parameters for backtracking line-search.
        By default, backtracking is disabled (i.e., ``backtracking=None``), and as soon as ``backtracking`` is not ``None``, the default ``BacktrackingConfig`` is used.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:

        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.

        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method.

        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of PGD parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param deepinv.optim.DEQConfig, bool DEQ: Configuration for a Deep Equilibrium (DEQ) unfolding strategy.
        DEQ algorithms are virtually unrolled infinitely, leveraging the implicit function theorem.
        If ``None`` (default) or ``False``, DEQ is disabled and the algorithm runs a standard finite number of iterations.
        Otherwise, ``DEQ`` must be an instance of :class:`deepinv.optim.DEQConfig`, which defines the parameters
        for forward and backward equilibrium-based implicit differentiation.
        If ``True``, the default ``DEQConfig`` is used.
    :param bool anderson_acceleration: Configure Anderson acceleration for the fixed-point iterations.
        If ``None`` (default) or ``False``, Anderson acceleration is disabled.
        Otherwise, ``anderson_acceleration`` must be an instance of :class:`deepinv.optim.AndersonAccelerationConfig`, which defines the parameters for Anderson acceleration.
        If ``True``, the default ``AndersonAccelerationConfig`` is used.
    :param Callable cost_fn: Custom user input cost function.
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the PGD parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg` and `g_param`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        backtracking: BacktrackingConfig | bool = None,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        g_first: bool = False,
        unfold: bool = False,
        trainable_params: list[str] = None,
        DEQ: DEQConfig | bool = None,
        anderson_acceleration: AndersonAccelerationConfig | bool = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
            }
        super(PGD, self).__init__(
            PGDIteration(g_first=g_first, cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            backtracking=backtracking,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            DEQ=DEQ,
            anderson_acceleration=anderson_acceleration,
            **kwargs,
        )


class FISTA(BaseOptim):
    r"""
    FISTA module for acceleration of the Proximal Gradient Descent algorithm.
    If the attribute ``g_first`` is set to False (by default), the FISTA iterations are given by
    
    .. math::
        u_{k} &= z_k -  \gamma \nabla f(z_k) \\
        x_{k+1} &= \operatorname{prox}_{\gamma \lambda \regname}(u_k) \\
        z_{k+1} &= x_{k+1} + \alpha_k (x_{k+1} - x_k),
    
    where :math:`\gamma` is a stepsize that should satisfy :math:`\gamma \leq 1/\operatorname{Lip}(\|\nabla f\|)` and
    :math:`\alpha_k = (k+a-1)/(k+a)`,  with :math:`a` a parameter that should be strictly greater than 2.
    
    If the attribute ``g_first`` is set to True, the functions :math:`f` and :math:`\regname` are inverted in the previous iteration.
    The FISTA iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.FISTAIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter, and the parameter :math:`a` of the FISTA algorithm.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param int a: parameter of the FISTA algorithm, should be strictly greater than 2. Default: ``3``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of FISTA parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param", "a"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the FISTA parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg`, `g_param` and `a`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        a: int = 3,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        g_first: bool = False,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
                "a": a,
            }
        super(FISTA, self).__init__(
            FISTAIteration(g_first=g_first, cost_fn=cost_fn),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class MD(BaseOptim):
    r"""
    Mirror Descent (MD) or Bregman variant of the Gradient Descent algorithm. For a given convex potential :math:`h`, the iterations are given by
    
    .. math::
        v_{k} &= \nabla f(x_k) + \lambda \nabla g(x_k) \\
        x_{k+1} &= \nabla h^*(\nabla h(x_k) - \gamma v_{k})
    
    where :math:`\gamma>0` is a stepsize and :math:`h^*` is the convex conjugate of :math:`h`.
    The Mirror Descent iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.MDIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    :param deepinv.optim.Bregman bregman_potential: Bregman potential used for Bregman optimization algorithms such as Mirror Descent. Default: ``BregmanL2()``.
    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of MD parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the MD parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg` and `g_param`.
    """

    def __init__(
        self,
        bregman_potential=BregmanL2(),
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
            }
        super(MD, self).__init__(
            MDIteration(cost_fn=cost_fn, bregman_potential=bregman_potential),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class PMD(BaseOptim):
    r""" 
    Proximal Mirror Descent (PMD) or Bregman variant of the Proximal Gradient Descent algorithm. For a given convex potential :math:`h`, the iterations are given by
    
    .. math::
        u_{k} &= \nabla h^*(\nabla h(x_k) - \gamma \nabla f(x_k)) \\
        x_{k+1} &= \operatorname{prox^h}_{\gamma \lambda \regname}(u_k)
    
    where :math:`\gamma` is a stepsize that should satisfy :math:`\gamma \leq 2/L` with :math:`L` verifying :math:`Lh-f` is convex. 
    :math:`\operatorname{prox^h}_{\gamma \lambda \regname}` is the Bregman proximal operator, detailed in the method :meth:`deepinv.optim.Potential.bregman_prox`.
    The Proximal Mirror Descent iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.PMDIteration`.
    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, all the algorithm parameters are trainable : the stepsize :math:`\gamma`, the regularization parameter :math:`\lambda`, the prior parameter.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.
    
    :param deepinv.optim.Bregman bregman_potential: Bregman potential used for Bregman optimization algorithms such as Proximal Mirror Descent. Default: ``BregmanL2()``.
    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
          Either a single instance (same data-fidelity for each iteration) or a list of instances of
          :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
          Either a single instance (same prior for each iteration) or a list of instances of
          :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\gamma`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of PMD parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the PMD parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg` and `g_param`.
    """

    def __init__(
        self,
        bregman_potential=BregmanL2(),
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        g_first: bool = False,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser
        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "g_param": g_param,
            }
        super(PMD, self).__init__(
            PMDIteration(
                cost_fn=cost_fn, g_first=g_first, bregman_potential=bregman_potential
            ),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class PDCP(BaseOptim):
    r""" Primal Dual Chambolle-Pock optimization module.
    
    Implementation of the `Primal-Dual Chambolle-Pock (PDCP) <https://hal.science/hal-00490826/document>`_ 
    algorithm for minimising :math:`F(Kx) + \lambda G(x)` or :math:`\lambda F(x) + G(Kx)` for generic functions :math:`F` and :math:`G`.
    Our implementation corresponds to Algorithm 1 of `<https://hal.science/hal-00490826/document>`_.

    If the attribute ``g_first`` is set to ``False`` (by default), a single iteration is given by
    
    .. math::
        \begin{aligned}
        u_{k+1} &= \operatorname{prox}_{\sigma F^*}(u_k + \sigma K z_k) \\
        x_{k+1} &= \operatorname{prox}_{\tau \lambda G}(x_k-\tau K^\top u_{k+1}) \\
        z_{k+1} &= x_{k+1} + \beta(x_{k+1}-x_k) \\
        \end{aligned}
    
    where :math:`F^*` is the Fenchel-Legendre conjugate of :math:`F`, :math:`\beta>0` is a relaxation parameter, and :math:`\sigma` and :math:`\tau` are step-sizes that should
    satisfy :math:`\sigma \tau \|K\|^2 \leq 1`. 

    If the attribute ``g_first`` is set to ``True``, the functions :math:`F` and :math:`G` are inverted in the previous iteration.
    In particular, setting :math:`F = \distancename`, :math:`K = A` and :math:`G = \regname`, the above algorithms solves

    .. math::
        \underset{x}{\operatorname{min}} \,\,  \distancename(Ax, y) + \lambda \regname(x)
    
    with a splitting on :math:`\distancename`.

    Note that the algorithm requires an intiliazation of the three variables :math:`x_0`, :math:`z_0` and :math:`u_0`.

    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.

    If the attribute ``unfold`` is set to ``True``, the algorithm is unfolded and the parameters of the algorithm are trainable.
    By default, the trainable parameters are : the stepsize :math:`\sigma`, the stepsize :math:`\tau`, the regularization parameter :math:`\lambda`, the prior parameter and the relaxation parameter :math:`\beta`.
    Use the ``trainable_params`` argument to adjust the list of trainable parameters.
    Note also that by default, if the prior has trainable parameters (e.g. a neural network denoiser), these parameters are learnable by default. 
    If the model is used for inference only, use the ``with torch.no_grad():`` context when calling the model in order to avoid unnecessary gradient computations.

    The Primal Dual CP iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.CPIteration`.

    :param Callable K: linear operator :math:`K` in the primal problem. Default: identity function.
    :param Callable K_adjoint: adjoint linear operator :math:`K^\top` in the primal problem. Default: identity function.
    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`.
        Either a single instance (same data-fidelity for each iteration) or a list of instances of
        :class:`deepinv.optim.DataFidelity` (distinct data fidelity for each iteration). Default: ``None`` corresponding to :math:`\datafid{x}{y} = 0`.
    :param list, deepinv.optim.Prior prior: regularization prior :math:`\reg{x}`.
        Either a single instance (same prior for each iteration) or a list of instances of
        :class:`deepinv.optim.Prior` (distinct prior for each iteration). Default: ``None`` corresponding to :math:`\reg{x} = 0`.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float stepsize: stepsize parameter :math:`\tau`. Default: ``1.0``.
    :param float stepsize_dual: stepsize parameter :math:`\sigma`. Default: ``1.0``.
    :param float beta: PD relaxation parameter :math:`\beta`. Default: ``1.0``.
    :param float g_param: parameter of the prior function. For example the noise level for a denoising prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
        The callable function ``custom_init(y, physics)`` takes as input the measurement :math:`y` and the physics ``physics`` and returns the initialization in the form of either:
        
        - a tuple :math:`(x_0, z_0)` (where ``x_0`` and ``z_0`` are the initial primal and dual variables),
        - a torch.Tensor :math:`x_0` (if no dual variables :math:`z_0` are used), or
        - a dictionary of the form ``X = {'est': (x_0, z_0)}``.
        
        Note that custom initialization can also be directly defined via the ``init`` argument in the ``forward`` method. 
        
        If ``None`` (default value), the algorithm is initialized with the adjoint :math:`A^{\top}y` when the adjoint is defined,
        and with the observation `y` if the adjoint is not defined. Default: ``None``.
    :param bool g_first: whether to perform the proximal step on :math:`\reg{x}` before that on :math:`\datafid{x}{y}`, or the opposite. Default: ``False``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of PD parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "stepsize_dual", "g_param", "beta"]``. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.    
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input 
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`), 
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the PD parameters in a dictionary. This will overwrite the parameters in the arguments `K`, `K_adjoint`, `stepsize`, `lambda_reg`, `stepsize_dual`, `g_param`, `beta`.
    """

    def __init__(
        self,
        K: Callable[[torch.Tensor], torch.Tensor] = lambda x: x,
        K_adjoint: Callable[[torch.Tensor], torch.Tensor] = lambda x: x,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        stepsize: float = 1.0,
        stepsize_dual: float = 1.0,
        beta: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        g_first: bool = False,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser
        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "stepsize": stepsize,
                "stepsize_dual": stepsize_dual,
                "g_param": g_param,
                "beta": beta,
                "K": K,
                "K_adjoint": K_adjoint,
            }
        if trainable_params is None:
            trainable_params = [
                "lambda",
                "stepsize",
                "stepsize_dual",
                "g_param",
                "beta",
            ]
        if custom_init is None:

            def custom_init(y, physics):
                x_init = physics.A_adjoint(y)
                u_init = y
                return {"est": (x_init, x_init, u_init)}

        super(PDCP, self).__init__(
            CPIteration(g_first=g_first, cost_fn=cost_fn),
            custom_init=custom_init,
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )


class MLEM(BaseOptim):
    r"""
    Maximum Likelihood Expectation Maximization (MLEM) algorithm for Poisson inverse problems.

    This algorithm was originally proposed for deconvolution by Richardson and Lucy :footcite:p:`richardsonBayesianBasedIterativeMethod1972, lucyIterativeTechniqueRectification1974` and was later
    adapted to tomographic reconstruction by Shepp and Vardi :footcite:p:`sheppMaximumLikelihoodReconstruction1982`.
    It is also widely used in Non-Negative Matrix Factorization (NMF) problems where it is known as the Lee and Seung multiplicative update algorithm :footcite:p:`leeSeungAlgorithmsNonNegativeMatrix2000`.

    The algorithm is traditionally derived from the Expectation-Maximization (EM) framework with specific latent variables.
    Alternatively, it can be seen as a Majorization-Minimization (MM) algorithm where each iteration consists in constructing a surrogate function that majorizes the Poisson negative log-likelihood and then minimizing this surrogate function.
    At each iteration, the algorithm performs a multiplicative update of the form:

    .. math::
        x_{k+1} = \frac{x_k}{A^T \mathbf{1}} \odot A^T \left(\frac{y}{A x_k + b}\right)

    where :math:`A` is the forward operator, :math:`y` is the observed data,
    :math:`b` is an optional additive background (useful in PET), :math:`\mathbf{1}` is a tensor of ones,
    and :math:`\odot` denotes element-wise multiplication.

    The algorithm can be used with a prior term (e.g., for MAP-EM variants) or without
    (standard MLEM). See :class:`deepinv.optim.optim_iterators.MLEMIteration` for the details of the iteration.

    The MLEM algorithm minimizes the Poisson negative log-likelihood data-fidelity. The ``data_fidelity`` argument
    can be used to measure progress during optimization (e.g., for early stopping or metrics computation), but it is
    not used as the objective function to minimize. Only the Poisson negative log-likelihood is minimized regardless
    of the provided ``data_fidelity`` argument.

    A regularization can be included via the ``prior`` argument, which will lead to a MAP-EM variant of the MLEM algorithm.
    Our implementation is based on the One-Step-Late (OSL) heuristic of Green :footcite:p:`greenUseEmAlgorithm1990`.
    It leads to the following update rule:

    .. math::
        x_{k+1} = \frac{x_k}{A^T \mathbf{1} + \lambda \nabla g(x_k)} \odot A^T \left(\frac{y}{A x_k + b}\right)

    where :math:`g` is the prior function and :math:`\lambda` is the regularization parameter.

    In the case of a non-differentiable prior, the gradient term :math:`\nabla g(x_k)` is replaced by a subgradient:

    .. math::
        x_{k+1} = \frac{x_k}{A^T \mathbf{1} + \lambda \partial g(x_k)} \odot A^T \left(\frac{y}{A x_k + b}\right)

    where :math:`\partial g(x_k)` is a subgradient of :math:`g` at point :math:`x_k`.

    .. note::

        By default, the algorithm is initialized with a tensor of ones with the same
        shape as :math:`A^T y`. This can be overridden using ``custom_init``.

    :param deepinv.optim.DataFidelity, list[DataFidelity] data_fidelity: data fidelity term.
        If ``None``, defaults to :class:`deepinv.optim.PoissonLikelihood`.
    :param deepinv.optim.Prior, list[Prior] prior: prior term. If ``None``, no prior is used.
        Default: ``None``.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float g_param: parameter for the prior. Default: ``None``.
    :param float sigma_denoiser: same as ``g_param``. If both ``g_param`` and ``sigma_denoiser`` are provided, ``g_param`` is used. Default: ``None``.
    :param float eps: positive value used to clamp denominators in the
        multiplicative update. Default: ``1e-6``.
    :param int max_iter: maximum number of iterations. Default: ``100``.
    :param str crit_conv: convergence criterion, either ``"residual"`` or ``"cost"``.
        Default: ``"residual"``.
    :param float thres_conv: convergence threshold. Default: ``1e-5``.
    :param bool early_stop: if ``True``, the algorithm stops when the convergence criterion is met.
        Default: ``False``.
    :param dict custom_metrics: dictionary of custom metrics to compute at each iteration.
        Default: ``None``.
    :param Callable custom_init: custom initialization function. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: list of ADMM parameters to be trained if ``unfold`` is True. To choose between ``["lambda", "stepsize", "g_param", "beta"]``. Default: None, which means that all parameters are trainable if ``unfold`` is True. For no trainable parameters, set to an empty list.
    :param Callable cost_fn: Custom user input cost function.
            ``cost_fn(x, data_fidelity, prior, cur_params, y, physics)`` takes as input
            the current primal variable (:class:`torch.Tensor`), the current data-fidelity (:class:`deepinv.optim.DataFidelity`),
            the current prior (:class:`deepinv.optim.Prior`), the current parameters (dict), and the measurement (:class:`torch.Tensor`).
            Default: ``None``.
    :param dict params_algo: optionally, directly provide the ADMM parameters in a dictionary. This will overwrite the parameters in the arguments `stepsize`, `lambda_reg`, `g_param` and `beta`.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        eps: float = 1e-6,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if data_fidelity is None:
            data_fidelity = PoissonLikelihood()

        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "g_param": g_param,
            }
        if custom_init is None:
            # Default BaseOptim init uses the adjoint but this can produce 0 voxels
            def custom_init(y, physics):
                x = physics.A_adjoint(y)
                return torch.ones(x.shape, device=x.device, dtype=x.dtype)

        super(MLEM, self).__init__(
            MLEMIteration(cost_fn=cost_fn, eps=eps),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )

    def forward(
        self, y: torch.Tensor, physics: Physics, *args, **kwargs
    ) -> torch.Tensor | tuple[torch.Tensor, dict]:
        r"""Run MLEM with a sensitivity map computed once for this reconstruction."""
        with torch.no_grad():
            sensitivity = physics.A_adjoint(torch.ones_like(y))
        return super().forward(y, physics, sensitivity=sensitivity, *args, **kwargs)


class OSEM(BaseOptim):
    r"""
    Ordered-Subsets Expectation-Maximization (OSEM) algorithm for Poisson inverse problems.

    OSEM was proposed in :footcite:p:`hudsonAcceleratedImageReconstruction1994`
    to accelerate MLEM :footcite:p:`sheppMaximumLikelihoodReconstruction1982` by
    splitting the measurement into ordered subsets.
    Note that MLEM is a special case of OSEM with only one subset.
    At each iteration, the algorithm performs multiplicative updates over all subsets
    of the form:

    .. math::
        x_{k,l+1} = \frac{x_{k,l}}{A_l^T \mathbf{1}} \odot A_l^T \left(\frac{y_l}{A_l x_{k,l} + b_l}\right),

    where :math:`A_l` and :math:`y_l` are the corresponding physics and measurement
    subset, and :math:`b_l` is an optional additive background and `l` is the subset index.

    .. note::

        Only :class:`deepinv.physics.Tomography`, :class:`deepinv.physics.TomographyWithAstra`
        and :class:`deepinv.physics.PET` are currently supported for OSEM.

    .. note::

        The user can provide either the full measurement tensor `y` and full tomography
        `physics`, or pre-split measurements passed as a :class:`deepinv.utils.TensorList`
        and pre-split physics passed as a :class:`deepinv.physics.StackedLinearPhysics`.
        See :func:`deepinv.physics.split_physics` and :func:`deepinv.physics.split_measurements`.

    See :class:`deepinv.optim.optim_iterators.OSEMIteration` for the details of one
    iteration.

    A regularization can be included by specifying a `prior`.
    This uses One-Step-Late (OS-MAP-OSL) :footcite:p:`greenUseEmAlgorithm1990`,
    similar to in :class:`deepinv.optim.MLEM`.

    .. note::

        By default, the algorithm is initialized with a tensor of ones with the same
        shape as :math:`A^T y`. This can be overridden using `custom_init`.

    :param int num_subsets: number of ordered subsets used when splitting a full
        physics. It must be positive and is ignored when a pre-split physics is
        provided. With one subset, OSEM is equivalent to :class:`deepinv.optim.MLEM`.
        Default: ``2``.
    :param deepinv.optim.DataFidelity, list[DataFidelity] data_fidelity: data fidelity term.
        If ``None``, defaults to :class:`deepinv.optim.PoissonLikelihood`.
    :param deepinv.optim.Prior, list[Prior] prior: prior term. If ``None``, no prior is used.
        Default: ``None``.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float g_param: parameter for the prior. Default: ``None``.
    :param float sigma_denoiser: same as `g_param`. If both `g_param` and `sigma_denoiser` are provided, `g_param` is used. Default: ``None``.
    :param float eps: positive value used to clamp denominators in the
        multiplicative update. Default: ``1e-6``.
    :param int max_iter: maximum number of OSEM epochs. Default: ``100``.
    :param str crit_conv: convergence criterion, either ``"residual"`` or ``"cost"``.
        Default: ``"residual"``.
    :param float thres_conv: convergence threshold. Default: ``1e-5``.
    :param bool early_stop: if ``True``, the algorithm stops when the convergence criterion is met.
        Default: ``False``.
    :param dict custom_metrics: dictionary of custom metrics to compute at each epoch.
        Default: ``None``.
    :param Callable custom_init: custom initialization function. OSEM passes the
        split measurements and stacked subset physics to this function. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm or not. Default: ``False``.
    :param list trainable_params: parameters to train if `unfold` is ``True``. Default: ``None``.
    :param Callable cost_fn: custom cost function used for metrics and convergence.
        OSEM calls it with a :class:`deepinv.optim.StackedPhysicsDataFidelity`,
        split measurements, and stacked subset physics. Default: ``None``.
    :param dict params_algo: optionally provide the algorithm parameters directly.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        num_subsets: int = 2,
        eps: float = 1e-6,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        **kwargs,
    ):
        if data_fidelity is None:
            data_fidelity = PoissonLikelihood()

        data_fidelities = (
            data_fidelity if isinstance(data_fidelity, list) else [data_fidelity]
        )
        data_fidelity = [
            StackedPhysicsDataFidelity([cur_data_fidelity] * num_subsets)
            for cur_data_fidelity in data_fidelities
        ]

        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser

        self.num_subsets = num_subsets

        if params_algo is None:
            params_algo = {
                "lambda": lambda_reg,
                "g_param": g_param,
            }
        if custom_init is None:
            # Default BaseOptim init uses the adjoint but this can produce 0 voxels
            def custom_init(y, physics):
                x = physics.A_adjoint(y)
                return torch.ones(x.shape, device=x.device, dtype=x.dtype)

        super(OSEM, self).__init__(
            OSEMIteration(cost_fn=cost_fn, eps=eps),
            data_fidelity=data_fidelity,
            prior=prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            **kwargs,
        )

    def forward(
        self,
        y: torch.Tensor | TensorList | list[torch.Tensor],
        physics: Physics | StackedLinearPhysics,
        *args,
        **kwargs,
    ) -> torch.Tensor | tuple[torch.Tensor, dict]:
        r"""
        Run OSEM with full or pre-split measurements and physics.

        :param torch.Tensor, deepinv.utils.TensorList, list[torch.Tensor] y: Full measurement tensor, or pre-split measurements when ``physics`` is a :class:`deepinv.physics.StackedLinearPhysics`.
        :param deepinv.physics.Physics physics: Full tomography/PET physics or pre-split :class:`deepinv.physics.StackedLinearPhysics`.
        :return: Reconstructed image, and optionally the metrics dictionary when ``compute_metrics=True``.
        """
        from deepinv.physics.forward import StackedLinearPhysics
        from deepinv.physics.functional.tomography_subsets import (
            split_measurements,
            split_physics,
        )
        from deepinv.utils.tensorlist import TensorList

        if isinstance(physics, StackedLinearPhysics):
            if not isinstance(y, (TensorList, list)):
                raise TypeError(
                    "A pre-split deepinv.physics.StackedLinearPhysics requires pre-split measurements as a deepinv.utils.TensorList or list[torch.Tensor]. Use deepinv.physics.functional.tomography_subsets.split_measurements to split full measurements."
                )
            if isinstance(y, list):
                y = TensorList(y)
            if len(y) != len(physics):
                raise ValueError(
                    "The number of measurement subsets and physics subsets must match."
                )
        # If a full physics is provided, we split it into subsets
        else:
            if not isinstance(y, torch.Tensor):
                raise TypeError(
                    "A full deepinv.physics.Tomography, deepinv.physics.TomographyWithAstra, or deepinv.physics.PET requires measurements as a torch.Tensor. To provide pre-split measurements, first use deepinv.physics.functional.tomography_subsets.split_physics to create the matching physics subsets."
                )
            subsetted_physics = split_physics(
                physics, self.num_subsets, device=y.device
            )
            y_subsets = split_measurements(y, physics, self.num_subsets)

            physics = subsetted_physics
            y = y_subsets

        # Need to update the PoissonLikelihood data-fidelity with the background
        # for PET physics
        if hasattr(physics[0], "background"):
            for stacked_data_fidelity in self.data_fidelity:
                if not isinstance(
                    stacked_data_fidelity.data_fidelity_list[0], PoissonLikelihood
                ):
                    continue
                for i, (data_fidelity, subset_physic) in enumerate(
                    zip(
                        stacked_data_fidelity.data_fidelity_list,
                        physics,
                        strict=True,
                    )
                ):
                    stacked_data_fidelity.data_fidelity_list[i] = PoissonLikelihood(
                        gain=data_fidelity.gain,
                        bkg=subset_physic.background / data_fidelity.gain,
                        denormalize=data_fidelity.d.denormalize,
                    )

        with torch.no_grad():
            sensitivities = [
                subset_physic.A_adjoint(torch.ones_like(subset_y))
                for subset_y, subset_physic in zip(y, physics, strict=True)
            ]
        return super().forward(y, physics, sensitivities=sensitivities, *args, **kwargs)


class BSREM(BaseOptim):
    r"""
    Block Sequential Regularized Expectation Maximization (BSREM) for Poisson inverse problems.

    BSREM is a relaxed ordered-subsets algorithm for minimizing the penalized Poisson negative log-likelihood

    .. math::

        \min_{x \in \mathbb{R}^n_{+}}\; \mathrm{KL}(y, Ax) + \lambda \reg{x}.

    while preserving convergence guarantees :footcite:p:`depierroFastEMlikeMethods2001,ahnGloballyConvergentImage2003`.
    With :math:`L` subsets, one complete iteration of the algorithm applies the following update for :math:`l=1,\ldots,L`:

    .. math::

        x_{k,l+1} = \mathcal{P}_{+}\left[x_{k,l} - \alpha_k
        \frac{x_{k,l}}{\bar{s}} \odot \left(\nabla f_l(x_{k,l})
        + \frac{\lambda}{L}\nabla \reg{x_{k,l}}\right)\right],

    where :math:`\bar{s}=A^T\mathbf{1}/L` is the average subset sensitivity,
    :math:`\alpha_k` is the relaxation step size, which is annealed over the
    iterations, and :math:`\mathcal{P}_{+}` clamps the iterate to the positive orthant.

    See :class:`deepinv.optim.optim_iterators.BSREMIteration` for the details of one iteration.

    .. tip::

        The description of the algorithm above assumes unit Poisson gain.
        If a non-unit gain is used, the implementation automatically scales the
        preconditioner and prior to adapt to the gain.

    A custom annealing schedule for the relaxation step size can be supplied as
    an iterable, for example
    ``stepsize=[1 / (1 + 0.1 * k) for k in range(max_iter)]``.

    .. note::

        The user can provide either the full measurement tensor ``y`` and full
        tomography ``physics``, or pre-split measurements passed as a
        :class:`deepinv.utils.TensorList` and pre-split physics passed as a
        :class:`deepinv.physics.StackedLinearPhysics`. See
        :func:`deepinv.physics.split_physics` and
        :func:`deepinv.physics.split_measurements`.

    .. note::

        By default, the algorithm is initialized with a tensor of ones with the
        same shape as :math:`A^T y`. This can be overridden using
        ``custom_init``.

    :param int num_subsets: number of ordered subsets used for the splitting of the physics and measurements. Ignored when pre-split inputs are provided. Default: ``2``.
    :param deepinv.optim.DataFidelity, list[DataFidelity] data_fidelity: data fidelity used by the subset updates and to evaluate the objective. If ``None``, defaults to :class:`deepinv.optim.PoissonLikelihood`.
    :param deepinv.optim.Prior, list[Prior] prior: differentiable prior term. If ``None``, no regularization is applied. Default: ``None``.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float g_param: parameter passed to the prior. Default: ``None``.
    :param float sigma_denoiser: alias for ``g_param``. If both are provided, ``g_param`` takes precedence. Default: ``None``.
    :param float, collections.abc.Iterable[float] stepsize: annealing schedule of the relaxation step size. If an iterable is used, it must contain at least ``max_iter`` entries. Default: ``1.0``.
    :param float eps: positive value used for safe divisions and the positivity projection. Default: ``1e-6``.
    :param float sensitivity_threshold: relative sensitivity threshold defining the reconstruction support. Default: ``1e-2``.
    :param int max_iter: maximum number of BSREM epochs. Default: ``100``.
    :param str crit_conv: convergence criterion, either ``"residual"`` or ``"cost"``. Default: ``"residual"``.
    :param float thres_conv: convergence threshold for ``crit_conv``. Default: ``1e-5``.
    :param bool early_stop: stop when the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: custom metrics computed after every epoch. Default: ``None``.
    :param Callable custom_init: custom initialization function. BSREM passes the split measurements and stacked subset physics to this function. If ``None``, the reconstruction is initialized with ones. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm. Default: ``False``.
    :param list trainable_params: algorithm parameters to train when unfolded, chosen from ``["lambda", "stepsize", "g_param"]``. If ``None``, all parameters are trainable. Default: ``None``.
    :param Callable cost_fn: custom cost function used for metrics and convergence. BSREM calls it with a :class:`deepinv.optim.StackedPhysicsDataFidelity`, split measurements, and stacked subset physics. Default: ``None``.
    :param dict params_algo: optional algorithm parameters. When provided, this overrides ``stepsize``, ``lambda_reg``, and ``g_param``.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        num_subsets: int = 2,
        stepsize: float | Iterable[float] = 1.0,
        eps: float = 1e-6,
        sensitivity_threshold: float = 1e-2,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float | Iterable[float]] = None,
        **kwargs,
    ):
        if data_fidelity is None:
            data_fidelity = PoissonLikelihood()
        data_fidelities = (
            data_fidelity if isinstance(data_fidelity, list) else [data_fidelity]
        )
        data_fidelity = [
            StackedPhysicsDataFidelity([cur_data_fidelity] * num_subsets)
            for cur_data_fidelity in data_fidelities
        ]
        self.num_subsets = num_subsets
        if custom_init is None:

            def custom_init(y, physics):
                x = physics.A_adjoint(y)
                return torch.ones(x.shape, device=x.device, dtype=x.dtype)

        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser
        if params_algo is None:
            params_algo = {
                "stepsize": stepsize,
                "lambda": lambda_reg,
                "g_param": g_param,
            }

        super().__init__(
            BSREMIteration(
                cost_fn=cost_fn,
                eps=eps,
                sensitivity_threshold=sensitivity_threshold,
            ),
            data_fidelity=data_fidelity,
            prior=prior,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            params_algo=params_algo,
            **kwargs,
        )

    def forward(
        self,
        y: torch.Tensor | TensorList | list[torch.Tensor],
        physics: Physics | StackedLinearPhysics,
        *args,
        **kwargs,
    ) -> torch.Tensor | tuple[torch.Tensor, dict]:
        r"""
        Run BSREM with full or pre-split measurements and physics.

        :param torch.Tensor, deepinv.utils.TensorList, list[torch.Tensor] y: Full measurement tensor, or pre-split measurements when ``physics`` is a :class:`deepinv.physics.StackedLinearPhysics`.
        :param deepinv.physics.Physics physics: Full tomography/PET physics or pre-split :class:`deepinv.physics.StackedLinearPhysics`.
        :return: Reconstructed image, and optionally the metrics dictionary when ``compute_metrics=True``.
        """
        from deepinv.physics.forward import StackedLinearPhysics
        from deepinv.physics.functional.tomography_subsets import (
            split_measurements,
            split_physics,
        )
        from deepinv.utils.tensorlist import TensorList

        if isinstance(physics, StackedLinearPhysics):
            if not isinstance(y, (TensorList, list)):
                raise TypeError(
                    "A pre-split deepinv.physics.StackedLinearPhysics requires pre-split measurements as a deepinv.utils.TensorList or list[torch.Tensor]. Use deepinv.physics.functional.tomography_subsets.split_measurements to split full measurements."
                )
            if isinstance(y, list):
                y = TensorList(y)
            if len(y) != len(physics):
                raise ValueError(
                    "The number of measurement subsets and physics subsets must match."
                )
        else:
            if not isinstance(y, torch.Tensor):
                raise TypeError(
                    "A full deepinv.physics.Tomography, deepinv.physics.TomographyWithAstra, or deepinv.physics.PET requires measurements as a torch.Tensor. To provide pre-split measurements, first use deepinv.physics.functional.tomography_subsets.split_physics to create the matching physics subsets."
                )
            full_physics = physics
            physics = split_physics(full_physics, self.num_subsets, device=y.device)
            y = split_measurements(y, full_physics, self.num_subsets)

        # Need to update the PoissonLikelihood data-fidelity with the background
        # for PET physics
        if hasattr(physics[0], "background"):
            for stacked_data_fidelity in self.data_fidelity:
                if isinstance(
                    stacked_data_fidelity.data_fidelity_list[0], PoissonLikelihood
                ):
                    for i, (data_fidelity, subset_physic) in enumerate(
                        zip(
                            stacked_data_fidelity.data_fidelity_list,
                            physics,
                            strict=True,
                        )
                    ):
                        stacked_data_fidelity.data_fidelity_list[i] = PoissonLikelihood(
                            gain=data_fidelity.gain,
                            bkg=subset_physic.background / data_fidelity.gain,
                            denormalize=data_fidelity.d.denormalize,
                        )

        with torch.no_grad():
            sensitivities = [
                subset_physic.A_adjoint(torch.ones_like(subset_y))
                for subset_y, subset_physic in zip(y, physics, strict=True)
            ]
        return super().forward(y, physics, sensitivities=sensitivities, *args, **kwargs)


class BSREM(BaseOptim):
    r"""
    Block Sequential Regularized Expectation Maximization (BSREM) for Poisson inverse problems.

    BSREM is a relaxed ordered-subsets algorithm for minimizing the penalized Poisson negative log-likelihood

    .. math::

        \min_{x \in \mathbb{R}^n_{+}}\; \mathrm{KL}(y, Ax) + \lambda \reg{x}.

    while preserving convergence guarantees :footcite:p:`depierroFastEMlikeMethods2001,ahnGloballyConvergentImage2003`.
    With :math:`L` subsets, one complete iteration of the algorithm applies the following update for :math:`l=1,\ldots,L`:

    .. math::

        x_{k,l+1} = \mathcal{P}_{+}\left[x_{k,l} - \alpha_k
        \frac{x_{k,l}}{\bar{s}} \odot \left(\nabla f_l(x_{k,l})
        + \frac{\lambda}{L}\nabla \reg{x_{k,l}}\right)\right],

    where :math:`\bar{s}=A^T\mathbf{1}/L` is the average subset sensitivity,
    :math:`\alpha_k` is the relaxation step size, which is annealed over the
    iterations, and :math:`\mathcal{P}_{+}` clamps the iterate to the positive orthant.

    See :class:`deepinv.optim.optim_iterators.BSREMIteration` for the details of one iteration.

    .. tip::

        The description of the algorithm above assumes unit Poisson gain.
        If a non-unit gain is used, the implementation automatically scales the
        preconditioner and prior to adapt to the gain.

    A custom annealing schedule for the relaxation step size can be supplied as
    an iterable, for example
    ``stepsize=[1 / (1 + 0.1 * k) for k in range(max_iter)]``.

    .. note::

        The user can provide either the full measurement tensor ``y`` and full
        tomography ``physics``, or pre-split measurements passed as a
        :class:`deepinv.utils.TensorList` and pre-split physics passed as a
        :class:`deepinv.physics.StackedLinearPhysics`. See
        :func:`deepinv.physics.split_physics` and
        :func:`deepinv.physics.split_measurements`.

    .. note::

        By default, the algorithm is initialized with a tensor of ones with the
        same shape as :math:`A^T y`. This can be overridden using
        ``custom_init``.

    :param int num_subsets: number of ordered subsets used for the splitting of the physics and measurements. Ignored when pre-split inputs are provided. Default: ``2``.
    :param deepinv.optim.DataFidelity, list[DataFidelity] data_fidelity: data fidelity used by the subset updates and to evaluate the objective. If ``None``, defaults to :class:`deepinv.optim.PoissonLikelihood`.
    :param deepinv.optim.Prior, list[Prior] prior: differentiable prior term. If ``None``, no regularization is applied. Default: ``None``.
    :param float lambda_reg: regularization parameter :math:`\lambda`. Default: ``1.0``.
    :param float g_param: parameter passed to the prior. Default: ``None``.
    :param float sigma_denoiser: alias for ``g_param``. If both are provided, ``g_param`` takes precedence. Default: ``None``.
    :param float, collections.abc.Iterable[float] stepsize: annealing schedule of the relaxation step size. If an iterable is used, it must contain at least ``max_iter`` entries. Default: ``1.0``.
    :param float eps: positive value used for safe divisions and the positivity projection. Default: ``1e-6``.
    :param float sensitivity_threshold: relative sensitivity threshold defining the reconstruction support. Default: ``1e-2``.
    :param int max_iter: maximum number of BSREM epochs. Default: ``100``.
    :param str crit_conv: convergence criterion, either ``"residual"`` or ``"cost"``. Default: ``"residual"``.
    :param float thres_conv: convergence threshold for ``crit_conv``. Default: ``1e-5``.
    :param bool early_stop: stop when the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: custom metrics computed after every epoch. Default: ``None``.
    :param Callable custom_init: custom initialization function. BSREM passes the split measurements and stacked subset physics to this function. If ``None``, the reconstruction is initialized with ones. Default: ``None``.
    :param bool unfold: whether to unfold the algorithm. Default: ``False``.
    :param list trainable_params: algorithm parameters to train when unfolded, chosen from ``["lambda", "stepsize", "g_param"]``. If ``None``, all parameters are trainable. Default: ``None``.
    :param Callable cost_fn: custom cost function used for metrics and convergence. BSREM calls it with a :class:`deepinv.optim.StackedPhysicsDataFidelity`, split measurements, and stacked subset physics. Default: ``None``.
    :param dict params_algo: optional algorithm parameters. When provided, this overrides ``stepsize``, ``lambda_reg``, and ``g_param``.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        prior: Prior | list[Prior] = None,
        lambda_reg: float = 1.0,
        g_param: float = None,
        sigma_denoiser: float = None,
        num_subsets: int = 2,
        stepsize: float | Iterable[float] = 1.0,
        eps: float = 1e-6,
        sensitivity_threshold: float = 1e-2,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        unfold: bool = False,
        trainable_params: list[str] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float | Iterable[float]] = None,
        **kwargs,
    ):
        if data_fidelity is None:
            data_fidelity = PoissonLikelihood()
        data_fidelities = (
            data_fidelity if isinstance(data_fidelity, list) else [data_fidelity]
        )
        data_fidelity = [
            StackedPhysicsDataFidelity([cur_data_fidelity] * num_subsets)
            for cur_data_fidelity in data_fidelities
        ]
        self.num_subsets = num_subsets
        if custom_init is None:

            def custom_init(y, physics):
                x = physics.A_adjoint(y)
                return torch.ones(x.shape, device=x.device, dtype=x.dtype)

        if g_param is None and sigma_denoiser is not None:
            g_param = sigma_denoiser
        if params_algo is None:
            params_algo = {
                "stepsize": stepsize,
                "lambda": lambda_reg,
                "g_param": g_param,
            }

        super().__init__(
            BSREMIteration(
                cost_fn=cost_fn,
                eps=eps,
                sensitivity_threshold=sensitivity_threshold,
            ),
            data_fidelity=data_fidelity,
            prior=prior,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            unfold=unfold,
            trainable_params=trainable_params,
            params_algo=params_algo,
            **kwargs,
        )

    def forward(
        self,
        y: torch.Tensor | TensorList | list[torch.Tensor],
        physics: Physics | StackedLinearPhysics,
        *args,
        **kwargs,
    ) -> torch.Tensor | tuple[torch.Tensor, dict]:
        r"""
        Run BSREM with full or pre-split measurements and physics.

        :param torch.Tensor, deepinv.utils.TensorList, list[torch.Tensor] y: Full measurement tensor, or pre-split measurements when ``physics`` is a :class:`deepinv.physics.StackedLinearPhysics`.
        :param deepinv.physics.Physics physics: Full tomography/PET physics or pre-split :class:`deepinv.physics.StackedLinearPhysics`.
        :return: Reconstructed image, and optionally the metrics dictionary when ``compute_metrics=True``.
        """
        from deepinv.physics.forward import StackedLinearPhysics
        from deepinv.physics.functional.tomography_subsets import (
            split_measurements,
            split_physics,
        )
        from deepinv.utils.tensorlist import TensorList

        if isinstance(physics, StackedLinearPhysics):
            if not isinstance(y, (TensorList, list)):
                raise TypeError(
                    "A pre-split deepinv.physics.StackedLinearPhysics requires pre-split measurements as a deepinv.utils.TensorList or list[torch.Tensor]. Use deepinv.physics.functional.tomography_subsets.split_measurements to split full measurements."
                )
            if isinstance(y, list):
                y = TensorList(y)
            if len(y) != len(physics):
                raise ValueError(
                    "The number of measurement subsets and physics subsets must match."
                )
        else:
            if not isinstance(y, torch.Tensor):
                raise TypeError(
                    "A full deepinv.physics.Tomography, deepinv.physics.TomographyWithAstra, or deepinv.physics.PET requires measurements as a torch.Tensor. To provide pre-split measurements, first use deepinv.physics.functional.tomography_subsets.split_physics to create the matching physics subsets."
                )
            full_physics = physics
            physics = split_physics(full_physics, self.num_subsets, device=y.device)
            y = split_measurements(y, full_physics, self.num_subsets)

        # Need to update the PoissonLikelihood data-fidelity with the background
        # for PET physics
        if hasattr(physics[0], "background"):
            for stacked_data_fidelity in self.data_fidelity:
                if isinstance(
                    stacked_data_fidelity.data_fidelity_list[0], PoissonLikelihood
                ):
                    for i, (data_fidelity, subset_physic) in enumerate(
                        zip(
                            stacked_data_fidelity.data_fidelity_list,
                            physics,
                            strict=True,
                        )
                    ):
                        stacked_data_fidelity.data_fidelity_list[i] = PoissonLikelihood(
                            gain=data_fidelity.gain,
                            bkg=subset_physic.background / data_fidelity.gain,
                            denormalize=data_fidelity.d.denormalize,
                        )

        with torch.no_grad():
            sensitivities = [
                subset_physic.A_adjoint(torch.ones_like(subset_y))
                for subset_y, subset_physic in zip(y, physics, strict=True)
            ]
        return super().forward(y, physics, sensitivities=sensitivities, *args, **kwargs)


class BlindRL(BaseOptim):
    r"""
    Blind Richardson-Lucy deconvolution for Poisson inverse problems.

    This algorithm alternates multiplicative MLEM updates for the image
    :math:`x` and the blur kernel :math:`h` under the model

    .. math::
        y \sim \operatorname{Poisson}(h * x).

    The updates are given by:

     .. math::

        h^{(k+1)} = \Pi_{\Delta}\left[\frac{h^{(k)}}{(x^{(k)})^\dagger * \mathbf{1}} \odot (x^{(k)})^\dagger * \left(\frac{y}{x^{(k)} * h^{(k)}}\right)\right],

     and:

     .. math::

        x^{(k+1)} = \frac{x^{(k)}}{(h^{(k+1)})^\dagger * \mathbf{1}} \odot (h^{(k+1)})^\dagger * \left(\frac{y}{h^{(k+1)} * x^{(k)}}\right).

    where :math:`z^\dagger` denotes the spatially flipped :math:`z`, such that :math:`z^\dagger *` is the adjoint of convolution by :math:`z`.
    The kernel is constrained to be nonnegative and, by default, normalized to unit
    sum by the \Pi_{\Delta} operation after each kernel update.

    Image and kernel priors can be used.
    The regularized algorithm is implemented using the the One-Step-Late (OSL) heuristic
    of Green :footcite:p:`greenUseEmAlgorithm1990`.
    The kernel and image updates then become:

    .. math::

        h^{(k+1)} = \Pi_{\Delta}\left[\frac{h^{(k)}}{(x^{(k)})^\dagger * \mathbf{1} + \lambda_h \nabla R_h(h^{(k)})} \odot (x^{(k)})^\dagger * \left(\frac{y}{x^{(k)} * h^{(k)}}\right)\right].

    .. math::

        x^{(k+1)} = \frac{x^{(k)}}{(h^{(k+1)})^\dagger * \mathbf{1} + \lambda_x \nabla R_x(x^{(k)})} \odot (h^{(k+1)})^\dagger * \left(\frac{y}{h^{(k+1)} * x^{(k)}}\right),

    .. note::

        The parameter ``use_fft`` enables to swap standard convolutions used to update
        the image and the kernel for FFT based convolutions, which significantly speeds
        up the algorithm when using a large image and estimating a large kernel.
        The speedup is particularly important for kernels bigger than 30x30.
        For small kernels (<15x15) and images (<128x128), it is more efficient to use
        standard convolutions.


    :param deepinv.optim.Prior x_prior: optional image prior. Default: ``None``.
    :param deepinv.optim.Prior k_prior: optional kernel prior. Default: ``None``.
    :param float lambda_reg_x: image regularization parameter. Default: ``0.0``.
    :param float lambda_reg_k: kernel regularization parameter. Default: ``0.0``.
    :param float g_param: parameter for the image prior. Default: ``None``.
    :param float g_param_kernel: parameter for the kernel prior. Default: ``None``.
    :param int x_steps: number of inner image updates per iteration. Default: ``1``.
    :param int k_steps: number of inner kernel updates per iteration. Default: ``1``.
    :param int, tuple[int, int] kernel_size: spatial size of the default uniform
        kernel. An explicit kernel in ``init`` overrides this size. Default: ``(17, 17)``.
    :param bool normalize_kernel: whether to normalize the kernel to unit sum.
        Default: ``True``.
    :param bool use_fft: whether to use FFT implementations for image and kernel
        convolutions. Default: ``False``.
    :param float eps: numerical stability constant. Default: ``1e-15``.
    :param int max_iter: number of alternating BlindRL iterations. Default: ``100``.
    :param tuple[torch.Tensor, torch.Tensor] init: initial image and blur kernel
        ``(x0, k0)``. If ``None``, ``x0`` is initialized with ``y`` and ``k0``
        with a uniform kernel of the same size as ``kernel_size``.
    :param Callable cost_fn: optional cost function. If omitted, the Poisson
        negative log-likelihood plus explicit image and kernel priors is used.
    :param dict params_algo: optionally provide BlindRL parameters directly.
    """

    def __init__(
        self,
        x_prior: Prior | list[Prior] = None,
        k_prior: Prior = None,
        lambda_reg_x: float = 0.0,
        lambda_reg_k: float = 0.0,
        g_param: float = None,
        g_param_kernel: float = None,
        x_steps: int = 1,
        k_steps: int = 1,
        kernel_size: int | tuple[int, int] = (17, 17),
        normalize_kernel: bool = True,
        use_fft: bool = False,
        eps: float = 1e-15,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        init: tuple[torch.Tensor, torch.Tensor] = None,
        cost_fn: Callable[
            [
                torch.Tensor,
                DataFidelity,
                Prior,
                dict[str, float],
                torch.Tensor,
                Physics,
            ],
            torch.Tensor,
        ] = None,
        params_algo: dict[str, float] = None,
        unfold: bool = False,
        DEQ: DEQConfig | bool = None,
        anderson_acceleration: AndersonAccelerationConfig | bool = False,
        **kwargs,
    ):
        if unfold or DEQ or anderson_acceleration:
            raise NotImplementedError(
                "BlindRL currently does not support unfold, DEQ or "
                "Anderson acceleration."
            )
        if isinstance(kernel_size, int):
            kernel_size = (kernel_size, kernel_size)
        if len(kernel_size) != 2 or any(size <= 0 for size in kernel_size):
            raise ValueError("kernel_size must contain two positive integers.")
        self.kernel_size = tuple(kernel_size)
        self.init = init

        if params_algo is None:
            params_algo = {
                "lambda_reg_x": lambda_reg_x,
                "lambda_reg_k": lambda_reg_k,
                "g_param": g_param,
                "g_param_kernel": g_param_kernel,
                "x_steps": x_steps,
                "k_steps": k_steps,
            }

        self.eps = eps
        k_prior_for_cost = ZeroPrior() if k_prior is None else k_prior

        if cost_fn is None:

            def cost_fn(x, data_fidelity, prior, cur_params, y, physics):
                cost = data_fidelity(x, y, physics)
                lambda_x = cur_params.get("lambda_reg_x", 0.0)
                lambda_k = cur_params.get("lambda_reg_k", 0.0)
                if prior is not None and prior.explicit_prior:
                    cost = cost + lambda_x * prior(x, cur_params.get("g_param", None))
                if k_prior_for_cost.explicit_prior:
                    cost = cost + lambda_k * k_prior_for_cost(
                        physics.filter,
                        cur_params.get("g_param_kernel", None),
                    )
                return cost

        super(BlindRL, self).__init__(
            BlindRLIteration(
                k_prior=k_prior,
                normalize_kernel=normalize_kernel,
                use_fft=use_fft,
                eps=eps,
                cost_fn=cost_fn,
            ),
            data_fidelity=PoissonLikelihood(),
            prior=x_prior,
            params_algo=params_algo,
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            get_output=lambda X: X["est"][0],
            unfold=False,
            **kwargs,
        )
        # BlindRL defines a Poisson cost even when the image prior is implicit.
        self.has_cost = True
        self.fixed_point.iterator.has_cost = True

    def forward(
        self,
        y: torch.Tensor,
        x_gt: torch.Tensor = None,
        compute_metrics: bool = False,
        **kwargs,
    ):
        r"""
        Run Blind Richardson-Lucy deconvolution.

        :param torch.Tensor y: blurred image of shape ``(B, C, H, W)``.
        :param torch.Tensor x_gt: optional ground-truth image used to compute metrics. Default: ``None``.
        :param bool compute_metrics: whether to compute reconstruction metrics. Default: ``False``.
        :return: estimated image and blur kernel ``(x, k)``. If ``compute_metrics`` is ``True``, return ``((x, k), metrics)``.
        """
        if self.init is None:
            x = y
            k = torch.ones((1, 1, *self.kernel_size), device=x.device, dtype=x.dtype)
            k = k / (self.kernel_size[0] * self.kernel_size[1])
        else:
            x, k = self.init

        if y.dim() != 4 or x.dim() != 4:
            raise ValueError(
                "BlindRL currently supports 2D images shaped (B, C, H, W)."
            )
        if y.shape != x.shape:
            raise ValueError(
                "y and x should have the same shape. "
                f"Got y={tuple(y.shape)} and x={tuple(x.shape)}."
            )
        if k.dim() != 4:
            raise ValueError(
                "The blur kernel must be a 4D tensor shaped (B or 1, C or 1, H, W)."
            )

        k = k.to(device=x.device, dtype=x.dtype)
        if k.shape[0] not in (1, x.shape[0]) or k.shape[1] not in (1, x.shape[1]):
            raise ValueError(
                "The kernel batch and channel sizes must be 1 or match x. "
                f"Got kernel shape {tuple(k.shape)} and x shape {tuple(x.shape)}."
            )
        if k.shape[0] == 1 and x.shape[0] > 1:
            k = k.expand(x.shape[0], -1, -1, -1).contiguous()
        if k.shape[1] == x.shape[1]:
            k = k.mean(dim=1, keepdim=True)

        physics = dinv.physics.Blur(
            filter=k,
            padding="circular",
            use_fft=self.fixed_point.iterator.use_fft,
            device=x.device,
        )
        output = super().forward(
            y,
            physics,
            init=(x, k),
            x_gt=x_gt,
            compute_metrics=compute_metrics,
            **kwargs,
        )
        if compute_metrics:
            x, metrics = output
            return (x, physics.filter), metrics
        return output, physics.filter


class SIRT(BaseOptim):
    r"""Simultaneous Iterative Reconstruction Technique (SIRT) optimization module.

    Implementation of the Simultaneous Iterative Reconstruction Technique (SIRT)
    :footcite:p:`gilbert_iterative_1972`
    algorithm for tomographic reconstruction. This algorithm is especially used in transmission tomography, i.e for X-ray computed tomography.
    The algorithm minimizes a weighted least-squares problem of the form :math:`\|Ax-y\|_{W}^2` and does not support any regularization.

    Iterations are given by

    .. math::
        \begin{equation*}
        x_{k+1} = x_k + \tau V A^{\top} W (y - A x_k)
        \end{equation*}

    where

    - :math:`\tau` is a stepsize parameter,
    - :math:`W = \mathrm{diag}\left(\frac{1}{\sum_{i}a_{ij}}\right)`, a diagonal matrix where each element is the inverse of the row sums of :math:`A`,
    - :math:`V = \mathrm{diag}\left(\frac{1}{\sum_{j}a_{ij}}\right)`, a diagonal matrix where each element is the inverse of the column sums of :math:`A`.

    The stepsize parameter :math:`\tau`, sometimes called relaxation parameter, should satisfy :math:`0 < \tau < 2` for convergence.

    The entries of :math:`W` are inversely proportional to the length traveled by each ray. The algorithm tolerates larger errors for measurements induced by rays that intersect a larger portion of the object. The entries of :math:`V` are inversely proportional to the number of rays intersecting each voxel. It balances the update based on the voxels' sensitivity to the measurements.

    For using early stopping or stepsize backtracking, see the documentation of the :class:`deepinv.optim.BaseOptim` class.
    The SIRT iterations are defined in the iterator class :class:`deepinv.optim.optim_iterators.SIRTIteration`.

    :param list, deepinv.optim.DataFidelity data_fidelity: data-fidelity term :math:`\datafid{x}{y}`. Note that SIRT only decreases the least-squares data-fidelity term :math:`\|Ax-y\|_2^2`, but other data-fidelities can still be measured along the iterations.
    :param float stepsize: stepsize parameter :math:`\tau`. Default: ``1.0``.
    :param int max_iter: maximum number of iterations of the optimization algorithm. Default: ``100``.
    :param str crit_conv: convergence criterion to be used for claiming convergence, either ``"residual"`` (residual
        of the iterate norm) or ``"cost"`` (on the cost function). Default: ``"residual"``.
    :param float thres_conv: convergence threshold for the chosen convergence criterion. Default: ``1e-5``.
    :param bool early_stop: whether to stop the algorithm as soon as the convergence criterion is met. Default: ``False``.
    :param dict custom_metrics: dictionary of custom metric functions to be computed along the iterations. The keys of the dictionary are the names of the metrics, and the values are functions that take as input the current and previous iterates, and return a scalar value. Default: ``None``.
    :param Callable custom_init:  Custom initialization of the algorithm.
    """

    def __init__(
        self,
        data_fidelity: DataFidelity | list[DataFidelity] = None,
        stepsize: float = 1.0,
        max_iter: int = 100,
        crit_conv: str = "residual",
        thres_conv: float = 1e-5,
        early_stop: bool = False,
        custom_metrics: dict[str, Metric] = None,
        custom_init: Callable[[torch.Tensor, Physics], dict] = None,
        **kwargs,
    ):
        super(SIRT, self).__init__(
            SIRTIteration(),
            data_fidelity=data_fidelity,
            params_algo={"stepsize": stepsize},
            max_iter=max_iter,
            crit_conv=crit_conv,
            thres_conv=thres_conv,
            early_stop=early_stop,
            custom_metrics=custom_metrics,
            custom_init=custom_init,
            **kwargs,
        )
