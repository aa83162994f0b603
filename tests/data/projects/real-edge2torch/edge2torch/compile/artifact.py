"""
Artifact definition for compiled KPNN models.

Why this file exists
--------------------
This file defines the structured object that is returned alongside a
compiled PyTorch model. The artifact exists to preserve the non-model
metadata needed after compilation, especially for interpretation and
other downstream package operations.

Role in the package
-------------------
This is an internal compilation-bridge module. It defines the data
structure that connects graph compilation to later stages such as model
customization and interpretation. It should contain the artifact schema
itself, not compilation logic, validation logic, or model execution
code.
"""

from dataclasses import dataclass, field

from ..graph.schema import EdgeGraph
from ..utils.constants import CompileBackend


@dataclass
class CompileArtifact:
    """
    Compilation metadata returned together with the compiled PyTorch model.

    ``CompileArtifact`` is returned by ``compile_graph()`` and accepted by
    public helper functions such as ``align_features_to_input_nodes()`` and
    ``interpret_model()``. It is exported for user-facing type hints and
    workflow integration.

    The stable public fields are ``backend``, ``input_nodes``,
    ``output_nodes``, ``hidden_nodes``, and ``interpretation_sites``.
    ``feature_names`` is a read-only alias of ``input_nodes``: the same
    names in the same order, used as the tensor-column contract.
    ``interpretation_sites`` lists visible graph nodes only. Compilation
    internals such as the full attribution site map, the graph object,
    and the execution plan are private and may change across releases.

    Parameters
    ----------
    backend : CompileBackend
        Backend used for compilation (``"feedforward"`` or ``"state_update"``).
    input_nodes : list[str]
        Names of graph input nodes inferred as nodes with no incoming
        edges. This list is also the expected input column order for
        tensors passed to the compiled model.
    output_nodes : list[str]
        Names of graph output nodes inferred as nodes with no outgoing edges.
    hidden_nodes : list[str]
        Names of hidden graph nodes excluding inputs, outputs, and compiler
        pseudo nodes.
    interpretation_sites : dict[str, list[str]]
        Mapping from interpretation site identifier to ordered visible
        domain node names for that site. The ``feedforward`` backend uses
        ``layer_1``, ``layer_2``, and so on. The ``state_update`` backend
        uses ``step_1``, ``step_2``, and so on. Compiler pseudo nodes and
        other internal nodes are omitted.
    """

    backend: CompileBackend
    input_nodes: list[str]
    output_nodes: list[str]
    hidden_nodes: list[str]
    interpretation_sites: dict[str, list[str]]
    _interpretation_sites: dict[str, list[str]] = field(repr=False)
    _graph: EdgeGraph = field(repr=False)
    _execution_plan: object = field(repr=False)
    _node_names_by_layer: dict[str, list[str]] = field(repr=False)

    @property
    def feature_names(self) -> list[str]:
        """
        Ordered input-node names for tensors passed to the compiled model.

        This is a read-only alias of ``input_nodes``: the same names in
        the same order. The returned list is a copy.
        """
        return list(self.input_nodes)
