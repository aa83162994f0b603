"""Lightning callbacks for batch norm momentum scheduling and metric logging."""

import inspect
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

from torch import nn

from torch_pointcloud.optim import bn_momentum, set_bn_momentum
from torch_pointcloud.utils.imports import _LIGHTNING_GITHUB_URL, _TORCHMETRICS_GITHUB_URL, optional_import

if TYPE_CHECKING:
    import lightning.pytorch as L
    from lightning.pytorch import Callback
    from torchmetrics import Metric
else:
    Callback, _ = optional_import("lightning.pytorch", "Callback", url=_LIGHTNING_GITHUB_URL)
    Metric, _ = optional_import("torchmetrics", "Metric", url=_TORCHMETRICS_GITHUB_URL)


class BNMomentumScheduler(Callback):
    r"""Exponentially decay BatchNorm momentum over training epochs.

    Reference implementation: :github:
    [facebookresearch/votenet](https://github.com/facebookresearch/votenet) (`train.py`).

    At the start of each training epoch, every `nn.BatchNorm*` module in `pl_module.model` has its
    momentum set to

    $$
    \max\left(m_0 \cdot \gamma^{\lfloor \text{epoch} / s \rfloor},\; m_\text{clip}\right)
    $$

    with $m_0$ the initial momentum, $\gamma$ the decay rate, $s$ the decay step (epochs) and
    $m_\text{clip}$ the floor (`torch_pointcloud.optim.bn_momentum`).

    Args:
        bn_momentum_init: Initial BatchNorm momentum $m_0$.
        bn_decay_rate: Per-step multiplicative decay $\gamma$.
        bn_decay_step: Number of epochs between decay steps $s$.
        bn_momentum_clip: Lower bound on the momentum $m_\text{clip}$.
    """

    def __init__(
        self,
        bn_momentum_init: float = 0.5,
        bn_decay_rate: float = 0.5,
        bn_decay_step: int = 20,
        bn_momentum_clip: float = 0.001,
    ) -> None:
        super().__init__()
        self.bn_momentum_init = bn_momentum_init
        self.bn_decay_rate = bn_decay_rate
        self.bn_decay_step = bn_decay_step
        self.bn_momentum_clip = bn_momentum_clip

    def on_train_epoch_start(self, trainer: "L.Trainer", pl_module: "L.LightningModule") -> None:
        """Set the decayed momentum on every BatchNorm module of the model."""
        momentum = bn_momentum(
            trainer.current_epoch,
            init=self.bn_momentum_init,
            decay_rate=self.bn_decay_rate,
            decay_step=self.bn_decay_step,
            clip=self.bn_momentum_clip,
        )
        model = pl_module.model
        assert isinstance(model, nn.Module)
        set_bn_momentum(model, momentum)


class MetricCallback(Callback):
    r"""Accumulate and log a torchmetrics metric over a validation/test epoch.

    Model- and task-agnostic: the LightningModule's `validation_step` / `test_step` returns a
    `{preds_key: ..., target_key: ...}` dict (the repo's `Lit*` modules do), and this callback updates a
    torchmetrics `Metric` with it each batch, logging the epoch value as `{stage}/{name}`. List one per
    metric to plug accuracy, mIoU, mAP, ... onto any model.

    `metric` is a ready torchmetrics `Metric` whose `num_classes` and `ignore_index` the caller sets to match the
    model and the criterion, so the callback holds it as-is and stays model-agnostic.

    A step output may carry extra entries beyond `preds_key` / `target_key` (the `Lit*` modules' `metric_input_keys`
    passthrough); entries matching a parameter name of the metric's `update` signature (inspected once at construction)
    are forwarded as keyword arguments and the rest are ignored, so each metric declares the inputs it consumes.

    A metric whose `compute` returns a dict (e.g. `BoxMeanAveragePrecision` returning `mAP@0.25` / `mAP@0.5`)
    is logged one entry per key as `{stage}/{key}`; a scalar metric is logged as `{stage}/{name}`.

    Args:
        metric: A torchmetrics `Metric`, e.g. `JaccardIndex(task="multiclass", num_classes=..., ignore_index=...)`.
        name: Metric name; logged as `{stage}/{name}` (ignored for dict-valued metrics, whose keys name themselves).
        stages: Stages to score; each listed stage's `*_step` must return `preds_key` / `target_key`.
        preds_key: Key in the step output holding predictions (logits, probabilities, labels, or detections).
        target_key: Key in the step output holding the targets.
        batch_key: Optional key in the step output holding the per-point shape index, forwarded as a third
            positional argument to `metric.update` (packed multi-shape metrics like `InstancePartMeanIntersectionOverUnion`
            need it). Leave `None` for two-argument metrics.
        prog_bar: Whether to show the metric on the progress bar.
    """

    def __init__(
        self,
        metric: Metric,
        name: str,
        *,
        stages: Sequence[str] = ("val", "test"),
        preds_key: str = "preds",
        target_key: str = "target",
        batch_key: Optional[str] = None,
        prog_bar: bool = True,
    ) -> None:
        super().__init__()
        self.name = name
        self.stages = tuple(stages)
        self.preds_key = preds_key
        self.target_key = target_key
        self.batch_key = batch_key
        self.prog_bar = prog_bar
        self.metric: Optional[Metric] = metric
        self._update_keys = frozenset(
            param.name
            for param in inspect.signature(metric.update).parameters.values()
            if param.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        )

    def _reset(self, pl_module: "L.LightningModule") -> None:
        assert self.metric is not None
        self.metric = self.metric.to(pl_module.device)
        self.metric.reset()

    def _update(self, outputs: Any) -> None:
        assert self.metric is not None
        if not isinstance(outputs, dict):
            raise TypeError(
                f"MetricCallback expects the step output to be a dict holding {self.preds_key!r} and "
                f"{self.target_key!r}; got {type(outputs).__name__}."
            )

        extras = {
            key: value
            for key, value in outputs.items()
            if key in self._update_keys and key not in (self.preds_key, self.target_key, self.batch_key)
        }

        if self.batch_key is not None:
            self.metric.update(outputs[self.preds_key], outputs[self.target_key], outputs[self.batch_key], **extras)
        else:
            self.metric.update(outputs[self.preds_key], outputs[self.target_key], **extras)

    def _compute(self, pl_module: "L.LightningModule", stage: str) -> None:
        assert self.metric is not None
        value = self.metric.compute()
        if isinstance(value, dict):
            for i, (key, sub) in enumerate(value.items()):
                pl_module.log(f"{stage}/{key}", sub, prog_bar=self.prog_bar and i == 0)
        else:
            pl_module.log(f"{stage}/{self.name}", value, prog_bar=self.prog_bar)

    def on_validation_epoch_start(self, trainer: "L.Trainer", pl_module: "L.LightningModule") -> None:
        """Reset the metric when `val` is scored."""
        if "val" in self.stages:
            self._reset(pl_module)

    def on_validation_batch_end(
        self,
        trainer: "L.Trainer",
        pl_module: "L.LightningModule",
        outputs: Any,
        batch: Dict[str, Any],
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        """Update the metric with the step output when `val` is scored."""
        if "val" in self.stages:
            self._update(outputs)

    def on_validation_epoch_end(self, trainer: "L.Trainer", pl_module: "L.LightningModule") -> None:
        """Compute and log the metric when `val` is scored."""
        if "val" in self.stages:
            self._compute(pl_module, "val")

    def on_test_epoch_start(self, trainer: "L.Trainer", pl_module: "L.LightningModule") -> None:
        """Reset the metric when `test` is scored."""
        if "test" in self.stages:
            self._reset(pl_module)

    def on_test_batch_end(
        self,
        trainer: "L.Trainer",
        pl_module: "L.LightningModule",
        outputs: Any,
        batch: Dict[str, Any],
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> None:
        """Update the metric with the step output when `test` is scored."""
        if "test" in self.stages:
            self._update(outputs)

    def on_test_epoch_end(self, trainer: "L.Trainer", pl_module: "L.LightningModule") -> None:
        """Compute and log the metric when `test` is scored."""
        if "test" in self.stages:
            self._compute(pl_module, "test")
