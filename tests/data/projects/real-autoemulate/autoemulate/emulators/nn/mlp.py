import textwrap

from torch import nn
from torch.optim.lr_scheduler import LRScheduler

from autoemulate.core.device import TorchDeviceMixin
from autoemulate.core.types import DeviceLike, TensorLike
from autoemulate.data.utils import set_random_seed
from autoemulate.transforms.standardize import StandardizeTransform

from ..base import DropoutTorchBackend


def _generate_mlp_docstring(
    additional_parameters_docstring: str = "",
    default_dropout_prob: float | None = None,
):
    """Generate variants of MLP docstring.

    Parameters
    ----------
    additional_parameters_docstring: str
        Subclass specific parameters to include in the docstring. This should be passed
        such as:
        another_arg_str = '''
        another_arg: str
            Description for another_arg.
        '''
    default_dropout_prob: float | None
        Default value for dropout_prob parameter.
    """
    # Unindent the additional parameters docstring
    additional_parameters_docstring = textwrap.dedent(additional_parameters_docstring)
    # Re-indent with 4 spaces for docstring formatting
    if additional_parameters_docstring.strip():
        additional_parameters_docstring = textwrap.indent(
            additional_parameters_docstring.strip(), "    "
        )

    docstring_base = f"""
    Parameters
    ----------
    x: TensorLike
        Input features.
    y: TensorLike
        Target values.
    activation_cls: type[nn.Module]
        Activation function to use in the hidden layers. Defaults to `nn.ReLU`.
    layer_dims: list[int] | None
        Dimensions of the hidden layers. If None, defaults to [32, 16].
        Defaults to None.
    weight_init: str
        Weight initialization method. Options are "default", "normal", "uniform",
        "zeros", "ones", "xavier_uniform", "xavier_normal", "kaiming_uniform",
        "kaiming_normal". Defaults to "default".
    scale: float
        Scale parameter for weight initialization methods. Used as:
        - gain for Xavier methods
        - std for normal distribution
        - bound for uniform distribution (range: [-scale, scale])
        - ignored for Kaiming methods (uses optimal scaling)
        Defaults to 1.0.
    bias_init: str
        Bias initialization method. Options: "zeros", "default":
            - "zeros" initializes biases to zero
            - "default" uses PyTorch's default uniform initialization
    dropout_prob: float | None
        Dropout probability for regularization. If None, no dropout is applied.
        Defaults to {default_dropout_prob}.
    lr: float
        Learning rate for the optimizer. Defaults to 1e-2.
    params_size: int
        Number of parameters to predict per output dimension. Defaults to 1.
    random_seed: int | None
        Random seed for reproducibility. If None, no seed is set. Defaults to None.
    device: DeviceLike | None
        Device to run the model on (e.g., "cpu", "cuda", "mps"). Defaults to None.
    scheduler_cls: type[LRScheduler] | None
        Learning rate scheduler class. If None, no scheduler is used. Defaults to
        None.
    scheduler_params: dict | None
        Additional keyword arguments related to the scheduler."""

    if additional_parameters_docstring.strip():
        docstring_base += "\n" + additional_parameters_docstring + "\n"
    else:
        docstring_base += "\n"

    docstring_base += """    deterministic: bool
        Whether to use deterministic algorithms in PyTorch. Defaults to False.
"""

    docstring_base += """
    Raises
    ------
    ValueError
        If the input dimensions of `x` and `y` are not matrices.
    """
    return docstring_base


class MLP(DropoutTorchBackend):
    """
    Multi-Layer Perceptron (MLP) emulator.

    MLP provides a simple deterministic emulator with optional model stochasticity
    provided by different weight initialization and dropout.
    """

    def __init__(
        self,
        x: TensorLike,
        y: TensorLike,
        standardize_x: bool = True,
        standardize_y: bool = True,
        activation_cls: type[nn.Module] = nn.ReLU,
        loss_fn_cls: type[nn.Module] = nn.MSELoss,
        epochs: int = 100,
        batch_size: int = 16,
        layer_dims: list[int] | None = None,
        weight_init: str = "default",
        scale: float = 1.0,
        bias_init: str = "default",
        dropout_prob: float | None = None,
        lr: float = 1e-2,
        params_size: int = 1,
        random_seed: int | None = None,
        device: DeviceLike | None = None,
        scheduler_cls: type[LRScheduler] | None = None,
        scheduler_params: dict | None = None,
        deterministic: bool = False,
    ):
        self.__doc__ = f"""
        Multi-Layer Perceptron (MLP) emulator.

        MLP provides a simple deterministic emulator with optional model stochasticity
        provided by different weight initialization and dropout.
        {
            _generate_mlp_docstring(
                additional_parameters_docstring="", default_dropout_prob=None
            )
        }
        """
        TorchDeviceMixin.__init__(self, device=device)
        nn.Module.__init__(self)

        if random_seed is not None:
            set_random_seed(seed=random_seed, deterministic=deterministic)

        # Ensure x and y are tensors with correct dimensions
        x, y = self._convert_to_tensors(x, y)

        # Construct the MLP layers
        self.layer_dims = (
            [x.shape[1], *layer_dims] if layer_dims else [x.shape[1], 32, 16]
        )
        self.dropout_prob = dropout_prob
        self.activation_cls = activation_cls

        layers = []
        for idx, dim in enumerate(self.layer_dims[1:]):
            layers.append(nn.Linear(self.layer_dims[idx], dim, device=self.device))
            layers.append(self.activation_cls())
            if self.dropout_prob is not None:
                layers.append(nn.Dropout(p=self.dropout_prob))

        # Add final layer without activation
        num_tasks = y.shape[1]
        layers.append(
            nn.Linear(self.layer_dims[-1], num_tasks * params_size, device=self.device)
        )
        self.nn = nn.Sequential(*layers)

        # Finalize initialization
        self.weight_init = weight_init
        self.scale = scale
        self.bias_init = bias_init
        self._initialize_weights(self.weight_init, self.scale, self.bias_init)
        self.x_transform = StandardizeTransform() if standardize_x else None
        self.y_transform = StandardizeTransform() if standardize_y else None
        self.epochs = epochs
        self.loss_fn_cls = loss_fn_cls
        self.loss_fn = loss_fn_cls()
        self.lr = lr
        self.batch_size = batch_size
        self.optimizer = self.optimizer_cls(self.nn.parameters(), lr=self.lr)  # type: ignore[call-arg] since all optimizers include lr
        self.scheduler_cls = scheduler_cls
        self.scheduler_params = scheduler_params or {}
        self.scheduler_setup(self.scheduler_params)
        self.to(self.device)

    def forward(self, x):
        """Forward pass for the MLP."""
        return self.nn(x)

    @staticmethod
    def is_multioutput() -> bool:
        """MLP supports multi-output."""
        return True

    @staticmethod
    def get_tune_params():
        """Return a dictionary of hyperparameters to tune."""
        scheduler_specs = MLP.get_scheduler_params()
        return {
            "epochs": [100, 200],
            "layer_dims": [[8, 4], [16, 8], [32, 16], [64, 32, 16]],
            "lr": [5e-1, 2e-1, 1e-1, 1e-2, 1e-3],
            "batch_size": [16, 32],
            "weight_init": ["default", "normal"],
            "scale": [0.1, 1.0],
            "bias_init": ["default", "zeros"],
            "dropout_prob": [0.3, None],
            "scheduler_cls": scheduler_specs["scheduler_cls"],
            "scheduler_params": scheduler_specs["scheduler_params"],
        }
