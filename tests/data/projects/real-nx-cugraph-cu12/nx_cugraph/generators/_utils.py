# SPDX-FileCopyrightText: Copyright (c) 2023-2025, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0
import operator as op
from collections import Counter

import cupy as cp
import networkx as nx

import nx_cugraph as nxcg
from nx_cugraph import _nxver

from ..utils import index_dtype

# 3.2.1 fixed some issues in generators that occur in 3.2 and earlier
_IS_NX32_OR_LESS = (nxver := nx.__version__)[:3] <= "3.2" and (
    len(nxver) <= 3 or nxver[3] != "." and not nxver[3].isdigit()
)


def _ensure_int(n):
    """Ensure n is integral."""
    return op.index(n)


def _ensure_nonnegative_int(n):
    """Ensure n is a nonnegative integer."""
    n = op.index(n)
    if n < 0:
        raise nx.NetworkXError(f"Negative number of nodes not valid: {n}")
    return n


def _complete_graph_indices(n):
    # returns complete adj matrix for graph with N nodes
    all_indices = cp.indices((n, n), dtype=index_dtype)
    src_indices = all_indices[0].ravel()
    dst_indices = all_indices[1].ravel()
    del all_indices
    mask = src_indices != dst_indices

    return (src_indices[mask], dst_indices[mask])


def _common_small_graph(
    n, nodes, create_using, *, allow_directed=True, self_loops=None
):
    """Create a "common graph" for small n.

    n == 0: empty graph
    n == 1: empty graph (unless has self-loops)
    n == 2: complete graph (may have self-loops)
    n > 2: undefined
    """
    graph_class, inplace = _create_using_class(create_using)
    if not allow_directed and graph_class.is_directed():
        raise nx.NetworkXError("Directed Graph not supported")
    if self_loops:
        if n == 1:
            G = graph_class.from_coo(
                n,
                cp.zeros(1, dtype=index_dtype),
                cp.zeros(1, dtype=index_dtype),
                id_to_key=nodes,
            )
        # n == 2
        elif len(self_loops) == 2:
            G = graph_class.from_coo(
                n,
                cp.ones(1, dtype=index_dtype),
                cp.ones(1, dtype=index_dtype),
                id_to_key=nodes,
            )
        else:
            [self_loop] = self_loops
            index = nodes.index(self_loop)
            if index == 0:
                src = cp.array([0, 0, 1], dtype=index_dtype)
                dst = cp.array([0, 1, 0], dtype=index_dtype)
            else:
                src = cp.array([0, 1, 1], dtype=index_dtype)
                dst = cp.array([1, 0, 1], dtype=index_dtype)
            G = graph_class.from_coo(n, src, dst, id_to_key=nodes)
    elif n < 2:
        G = graph_class.from_coo(
            n, cp.empty(0, index_dtype), cp.empty(0, index_dtype), id_to_key=nodes
        )
    else:
        G = graph_class.from_coo(
            n,
            cp.arange(2, dtype=index_dtype),
            cp.array([1, 0], index_dtype),
            id_to_key=nodes,
        )
    if inplace:
        return create_using._become(G)
    return G


def _create_using_class(create_using, *, default=nx.Graph):
    """Handle ``create_using`` argument and return a Graph type from nx_cugraph."""
    inplace = False
    if create_using is None:
        G = default()
    elif isinstance(create_using, type):
        G = create_using()
    elif not hasattr(create_using, "is_directed") or not hasattr(
        create_using, "is_multigraph"
    ):
        raise TypeError("create_using is not a valid graph type or instance")
    elif not isinstance(create_using, (nxcg.Graph, nxcg.CudaGraph)):
        raise NotImplementedError(
            f"create_using with object of type {type(create_using)} is not supported "
            "by the cugraph backend; only nx_cugraph.Graph or nx_cugraph.CudaGraph "
            "objects are allowed."
        )
    else:
        inplace = True
        G = create_using
        G.clear()
    if not isinstance(G, (nxcg.Graph, nxcg.CudaGraph)):
        if G.is_multigraph():
            if G.is_directed():
                graph_class = nxcg.MultiDiGraph
            else:
                graph_class = nxcg.MultiGraph
        elif G.is_directed():
            graph_class = nxcg.DiGraph
        else:
            graph_class = nxcg.Graph
        if _nxver >= (3, 3) and not nx.config.backends.cugraph.use_compat_graphs:
            graph_class = graph_class.to_cudagraph_class()
        if G.__class__ not in {nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph}:
            raise NotImplementedError(
                f"create_using with type {type(G)} is not supported by the cugraph "
                "backend; only standard networkx or nx_cugraph graph objects are "
                "allowed (but not customized subclasses derived from them)."
            )
    else:
        graph_class = G.__class__
    return graph_class, inplace


def _number_and_nodes(n_and_nodes, *, drop_duplicates=False, return_selfloops=False):
    n, nodes = n_and_nodes
    try:
        n = op.index(n)
    except TypeError:
        n = len(nodes)
    else:
        if n < 0:
            raise nx.NetworkXError(f"Negative number of nodes not valid: {n}")
    # `_nodes_or_number` from nx returns nodes of type:
    #   - list: if generated from int as `list(range(n))`
    #   - tuple: if user-provided as `tuple(n)`
    if not nodes or isinstance(nodes, list):
        if return_selfloops:
            return (n, None, None)
        return (n, None)
    if return_selfloops:
        counter = Counter(nodes)
        if len(counter) < n:
            if drop_duplicates:
                nodes = list(counter)
                n = len(nodes)
            self_loops = {k: v for k, v in counter.items() if v > 1}
        else:
            self_loops = None
    elif drop_duplicates:
        nodes = list(dict.fromkeys(nodes))  # Drop duplicates, keep order
        n = len(nodes)
    else:
        nodes = list(nodes)
    if nodes[0] == 0 and nodes[n - 1] == n - 1:
        try:
            if nodes == list(range(n)):
                if return_selfloops:
                    return (n, None, self_loops)
                return (n, None)
        except Exception:
            pass
    if return_selfloops:
        return (n, nodes, self_loops)
    return (n, nodes)
