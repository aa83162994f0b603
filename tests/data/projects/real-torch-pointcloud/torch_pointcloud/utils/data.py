"""Data loading: standard sample keys, packed-batch collation and row offsets, worker seeding, and the data loader."""

import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Set

import torch
from torch import Tensor
from torch.utils.data import DataLoader, Dataset, get_worker_info

from torch_pointcloud.utils.conversion import ensure_tuple
from torch_pointcloud.utils.imports import _OCNN_GITHUB_URL, optional_import
from torch_pointcloud.utils.misc import deep_getattr
from torch_pointcloud.utils.types import KeyCollection, StrEnum

if TYPE_CHECKING:
    import ocnn
    from ocnn.octree import Octree, Points


ocnn, _OCNN_AVAILABLE = optional_import("ocnn", url=_OCNN_GITHUB_URL)
Octree, _ = optional_import("ocnn.octree", "Octree", url=_OCNN_GITHUB_URL)
Points, _ = optional_import("ocnn.octree", "Points", url=_OCNN_GITHUB_URL)


_MISSING = object()


class DataKeys(StrEnum):
    """Standard keys of a sample dict, shared by the datasets, transforms and models.

    Members are plain strings, so a key is usable wherever a literal is (e.g. `data[DataKeys.POS]` and
    `data["pos"]` address the same entry). Keys are singular (`box`, `label`), while the metric records
    (`Boxes3D`, `Detection3D`) use plural fields (`boxes`, `labels`).
    """

    # General keys (PyG convention)
    X = "x"
    POS = "pos"
    POS_GRID = "pos_grid"
    POS_VOXEL = "pos_voxel"
    VOXEL = "voxel"
    VOXEL_NUM_POINTS = "voxel_num_points"
    COLOR = "color"
    NORMAL = "normal"
    FACE = "face"
    SEGMENT = "segment"
    INSTANCE = "instance"
    SUPERPOINT = "superpoint"
    INTENSITY = "intensity"
    CATEGORY = "category"
    LABEL = "label"
    BATCH = "batch"
    INVERSE = "inverse"
    INDEX = "index"
    ORIGIN_POS = "origin_pos"
    ORIGIN_SEGMENT = "origin_segment"
    ORIGIN_INSTANCE = "origin_instance"
    BOX = "box"
    BATCH_BOX = "batch_box"
    VELOCITY = "velocity"
    NUM_POINTS = "num_points"
    ATTRIBUTE = "attribute"
    TRUNCATION = "truncation"
    OCCLUSION = "occlusion"
    BBOX_HEIGHT = "bbox_height"
    CALIB = "calib"
    IMAGE_SHAPE = "image_shape"
    FRAME = "frame"
    TIMESTAMP = "timestamp"
    GPS_TIME = "gps_time"
    RETURN_NUMBER = "return_number"
    NUMBER_OF_RETURNS = "number_of_returns"
    TOKEN = "token"
    CONDITION = "condition"
    NORM_POS = "norm_pos"
    # Sample-identity keys
    NAME = "name"
    SCENE = "scene"
    SEQUENCE = "sequence"
    # Tiling keys (fixed-size block datasets)
    SCENE_MAX = "scene_max"
    BLOCK_CENTER = "block_center"
    BLOCK_BBOX = "block_bbox"
    POINT_INDICES = "point_indices"
    SCENE_INDEX = "scene_index"
    NUM_SCENE_POINTS = "num_scene_points"
    # Octree-based keys (OCNN convention)
    OCTREE = "octree"
    OCTREE_POINTS = "octree_points"
    BOX_MASK = "box_mask"


def _tails_equal(tensors: List[Tensor]) -> bool:
    if tensors[0].ndim < 1:
        return False

    tail = tensors[0].shape[1:]
    return all(t.ndim >= 1 and t.shape[1:] == tail for t in tensors)


def _collate_value(values: List[Any]) -> Any:
    first = values[0]

    if isinstance(first, Tensor):
        if first.ndim == 0:
            return torch.stack(values)

        if _tails_equal(values):
            return torch.cat(values, dim=0)
        return list(values)
    if isinstance(first, (bool, int, float)):
        return torch.tensor(values)
    if _OCNN_AVAILABLE and isinstance(first, Points):
        return ocnn.octree.merge_points(values)
    if _OCNN_AVAILABLE and isinstance(first, Octree):
        octree = ocnn.octree.merge_octrees(values)
        octree.construct_all_neigh()
        # Since ocnn 2.3.3, all octrees share one lookup-table cache. Sending the batch from a DataLoader worker
        # moves these tensors to shared memory and frees the old buffers while the worker still reads them, which
        # raises IndexError in construct_neigh_by_parent. Copying them keeps the cache out of the batch.
        octree.lut_parent = octree.lut_parent.clone()
        octree.lut_child = octree.lut_child.clone()
        octree.lut_kernel = {kernel: lut.clone() for kernel, lut in octree.lut_kernel.items()}
        return octree
    return list(values)


def _leading_size(value: Any) -> int:
    if isinstance(value, Tensor):
        return value.shape[0] if value.ndim >= 1 else 1

    if isinstance(value, (str, bytes)):
        return 1

    if hasattr(value, "__len__"):
        return len(value)
    return 1


def collate(
    data_list: List[Dict[str, Any]],
    batch_from: str = DataKeys.POS,
    batch_key: str = DataKeys.BATCH,
    stack_keys: Optional[KeyCollection] = None,
    cat_keys: Optional[KeyCollection] = None,
) -> Dict[str, Any]:
    r"""Collate a list of point-cloud sample dicts into one batched dict.

    By default every per-point tensor is concatenated PyG-style along dim 0 (packed), scalars are
    stacked, and a per-point `batch_key` index is synthesized from `batch_from`. Two extra knobs say
    how specific keys collate instead:

    - `stack_keys`: stack to a new leading batch dim ($(M, \cdot) \to (B, M, \cdot)$, $(N, \cdot) \to (B, N, \cdot)$)
      rather than concatenating. Used for fixed-size per-scene tensors that must keep their scene dimension
      (a plain cat would flatten them).
    - `cat_keys`: keep these packed (cat) but additionally emit a `batch_<key>` scene index mirroring
      `batch_key`. Used for ragged per-scene ground truth such as `box` $(K, 8)$ -> `batch_box` $(K,)$.

    Every key must be present in every sample; a key missing from a sample raises a `ValueError`.
    `stack_keys` / `cat_keys` entries absent from all samples are ignored. A key may appear in only
    one of `stack_keys` / `cat_keys`; overlapping entries raise a `ValueError`.

    Args:
        data_list: List of sample dicts.
        batch_from: Key whose leading dimension defines the per-point batch index.
        batch_key: Output key for the per-point batch index.
        stack_keys: Keys collated by stacking to a leading batch dim instead of concatenating.
        cat_keys: Packed keys that additionally emit a `batch_<key>` per-element scene index.

    Returns:
        A single batched dict.
    """
    stack_keys = ensure_tuple(stack_keys)
    cat_keys = ensure_tuple(cat_keys)
    overlap = sorted((set(stack_keys) & set(cat_keys)) - {None})
    if overlap:
        raise ValueError(f"Keys cannot be in both `stack_keys` and `cat_keys`: {overlap}.")

    if not data_list:
        return {}

    stacked = [k for k in stack_keys if all(k in d for d in data_list)]
    keys = list(dict.fromkeys(k for d in data_list for k in d))
    out: Dict[str, Any] = {}
    for k in keys:
        for i, d in enumerate(data_list):
            if k not in d:
                raise ValueError(f"Cannot collate key {k!r}: missing from sample {i}.")

        values = [d[k] for d in data_list]
        out[k] = torch.stack(values, dim=0) if k in stacked else _collate_value(values)

    for src, dst in ((batch_from, batch_key), *((k, f"batch_{k}") for k in cat_keys)):
        if all(src in d for d in data_list):
            lengths = [_leading_size(d[src]) for d in data_list]
            first = data_list[0][src]
            device = first.device if torch.is_tensor(first) else None
            out[dst] = torch.cat([torch.full((n,), i, dtype=torch.long, device=device) for i, n in enumerate(lengths)])

    return out


def mix_pairs(
    data_list: List[Dict[str, Any]],
    mix: Callable[[Dict[str, Any], Dict[str, Any]], Dict[str, Any]],
    p: float = 1.0,
    generator: Optional[torch.Generator] = None,
) -> List[Dict[str, Any]]:
    r"""Merge consecutive pairs of samples with a pairwise mix, with probability `p` per batch.

    When the draw succeeds, samples $(0, 1), (2, 3), \ldots$ of the
    batch are each merged into one scene by `mix` (`Mix3D` concatenates them), so the batch holds half as many
    scenes with all their points; an odd last sample passes through. Otherwise the batch is returned unchanged.

    Args:
        data_list: The samples of a batch, before collation.
        mix: Pairwise transform called as `mix(first, second)`.
        p: Probability of mixing the batch.
        generator: Random generator of the draw; `None` uses the global one.

    Returns:
        The (possibly mixed) samples.

    Example:
        ```pycon
        >>> import torch
        >>> import torch_pointcloud.transforms as T
        >>> scenes = [{"pos": torch.rand(10 * (i + 1), 3)} for i in range(4)]
        >>> mixed = mix_pairs(scenes, T.Mix3D(keys="pos", instance_key=None, p=1.0), p=1.0)
        >>> [scene["pos"].shape[0] for scene in mixed]
        [30, 70]

        ```
    """
    if p <= 0 or len(data_list) < 2 or torch.rand(1, generator=generator).item() >= p:
        return data_list

    mixed = [mix(data_list[i], data_list[i + 1]) for i in range(0, len(data_list) - 1, 2)]
    if len(data_list) % 2:
        mixed.append(data_list[-1])
    return mixed


def select_inputs(data: Dict[str, Any], keys: Sequence[str]) -> List[Any]:
    """Gather the positional inputs of a model's `forward` from a batch dict, in `keys` order.

    A dotted key reads an attribute of a batch value (e.g. `octree.depth`). A missing `x` resolves to `None`, since
    models accept `x=None` and build their features from the positions; any other missing key raises.

    Args:
        data: Collated batch dict, e.g. from `collate` or `PointCloudDataLoader`.
        keys: Batch keys `forward` takes positionally, typically `info["input_keys"]` from
            `create_model(..., return_info=True)`.

    Returns:
        The values to unpack into the model's `forward`.

    Raises:
        KeyError: If a key other than `x` is missing from `data`.

    Example:
        ```python
        import torch

        import torch_pointcloud as tp
        from torch_pointcloud.utils.data import collate, select_inputs

        model, info = tp.create_model("pointnet.modelnet40", return_info=True)
        samples = [info["transform"]({"pos": torch.rand(2048, 3), "normal": torch.rand(2048, 3)}) for _ in range(2)]
        batch = collate(samples)
        logits = model(*select_inputs(batch, info["input_keys"]))
        ```
    """
    inputs = []
    for key in keys:
        value = deep_getattr(data, key, default=_MISSING)
        if value is _MISSING:
            if key != DataKeys.X:
                raise KeyError(f"Input key {key!r} not found in the batch (available keys: {sorted(data)}).")

            value = None
        inputs.append(value)
    return inputs


# inspired by: https://github.com/Project-MONAI/MONAI/blob/1.4.0/monai/data/utils.py#L719
# Unlike there, the walk does not stop at the first object with `set_random_state`, so the transforms held by a
# random `MixDataset` are re-seeded too.
def set_random_states(obj: Any, seed: int) -> int:
    """Re-seed every seeded random object reachable from `obj`, each with its own seed.

    A random object exposes `set_random_state(seed=...)` and its generator as `R` (e.g. a `Randomizable` transform).
    Objects are found through sequences, mappings and instance attributes, such as a dataset's `transform`. Objects
    drawing from the global generator (`R is None`) are left as they are.

    Args:
        obj: Root object, typically a dataset.
        seed: Seed of the first object; the next ones get `seed + 1`, `seed + 2`, ...

    Returns:
        The seed following the last one used.

    Example:
        ```python
        from torch_pointcloud.transforms import RandomJitter
        from torch_pointcloud.utils.data import set_random_states

        jitter = RandomJitter(keys="pos", seed=0)
        set_random_states({"transform": jitter}, seed=7)
        ```
    """
    seen: Set[int] = set()

    def visit(item: Any, seed: int) -> int:
        if id(item) in seen or isinstance(item, (Tensor, str, bytes)):
            return seed

        seen.add(id(item))
        if getattr(item, "R", None) is not None and callable(getattr(item, "set_random_state", None)):
            item.set_random_state(seed=seed % 2**63)
            seed += 1

        if isinstance(item, (list, tuple)):
            for value in item:
                seed = visit(value, seed)
        elif isinstance(item, dict):
            for value in item.values():
                seed = visit(value, seed)
        elif hasattr(item, "__dict__"):
            for value in vars(item).values():
                seed = visit(value, seed)
        return seed

    return visit(obj, seed)


# inspired by: https://github.com/Project-MONAI/MONAI/blob/1.4.0/monai/data/utils.py#L709
def seed_worker(worker_id: int) -> None:
    """`worker_init_fn` re-seeding the dataset's seeded random objects from the worker's seed.

    Every worker receives a copy of the dataset, so a seeded transform would replay the same numbers in every worker.
    This re-seeds them from `torch.utils.data.get_worker_info().seed`, which differs per worker and per epoch and is
    reproducible under `torch.manual_seed`. `PointCloudDataLoader` applies it by default; pass it as `worker_init_fn`
    to a plain `DataLoader`.

    Args:
        worker_id: Index of the worker, as passed by the `DataLoader`.

    Example:
        ```python
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        from torch_pointcloud.utils.data import seed_worker

        loader = DataLoader(TensorDataset(torch.arange(8)), num_workers=2, worker_init_fn=seed_worker)
        batch = next(iter(loader))
        ```
    """
    info = get_worker_info()
    if info is not None:
        set_random_states(info.dataset, seed=info.seed)


def _worker_init_fn(worker_init_fn: Optional[Callable[[int], None]], worker_id: int) -> None:
    seed_worker(worker_id)
    if worker_init_fn is not None:
        worker_init_fn(worker_id)


class PointCloudDataLoader(DataLoader):
    r"""`DataLoader` that batches point clouds with the packed-batch `collate` by default.

    Wraps `torch.utils.data.DataLoader`, defaulting `collate_fn` to
    [`collate`][torch_pointcloud.utils.data.collate]. How keys collate is set by the spec arguments
    (`batch_from` / `batch_key` for the per-point index, `stack_keys` for dense per-scene ground
    truth, `cat_keys` for ragged per-scene ground truth). These are supplied by the caller, never
    read off the dataset: transforms rewrite the key set downstream of the dataset (a `box` key may
    be derived from an object by a transform), so only the code building the loader knows which keys
    must stack or cat. Passing `collate_fn=...` via the usual `DataLoader` kwarg overrides the spec.

    Workers are re-seeded with [`seed_worker`][torch_pointcloud.utils.data.seed_worker] before any `worker_init_fn`
    passed in `kwargs`, so seeded random transforms draw different numbers in every worker and epoch.

    Args:
        dataset: The dataset to load from.
        batch_from: Key whose leading dimension defines the per-point batch index.
        batch_key: Output key for the per-point batch index.
        stack_keys: Keys collated by stacking to a leading batch dim instead of concatenating.
        cat_keys: Packed keys that additionally emit a `batch_<key>` per-element scene index.
        mix: Optional pairwise mix (e.g. `Mix3D`) merging consecutive samples of a batch before collation,
            with probability `mix_prob` per batch; see [`mix_pairs`][torch_pointcloud.utils.data.mix_pairs].
        mix_prob: Probability of mixing a batch.
        **kwargs: Forwarded to `torch.utils.data.DataLoader` (`batch_size`, `shuffle`, `collate_fn`, ...).
    """

    def __init__(
        self,
        dataset: Dataset,
        *,
        batch_from: str = DataKeys.POS,
        batch_key: str = DataKeys.BATCH,
        stack_keys: Optional[Sequence[str]] = None,
        cat_keys: Optional[Sequence[str]] = None,
        mix: Optional[Callable[[Dict[str, Any], Dict[str, Any]], Dict[str, Any]]] = None,
        mix_prob: float = 0.0,
        **kwargs: Any,
    ) -> None:
        collate_fn: Callable[[List[Dict[str, Any]]], Dict[str, Any]] = functools.partial(
            collate,
            batch_from=batch_from,
            batch_key=batch_key,
            stack_keys=stack_keys,
            cat_keys=cat_keys,
        )
        if mix is not None and mix_prob > 0:
            collate_fn = functools.partial(_mix_then_collate, mix=mix, mix_prob=mix_prob, collate_fn=collate_fn)
        kwargs.setdefault("collate_fn", collate_fn)
        kwargs["worker_init_fn"] = functools.partial(_worker_init_fn, kwargs.get("worker_init_fn"))
        super().__init__(dataset, **kwargs)


def _mix_then_collate(
    data_list: List[Dict[str, Any]],
    mix: Callable[[Dict[str, Any], Dict[str, Any]], Dict[str, Any]],
    mix_prob: float,
    collate_fn: Callable[[List[Dict[str, Any]]], Dict[str, Any]],
) -> Dict[str, Any]:
    return collate_fn(mix_pairs(data_list, mix, p=mix_prob))


def offset_index(index: Tensor, index_batch: Tensor, batch: Tensor) -> Tensor:
    r"""Offset per-element row indices into the packed row layout of a collated batch.

    `collate` concatenates a row map such as `inverse` or `index` as-is, so the entries of each batch element
    still address that element's own rows. This shifts every entry by the number of rows of the elements
    collated before it.

    Args:
        index: Per-element row indices.
        index_batch: Batch index of each entry of `index`, the `batch_<key>` tensor `collate` emits for `cat_keys`.
        batch: Batch index of the rows `index` addresses (`batch` for an `inverse` map, `batch_origin_pos` for
            an `index` map).

    Returns:
        The offset row indices.

    Shape:
        - `index`: $(M,)$
        - `index_batch`: $(M,)$
        - `batch`: $(N,)$
        - output: $(M,)$

    Example:
        ```python
        import torch
        from torch_pointcloud.utils.data import offset_index

        inverse = torch.tensor([0, 1, 1, 0, 2, 2, 1])
        batch_inverse = torch.tensor([0, 0, 0, 1, 1, 1, 1])
        batch = torch.tensor([0, 0, 1, 1, 1])
        offset_index(inverse, batch_inverse, batch)  # tensor([0, 1, 1, 2, 4, 4, 3])
        ```
    """
    counts = torch.bincount(batch, minlength=int(index_batch.max()) + 1)
    offsets = torch.cumsum(counts, dim=0) - counts
    return index + offsets[index_batch]
