"""Neighbor search and grouping: kNN, FPS, radius queries, local grids, decimation, and kNN interpolation."""

from typing import List, Literal, Optional, Tuple, Union, overload

import torch
import torch_geometric.nn.pool as pool
from torch import Tensor
from torch_geometric.utils import scatter

from torch_pointcloud.utils.conversion import ensure_option
from torch_pointcloud.utils.types import OptTensor


def _check_sorted_batch(batch: Tensor, name: str) -> None:
    if batch.numel() > 1 and bool((batch[1:] < batch[:-1]).any()):
        raise ValueError(f"`{name}` must be sorted in non-decreasing order.")


def _check_packed_2d(src: Tensor, name: str) -> None:
    if src.dim() != 2:
        raise ValueError(
            f"`{name}` must be a packed 2D tensor of shape (N, D); got shape {tuple(src.shape)}. Point clouds "
            "are never padded to (B, N, D): concatenate the clouds along the first dimension and pass a "
            "`batch` index of shape (N,) instead."
        )


def knn(
    x: Tensor,
    y: Tensor,
    k: int,
    batch_x: OptTensor = None,
    batch_y: OptTensor = None,
    cosine: bool = False,
    num_workers: int = 1,
    batch_size: Optional[int] = None,
) -> Tensor:
    r"""Find the $k$ nearest neighbors in $x$ for each point in $y$.

    A wrapper around `torch_geometric.nn.pool.knn` that checks its inputs.

    Important:
        If provided, the `batch_x` and `batch_y` tensors must be sorted in non-decreasing order; unsorted batches
        raise a `ValueError`.

    Note:
        When a point of $y$ coincides with a point of $x$ (e.g. `knn(pos, pos, k)`), the query point
        itself counts among the $k$ neighbors, matching `torch_geometric.nn.pool.knn`.

    Args:
        x: The source tensor to find the nearest neighbors of shape $(N, *)$.
        y: The target tensor to find the nearest neighbors of shape $(M, *)$.
        k: The number of nearest neighbors to find.
        batch_x: The batch tensor of the source tensor of shape $(N,)$.
        batch_y: The batch tensor of the target tensor of shape $(M,)$.
        cosine: Whether to use cosine distance.
        num_workers: The number of workers to use for the computation.
        batch_size: The batch size to use for the computation.

    Returns:
        The nearest neighbors of shape $(2, M \cdot k)$.
    """
    _check_packed_2d(x, "x")
    _check_packed_2d(y, "y")
    if batch_x is not None:
        _check_sorted_batch(batch_x, "batch_x")
    if batch_y is not None:
        _check_sorted_batch(batch_y, "batch_y")

    return pool.knn(
        x=x,
        y=y,
        k=k,
        batch_x=batch_x,
        batch_y=batch_y,
        cosine=cosine,
        num_workers=num_workers,
        batch_size=batch_size,
    )


def knn_graph(
    x: Tensor,
    k: int,
    batch: OptTensor = None,
    loop: bool = False,
    flow: str = "source_to_target",
    cosine: bool = False,
    num_workers: int = 1,
    batch_size: Optional[int] = None,
) -> Tensor:
    r"""Compute the kNN graph of $x$.

    A wrapper around `torch_geometric.nn.pool.knn_graph` that checks its inputs.

    Important:
        If provided, the `batch` tensor must be sorted in non-decreasing order; an unsorted batch raises a
        `ValueError`.

    Args:
        x: The input tensor of shape $(N, *)$.
        k: The number of nearest neighbors to find. When `loop=False`, the
            self-edge is excluded from the result.
        batch: The batch tensor of shape $(N,)$.
        loop: Whether to include self-edges.
        flow: Either `"source_to_target"` (PyG default, `edge_index = (src, dst)`
            where `src` is the neighbor and `dst` is the central point) or `"target_to_source"`.
        cosine: Whether to use cosine distance.
        num_workers: The number of workers to use for the computation.
        batch_size: The batch size to use for the computation.

    Returns:
        Edge index of shape $(2, k \cdot N)$.
    """
    _check_packed_2d(x, "x")
    if batch is not None:
        _check_sorted_batch(batch, "batch")

    return pool.knn_graph(
        x=x,
        k=k,
        batch=batch,
        loop=loop,
        flow=flow,
        cosine=cosine,
        num_workers=num_workers,
        batch_size=batch_size,
    )


def fps(
    src: Tensor,
    batch: Optional[Tensor] = None,
    ratio: Optional[Union[Tensor, float]] = None,
    num_nodes: Optional[Union[Tensor, float]] = None,
    random_start: bool = True,
    batch_size: Optional[int] = None,
    ptr: Optional[Union[Tensor, List[int]]] = None,
) -> Tensor:
    r"""A sampling algorithm from the paper :arxiv: [PointNet++: Deep Hierarchical Feature
    Learning on Point Sets in a Metric Space](https://arxiv.org/abs/1706.02413)
    by Qi et al., which iteratively samples the most distant point with regard
    to the rest points.

    This function wraps `torch_geometric.nn.pool.fps` and supports sampling a fixed number of nodes per sample
    with the `num_nodes` argument.

    Important:
        If provided, the `batch` tensor is expected to be sorted.

    Args:
        src: The source tensor to sample from of shape $(N, *)$.
        batch: The batch tensor to sample from of shape $(N,)$.
        ratio: The sampling ratio.
        num_nodes: The number of nodes to sample. When a sample holds fewer than `num_nodes` points, indices
            repeat (sampling with replacement, matching the reference CUDA FPS), so the output always holds
            `num_nodes` indices per sample and downstream shapes stay stable.
        random_start: Whether to start the sampling randomly.
        batch_size: The batch size.
        ptr: The pointer tensor to sample from.

    Returns:
        The sampled indices of shape $(M,)$.

    Examples:
        ```pycon
        >>> import torch
        >>> from torch_pointcloud.ops.cluster import fps
        >>> src = torch.randn(100, 3)
        >>> batch = torch.cat([torch.zeros(50), torch.ones(50)]).long()
        >>> idx = fps(src, batch, num_nodes=10)  # doctest: +SKIP
        >>> print(idx.shape)  # doctest: +SKIP
        torch.Size([10])

        ```
    """
    if ratio is None and num_nodes is None:
        raise ValueError("Either `ratio` or `num_nodes` must be provided.")

    if ratio is not None and num_nodes is not None:
        raise ValueError("Only one of `ratio` or `num_nodes` can be provided.")

    _check_packed_2d(src, "src")
    if batch is not None and src.size(0) != batch.numel():
        raise ValueError(f"Size of `src` ({src.size(0)}) must match size of `batch` ({batch.numel()}).")

    if batch is not None and batch.numel() > 0:
        sample_counts = batch.bincount()
        if bool((sample_counts == 0).any()):
            empty = int((sample_counts == 0).nonzero()[0].item())
            raise ValueError(
                f"`batch` has no points for sample {empty}: batch ids must be contiguous integers 0..B-1 with "
                "at least one point per sample."
            )

    if ptr is not None:
        ptr = torch.as_tensor(ptr, dtype=torch.long, device=src.device)
        if batch_size is None:
            batch_size = ptr.numel() - 1
        batch = torch.repeat_interleave(torch.arange(ptr.numel() - 1, device=src.device), ptr[1:] - ptr[:-1])

    if ratio is not None and not (isinstance(ratio, Tensor) and ratio.numel() > 1):
        return pool.fps(src, batch, ratio=float(ratio), random_start=random_start, batch_size=batch_size)

    if batch is not None:
        if batch_size is None:
            batch_size = int(batch.max()) + 1
        node_counts = batch.bincount(minlength=batch_size)
        ptr = torch.cat([torch.zeros(1, dtype=torch.long, device=src.device), node_counts.cumsum(0)])
    else:
        node_counts = torch.tensor([src.size(0)], device=src.device)
        batch_size = 1
        ptr = torch.tensor([0, src.size(0)], device=src.device)

    if isinstance(ratio, Tensor):
        req_nodes = (node_counts.to(ratio.dtype) * ratio.to(src.device)).ceil().long()
    elif isinstance(num_nodes, (int, float)):
        req_nodes = torch.full((batch_size,), int(num_nodes), dtype=torch.long, device=src.device)
    else:
        req_nodes = torch.as_tensor(num_nodes, dtype=torch.long, device=src.device)
        if req_nodes.ndim == 0:
            req_nodes = req_nodes.expand(batch_size)
        elif req_nodes.size(0) != batch_size:
            raise ValueError(f"Size of `num_nodes` ({req_nodes.size(0)}) must match batch size ({batch_size}).")

    # FPS takes one ratio for the whole batch. It is greedy, so sampling every sample at the largest requested
    # ratio and keeping the first `req_nodes` indices of each gives the same indices as a per-sample ratio.
    max_ratio = (req_nodes.double() / node_counts.clamp(min=1).double()).max().item()
    idx = pool.fps(src, batch, ratio=max_ratio, random_start=random_start, batch_size=batch_size)

    sampled_batch = torch.searchsorted(ptr, idx, right=True) - 1
    sampled_counts = sampled_batch.bincount(minlength=batch_size)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=src.device), sampled_counts.cumsum(0)])

    local_rank = torch.arange(idx.numel(), device=src.device) - offsets[sampled_batch]
    mask = local_rank < req_nodes[sampled_batch]
    return idx[mask]


def local_grid(src: Tensor, size: float, batch: Tensor | None = None) -> Tensor:
    r"""Applies local grid quantization to the source tensor as explained in the paper
    [TorchSparse++: Efficient Point Cloud Engine](https://openaccess.thecvf.com/content/CVPR2023W/WAD/papers/Tang_TorchSparse_Efficient_Point_Cloud_Engine_CVPRW_2023_paper.pdf)
    by Tang et al., which quantizes the source tensor to a local grid.

    Note:
        If a batch tensor is provided, the quantization is applied to each sample separately, so the grid of every
        sample starts at its own minimum cell.

    Args:
        src: The source tensor to quantize of shape $(N, *)$.
        size: The quantization size.
        batch: The associated batch tensor of shape $(N,)$.

    Returns:
        The quantized source tensor of shape $(N, *)$.

    Examples:
        ```pycon
        >>> import torch
        >>> from torch_pointcloud.ops.cluster import local_grid
        >>> src = torch.randn(100, 3)
        >>> batch = torch.cat([torch.zeros(50), torch.ones(50)]).long()
        >>> src_grid = local_grid(src, size=1.0, batch=batch)  # doctest: +SKIP

        ```
    """

    src_quantized = torch.div(src, size, rounding_mode="floor").long()

    # If the batch is not provided we compute the global shift the source tensor to the origin (faster)
    # Otherwise we compute the local shifts for each graph contained in the batch (slower)
    if batch is None:
        src_min, _ = src_quantized.min(0)
    else:
        src_min = scatter(src_quantized, batch, dim=0, reduce="min")
        src_min = src_min[batch]

    return src_quantized - src_min


def radius(
    x: Tensor,
    y: Tensor,
    r: float,
    batch_x: OptTensor = None,
    batch_y: OptTensor = None,
    max_num_neighbors: int = 32,
    sort: bool = False,
) -> tuple[Tensor, Tensor]:
    r"""`torch_geometric.nn.pool.radius` wrapper with an optional sort-by-source-index tie-breaker.

    With `sort=False` (default) this just delegates to `torch_geometric.nn.pool.radius` and
    returns edges in kernel-traversal order. With `sort=True`, when more than
    `max_num_neighbors` source points lie inside a ball, the $k$ smallest source
    indices are kept (PointNet++'s reference `query_ball_point` behavior). Pretrained
    PointNet++ checkpoints from yanx27 / charlesq34 overfit to this selection rule,
    so reproducing their accuracy requires `sort=True`.

    Important:
        If provided, the `batch_x` and `batch_y` tensors must be sorted in non-decreasing order
        (`torch_geometric.nn.pool.radius` requires it); unsorted batches raise a `ValueError`.

    Args:
        x: Source positions, shape $(N_x, d)$.
        y: Query positions, shape $(N_y, d)$.
        r: Ball radius.
        batch_x: Batch index for $x$, shape $(N_x,)$. `None` for a single batch.
        batch_y: Batch index for $y$, shape $(N_y,)$. `None` for a single batch.
        max_num_neighbors: Max neighbors $k$ kept per query.
        sort: Sort in-ball source indices ascending and keep the first $k$.

    Returns:
        `(row, col)` edges. `row` is the query index, `col` is the source index.
        Centroids with no in-ball neighbors emit zero edges; pooling leaves those
        rows at the reduction identity.
    """
    _check_packed_2d(x, "x")
    _check_packed_2d(y, "y")
    if batch_x is not None:
        _check_sorted_batch(batch_x, "batch_x")
    if batch_y is not None:
        _check_sorted_batch(batch_y, "batch_y")
    # The CUDA kernel scans the sources of every query in index order and keeps the first `max_num_neighbors` it
    # finds, which is exactly the sorted selection, so the sort below is only needed on the CPU (whose kernel does
    # not): on 3DETR-sized inputs it is 25x slower and materializes the full distance matrix.
    if not sort or x.is_cuda:
        edge_index = pool.radius(x, y, r, batch_x, batch_y, max_num_neighbors=max_num_neighbors)
        return edge_index[0], edge_index[1]

    # Custom sort-by-source-index ball query. Asking `radius` for the
    # full `max_num_neighbors=Nx` over-allocates memory; instead we materialise the
    # squared-distance matrix per batch element (bounded by $(N_y^b \cdot N_x^b)$).
    device = x.device
    if batch_x is None:
        batch_x = torch.zeros(x.size(0), dtype=torch.long, device=device)
    if batch_y is None:
        batch_y = torch.zeros(y.size(0), dtype=torch.long, device=device)
    n_batches = int(batch_x.max().item()) + 1 if batch_x.numel() else 1
    k = int(max_num_neighbors)
    r_sq = float(r) * float(r)

    rows_out: List[Tensor] = []
    cols_out: List[Tensor] = []
    for b in range(n_batches):
        x_mask = batch_x == b
        y_mask = batch_y == b
        x_b = x[x_mask]
        y_b = y[y_mask]
        if x_b.numel() == 0 or y_b.numel() == 0:
            continue

        x_idx_global = torch.nonzero(x_mask, as_tuple=False).flatten()
        y_idx_global = torch.nonzero(y_mask, as_tuple=False).flatten()
        nx_b = x_b.size(0)
        ny_b = y_b.size(0)

        sqr = ((y_b.unsqueeze(1) - x_b.unsqueeze(0)) ** 2).sum(-1)  # (Ny_b, Nx_b)
        local = torch.arange(nx_b, device=device).unsqueeze(0).expand(ny_b, -1).clone()
        local = local.masked_fill(sqr > r_sq, nx_b)  # nx_b is the out-of-radius sentinel
        sorted_local, _ = local.sort(dim=-1)
        picked = sorted_local[:, :k]  # (Ny_b, min(k, Nx_b))
        valid_mask = picked < nx_b
        kept = picked.size(-1)

        local_cols = picked[valid_mask]
        local_rows = torch.arange(ny_b, device=device).unsqueeze(-1).expand(-1, kept)[valid_mask]
        rows_out.append(y_idx_global[local_rows])
        cols_out.append(x_idx_global[local_cols])

    if not rows_out:
        empty = torch.empty(0, dtype=torch.long, device=device)
        return empty, empty
    return torch.cat(rows_out), torch.cat(cols_out)


@overload
def group(
    pos: Tensor,
    batch: Tensor,
    num_groups: int,
    group_size: int,
    random_start: bool = ...,
    *,
    return_indices: Literal[False] = ...,
) -> Tuple[Tensor, Tensor]: ...


@overload
def group(
    pos: Tensor,
    batch: Tensor,
    num_groups: int,
    group_size: int,
    random_start: bool = ...,
    *,
    return_indices: Literal[True],
) -> Tuple[Tensor, Tensor, Tensor]: ...


def group(
    pos: Tensor,
    batch: Tensor,
    num_groups: int,
    group_size: int,
    random_start: bool = False,
    *,
    return_indices: bool = False,
) -> Union[Tuple[Tensor, Tensor], Tuple[Tensor, Tensor, Tensor]]:
    r"""Partition a packed point cloud into local groups with FPS centers and a $k$-NN neighborhood.

    Farthest point sampling selects `num_groups` centers per sample, then $k$-NN gathers the
    `group_size` nearest neighbors of each center, and each neighborhood is recentered on its center.
    Because `num_groups` is fixed per sample, the packed result densifies to a regular $(B, G, k, 3)$
    batch without padding.

    Args:
        pos: Packed point coordinates of shape $(N, 3)$.
        batch: Per-point batch index of shape $(N,)$.
        num_groups: Number of groups (FPS centers) $G$ per sample.
        group_size: Number of neighbors $k$ per group.
        random_start: Whether to start farthest point sampling from a random point.
        return_indices: If `True`, also return the flat neighbor index into the packed input.

    Returns:
        `(neighborhood, center)`, or `(neighborhood, center, idx)` when `return_indices` is `True`.
        `neighborhood` has shape $(B, G, k, 3)$ recentered on each center, `center` has shape
        $(B, G, 3)$, and `idx` has shape $(B \cdot G \cdot k,)$ indexing the packed input.

    Shape:
        - Input: $(N, 3)$ and $(N,)$.
        - Output: $(B, G, k, 3)$ and $(B, G, 3)$ (plus $(B \cdot G \cdot k,)$ when `return_indices`).

    Example:
        ```python
        import torch
        from torch_pointcloud.ops.cluster import group

        pos = torch.randn(2048, 3)
        batch = torch.cat([torch.zeros(1024), torch.ones(1024)]).long()
        neighborhood, center = group(pos, batch, num_groups=64, group_size=32)
        print(neighborhood.shape, center.shape)
        ```
    """
    batch_size = int(batch.max().item()) + 1
    # Fewer points than `num_groups` is fine (fps repeats indices), but knn cannot return more
    # neighbors than a sample has points, which would break the dense (B, G, k, 3) reshape.
    min_points = int(batch.bincount(minlength=batch_size).min())
    if min_points < group_size:
        raise ValueError(
            f"`group` requires at least `group_size` ({group_size}) points per sample to gather `num_groups` "
            f"({num_groups}) full k-NN neighborhoods, but the smallest sample has {min_points} points."
        )

    idx_center = fps(pos, batch, num_nodes=num_groups, random_start=random_start)
    center = pos[idx_center]
    batch_center = batch[idx_center]

    _, col = knn(pos, center, group_size, batch_x=batch, batch_y=batch_center)
    # Closest first within every group, whatever order the search returned them in.
    col = col.view(-1, group_size)
    distances = ((pos[col] - center.unsqueeze(1)) ** 2).sum(-1)
    col = torch.gather(col, 1, distances.argsort(dim=1, stable=True)).reshape(-1)

    neighborhood = pos[col].view(batch_size, num_groups, group_size, 3)
    center = center.view(batch_size, num_groups, 3)
    neighborhood = neighborhood - center.unsqueeze(2)

    if return_indices:
        return neighborhood, center, col.view(batch_size * num_groups, group_size).reshape(-1)
    return neighborhood, center


def knn_interpolate(
    x: Tensor,
    pos_x: Tensor,
    pos_y: Tensor,
    batch_x: OptTensor = None,
    batch_y: OptTensor = None,
    k: int = 3,
    num_workers: int = 1,
    weighting: Literal["squared", "inverse"] = "squared",
    eps: float = 1e-16,
) -> Tensor:
    r"""k-NN interpolation with inverse-distance weighting.

    From :arxiv: [PointNet++: Deep Hierarchical Feature Learning on Point Sets in a
    Metric Space](https://arxiv.org/abs/1706.02413).

    For each point $y$ with position $\mathbf{p}(y)$, its
    interpolated features $\mathbf{f}(y)$ are given by

    $$
        \mathbf{f}(y) = \frac{\sum_{i=1}^k w(x_i) \mathbf{f}(x_i)}{\sum_{i=1}^k
        w(x_i)}
    $$

    where $\{ x_1, \ldots, x_k \}$ are the $k$ nearest points to $y$ and
    the weights $w(x_i)$ depend on the chosen `weighting` scheme:

    - `"squared"` (default, `torch_geometric` convention):
      $w(x_i) = 1 / d(\mathbf{p}(y), \mathbf{p}(x_i))^2$
    - `"inverse"` (PointNet++ `three_interpolation` convention):
      $w(x_i) = 1 / d(\mathbf{p}(y), \mathbf{p}(x_i))$

    Note:
        Adapted from the `torch_geometric` package.

    Args:
        x: Node feature matrix $\mathbf{X} \in \mathbb{R}^{N \times F}$.
        pos_x: Node position matrix $\in \mathbb{R}^{N \times d}$.
        pos_y: Upsampled node position matrix $\in \mathbb{R}^{M \times d}$.
        batch_x: Batch vector $\mathbf{b_x} \in \{ 0, \ldots, B-1 \}^N$,
            assigning each node from $\mathbf{X}$ to a specific example.
        batch_y: Batch vector $\mathbf{b_y} \in \{ 0, \ldots, B-1 \}^M$,
            assigning each node from $\mathbf{Y}$ to a specific example.
        k: Number of neighbors.
        num_workers: Number of workers for computation. Has no effect when
            `batch_x` or `batch_y` is not `None`, or the input lies on GPU.
        weighting: Weighting scheme for neighbors. `"squared"` for $1/d^2$
            weights (`torch_geometric` default) or `"inverse"` for $1/d$
            weights (PointNet++ convention).
        eps: Small value to avoid division by zero.

    Returns:
        Interpolated features $\in \mathbb{R}^{M \times F}$.
    """
    weighting = ensure_option(weighting, ("squared", "inverse"), name="weighting")

    with torch.no_grad():
        assign_index = pool.knn(pos_x, pos_y, k, batch_x=batch_x, batch_y=batch_y, num_workers=num_workers)
        y_idx, x_idx = assign_index[0], assign_index[1]
        diff = pos_x[x_idx] - pos_y[y_idx]
        squared_distance = (diff * diff).sum(dim=-1, keepdim=True)

        if weighting == "squared":
            weights = 1.0 / (squared_distance + eps)
        else:
            dist = squared_distance.sqrt()
            weights = 1.0 / (dist + eps)

    y = scatter(x[x_idx] * weights, y_idx, dim=0, dim_size=pos_y.size(0), reduce="sum")
    y = y / scatter(weights, y_idx, dim=0, dim_size=pos_y.size(0), reduce="sum")
    return y


@torch.no_grad()
def dense_neighbors(
    edge_index: Tensor,
    num_sources: int,
    num_targets: int,
    max_num_neighbors: Optional[int] = None,
) -> Tuple[Tensor, Tensor]:
    r"""Pad a `[source, target]` edge list into a dense $(N_t, k)$ neighbor table.

    $k$ is the largest target degree unless `max_num_neighbors` is given (the cap of the search that produced the
    edges, which skips the device read). Rows are filled in edge order and padded with the shadow index
    `num_sources`, so `gather_neighbors` needs no mask. The second output is the slot of every edge in its target's
    row, so per-edge values scatter into the table as `values_table[target, slot] = values`. Edges grouped by target,
    which `knn` and `radius` return, are consumed as they are; any other order is sorted first.

    Args:
        edge_index: Edges as `[source, target]`, shape $(2, E)$.
        num_sources: Number of source points $N_s$, the shadow index of the padding.
        num_targets: Number of target points $N_t$.
        max_num_neighbors: Row width $k$; must be at least the largest target degree.

    Returns:
        The $(N_t, k)$ table of source indices and the $(E,)$ slot of every edge.

    Shape:
        Input: $(2, E)$
        Output: $(N_t, k)$ and $(E,)$

    Example:
        ```pycon
        >>> import torch
        >>> from torch_pointcloud.ops.cluster import dense_neighbors
        >>> edge_index = torch.tensor([[3, 5, 0, 1, 2], [0, 0, 1, 1, 1]])
        >>> table, slot = dense_neighbors(edge_index, num_sources=6, num_targets=2)
        >>> table.tolist(), slot.tolist()
        ([[3, 5, 6], [0, 1, 2]], [0, 1, 0, 1, 2])

        ```
    """
    if edge_index.dim() != 2 or edge_index.size(0) != 2:
        raise ValueError(f"`edge_index` must have shape (2, E), got {tuple(edge_index.shape)}.")

    source, target = edge_index
    counts = torch.bincount(target, minlength=num_targets)
    k = int(counts.max()) if max_num_neighbors is None and counts.numel() else (max_num_neighbors or 0)

    grouped = target.numel() < 2 or bool((target[1:] >= target[:-1]).all())
    order = None
    if not grouped:
        order = torch.argsort(target, stable=True)
        source, target = source[order], target[order]

    ptr = torch.cumsum(counts, dim=0) - counts
    slot = torch.arange(target.numel(), device=target.device) - ptr[target]
    table = torch.full((num_targets, k), num_sources, dtype=torch.long, device=target.device)
    table[target, slot] = source
    if order is not None:
        slot = torch.empty_like(slot).scatter_(0, order, slot)
    return table, slot


def gather_neighbors(x: Tensor, table: Tensor) -> Tensor:
    r"""Gather source features along a `dense_neighbors` table, zero where the table is padded.

    Args:
        x: Source features, shape $(N_s, C)$.
        table: Neighbor table, shape $(N_t, k)$, padded with the shadow index $N_s$.

    Returns:
        The neighbor features, shape $(N_t, k, C)$.

    Shape:
        Input: $(N_s, C)$ and $(N_t, k)$
        Output: $(N_t, k, C)$

    Example:
        ```pycon
        >>> import torch
        >>> from torch_pointcloud.ops.cluster import gather_neighbors
        >>> x = torch.arange(6, dtype=torch.float).view(3, 2)
        >>> gather_neighbors(x, torch.tensor([[2, 3], [0, 1]])).tolist()
        [[[4.0, 5.0], [0.0, 0.0]], [[0.0, 1.0], [2.0, 3.0]]]

        ```
    """
    # `index_select` rather than `x[table]`: the backward of advanced indexing sorts the indices and walks every run
    # of duplicates serially, and the padding slots are one such run; the `index_add_` backward of `index_select`
    # accumulates atomically instead.
    padded = torch.cat([x, x.new_zeros(1, x.size(1))], dim=0)
    return padded.index_select(0, table.reshape(-1)).view(table.size(0), table.size(1), x.size(1))
