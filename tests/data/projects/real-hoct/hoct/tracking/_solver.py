import math

import tracksdata as td
from pydantic import BaseModel, Field

from hoct._logging import LOG
from hoct.tracking._tracklet_solver import TrackletSolver


class ILPSolverConfig(BaseModel):
    """Configuration for the ILP tracking solver.

    Use ``ILPSolverConfig.default()`` for the package's tracking defaults.
    Direct construction requires all weight fields and ``tracklet_solver``.

    Attributes
    ----------
    appearance_weight : float | tracksdata.attrs.Attr
        Cost weight for appearances, modulated by predicted orphan probability.
    disappearance_weight : float | tracksdata.attrs.Attr
        Cost weight for cells disappearing before the last frame.
    division_weight : float | tracksdata.attrs.Attr
        Cost weight for divisions. A large positive value discourages divisions.
    node_weight : float | tracksdata.attrs.Attr
        Node-selection cost. Negative values encourage including detections.
    delta_t_weight : float | tracksdata.attrs.Attr
        Decay applied to link weights as the temporal gap grows.
    edge_bias : float | tracksdata.attrs.Attr
        Added to negative similarity when computing edge cost. Positive values
        increase link costs.
    timeout : float
        Maximum solver time in seconds. Direct-construction default is 600.
    tracklet_solver : bool
        Enable two-pass solving: form tracklets, then link those tracklets.
    solver_preference : str | list[str] | None
        Backend name, or ordered list of backend names, for the ILP solver
        (for example ``"gurobi"`` or ``["gurobi", "cuopt", "scip"]``). The name
        is matched case-insensitively. ``None`` keeps tracksdata's default
        order (Gurobi then SCIP). The ``"cuopt"`` backend needs ``ilpy>=0.6.0``.

    Examples
    --------
    >>> config = ILPSolverConfig.default()
    >>> # Keep the remaining defaults and discourage divisions.
    >>> config = config.model_copy(update={"division_weight": 1e6})
    """

    appearance_weight: float | td.attrs.Attr = Field(description="Weight for appearance edges")
    disappearance_weight: float | td.attrs.Attr = Field(description="Weight for disappearance edges")
    division_weight: float | td.attrs.Attr = Field(description="Weight for division edges")
    node_weight: float | td.attrs.Attr = Field(description="Weight for node selection")
    delta_t_weight: float | td.attrs.Attr = Field(description="Penalty for edges spanning multiple frames")
    edge_bias: float | td.attrs.Attr = Field(description="Bias added to edge weights")
    timeout: float = Field(600.0, description="Solver timeout in seconds")
    tracklet_solver: bool = Field(description="Use two-pass tracklet solver")
    solver_preference: str | list[str] | None = Field(
        default=None,
        description=(
            "ILP backend name or ordered list of names (for example 'gurobi' or "
            "['gurobi', 'cuopt', 'scip']). None keeps tracksdata's default order. "
            "The 'cuopt' backend needs ilpy>=0.6.0."
        ),
    )

    model_config = {
        "frozen": True,
        "extra": "forbid",
        "arbitrary_types_allowed": True,
    }

    @classmethod
    def default(cls) -> "ILPSolverConfig":
        return cls(
            appearance_weight=0.5,
            delta_t_weight=0.5,
            disappearance_weight=0.25,
            division_weight=0.25,
            edge_bias=0.5,
            node_weight=-10.0,
            timeout=7200.0,  # 2 hours
            tracklet_solver=True,
        )


def solve_tracking(
    graph: td.graph.BaseGraph,
    config: ILPSolverConfig,
    return_solution: bool = True,
) -> td.graph.InMemoryGraph | None:
    """
    Solve the tracking problem using ILP optimization.

    This function applies an Integer Linear Programming (ILP) solver to find the optimal
    tracking solution given edge similarity scores and orphan probabilities in the graph.

    Parameters
    ----------
    graph : td.graph.BaseGraph
        The graph to solve the tracking problem for. Must contain:
        - 'similarity' edge attribute: edge probabilities/scores
        - 'orphan_prob' node attribute: orphan probabilities for nodes
    config : ILPSolverConfig
        Configuration parameters for the ILP solver (weights, timeout, etc.).
    return_solution : bool
        Whether to return the solution graph or not.

    Returns
    -------
    td.graph.InMemoryGraph
        The solved tracking graph with 'solution' attributes set on nodes and edges.

    Notes
    -----
    - Resets any existing solution in the graph before solving
    - Respects 'no_division' metadata flag to disable cell divisions
    - Appearance weights are modulated by orphan probabilities
    - If tracklet_solver=True, uses two-pass solving (tracklets then linkage)
    """
    LOG.info("Starting solve_tracking")
    if td.DEFAULT_ATTR_KEYS.SOLUTION in graph.node_attr_keys():
        LOG.debug("Resetting existing solution in graph")
        graph.update_node_attrs(attrs={td.DEFAULT_ATTR_KEYS.SOLUTION: False})
        graph.update_edge_attrs(attrs={td.DEFAULT_ATTR_KEYS.SOLUTION: False})

    LOG.info("Computing edge weights and node filters")
    # Compute edge weights
    sim_weight = -td.EdgeAttr("similarity") + config.edge_bias
    delta_t_penalty = (-config.delta_t_weight * (td.EdgeAttr("delta_t").abs() - 1)).exp()
    edge_weight = sim_weight * delta_t_penalty

    # Compute node filters
    not_first_frame = td.NodeAttr(td.DEFAULT_ATTR_KEYS.T) != td.NodeAttr(td.DEFAULT_ATTR_KEYS.T).min()
    not_last_frame = td.NodeAttr(td.DEFAULT_ATTR_KEYS.T) != td.NodeAttr(td.DEFAULT_ATTR_KEYS.T).max()

    LOG.info("Metadata: %s", graph.metadata)
    no_division = graph.metadata.get("no_division", False)
    LOG.info("Division mode: %s", "disabled" if no_division else "enabled")

    kwargs = {
        "appearance_weight": config.appearance_weight * (1 - td.NodeAttr("orphan_prob")) * not_first_frame,
        "disappearance_weight": config.disappearance_weight * not_last_frame,
        "division_weight": 1_000_000 if no_division else config.division_weight,
        "node_weight": config.node_weight,
        "timeout": config.timeout,
    }
    # Forward the backend preference only when set. Older tracksdata (before the
    # configurable `solver_preference`) has no such kwarg; omitting it keeps the
    # default-config path working against that version.
    if config.solver_preference is not None:
        kwargs["solver_preference"] = config.solver_preference
    LOG.debug(
        "Solver weights configured: appearance=%.2f, disappearance=%.2f, division=%.2f, node=%.2f",
        kwargs["appearance_weight"],
        kwargs["disappearance_weight"],
        kwargs["division_weight"],
        kwargs["node_weight"],
    )

    # Two-pass solving: first tracklets, then linkage
    if config.tracklet_solver:
        LOG.info("Using two-pass tracklet solver")
        LOG.info("Pass 1/2: Solving for tracklets (delta_t=1 only)")
        td.solvers.ILPSolver(
            edge_weight=-td.EdgeAttr("similarity") + config.edge_bias + (td.EdgeAttr("delta_t") > 1) * math.inf,
            **kwargs,
        ).solve(graph)
        LOG.info("Pass 1/2: Tracklet solving completed")

        LOG.info("Pass 2/2: Linking tracklets")
        solution_graph = TrackletSolver(
            edge_weight=edge_weight,
            **kwargs,
            return_solution=return_solution,
        ).solve(graph)
        LOG.info("Pass 2/2: Tracklet linking completed")

    else:
        LOG.info("Using single-pass ILP solver")
        solution_graph = td.solvers.ILPSolver(
            edge_weight=edge_weight,
            **kwargs,
            return_solution=return_solution,
        ).solve(graph)
        LOG.info("Single-pass ILP solver completed")

    LOG.info("solve_tracking completed successfully")
    return solution_graph
