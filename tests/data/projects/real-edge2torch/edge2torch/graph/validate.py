"""
Internal graph validation and reporting.

Why this file exists
--------------------
This file separates graph-structural validation from both public API
input validation and backend-specific compilation. The package needs a
place to check whether a normalized internal graph is structurally
suitable for a requested backend and to represent the result in a form
that can be handled consistently.

Role in the package
-------------------
This is an internal graph-validation module. It defines the validation
report structure, performs backend-aware validation on normalized graph
objects, and handles the resulting notes, warnings, and errors. It
should focus on graph validity and reporting, not on input conversion,
public API orchestration, or model construction.
"""

import logging
from dataclasses import dataclass, field
from warnings import warn

from ..utils.constants import CompileBackend
from ..utils.errors import Edge2TorchError
from .schema import EdgeGraph

logger = logging.getLogger("edge2torch")


@dataclass
class ValidationReport:
    """
    Container for graph validation results.
    """

    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        """
        Return whether the report contains any errors.
        """
        return len(self.errors) > 0

    def format_errors(self) -> str:
        """
        Format all errors into a single readable message.

        Returns
        -------
        str
            Combined error message.
        """
        if not self.errors:
            return "Unknown graph validation error."

        header = "Graph validation failed with the following errors:"
        body = "\n".join(f"- {error}" for error in self.errors)
        return f"{header}\n{body}"


# Level 1 function definitions (functions called by API functions) -------------


def validate_graph(
    graph: EdgeGraph,
    backend: CompileBackend,
) -> ValidationReport:
    """
    Validate a normalized internal graph for backend-specific compilation.

    Parameters
    ----------
    graph : EdgeGraph
        Internal graph object.
    backend : CompileBackend
        Backend to compile to.

    Returns
    -------
    ValidationReport
        Validation report containing notes, warnings, and errors.
    """
    report = ValidationReport()

    _validate_common_graph_structure(
        graph=graph,
        report=report,
    )

    if backend == "feedforward":
        _validate_feedforward_graph(
            graph=graph,
            report=report,
        )
    elif backend == "state_update":
        _validate_state_update_backend_graph(
            graph=graph,
            report=report,
        )
    else:
        raise Edge2TorchError(
            f"Unsupported backend '{backend}' during graph validation."
        )

    return report


def handle_validation_report(
    report: ValidationReport,
) -> None:
    """
    Handle a validation report by raising errors and emitting notes or
    warnings.

    Parameters
    ----------
    report : ValidationReport
        Validation report to handle.

    Raises
    ------
    Edge2TorchError
        If the report contains errors.
    """
    if report.has_errors:
        raise Edge2TorchError(report.format_errors())

    for note in report.notes:
        logger.info("[edge2torch] Note: %s", note)

    for warning in report.warnings:
        warn(f"[edge2torch] Warning: {warning}", UserWarning, stacklevel=2)


# Level 2 function definitions (functions called by level 1 functions) ---------


def _validate_common_graph_structure(
    graph: EdgeGraph,
    report: ValidationReport,
) -> None:
    """
    Validate backend-independent graph structure.
    """
    if graph.edges.empty:
        report.errors.append("The graph contains no edges.")

    if len(graph.nodes) == 0:
        report.errors.append("The graph contains no nodes.")

    if graph.edges[["source", "target"]].isnull().any().any():
        report.errors.append(
            "The graph contains missing values in 'source' or 'target'."
        )

    empty_source = graph.edges["source"] == ""
    empty_target = graph.edges["target"] == ""

    if empty_source.any() or empty_target.any():
        report.errors.append(
            "The graph contains empty node names in 'source' or 'target'."
        )

    duplicate_edges = graph.edges.duplicated(subset=["source", "target"])
    n_duplicate_edges = int(duplicate_edges.sum())

    if n_duplicate_edges > 0:
        report.errors.append(
            f"The graph contains {n_duplicate_edges} duplicate edge(s). "
            "Duplicate edges are not supported because edge2torch expects at"
            " most one connection for each source-target pair."
        )

    n_nodes = len(graph.nodes)
    n_edges = len(graph.edges)

    report.notes.append(
        f"Graph contains {n_nodes} node(s) and {n_edges} edge(s)."
    )


def _validate_feedforward_graph(
    graph: EdgeGraph,
    report: ValidationReport,
) -> None:
    """
    Validate graph constraints required by the feedforward backend.
    """
    report.notes.append(
        "Feedforward backend selected. Graph must be layerable."
    )

    self_loops = graph.edges["source"] == graph.edges["target"]
    n_self_loops = int(self_loops.sum())

    if n_self_loops > 0:
        report.errors.append(
            f"The graph contains {n_self_loops} self-loop edge(s). "
            "Self-loops are not allowed for the feedforward backend."
        )

    if report.has_errors:
        return

    node_names = list(graph.nodes)

    in_degree: dict[str, int] = {node: 0 for node in node_names}
    children: dict[str, list[str]] = {node: [] for node in node_names}

    for row in graph.edges.itertuples(index=False):
        source = str(row.source)
        target = str(row.target)

        if source not in children:
            report.errors.append(
                f"Unknown source node '{source}' in feedforward graph."
            )
            continue

        if target not in in_degree:
            report.errors.append(
                f"Unknown target node '{target}' in feedforward graph."
            )
            continue

        children[source].append(target)
        in_degree[target] += 1

    if report.has_errors:
        return

    current_layer_nodes = sorted(
        node for node in node_names if in_degree[node] == 0
    )

    if not current_layer_nodes:
        report.errors.append(
            "Feedforward compilation requires at least one input node "
            "(a node with no incoming edges). This graph has none, which "
            "often means it is a pure cycle or otherwise closed. "
            "Feedforward needs an acyclic, layerable graph."
        )
        return

    visited_nodes: set[str] = set()
    node_to_depth: dict[str, int] = {}
    depth = 0

    while current_layer_nodes:
        next_layer_candidates: set[str] = set()

        for node in current_layer_nodes:
            visited_nodes.add(node)
            node_to_depth[node] = depth

            for child in children[node]:
                in_degree[child] -= 1

                if in_degree[child] == 0:
                    next_layer_candidates.add(child)

        depth += 1
        current_layer_nodes = sorted(next_layer_candidates)

    if len(visited_nodes) != len(node_names):
        report.errors.append(
            "Feedforward compilation requires an acyclic, layerable graph. "
            "The graph contains at least one cycle or unresolved dependency."
        )
        return

    output_node_depths = {
        node: node_to_depth[node]
        for node in node_names
        if len(children[node]) == 0
    }

    if output_node_depths:
        final_output_depth = max(output_node_depths.values())
        early_output_nodes = sorted(
            node
            for node, node_depth in output_node_depths.items()
            if node_depth != final_output_depth
        )

        if early_output_nodes:
            early_output_str = ", ".join(early_output_nodes)
            report.errors.append(
                "Feedforward compilation requires all terminal output nodes "
                "to be at the same layer depth. Output node(s) at earlier "
                "depth than the final output layer are not supported: "
                f"{early_output_str}."
            )


def _validate_state_update_backend_graph(
    graph: EdgeGraph,
    report: ValidationReport,
) -> None:
    """
    Validate graph constraints required by the state-update backend.
    """
    report.notes.append("State-update backend selected. Cycles may be allowed.")

    _validate_state_update_graph(
        graph=graph,
        report=report,
        backend_name="State-update",
        backend_label="state_update",
    )


# Level 3 functions (functions called by level 2 functions) --------------------


def _validate_state_update_graph(
    graph: EdgeGraph,
    report: ValidationReport,
    backend_name: str,
    backend_label: str,
) -> None:
    """
    Validate graph constraints shared by state-update backends.

    State-update compilation allows cycles, but it still requires
    at least one input node and at least one output node. Input nodes are
    inferred as nodes with no incoming edges. Output nodes are inferred as
    nodes with no outgoing edges.
    """
    self_loops = graph.edges["source"] == graph.edges["target"]
    n_self_loops = int(self_loops.sum())

    if n_self_loops > 0:
        report.warnings.append(
            f"The graph contains {n_self_loops} self-loop edge(s)."
        )

    node_names = list(graph.nodes)

    children: dict[str, list[str]] = {node: [] for node in node_names}
    parents: dict[str, list[str]] = {node: [] for node in node_names}

    for row in graph.edges.itertuples(index=False):
        source = str(row.source)
        target = str(row.target)

        if source not in children:
            report.errors.append(
                f"Unknown source node '{source}' in {backend_label} graph."
            )
            continue

        if target not in parents:
            report.errors.append(
                f"Unknown target node '{target}' in {backend_label} graph."
            )
            continue

        children[source].append(target)
        parents[target].append(source)

    if report.has_errors:
        return

    input_node_names = sorted(
        node for node in node_names if len(parents[node]) == 0
    )

    output_node_names = sorted(
        node for node in node_names if len(children[node]) == 0
    )

    if not input_node_names:
        report.errors.append(
            f"{backend_name} compilation requires at least one input node. "
            "Cycles are allowed, but the graph must include at least one "
            "node with no incoming edges."
        )

    if not output_node_names:
        report.errors.append(
            f"{backend_name} compilation requires at least one output node. "
            "Cycles are allowed, but the graph must include at least one "
            "node with no outgoing edges."
        )

    if input_node_names and output_node_names:
        _validate_outputs_reachable_from_inputs(
            children=children,
            parents=parents,
            input_node_names=input_node_names,
            output_node_names=output_node_names,
            backend_name=backend_name,
            report=report,
        )


# Level 4 functions (functions called by level 3 functions) --------------------


def _validate_outputs_reachable_from_inputs(
    children: dict[str, list[str]],
    parents: dict[str, list[str]],
    input_node_names: list[str],
    output_node_names: list[str],
    backend_name: str,
    report: ValidationReport,
) -> None:
    """
    Validate that output-relevant nodes are reachable from input nodes.
    """
    reachable_from_inputs: set[str] = set()
    stack = list(input_node_names)

    while stack:
        node = stack.pop()

        if node in reachable_from_inputs:
            continue

        reachable_from_inputs.add(node)
        stack.extend(children[node])

    output_relevant_nodes: set[str] = set()
    stack = list(output_node_names)

    while stack:
        node = stack.pop()

        if node in output_relevant_nodes:
            continue

        output_relevant_nodes.add(node)
        stack.extend(parents[node])

    unreachable_outputs = sorted(
        node for node in output_node_names if node not in reachable_from_inputs
    )

    if unreachable_outputs:
        unreachable_str = ", ".join(unreachable_outputs)
        report.errors.append(
            f"{backend_name} compilation requires every output node to be "
            "reachable from at least one input node. Unreachable output "
            f"node(s): {unreachable_str}."
        )

    unreachable_output_relevant_nodes = sorted(
        node
        for node in output_relevant_nodes
        if node not in reachable_from_inputs and node not in output_node_names
    )

    if unreachable_output_relevant_nodes:
        unreachable_str = ", ".join(unreachable_output_relevant_nodes)
        report.errors.append(
            f"{backend_name} compilation requires every node that can "
            "influence an output node to be reachable from at least one "
            "input node. Unreachable output-relevant node(s): "
            f"{unreachable_str}."
        )
