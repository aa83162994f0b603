# SPDX-License-Identifier: Apache-2.0
"""Detection :class:`~pytorch_lightning.LightningDataModule` over either dataset layout (WP-014).

:class:`DetectionDataModule` wires the WP-014 :class:`~lucid_yolo.data.coco.CocoDetectionDataset`
into the Phase 1 augmentation pipeline and exposes train/val
:class:`~torch.utils.data.DataLoader` s. It builds both splits from the COCO 2017
layout of blueprint sec. 14.3 (``train2017/`` + ``annotations/instances_train2017.json``
and the matching ``val2017``) and, per the dataset contract (AGENTS.md sec. 3),
contains **no download logic**: a missing or mis-shaped root is validated by
``lucid-data check`` before any ``[DATA]`` run, never fetched here.

Layout dispatch (WP-099b):
    ``data_root`` may also be a YOLO root — a ``data.yaml`` beside per-split ``images``/
    ``labels`` trees — in which case both splits are built by
    :class:`~lucid_yolo.data.yolo.YoloDetectionDataset` instead, and everything downstream is
    unchanged because both readers emit the same
    :class:`~lucid_yolo.data.targets.Targets`. WP-099 delivered that reader and left the
    choice unmade, which meant a YOLO root was reachable from a library call and not from
    ``lucid-yolo fit``. Which reader a root gets is decided in three steps:

    1. an explicit ``layout`` wins outright — it is the only way to name a layout the
       filesystem cannot be asked about (see :attr:`DetectionDataModule.layout`);
    2. otherwise, naming any of the four ``*_images_dir``/``*_ann_file`` overrides *is* a
       statement of the COCO layout, since an annotation file is a concept only that
       convention has;
    3. otherwise the root is probed by :func:`~lucid_yolo.data.layout.detect_layout`, which
       raises rather than guess when the root satisfies neither convention or both.

    The probe runs at :meth:`DetectionDataModule.setup`, not at construction: constructing
    this class is a pure configuration act — ``LightningCLI(run=False)`` instantiates every
    shipped config, whose ``data_root`` is a placeholder path on the machine that parses it —
    so a filesystem verdict there would fail runs that have not yet been pointed at data.
    Steps 1 and 2 need no filesystem and are settled in ``__init__``, which is why a layout
    the YOLO path cannot serve is rejected there.

Multi-image augmentation composition:
    Mosaic, mixup and copy-paste each consume *several* images, so they cannot be
    ordinary single-image :class:`~lucid_yolo.data.transforms.GeometricTransform` s
    chained in a :class:`~lucid_yolo.data.transforms.Compose`. They are composed
    instead by :class:`_TrainPipeline`, a wrapper :class:`~torch.utils.data.Dataset`
    that, for each requested index, draws the extra source indices it needs from a
    single seeded :class:`torch.Generator` and assembles the sample:

        1. geometric base — with probability :attr:`_TrainPipeline.mosaic_p` a
           four-image :class:`~lucid_yolo.data.mosaic.MosaicAssembly` (else the single image),
           then :class:`~lucid_yolo.data.affine.FusedAffineLetterbox`, which composes
           the random affine and the letterbox down to ``img_size`` into one resample;
        2. with probability ``mixup`` a second full geometric sample is blended in
           via :class:`~lucid_yolo.data.mixup.Mixup`;
        3. with probability ``copy_paste`` polygon instances from a third geometric
           sample are pasted in via :class:`~lucid_yolo.data.mixup.CopyPaste`;
        4. photometric :class:`~lucid_yolo.data.augment.HSVJitter` and
           :class:`~lucid_yolo.data.augment.HorizontalFlip` finish the sample.

    The per-sample mixup/copy-paste probabilities come from
    :func:`~lucid_yolo.data.coco.build_scale_policy` (size-aware, [R1] Table S3);
    mosaic runs at ``p=1.0`` (blueprint sec. 5.9). Because every draw comes from
    one seeded generator, a fixed ``seed`` and a deterministic access order
    (``num_workers=0``) give byte-identical epochs. With workers the pipeline is
    seeded *per worker and per epoch* by :func:`_init_worker` (WP-079) — a fresh
    stream each time, still fully determined by ``seed``.

Batch contract:
    Two forms, split by the DataLoader worker boundary:

    * **Transport form** (what :func:`collate_detection` returns): the equal-sized
      (letterboxed) images stacked and quantized into a single
      ``(B, C, img_size, img_size)`` **uint8** tensor — each post-augmentation float
      pixel in ``[0, 1]`` rounded to a ``1/255`` step (:data:`_PIXEL_QUANT_MAX`) —
      paired with a :class:`PackedTargets`, the batch's ragged per-image
      :class:`~lucid_yolo.data.targets.Targets` flattened into a fixed set of eight
      dense tensors. A worker ships each distinct tensor as its own shared-memory
      segment: the natural ``list[Targets]`` (with its per-image *list* of polygon
      rings) would explode into hundreds of tiny segments and exhaust the consumer's
      mmap budget, so packing bounds the batch to a handful; the uint8 images are a
      quarter of the float32 bytes, keeping the in-flight worker queue inside the
      container's shared-memory budget. Both the augmented train path and the
      letterbox-only val path go through this collate, so both transport uint8 (val
      images already start from a JPEG-decoded uint8 source, so their letterbox
      interpolation loses no more than the same bounded half-step).
    * **Consumer form** (what every downstream step sees): the pair
      ``(images, list[Targets])`` with float32 ``[0, 1]`` images unchanged.
      :meth:`DetectionDataModule.on_after_batch_transfer` restores the images
      (``uint8 -> float32 / 255``) and unpacks the transport targets on the
      destination device, so the module and everything downstream keep consuming a
      ragged length-``B`` target list exactly as before. A direct (non-Lightning)
      consumer converts the whole pair with :func:`unpack_batch`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import torch
from pytorch_lightning import LightningDataModule
from torch import Tensor
from torch.utils.data import DataLoader, Dataset, get_worker_info

from lucid_yolo.data.affine import FusedAffineLetterbox
from lucid_yolo.data.augment import HorizontalFlip, HSVJitter
from lucid_yolo.data.coco import CocoDetectionDataset, build_scale_policy
from lucid_yolo.data.layout import DatasetLayout, detect_layout, resolve_split
from lucid_yolo.data.letterbox import Letterbox
from lucid_yolo.data.mixup import CopyPaste, Mixup
from lucid_yolo.data.mosaic import MosaicAssembly
from lucid_yolo.data.targets import Targets
from lucid_yolo.data.yolo import YoloDetectionDataset
from lucid_yolo.ptl.seg_targets import instance_mask_targets

__all__ = [
    "DetectionDataModule",
    "PackedTargets",
    "collate_detection",
    "pack_targets",
    "unpack_batch",
    "unpack_masks",
    "unpack_targets",
]

#: Column count of a polygon point ``(x, y)`` — the width of a packed ring row.
_POINT_DIM = 2

#: Either layout's reader. Both yield ``(image, Targets)`` samples and size the same way, which
#: is what lets the augmentation pipeline, the collate and every consumer stay layout-blind.
_DetectionSource = CocoDetectionDataset | YoloDetectionDataset

#: uint8 quantization scale for image transport. :func:`collate_detection` quantizes
#: the post-augmentation float pixels (``[0, 1]``) to ``round(x * 255)`` uint8 codes so
#: the image batch crosses the DataLoader worker boundary at a quarter of its float32
#: size, and the transfer hook (or :func:`unpack_batch`) restores them as ``code / 255``
#: on the destination device. ``torch.round`` is round-half-to-even, so the worst-case
#: round-trip error is one half-step — ``1 / 510``.
_PIXEL_QUANT_MAX = 255

#: Input-pixel stride of the prototype grid the mask targets are rasterised onto.
#: :class:`~lucid_yolo.models.heads.proto.ProtoNet` upsamples the fused P3 feature
#: (stride 8) by two (A15), so the grid is a fixed quarter of the input canvas. The
#: collate needs the grid without the model, and
#: :meth:`~lucid_yolo.ptl.module.DetectionLitModule._segment_terms` asserts the
#: transported masks match the prototypes it actually got, so a topology that broke
#: this fails loudly rather than supervising at the wrong resolution.
_PROTO_STRIDE = 4

#: Default mosaic probability: every training sample (blueprint sec. 5.9: ``mosaic
#: p=1.0``). The ``close_mosaic`` late-epoch disable flips the per-pipeline
#: :attr:`_TrainPipeline.mosaic_p` seam to ``0`` via
#: :meth:`DetectionDataModule.set_mosaic_prob` (driven by ``CloseMosaicCallback``, WP-036).
_MOSAIC_PROB = 1.0
#: Standard YOLO-lineage affine translate fraction ([R1] Table S3; scale is size-aware).
_AFFINE_TRANSLATE = 0.1
#: Standard YOLO-lineage horizontal-flip probability ([R1] Table S3: ``fliplr=0.5``).
_FLIP_PROB = 0.5

#: Default per-worker prefetched batches (the DataLoader default). The whole
#: queue — ``num_workers x prefetch_factor`` batches — lives in POSIX shared
#: memory, so a deeper default multiplies /dev/shm pressure by batch size and
#: worker count and ENOMEMs containerized runs (Colab) at large batches; raise
#: it per run via ``--data.prefetch_factor`` only when shm headroom allows.
_PREFETCH_FACTOR = 2


#: Validation-loader worker cap at :data:`_VAL_REFERENCE_SIDE` (WP-073), applied only
#: when the train worker count was **auto-chosen** (WP-102). Val samples are
#: letterbox-only, so few workers saturate them, while inheriting a large train count
#: doubles the resident worker-process population every epoch boundary (train workers
#: are persistent) — the observed Colab host-OOM trigger on long runs.
_VAL_MAX_WORKERS = 4
#: Letterbox side the cap above was reasoned about. Decode cost scales with the pixel
#: count, so the cap scales with it too: the constant encodes "how many workers saturate
#: a letterbox-only loader", and that number is not the same at 1024 px as at 640 px,
#: where "a fraction of the train pipeline's work" stopped being true (WP-102).
_VAL_REFERENCE_SIDE = 640


#: Fraction of currently-free ``/dev/shm`` the worker queue may claim. Worker
#: batches travel to the main process as shared-memory segments, so the queue's
#: worst case — ``num_workers x prefetch_factor`` stacked image batches — must
#: fit the shm tmpfs with headroom for the ragged target tensors and everything
#: else sharing it, or workers die mid-epoch with tiny-mmap ENOMEM.
_SHM_BUDGET_FRACTION = 0.5


def _shm_capped_workers(workers: int, batch_size: int, img_size: int, prefetch: int) -> int:
    """Cap a worker count so the prefetch queue fits the free ``/dev/shm`` budget.

    On Linux every batch a worker hands over is backed by shared memory, so the
    in-flight queue claims about ``workers x prefetch x batch_bytes`` of the shm
    tmpfs; a many-core host with a large batch fills it before the first step
    (observed: 64-vCPU Colab, batch 64 -> 30+ GB queued -> ``unable to mmap ...
    Cannot allocate memory``). The cap bounds the queue to
    :data:`_SHM_BUDGET_FRACTION` of the *currently free* shm space. Hosts
    without ``/dev/shm`` (macOS, Windows) are returned unchanged.

    Args:
        workers: The worker count before the cap.
        batch_size: Loader batch size (stacked-image bytes scale linearly).
        img_size: Square letterbox side of every emitted image.
        prefetch: Per-worker prefetched batch count.

    Returns:
        ``workers`` bounded below by 1 and above by the shm budget.
    """
    shm = Path("/dev/shm")
    if not shm.exists():
        return workers
    try:
        stat = os.statvfs(shm)
    except OSError:
        return workers
    free_bytes = stat.f_bavail * stat.f_frsize
    batch_bytes = 4 * 3 * batch_size * img_size * img_size
    budget = int(free_bytes * _SHM_BUDGET_FRACTION)
    return max(1, min(workers, budget // max(1, prefetch * batch_bytes)))


def _val_worker_cap(img_size: int) -> int:
    """Return the auto-chosen validation worker ceiling for a given letterbox side.

    Args:
        img_size: Square letterbox side of every emitted sample.

    Returns:
        :data:`_VAL_MAX_WORKERS` scaled by the pixel count relative to
        :data:`_VAL_REFERENCE_SIDE`, at least 1.

    Examples:
        >>> _val_worker_cap(640), _val_worker_cap(1024)
        (4, 10)
    """
    scale = (img_size / _VAL_REFERENCE_SIDE) ** 2
    return max(1, round(_VAL_MAX_WORKERS * scale))


def _init_worker(worker_id: int) -> None:
    """DataLoader ``worker_init_fn``: cap torch threads and re-seed the worker's RNG.

    **Thread cap.** Without it every worker process inherits torch's default
    intra-op thread pool (one thread per core), so ``num_workers`` workers
    oversubscribe the CPU by that factor and the tensor ops inside the
    augmentation pipeline (affine warps, HSV jitter, blends) thrash instead of
    running in parallel. One thread per worker makes worker throughput scale
    with ``num_workers``.

    **Re-seed (WP-079).** :class:`_TrainPipeline` seeds its single generator once,
    at construction, in the *parent* process. Every worker therefore inherits a
    copy of the **same** generator state, and the parent's copy never advances
    (the parent never calls ``__getitem__`` when workers are used). Two failures
    follow, and both were live in the Det-smoke tier runs:

    1. every worker replays one identical augmentation-parameter stream, cutting
       the per-epoch parameter diversity to ``1 / num_workers``;
    2. with ``persistent_workers=False`` (the WP-076 default) workers are rebuilt
       from that same parent state every epoch, so the whole run replays a single
       epoch's worth of augmentation parameters.

    Seeding from :attr:`torch.utils.data.WorkerInfo.seed` fixes both: torch
    derives it as ``base_seed + worker_id``, and draws ``base_seed`` from the
    loader's own generator at every iterator creation — unique per worker, fresh
    per epoch, and still fully determined by the datamodule's ``seed``.

    Datasets with no ``_generator`` attribute (the val pipeline is letterbox-only,
    hence deterministic) are left untouched.

    Args:
        worker_id: The worker index (unused; the seed comes from the worker info).
    """
    del worker_id
    torch.set_num_threads(1)
    info = get_worker_info()
    if info is None:
        return
    generator = getattr(info.dataset, "_generator", None)
    if isinstance(generator, torch.Generator):
        generator.manual_seed(info.seed)


@dataclass
class PackedTargets:
    """Batch of per-image :class:`~lucid_yolo.data.targets.Targets` flattened for IPC.

    A DataLoader worker ships every distinct tensor as its own shared-memory
    segment, so the natural ``list[Targets]`` batch — a per-image list whose every
    image also carries a *list* of per-instance polygon rings — explodes into
    hundreds of tiny segments and exhausts the consumer's mmap budget
    (``vm.max_map_count``) at realistic worker counts. This container collapses the
    whole ragged batch into a **fixed set of dense tensors** (eleven, plus the
    optional mask stack a segmentation loader adds): the modality
    rows are concatenated along their instance/ring/point axes and paired with the
    per-image (and per-ring) counts needed to split them back apart. The tensor
    count is constant regardless of how many instances the batch holds, so the
    transport costs a handful of segments instead of hundreds.

    This is a *transport* form only: :func:`unpack_targets` reconstructs the exact
    ``list[Targets]`` consumers expect (see :meth:`DetectionDataModule.on_after_batch_transfer`).
    The dataclass is deliberately **not frozen** — PyTorch Lightning moves batches
    across devices with ``apply_to_collection``, which rejects frozen dataclasses.

    Attributes:
        boxes_cat: ``(sum_N, 4)`` float32 ``xyxy`` boxes of every image, concatenated.
        labels_cat: ``(sum_N,)`` int64 class ids aligned with ``boxes_cat``.
        difficult_cat: ``(sum_N,)`` bool R18 difficult flags aligned with
            ``boxes_cat`` (WP-088). Transported rather than defaulted on arrival
            because A48 makes the oriented evaluation depend on the flag: a
            difficult ground truth that reaches the metric as an ordinary one turns
            every detection of it into a false positive.
        boxes_per_image: ``(B,)`` int64 instance count per image; splits
            ``boxes_cat``/``labels_cat``/``difficult_cat`` back into ``B`` images.
        rboxes_cat: ``(sum_M, 5)`` float32 long-edge rotated boxes, concatenated.
        rboxes_per_image: ``(B,)`` int64 rotated-box count per image; splits
            ``rboxes_cat``.
        keypoints_cat: ``(sum_N, K, 2)`` float32 point coordinates, concatenated
            (WP-132). Transported rather than left behind because the alternative is
            the worst kind of dead flag: ``keypoint_targets=True`` would parse the
            points in the reader and drop them at this boundary, and the run would
            train on nothing while every shape downstream still looked right.
        keypoint_vis_cat: ``(sum_N, K)`` int64 COCO visibilities aligned with
            ``keypoints_cat``. Shipped rather than defaulted for the reason A48 gives
            for ``difficult_cat``: A66 makes ``v == 0`` mean "no annotation exists",
            so a visibility that arrives defaulted supervises the model towards
            coordinates nobody ever placed.
        keypoints_per_image: ``(B,)`` int64 point-set count per image; splits
            ``keypoints_cat``/``keypoint_vis_cat``. A separate count from
            ``boxes_per_image`` even though WP-120 pairs the two axes 1:1 when
            keypoints are present at all, because a detection batch has ``N`` boxes
            and *no* point sets — one count cannot say both.
        polygon_points_cat: ``(sum_P, 2)`` float32 polygon points of every ring of
            every image, concatenated.
        points_per_ring: ``(R,)`` int64 point count per ring; splits
            ``polygon_points_cat`` into ``R`` rings.
        rings_per_image: ``(B,)`` int64 ring count per image (``0`` when an image
            carries no polygons, else its instance count); groups the ``R`` rings
            back into per-image lists.
        masks_cat: ``(sum_N, Hp, Wp)`` bool instance masks of every image,
            concatenated, or ``None`` on a detection loader. Present only when the
            collate rasterises (``mask_targets=True``), which moves that CPU work
            out of the training process and into the workers; the split is
            ``boxes_per_image``, since a segmentation annotation carries one ring
            per box. Shipped as ``bool`` rather than the ``float32``
            :func:`~lucid_yolo.ptl.seg_targets.instance_mask_targets` returns: the
            values are ``{0, 1}``, so the cast back is exact and the transport is a
            quarter of the size.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> t = Targets(boxes=torch.tensor([[0.0, 0.0, 4.0, 4.0]]), labels=torch.tensor([3]))
        >>> packed = pack_targets([t, Targets.empty()])
        >>> packed.boxes_per_image.tolist()
        [1, 0]

        ```
    """

    boxes_cat: Tensor
    labels_cat: Tensor
    difficult_cat: Tensor
    boxes_per_image: Tensor
    rboxes_cat: Tensor
    rboxes_per_image: Tensor
    keypoints_cat: Tensor
    keypoint_vis_cat: Tensor
    keypoints_per_image: Tensor
    polygon_points_cat: Tensor
    points_per_ring: Tensor
    rings_per_image: Tensor
    masks_cat: Tensor | None = None


def _concat_keypoints(targets: list[Targets]) -> tuple[Tensor, Tensor]:
    """Concatenate a batch's point sets and visibilities along the instance axis.

    Split out of :func:`pack_targets` for one reason the other modalities do not
    have: an instance-free image carries the canonical ``(0, 0, 2)`` empty, whose
    point axis is ``0`` rather than the batch's ``K``, and ``torch.cat`` compares
    every axis but the one it joins. The empties are therefore reshaped to the
    batch's own ``K`` first — free at zero elements, and it keeps a mixed batch of
    annotated and empty images packing at all. Two images that genuinely disagree
    on ``K`` still raise from ``torch.cat``, which is right: no single head predicts
    both.

    Args:
        targets: The per-image target list being packed.

    Returns:
        The ``(keypoints_cat, keypoint_vis_cat)`` pair of shapes ``(sum_N, K, 2)``
        float32 and ``(sum_N, K)`` int64, with ``K = 0`` for a batch that annotates
        no points at all.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> posed = Targets(
        ...     boxes=torch.zeros((1, 4)),
        ...     labels=torch.tensor([0]),
        ...     keypoints=torch.zeros((1, 3, 2)),
        ...     keypoint_vis=torch.ones((1, 3), dtype=torch.int64),
        ... )
        >>> coords, visibility = _concat_keypoints([posed, Targets.empty()])
        >>> coords.shape, visibility.shape
        (torch.Size([1, 3, 2]), torch.Size([1, 3]))

        ```
    """
    num_points = max((int(target.keypoints.shape[1]) for target in targets if target.keypoints.shape[0]), default=0)
    coords = [
        target.keypoints if target.keypoints.shape[0] else target.keypoints.new_zeros((0, num_points, _POINT_DIM))
        for target in targets
    ]
    visibility = [
        target.keypoint_vis if target.keypoints.shape[0] else target.keypoint_vis.new_zeros((0, num_points))
        for target in targets
    ]
    return torch.cat(coords, dim=0), torch.cat(visibility, dim=0)


def pack_targets(targets: list[Targets]) -> PackedTargets:
    """Flatten a ragged ``list[Targets]`` into a :class:`PackedTargets` transport.

    Every modality is concatenated along its own axis and paired with the counts
    that split it back per image (and per ring). The inverse is
    :func:`unpack_targets`; ``unpack_targets(pack_targets(x))`` reproduces ``x``
    tensor-for-tensor (same dtypes, shapes and values).

    Args:
        targets: The non-empty length-``B`` per-image target list to pack. All
            tensors must share one device.

    Returns:
        A :class:`PackedTargets` holding the batch as eleven dense tensors on the
        inputs' device.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> a = Targets(boxes=torch.zeros((2, 4)), labels=torch.tensor([1, 2]))
        >>> packed = pack_targets([a, Targets.empty()])
        >>> packed.boxes_cat.shape, packed.boxes_per_image.tolist()
        (torch.Size([2, 4]), [2, 0])

        ```
    """
    boxes_cat = torch.cat([target.boxes for target in targets], dim=0)
    labels_cat = torch.cat([target.labels for target in targets], dim=0)
    rboxes_cat = torch.cat([target.rboxes for target in targets], dim=0)
    rings = [ring for target in targets for ring in target.polygons]
    polygon_points_cat = torch.cat(rings, dim=0) if rings else boxes_cat.new_zeros((0, _POINT_DIM))
    keypoints_cat, keypoint_vis_cat = _concat_keypoints(targets)

    def counts(values: list[int]) -> Tensor:
        return torch.tensor(values, dtype=torch.int64, device=boxes_cat.device)

    return PackedTargets(
        boxes_cat=boxes_cat,
        labels_cat=labels_cat,
        difficult_cat=torch.cat([target.difficult for target in targets], dim=0),
        boxes_per_image=counts([int(target.boxes.shape[0]) for target in targets]),
        rboxes_cat=rboxes_cat,
        rboxes_per_image=counts([int(target.rboxes.shape[0]) for target in targets]),
        keypoints_cat=keypoints_cat,
        keypoint_vis_cat=keypoint_vis_cat,
        keypoints_per_image=counts([int(target.keypoints.shape[0]) for target in targets]),
        polygon_points_cat=polygon_points_cat,
        points_per_ring=counts([int(ring.shape[0]) for ring in rings]),
        rings_per_image=counts([len(target.polygons) for target in targets]),
    )


def unpack_targets(packed: PackedTargets) -> list[Targets]:
    """Reconstruct the ``list[Targets]`` a :class:`PackedTargets` transports.

    The exact inverse of :func:`pack_targets`: each modality is split back along
    its axis by the packed counts and the per-ring polygons are regrouped into the
    per-image lists. The reconstructed tensors live on the packed tensors' device
    (so calling this in :meth:`DetectionDataModule.on_after_batch_transfer` yields
    on-device targets), and equal the originals tensor-for-tensor.

    Args:
        packed: The transport container to expand.

    Returns:
        The length-``B`` per-image target list, identical to the one
        :func:`pack_targets` consumed.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> a = Targets(boxes=torch.zeros((2, 4)), labels=torch.tensor([1, 2]))
        >>> restored = unpack_targets(pack_targets([a, Targets.empty()]))
        >>> [len(t.labels) for t in restored]
        [2, 0]

        ```
    """
    boxes_per_image = [int(count) for count in packed.boxes_per_image.tolist()]
    rboxes_per_image = [int(count) for count in packed.rboxes_per_image.tolist()]
    keypoints_per_image = [int(count) for count in packed.keypoints_per_image.tolist()]
    rings_per_image = [int(count) for count in packed.rings_per_image.tolist()]
    points_per_ring = [int(count) for count in packed.points_per_ring.tolist()]

    boxes = torch.split(packed.boxes_cat, boxes_per_image)
    labels = torch.split(packed.labels_cat, boxes_per_image)
    difficult = torch.split(packed.difficult_cat, boxes_per_image)
    rboxes = torch.split(packed.rboxes_cat, rboxes_per_image)
    keypoints = torch.split(packed.keypoints_cat, keypoints_per_image)
    keypoint_vis = torch.split(packed.keypoint_vis_cat, keypoints_per_image)
    rings = list(torch.split(packed.polygon_points_cat, points_per_ring)) if points_per_ring else []

    targets: list[Targets] = []
    ring_cursor = 0
    for index, ring_count in enumerate(rings_per_image):
        image_rings = rings[ring_cursor : ring_cursor + ring_count]
        ring_cursor += ring_count
        # An image with no point sets is restored to the canonical (0, 0, 2) empty
        # rather than to the (0, K, 2) slice the split hands back, so the roundtrip
        # this function promises is tensor-for-tensor on a mixed batch too.
        empty_points = keypoints_per_image[index] == 0
        targets.append(
            Targets(
                boxes=boxes[index],
                labels=labels[index],
                polygons=list(image_rings),
                rboxes=rboxes[index],
                difficult=difficult[index],
                keypoints=packed.keypoints_cat.new_zeros((0, 0, _POINT_DIM)) if empty_points else keypoints[index],
                keypoint_vis=packed.keypoint_vis_cat.new_zeros((0, 0)) if empty_points else keypoint_vis[index],
            )
        )
    return targets


def unpack_masks(packed: PackedTargets) -> list[Tensor] | None:
    """Split a packed mask stack back into one ``(N_i, Hp, Wp)`` tensor per image.

    The mask counterpart of :func:`unpack_targets`, kept separate because the masks
    are an optional modality: a detection loader ships none and this returns
    ``None``, which is the signal the consumer falls back to rasterising itself.
    ``torch.split`` returns views, so the per-image tensors cost no copy and stay on
    whatever device the transport was moved to.

    Args:
        packed: The transport container, whose ``masks_cat`` may be ``None``.

    Returns:
        One float mask stack per image in image order, or ``None`` when the batch
        carries no masks. The bool transport is restored to float32 ``{0.0, 1.0}``,
        the dtype :func:`~lucid_yolo.ptl.seg_targets.instance_mask_targets` produces.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> unpack_masks(pack_targets([Targets.empty()])) is None
        True

        ```
    """
    if packed.masks_cat is None:
        return None
    counts = [int(count) for count in packed.boxes_per_image.tolist()]
    return [chunk.to(torch.float32) for chunk in torch.split(packed.masks_cat, counts)]


def collate_detection(
    batch: list[tuple[Tensor, Targets]], *, mask_targets: bool = False
) -> tuple[Tensor, PackedTargets]:
    """Collate ``(image, Targets)`` samples into ``(images, PackedTargets)``.

    All images are letterboxed to a common ``img_size`` upstream, so they stack
    into one dense tensor. The ragged per-image
    :class:`~lucid_yolo.data.targets.Targets` are flattened into a
    :class:`PackedTargets` (:func:`pack_targets`) so the whole batch crosses the
    DataLoader worker boundary as a handful of shared-memory segments rather than
    hundreds of tiny ones. The datamodule restores the ``list[Targets]`` consumer
    contract on the destination device in
    :meth:`DetectionDataModule.on_after_batch_transfer`; a direct caller converts
    with :func:`unpack_targets`.

    Under ``mask_targets`` the segmentation mask targets are rasterised **here**,
    which is what puts that work in the loader workers: the DataLoader hands a whole
    batch to one worker and runs its ``collate_fn`` in that same process, so the
    batches of a run are rasterised concurrently across workers and ahead of the step
    that needs them. Rasterising in the training process instead cost a measured
    1005 ms per step at batch 32 on COCO, serial with the GPU, which is most of why
    the accelerator idled. The grid is the input canvas at :data:`_PROTO_STRIDE`
    (A15) rather than a size read off the model, so the collate needs no model;
    :meth:`~lucid_yolo.ptl.module.DetectionLitModule._segment_terms` checks the
    transported grid against the prototypes it actually got.

    Args:
        batch: The per-sample ``(image, Targets)`` pairs from the dataset.
        mask_targets: Rasterise each image's instance masks onto the prototype grid
            and ship them in ``packed.masks_cat``. Requires one polygon ring per box
            (:func:`~lucid_yolo.ptl.seg_targets.instance_mask_targets` raises
            otherwise), so it is set only by a segmentation loader.

    Returns:
        A ``(images, packed)`` pair: ``images`` is the batch quantized to a
        ``(B, C, H, W)`` **uint8** tensor (float ``[0, 1]`` pixels rounded to
        ``1/255`` steps — :data:`_PIXEL_QUANT_MAX` — for a 4x-smaller IPC hop) and
        ``packed`` is the batch's targets as a :class:`PackedTargets`. The transfer
        hook (or :func:`unpack_batch`) restores float32 ``[0, 1]`` images on the
        destination device.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> batch = [(torch.zeros(3, 4, 4), Targets.empty()) for _ in range(2)]
        >>> images, packed = collate_detection(batch)
        >>> images.dtype, images.shape, packed.boxes_per_image.tolist()
        (torch.uint8, torch.Size([2, 3, 4, 4]), [0, 0])

        ```
    """
    images = torch.stack([image for image, _ in batch], dim=0)
    image_size = (int(images.shape[-2]), int(images.shape[-1]))
    images = images.mul(_PIXEL_QUANT_MAX).round().clamp_(0, _PIXEL_QUANT_MAX).to(torch.uint8)
    targets = [target for _, target in batch]
    packed = pack_targets(targets)
    if mask_targets:
        grid = (image_size[0] // _PROTO_STRIDE, image_size[1] // _PROTO_STRIDE)
        rasterised = [instance_mask_targets(target, image_size, grid).to(torch.bool) for target in targets]
        packed.masks_cat = torch.cat(rasterised) if rasterised else torch.zeros((0, *grid), dtype=torch.bool)
    return images, packed


def _dequantize_images(images: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """Restore uint8 transport images to floating-point ``[0, 1]``; pass floats through.

    The inverse of the :func:`collate_detection` quantization: uint8 codes cast to
    ``dtype`` and divide by :data:`_PIXEL_QUANT_MAX`. The ``0``…``255`` codes and the
    divisor are exactly representable in float16/bfloat16, so a half-precision
    ``dtype`` keeps the same ``1/510`` quantization bound. An already-float tensor (a
    direct, non-quantized feed) is returned untouched — its own dtype preserved — so
    the restore is safe to run over either form.

    Args:
        images: A ``(B, C, H, W)`` uint8 transport batch or an already-float batch.
        dtype: Floating-point dtype for the restored images (default
            ``torch.float32``); used only on the uint8 dequantization path.

    Returns:
        The images in ``[0, 1]`` at ``dtype`` (dequantized when the input was uint8,
        otherwise the input unchanged).
    """
    if images.dtype == torch.uint8:
        return images.to(dtype).div(_PIXEL_QUANT_MAX)
    return images


def unpack_batch(
    batch: tuple[Tensor, PackedTargets], dtype: torch.dtype = torch.float32
) -> tuple[Tensor, list[Targets]]:
    """Restore the full consumer batch from a :func:`collate_detection` transport.

    Reverses :func:`collate_detection` end to end: the uint8 images are dequantized
    to ``dtype`` in ``[0, 1]`` (``code / 255``) and the :class:`PackedTargets` is
    expanded back to the ragged ``list[Targets]`` (:func:`unpack_targets`). This is
    the single public restore a direct (non-Lightning) consumer uses when it drives
    the loader itself; :meth:`DetectionDataModule.on_after_batch_transfer` runs the
    equivalent on-device restore inside a Lightning run, matching the attached
    module's precision. Restoring only the targets — leaving the images in their
    transport dtype — stays available via :func:`unpack_targets`.

    Args:
        batch: The ``(uint8 images, PackedTargets)`` transport pair from
            :func:`collate_detection`.
        dtype: Floating-point dtype for the restored images (default
            ``torch.float32``); pass ``torch.float16``/``torch.bfloat16`` to match a
            half-precision consumer.

    Returns:
        The ``(images, list[Targets])`` consumer pair: ``images`` is ``(B, C, H, W)``
        ``dtype`` in ``[0, 1]`` and the targets are the ragged length-``B`` per-image list.

    Examples:
        ```pycon
        >>> import torch
        >>> from lucid_yolo.data.targets import Targets
        >>> batch = [(torch.zeros(3, 4, 4), Targets.empty()) for _ in range(2)]
        >>> images, targets = unpack_batch(collate_detection(batch))
        >>> images.dtype, len(targets)
        (torch.float32, 2)

        ```
    """
    images, packed = batch
    return _dequantize_images(images, dtype), unpack_targets(packed)


class _TrainPipeline(Dataset[tuple[Tensor, Targets]]):
    """Train-time wrapper composing mosaic/mixup/copy-paste over a base dataset.

    For each index the pipeline draws whatever extra source indices it needs from
    one seeded :class:`torch.Generator`, so a fixed seed and a deterministic access
    order reproduce an epoch byte-for-byte. Every produced sample is letterboxed to
    ``img_size`` so the collate can stack the batch.

    Attributes:
        mosaic_p: Probability that a sample is built from a four-image mosaic rather
            than its single base image (default :data:`_MOSAIC_PROB`). A mutable seam:
            the ``close_mosaic`` schedule sets it to ``0`` for the final epochs via
            :meth:`DetectionDataModule.set_mosaic_prob`. Consulted per draw, so a
            change takes effect on the next sample assembled.

    Args:
        base: The raw (untransformed) reader — either layout's.
        img_size: Target square side for the letterboxed output.
        policy: The size-aware strengths from
            :func:`~lucid_yolo.data.coco.build_scale_policy` (``scale``, ``mixup``,
            ``copy_paste``).
        seed: Seed for the single :class:`torch.Generator` driving every draw.
        oriented: Whether the base dataset yields rotated targets. It suppresses
            copy-paste, which cannot act on a modality that carries no polygons
            (WP-056); every other stage is unchanged, and in particular the draw
            sequence is not — the copy-paste probability is *consulted* as always,
            it simply never fires.
        polygon_free: The same suppression for the same reason, reached the other way:
            a base whose *format* carries no rings rather than whose modality does not.
            The YOLO reading is one (WP-099: ``polygons`` is always empty there), and
            unlike the oriented case copy-paste would not raise on it — it would find no
            paste candidates and quietly do nothing, having already decoded a whole extra
            source sample to discover that. Suppressing it says so and stops paying for it.
    """

    def __init__(
        self,
        base: _DetectionSource,
        img_size: int,
        policy: dict[str, float],
        seed: int,
        oriented: bool = False,
        polygon_free: bool = False,
    ) -> None:
        self._base = base
        self._img_size = int(img_size)
        self.mosaic_p = float(_MOSAIC_PROB)
        self._mixup_prob = policy["mixup"]
        # Copy-paste is structurally unavailable on the oriented path, not merely
        # unhelpful: it transfers *rasterised polygon masks*, and WP-056 keeps rotated
        # targets without polygons on purpose, so a rotated instance has nothing to
        # paste. `CopyPaste` says exactly that by raising, which means the composition —
        # not the transform — is what has to know. Mosaic and mixup are unaffected: both
        # carry `rboxes` through (WP-058). `polygon_free` is the same absence arrived at from
        # the format instead of the modality (WP-099b); there the transform stays silent
        # rather than raising, so the composition is the *only* thing that can know.
        self._copy_paste_prob = 0.0 if (oriented or polygon_free) else policy["copy_paste"]
        self._generator = torch.Generator().manual_seed(seed)
        self._mosaic = MosaicAssembly(self._img_size, generator=self._generator)
        self._fused = FusedAffineLetterbox(
            self._img_size,
            scale=policy["scale"],
            translate=_AFFINE_TRANSLATE,
            generator=self._generator,
        )
        self._mixup = Mixup(p=1.0, generator=self._generator)
        self._copy_paste = CopyPaste(p=1.0, generator=self._generator)
        self._hsv = HSVJitter(generator=self._generator)
        # The pairing comes from `base`'s own annotation schema, never from a constant
        # here — A64's requirement, and the one this line previously broke by omission.
        # `HorizontalFlip` is K-generic by design and cannot know which index mirrors
        # which; supplying nothing does not mean "no swap needed", it means every sided
        # point in a mirrored sample supervises the model toward its opposite number's
        # location. That trains, converges to a left/right-confused head, and reports
        # nothing, which is why the value is read from the dataset rather than defaulted.
        # `None` still reaches the flip intact for a schema with no left/right symmetry,
        # where mirroring coordinates alone is the correct answer.
        self._flip = HorizontalFlip(
            p=_FLIP_PROB,
            generator=self._generator,
            keypoint_flip_pairs=base.keypoint_flip_pairs,
        )

    def __len__(self) -> int:
        """Return the number of base images."""
        return len(self._base)

    def __getitem__(self, index: int) -> tuple[Tensor, Targets]:
        """Assemble the fully-augmented ``(image, Targets)`` sample for ``index``."""
        image, targets = self._geometric(index)
        image, targets = self._maybe_mixup(image, targets)
        image, targets = self._maybe_copy_paste(image, targets)
        image, targets = self._hsv(image, targets)
        return self._flip(image, targets)

    def _geometric(self, index: int) -> tuple[Tensor, Targets]:
        """Build the geometric base: optional mosaic, then the fused affine+letterbox.

        The random affine and the letterbox down to ``img_size`` are composed into
        a single image resample (:class:`~lucid_yolo.data.affine.FusedAffineLetterbox`),
        so the geometric path costs one bilinear pass instead of two.
        """
        if self._draw() < self.mosaic_p:
            items = [self._base[i] for i in self._mosaic_indices(index)]
            image, targets = self._mosaic(items)
        else:
            image, targets = self._base[index]
        return self._fused(image, targets)

    def _maybe_mixup(self, image: Tensor, targets: Targets) -> tuple[Tensor, Targets]:
        """With probability ``mixup`` blend a second full geometric sample in."""
        if self._draw() >= self._mixup_prob:
            return image, targets
        other = self._geometric(self._random_index())
        return self._mixup([(image, targets), other])

    def _maybe_copy_paste(self, image: Tensor, targets: Targets) -> tuple[Tensor, Targets]:
        """With probability ``copy_paste`` paste polygon instances from another sample."""
        if self._draw() >= self._copy_paste_prob:
            return image, targets
        source = self._geometric(self._random_index())
        return self._copy_paste([(image, targets), source])

    def _mosaic_indices(self, index: int) -> list[int]:
        """Return ``index`` plus three further sampled indices for a mosaic."""
        return [index, self._random_index(), self._random_index(), self._random_index()]

    def _random_index(self) -> int:
        """Draw a uniform base-dataset index from the seeded generator."""
        return int(torch.randint(0, len(self._base), (1,), generator=self._generator).item())

    def _draw(self) -> float:
        """Draw one uniform in ``[0, 1)`` from the seeded generator."""
        return float(torch.rand((), generator=self._generator).item())


class DetectionDataModule(LightningDataModule):
    """Detection datamodule assembling the Phase 1 augmentation pipeline (WP-014).

    Train and val splits are built from the COCO 2017 layout under ``data_root``
    (``train2017/`` + ``annotations/instances_train2017.json`` and the ``val2017``
    equivalents); each split path may be overridden explicitly (used by the offline
    fixture tests, which have a single Roboflow-style split). A ``data_root`` written in
    the YOLO convention instead is read by
    :class:`~lucid_yolo.data.yolo.YoloDetectionDataset` — see the module docstring for the
    three-step dispatch (WP-099b). Training samples pass
    through :class:`_TrainPipeline` (mosaic/mixup/copy-paste/affine/hsv/flip +
    letterbox); validation is letterbox-only. No split is ever downloaded.

    Args:
        data_root: Dataset root: a COCO 2017 root (holding ``train2017``, ``val2017``,
            ``annotations``), any other layout :data:`~lucid_yolo.data.layout.CANDIDATES`
            names, or a YOLO root (a ``data.yaml`` beside ``images``/``labels`` trees).
        batch_size: Samples per batch for both loaders.
        num_workers: DataLoader worker processes. ``None`` (default) resolves
            to ``min(batch_size, cpu count)``, further capped so the in-flight
            worker queue fits the free ``/dev/shm`` budget on Linux
            (:func:`_shm_capped_workers`) — a many-core host with a large batch
            otherwise fills the shm tmpfs before the first step. Determinism of
            the seeded pipeline is guaranteed only at an explicit ``0`` (a
            single in-process generator).
        variant: Model size letter selecting the augmentation strength policy
            (``"n"``…``"x"``); validated at construction.
        img_size: Square letterbox side for every emitted sample. Defaults to 640.
        train_images_dir: Override for the train images directory. Defaults to
            whichever of ``data_root/"train2017"`` and ``data_root/"train"``
            :func:`~lucid_yolo.data.layout.resolve_split` finds, so a tiled
            oriented root needs no override at all.
        train_ann_file: Override for the train annotation JSON. Resolved
            alongside the images directory, never independently of it.
        val_images_dir: Override for the val images directory. Resolved as the
            train one is.
        val_ann_file: Override for the val annotation JSON. Resolved alongside
            the val images directory.
        seed: Seed for the training pipeline's generator and loader shuffling.
        pin_memory: Whether loader batches land in page-locked host memory for
            async host-to-device copies. ``None`` (default) resolves to ``True``
            exactly when CUDA is available — MPS and CPU runs get ``False``
            (pinning buys nothing there and MPS warns on it).
        prefetch_factor: Batches each worker keeps prefetched (defaults to
            :data:`_PREFETCH_FACTOR`); ignored at ``num_workers=0`` where the
            DataLoader forbids it.
        val_num_workers: Worker count for the validation loader only, capped by
            nothing — the flag an operator states to spend the whole machine on
            validation. ``None`` (default) resolves to an auto-chosen
            ``num_workers`` capped by :func:`_val_worker_cap` (WP-073, WP-102), and
            to a *named* ``num_workers`` bounded by the in-flight memory budget of
            :meth:`_val_loader_workers` (WP-103) — letterbox-only val samples need
            few workers, and both worker populations are resident at the epoch
            boundary where validation runs.
        persistent_workers: Keep loader workers alive across epochs. Defaults
            to ``False`` (WP-076): respawning costs seconds per epoch while a
            persistent pool accumulates per-worker memory for the whole run —
            the observed slow-creep OOM on long containerized runs.
        rotated_targets: Read every annotation's four-point ring as a rotated box
            (:class:`~lucid_yolo.data.coco.CocoDetectionDataset`'s ``oriented`` mode,
            WP-088), so both loaders emit ``Targets`` whose ``rboxes`` pair 1:1 with
            their ``boxes``. Off by default because it requires a quadrilateral ring
            per instance; the CLI turns it on for ``model.task="obb"``. Costs no extra
            transport — the packed batch has carried a rotated-box axis since WP-055.
        mask_targets: Rasterise the segmentation mask targets in the loader workers
            (:func:`collate_detection`) instead of leaving that CPU work in the
            training process. Off by default because it requires a polygon ring per
            box; the CLI turns it on for ``model.task="segment"``. Adds the mask
            stack to the batch transport — roughly 27 MB per batch of 32 at COCO
            instance density — so a container with a small ``/dev/shm`` may need
            fewer workers or a lower ``prefetch_factor``. **Unavailable on a YOLO root**:
            that format carries no per-instance rings at all, so the request is refused
            as soon as the layout is known rather than left to produce a segmentation run
            supervised by nothing.
        keypoint_targets: Parse every annotation's COCO ``keypoints`` field
            (:class:`~lucid_yolo.data.coco.CocoDetectionDataset`'s ``keypoints`` mode,
            WP-121), so both loaders emit ``Targets`` whose ``keypoints`` and
            ``keypoint_vis`` pair 1:1 with their ``boxes``. Off by default because it
            requires a keypoints-annotated file; the CLI turns it on for
            ``model.task="keypoints"``. Adds a ``(sum_N, K, 2)`` coordinate axis and a
            ``(sum_N, K)`` visibility axis to the batch transport — small beside the
            images. **Unavailable on a YOLO root**, which carries no keypoint fields.

            Both loaders carry points the whole way (WP-132). The **validation** path is
            letterbox-only and needed nothing but
            :class:`~lucid_yolo.data.letterbox.Letterbox`; the **training** path also runs
            the mosaic, the fused affine, mixup and the horizontal flip, and each of those
            rebuilds its ``Targets``, so each had to be taught the point channels
            explicitly. Unlike the letterbox they crop and filter, which is why they need
            A70's rule for a point warped off the canvas — it is carried through with its
            true coordinate rather than clamped or demoted, a case A66's ``v == 0`` ("no
            annotation exists") does not answer. The flip needs more than a rule: it needs
            this dataset's own left/right pairing, which is why the reader publishes
            ``keypoint_flip_pairs`` (A64) rather than the transform assuming one.
        layout: Which reader ``data_root`` calls for — ``"coco"``, ``"yolo"``, or ``None``
            (the default) to infer it. Two things are unsayable without it, which is the
            whole of its justification: a root holding *both* conventions, which
            :func:`~lucid_yolo.data.layout.detect_layout` refuses to break a tie on because
            the two readings are different label spaces; and a YOLO root whose ``data.yaml``
            points its splits outside the convention table, which the reader resolves and
            the probe cannot see. Stating ``"coco"`` or ``"yolo"`` skips the probe entirely,
            so the reader — not this dispatch — names any path it then fails to open.

    Examples:
        ```pycon
        >>> DetectionDataModule  # doctest: +SKIP
        >>> # dm = DetectionDataModule(root, batch_size=2, num_workers=0, variant="n")
        >>> # dm.setup("fit"); images, targets = next(iter(dm.train_dataloader()))

        ```
    """

    def __init__(  # noqa: PLR0913 — flat hyperparameter surface is deliberate: WP-038 LightningCLI configures each knob directly from YAML (only 4 are required positionals)
        self,
        data_root: Path,
        batch_size: int,
        num_workers: int | None,
        variant: str,
        img_size: int = 640,
        *,
        train_images_dir: Path | None = None,
        train_ann_file: Path | None = None,
        val_images_dir: Path | None = None,
        val_ann_file: Path | None = None,
        seed: int = 0,
        pin_memory: bool | None = None,
        prefetch_factor: int = _PREFETCH_FACTOR,
        val_num_workers: int | None = None,
        persistent_workers: bool = False,
        mask_targets: bool = False,
        rotated_targets: bool = False,
        keypoint_targets: bool = False,
        layout: str | None = None,
    ) -> None:
        super().__init__()
        self._mask_targets = bool(mask_targets)
        self._rotated_targets = bool(rotated_targets)
        self._keypoint_targets = bool(keypoint_targets)
        self._batch_size = int(batch_size)
        self._img_size = int(img_size)
        self._prefetch_factor = int(prefetch_factor)
        workers_were_chosen_here = num_workers is None
        if num_workers is None:
            num_workers = _shm_capped_workers(
                min(self._batch_size, os.cpu_count() or 1),
                self._batch_size,
                self._img_size,
                self._prefetch_factor,
            )
        self._num_workers = int(num_workers)
        self._val_workers_were_inherited = val_num_workers is None and not workers_were_chosen_here
        self._val_num_workers = self._resolve_val_workers(val_num_workers, workers_were_chosen_here)
        self._persistent_workers = bool(persistent_workers)
        self._seed = int(seed)
        self._pin_memory = torch.cuda.is_available() if pin_memory is None else bool(pin_memory)
        self._policy = build_scale_policy(variant)
        self._data_root = data_root
        # The COCO reading of the root is resolved here whether or not it is the one that ends
        # up used: it is a naming rule with a fallback, never an existence check, so it costs a
        # few stat calls and cannot fail. Which reading is *taken* is `_layout`'s decision.
        default_train_images, default_train_ann = resolve_split(data_root, "train")
        default_val_images, default_val_ann = resolve_split(data_root, "val")
        self._train_images_dir = train_images_dir or default_train_images
        self._train_ann_file = train_ann_file or default_train_ann
        self._val_images_dir = val_images_dir or default_val_images
        self._val_ann_file = val_ann_file or default_val_ann
        self._named_paths = any(
            path is not None for path in (train_images_dir, train_ann_file, val_images_dir, val_ann_file)
        )
        self._layout = self._layout_without_probing(layout)
        self._train: _TrainPipeline | None = None
        self._val: _DetectionSource | None = None

    def _layout_without_probing(self, requested: str | None) -> DatasetLayout | None:
        """Settle the layout as far as the arguments alone can, before any filesystem is read.

        Steps 1 and 2 of the module docstring's dispatch. Both are decidable from the call
        itself, so a run misconfigured in either way fails at the point the configuration is
        written rather than at the epoch that needed the data. ``None`` means step 3 — the probe
        — still has to run, which :meth:`setup` does once the root is supposed to exist.

        Args:
            requested: The ``layout`` argument as given.

        Returns:
            The stated layout, :attr:`~lucid_yolo.data.layout.DatasetLayout.COCO` when the
            COCO-shaped path overrides state it, or ``None`` when the root must be probed.

        Raises:
            ValueError: If ``layout`` names neither convention, or if it names the YOLO one
                alongside a path override only the COCO one has a meaning for.
        """
        if requested is None:
            return DatasetLayout.COCO if self._named_paths else None
        try:
            layout = DatasetLayout(requested)
        except ValueError:
            known = ", ".join(repr(member.value) for member in DatasetLayout)
            raise ValueError(f"unknown layout {requested!r}; expected one of {known}") from None
        if layout is DatasetLayout.YOLO and self._named_paths:
            raise ValueError(
                f"layout={DatasetLayout.YOLO.value!r} cannot be combined with the train_images_dir/"
                "train_ann_file/val_images_dir/val_ann_file overrides: those name a COCO "
                "annotation file and the images directory beside it, while a YOLO root resolves "
                "its splits from its own data.yaml. Drop the overrides, or point data_root at "
                "the root holding that data.yaml"
            )
        self._check_layout_support(layout)
        return layout

    def _check_layout_support(self, layout: DatasetLayout) -> None:
        """Reject a request the resolved layout's reader cannot serve.

        Both such requests today are on a YOLO root: segmentation supervision, and keypoint
        supervision. Each is refused rather than downgraded because the failure it replaces is
        silent in the worst way — the rings the mask targets rasterise, and the point fields the
        pose targets read, are simply never there (WP-099), so the run would train a head on
        empty supervision and report a plausible detection number.

        Args:
            layout: The layout that will be read.

        Raises:
            ValueError: If ``mask_targets`` or ``keypoint_targets`` was asked for on a YOLO root.
        """
        if layout is not DatasetLayout.YOLO:
            return
        if self._mask_targets:
            raise ValueError(
                "mask_targets=True is unavailable on a YOLO root: the format carries no "
                "per-instance polygon rings, so there is nothing to rasterise masks from. "
                "Train segmentation from a COCO-format root, or drop mask_targets"
            )
        if self._keypoint_targets:
            raise ValueError(
                "keypoint_targets=True is unavailable on a YOLO root: the format's label rows "
                "carry a class and a box and no point fields at all, so there is nothing to "
                "read keypoints from. Train pose from a COCO-format root, or drop keypoint_targets"
            )

    @property
    def layout(self) -> DatasetLayout:
        """Return the layout this datamodule reads, probing the root once if need be.

        Returns:
            The resolved :class:`~lucid_yolo.data.layout.DatasetLayout`, cached after the
            first call so the probe's verdict cannot change mid-run.

        Raises:
            FileNotFoundError: If the root satisfies neither convention; the message names
                both and every path tried (:func:`~lucid_yolo.data.layout.detect_layout`).
            ValueError: If it satisfies both, or asks for something that layout cannot serve.

        Examples:
            ```pycon
            >>> DetectionDataModule.layout  # doctest: +SKIP
            >>> # DetectionDataModule(yolo_root, batch_size=2, num_workers=0, variant="n").layout
            >>> # <DatasetLayout.YOLO: 'yolo'>

            ```
        """
        if self._layout is None:
            layout = detect_layout(self._data_root)
            self._check_layout_support(layout)
            self._layout = layout
        return self._layout

    def _resolve_val_workers(self, requested: int | None, workers_were_chosen_here: bool) -> int:
        """Decide the validation loader's *intended* worker count.

        The letterbox cap applies to what this class chose, never to what a caller named.
        An operator who writes ``--data.num_workers 16`` has stated how much of the
        machine this run may use, and silently running validation on a quarter of it is
        the library second-guessing a decision that was not its to make — the surprise
        costs more than the OOM it was avoiding, because it shows up as an idle GPU with
        no message. When the count was auto-chosen the cap still applies, because then
        the library owns the consequences of its own guess.

        An *inherited* count — named for training, never stated for validation — is
        neither, and :meth:`_val_loader_workers` bounds it by the memory budget when the
        loader is built (WP-103).

        Args:
            requested: Explicit ``val_num_workers``, or ``None`` to derive one.
            workers_were_chosen_here: Whether the train worker count was auto-chosen.

        Returns:
            The validation loader's worker count before any build-time memory budget.
        """
        if requested is not None:
            return int(requested)
        if not workers_were_chosen_here:
            return self._num_workers
        return min(self._num_workers, _val_worker_cap(self._img_size))

    def _val_loader_workers(self) -> int:
        """Return the worker count this validation loader may actually start (WP-103).

        A count *inherited* from a named ``num_workers`` is bounded here by
        :func:`_shm_capped_workers`, loudly. WP-102 was right that an operator's number
        should reach the val loader and wrong about what to do with the guard: it deleted
        the cap rather than the silence, and a named 32 at 1024 px queues about 51 GB for
        validation alone (``32 x 2 x 4 x 3 x 64 x 1024**2``) on top of a train pool that
        is still resident — the host dies. Parallelism is what an operator states with
        that flag; gigabytes are what the flag *costs*, and the second is this class's
        arithmetic to do. Naming ``val_num_workers`` outright is still sovereign, capped
        by nothing, which is where an operator who wants the whole machine says so.

        The budget is read **when the loader is built**, not at construction: by then the
        training queue is resident, so :func:`os.statvfs` reports the space the second
        pool will actually find rather than the space that existed before the first one
        spawned. The overlap of the two pools is the failure mode, so it is the state the
        decision has to be made against.

        Returns:
            The validation loader's worker count, bounded by the memory budget when the
            count was inherited rather than stated.
        """
        workers = self._val_num_workers
        if not self._val_workers_were_inherited:
            return workers
        capped = _shm_capped_workers(workers, self._batch_size, self._img_size, self._prefetch_factor)
        if capped < workers:
            warnings.warn(
                f"validation would inherit num_workers={workers}, queueing about "
                f"{workers * self._prefetch_factor * 4 * 3 * self._batch_size * self._img_size**2 / 1e9:.0f} GB "
                f"of {self._img_size} px batches beside the training loader's own queue; "
                f"using {capped} workers instead. Set --data.val_num_workers to override.",
                stacklevel=2,
            )
        return capped

    def prepare_data(self) -> None:
        """No-op: datasets are provisioned out of band, never downloaded (AGENTS.md section 3)."""

    def setup(self, stage: str | None = None) -> None:
        """Build the train pipeline and the letterbox-only val dataset.

        The layout is resolved here (:attr:`layout`) rather than at construction, because this
        is the first moment the root is required to exist: a root that satisfies neither
        convention raises before a single image is decoded, naming both conventions and every
        path tried.

        Args:
            stage: The Lightning stage (``"fit"``/``"validate"``/…); unused, both
                splits are always built so repeated calls are idempotent.

        Raises:
            FileNotFoundError: If the root satisfies neither dataset convention.
            ValueError: If it satisfies both, or the resolved layout cannot serve a
                requested modality.
        """
        yolo = self.layout is DatasetLayout.YOLO
        base, self._val = self._build_yolo_splits() if yolo else self._build_coco_splits()
        self._train = _TrainPipeline(
            base,
            self._img_size,
            self._policy,
            self._seed,
            oriented=self._rotated_targets,
            polygon_free=yolo,
        )

    def _build_coco_splits(self) -> tuple[_DetectionSource, _DetectionSource]:
        """Build both splits from the resolved (or overridden) COCO paths.

        Returns:
            The raw train reader and the letterbox-only val reader.
        """
        return (
            CocoDetectionDataset(
                self._train_images_dir,
                self._train_ann_file,
                oriented=self._rotated_targets,
                keypoints=self._keypoint_targets,
            ),
            CocoDetectionDataset(
                self._val_images_dir,
                self._val_ann_file,
                transforms=Letterbox(self._img_size),
                oriented=self._rotated_targets,
                keypoints=self._keypoint_targets,
            ),
        )

    def _build_yolo_splits(self) -> tuple[_DetectionSource, _DetectionSource]:
        """Build both splits from the root's own ``data.yaml`` and label trees.

        Each split is resolved by the reader
        (:meth:`~lucid_yolo.data.yolo.YoloDetectionDataset.from_root`), so the dataset's own
        split entries outrank the naming convention — the published spelling writes
        ``val: ../valid/images``, which no convention table would find. ``rotated_targets``
        selects the nine-field oriented reading on *both* splits, since the variant is a
        property of the dataset and is declared, never sniffed (WP-099).

        Returns:
            The raw train reader and the letterbox-only val reader.
        """
        return (
            YoloDetectionDataset.from_root(self._data_root, "train", oriented=self._rotated_targets),
            YoloDetectionDataset.from_root(
                self._data_root,
                "val",
                Letterbox(self._img_size),
                oriented=self._rotated_targets,
            ),
        )

    def on_after_batch_transfer(
        self, batch: tuple[Tensor, PackedTargets] | tuple[Tensor, list[Targets]], dataloader_idx: int
    ) -> tuple[Tensor, list[Targets], list[Tensor] | None]:
        """Restore the float images and ``list[Targets]`` consumer contract on-device.

        Lightning calls this after moving the batch to the accelerator, so both the
        uint8 images and the :class:`PackedTargets` tensor fields are already
        on-device: the images are dequantized to the attached module's dtype
        (:meth:`_consumer_dtype` — ``code / 255`` at that precision,
        :func:`_dequantize_images`) and the packed targets are unpacked, all on the
        same device the module trains on, with no extra host-to-device hop. Matching
        the module dtype keeps a ``"16-true"``/``"bf16-true"`` run's half weights and
        inputs aligned; ``"16-mixed"`` leaves the module float32 and lets autocast
        cast. Already-float images and already-list targets (a non-packed direct
        feed) pass through untouched, so the hook is safe to run over either form.
        Both the train and val loaders share this single restore.

        Args:
            batch: The transferred ``(uint8 images, PackedTargets)`` transport batch,
                or an already-restored ``(float images, list[Targets])`` batch.
            dataloader_idx: The loader index (unused; the conversion is uniform).

        Returns:
            The ``(images, list[Targets], masks)`` consumer batch — ``[0, 1]`` images
            at the module's dtype, the ragged per-image targets, and the per-image
            mask stacks a segmentation loader rasterised in its workers (``None`` on
            a detection loader, or on any already-restored feed, which is the signal
            the module rasterises the masks itself).

        Examples:
            ```pycon
            >>> DetectionDataModule.on_after_batch_transfer  # doctest: +SKIP
            >>> # images, targets = dm.on_after_batch_transfer(next(iter(dm.val_dataloader())), 0)

            ```
        """
        del dataloader_idx
        images, targets = batch
        images = _dequantize_images(images, self._consumer_dtype())
        if isinstance(targets, PackedTargets):
            return images, unpack_targets(targets), unpack_masks(targets)
        return images, targets, None

    def _consumer_dtype(self) -> torch.dtype:
        """Resolve the floating-point dtype the dequantized images should take.

        Returns the attached :class:`~pytorch_lightning.LightningModule`'s parameter
        dtype so the restored images match the trainer's precision: a
        ``"16-true"``/``"bf16-true"`` run holds half weights the inputs must match,
        while ``"16-mixed"`` leaves the module float32 (autocast casts as needed).
        Falls back to ``torch.float32`` when no trainer or module is attached — the
        path a direct :func:`unpack_batch` consumer never reaches.

        Returns:
            The attached module's dtype, or ``torch.float32`` when unattached.
        """
        trainer = self.trainer
        if trainer is None:
            return torch.float32
        module_dtype = trainer.lightning_module.dtype  # str | torch.dtype in the PL stubs
        return module_dtype if isinstance(module_dtype, torch.dtype) else torch.float32

    def _loader_kwargs(self) -> dict[str, object]:
        """Return the streaming DataLoader kwargs shared by both loaders.

        Accelerator-aware: ``pin_memory`` is on only where it helps (resolved in
        the constructor — CUDA yes, MPS/CPU no), ``prefetch_factor`` and the
        the per-worker init (:func:`_init_worker` — thread cap plus RNG re-seed)
        apply only with workers, so the ``num_workers=0`` path is untouched.

        Workers are **recycled every epoch** unless ``persistent_workers=True``
        was requested (WP-076): a respawn costs seconds per epoch, while a
        persistent pool accumulates per-worker memory — allocator high-water
        growth, arena fragmentation, residual copy-on-write pages — for the
        whole run, the observed slow-creep OOM on long containerized runs.
        """
        workers = self._num_workers > 0
        return {
            "batch_size": self._batch_size,
            "num_workers": self._num_workers,
            # A partial, not a closure or a lambda: the worker start method pickles
            # `collate_fn`, and `functools.partial` over a module-level function is
            # picklable where a local function is not.
            "collate_fn": partial(collate_detection, mask_targets=self._mask_targets),
            "persistent_workers": self._persistent_workers and workers,
            "pin_memory": self._pin_memory,
            "prefetch_factor": self._prefetch_factor if workers else None,
            "worker_init_fn": _init_worker if workers else None,
        }

    def train_dataloader(self) -> DataLoader[tuple[Tensor, Targets]]:
        """Return the shuffled training loader over the augmentation pipeline."""
        if self._train is None:
            raise RuntimeError("setup() must be called before train_dataloader()")
        shuffle_generator = torch.Generator().manual_seed(self._seed)
        return DataLoader(
            self._train,
            shuffle=True,
            generator=shuffle_generator,
            **self._loader_kwargs(),  # type: ignore[arg-type]
        )

    def val_dataloader(self) -> DataLoader[tuple[Tensor, Targets]]:
        """Return the unshuffled validation loader (letterbox-only samples).

        The loader runs on its own worker count — ``val_num_workers``, defaulting to a
        pixel-scaled cap on an auto-chosen train count (WP-073, WP-102) and to the
        memory budget of :meth:`_val_loader_workers` on a named one (WP-103): letterbox
        only samples need a fraction of the train pipeline's CPU, and both worker
        populations are resident at the epoch boundary where validation runs.
        """
        if self._val is None:
            raise RuntimeError("setup() must be called before val_dataloader()")
        num_workers = self._val_loader_workers()
        workers = num_workers > 0
        kwargs = self._loader_kwargs() | {
            "num_workers": num_workers,
            "persistent_workers": self._persistent_workers and workers,
            "prefetch_factor": self._prefetch_factor if workers else None,
            "worker_init_fn": _init_worker if workers else None,
        }
        return DataLoader(
            self._val,
            shuffle=False,
            **kwargs,  # type: ignore[arg-type]
        )

    @property
    def mosaic_prob(self) -> float:
        """Return the training pipeline's current mosaic probability.

        Returns:
            The probability with which each training sample is built from a
            four-image mosaic (``1.0`` until the ``close_mosaic`` schedule flips it).

        Raises:
            RuntimeError: If :meth:`setup` has not built the training pipeline yet.

        Examples:
            ```pycon
            >>> DetectionDataModule.mosaic_prob  # doctest: +SKIP
            >>> # dm.setup("fit"); dm.mosaic_prob
            >>> # 1.0

            ```
        """
        if self._train is None:
            raise RuntimeError("setup() must be called before reading mosaic_prob")
        return self._train.mosaic_p

    def set_mosaic_prob(self, prob: float) -> None:
        """Set the training pipeline's mosaic probability.

        This is the seam ``CloseMosaicCallback`` (WP-036) drives to disable mosaic
        for the final training epochs: it sets ``prob=0``. The change is consulted
        on the next sample the pipeline assembles. Repeat calls are harmless.

        Args:
            prob: The new mosaic probability, forwarded to
                :attr:`_TrainPipeline.mosaic_p`.

        Raises:
            RuntimeError: If :meth:`setup` has not built the training pipeline yet.

        Examples:
            ```pycon
            >>> DetectionDataModule.set_mosaic_prob  # doctest: +SKIP
            >>> # dm.setup("fit"); dm.set_mosaic_prob(0.0); dm.mosaic_prob
            >>> # 0.0

            ```
        """
        if self._train is None:
            raise RuntimeError("setup() must be called before set_mosaic_prob()")
        self._train.mosaic_p = float(prob)
