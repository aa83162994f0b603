"""
Backend dispatch for graph compilation.

Why this file exists
--------------------
This file centralizes the mapping from backend names to backend-specific
compiler implementations. Keeping this dispatch logic in one place makes
the compilation architecture easier to extend and avoids scattering
backend selection rules across the package.

Role in the package
-------------------
This is an internal compilation orchestration module. It chooses which
backend-specific compiler should be called for a validated graph and
backend name. It should contain backend dispatch logic, not the backend
implementations themselves or the public API entry point.
"""

from torch import nn

from ..graph.schema import EdgeGraph
from ..utils.constants import COMPILE_BACKENDS, CompileBackend
from ..utils.errors import Edge2TorchError
from .artifact import CompileArtifact
from .feedforward import compile_feedforward
from .state_update import compile_state_update

_DEFAULT_STATE_UPDATE_STEPS = 3


def compile_backend(
    graph: EdgeGraph,
    backend: CompileBackend,
    bias: bool = True,
    steps: int | None = None,
) -> tuple[nn.Module, CompileArtifact]:
    """
    Compile a graph into a backend-specific PyTorch model.

    Parameters
    ----------
    graph
        Internal KPNN graph object.
    backend
        The backend to compile to.
    bias
        Whether compiled masked linear layers include bias terms. If True,
        each target node has a learned node-level offset in addition to its
        graph-defined weighted inputs. If False, node updates are computed only
        from graph-defined weighted inputs. Disabling bias gives the graph
        structure stricter control over node activations.
    steps
        Number of state-update steps for the ``state_update`` backend.
        When ``None``, ``state_update`` uses
        ``_DEFAULT_STATE_UPDATE_STEPS``. The public ``compile_graph()``
        API rejects ``steps`` for ``feedforward`` before this dispatcher
        is called. This function does not pass ``steps`` to the
        feedforward compiler.

    Returns
    -------
    tuple
        A tuple of (model, artifact).

    Raises
    ------
    Edge2TorchError
        If the backend is unsupported.
    """
    if backend == "feedforward":
        return compile_feedforward(
            graph=graph,
            bias=bias,
        )

    if backend == "state_update":
        resolved_steps = _DEFAULT_STATE_UPDATE_STEPS if steps is None else steps
        return compile_state_update(
            graph=graph,
            bias=bias,
            steps=resolved_steps,
        )

    supported = ", ".join(sorted(COMPILE_BACKENDS))
    raise Edge2TorchError(
        f"Unsupported backend '{backend}'. Supported backends: {supported}."
    )
