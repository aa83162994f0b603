# This module is derived from the train.py module in the following repository:
# https://github.com/NVlabs/FourCastNet. The corresponding license is
# provided below.

# BSD 3-Clause License
#
# Copyright (c) 2022, FourCastNet authors
# All rights reserved.
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met:
#
# 1. Redistributions of source code must retain the above copyright notice, this
#   list of conditions and the following disclaimer.
#
# 2. Redistributions in binary form must reproduce the above copyright notice,
#   this list of conditions and the following disclaimer in the documentation
#   and/or other materials provided with the distribution.
#
# 3. Neither the name of the copyright holder nor the names of its
#   contributors may be used to endorse or promote products derived from
#   this software without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
# AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
# IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
# DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
# FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
# DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
# SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
# CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
# OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#
# The code was authored by the following people:
#
# Jaideep Pathak - NVIDIA Corporation
# Shashank Subramanian - NERSC, Lawrence Berkeley National Laboratory
# Peter Harrington - NERSC, Lawrence Berkeley National Laboratory
# Sanjeev Raja - NERSC, Lawrence Berkeley National Laboratory
# Ashesh Chattopadhyay - Rice University
# Morteza Mardani - NVIDIA Corporation
# Thorsten Kurth - NVIDIA Corporation
# David Hall - NVIDIA Corporation
# Zongyi Li - California Institute of Technology, NVIDIA Corporation
# Kamyar Azizzadenesheli - Purdue University
# Pedram Hassanzadeh - Rice University
# Karthik Kashinath - NVIDIA Corporation
# Animashree Anandkumar - California Institute of Technology, NVIDIA Corporation

import abc
import contextlib
import dataclasses
import gc
import logging
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

import torch

import fme
from fme.core.cli import remove_stale_tmp_checkpoints
from fme.core.distributed import Distributed
from fme.core.distributed.shutdown import add_post_abort_callback, write_stderr
from fme.core.ema import EMA_CHECKPOINT_KEY, EMATracker
from fme.core.generics.aggregator import (
    AggregatorABC,
    InferenceAggregatorABC,
    InferenceSummary,
)
from fme.core.generics.data import GriddedDataABC, InferenceDataABC
from fme.core.generics.inference import run_inference
from fme.core.generics.lr_tuning import (
    LRTuningConfig,
    ValidateStepper,
    run_lr_tuning_trial,
)
from fme.core.generics.metrics_aggregator import MetricsAggregator
from fme.core.generics.train_stepper import TrainOutputABC, TrainStepperABC
from fme.core.generics.validation import run_validation
from fme.core.optimization import NullOptimization, Optimization
from fme.core.timing import GlobalTimer
from fme.core.training_history import TrainingJob
from fme.core.typing_ import Slice
from fme.core.wandb import WandB


class EndOfBatchCallback(Protocol):
    def __call__(self) -> None: ...


class EndOfEpochCallback(Protocol):
    def __call__(self, epoch: int) -> Mapping[str, Any]: ...


def null_end_of_epoch_callback(epoch: int) -> Mapping[str, Any]:
    return {}


class ValidationCallback(Protocol):
    def __call__(self, epoch: int) -> tuple[dict[str, Any], float]:
        """Run validation for the given epoch.

        Returns:
            A tuple of (logs, valid_loss).
        """
        ...


class InferenceCallback(Protocol):
    def __call__(self, epoch: int) -> tuple[dict[str, Any], float | None]:
        """Run inference for the given epoch.

        Returns:
            A tuple of (logs, inference_error_or_none). When no inference runs
            for this epoch, returns ({}, None).
        """
        ...


def _null_inference_callback(epoch: int) -> tuple[dict[str, Any], float | None]:
    return {}, None


@dataclasses.dataclass
class TrainerParams:
    """
    Plain leaf parameters consumed by the :class:`Trainer`.

    A build-then-execute entrypoint constructs this from its own (richer)
    training configuration and passes it in, so the ``Trainer`` never reads
    a configuration object's fields directly. Every field here is a scalar
    that the ``Trainer`` reads; sub-objects (stepper, EMA, aggregators) are
    built by the entrypoint and passed to the ``Trainer`` as arguments.

    Parameters:
        experiment_dir: Directory where checkpoints and logs are saved.
        checkpoint_dir: Directory where checkpoints are saved.
        max_epochs: Total number of epochs to train for.
        save_checkpoint: Whether to save checkpoints at all.
        validate_using_ema: Whether to validate/infer using the EMA model.
        log_train_every_n_batches: How often to log batch loss during training.
        train_evaluation_batches: Number of batches to evaluate on after
            training each epoch.
        checkpoint_every_n_batches: How often to save the latest checkpoint
            during training. If 0, checkpoints are not saved based on batch
            progress.
        segment_epochs: Exit after training for at most this many epochs in
            the current job, without exceeding ``max_epochs``.
        checkpoint_save_epochs: How often to save epoch-based checkpoints.
        ema_checkpoint_save_epochs: How often to save epoch-based EMA
            checkpoints.
        evaluate_before_training: Whether to run validation and inline
            inference before any training is done.
        save_best_inference_epoch_checkpoints: Whether to save a separate
            checkpoint for each epoch where best_inference_error achieves a
            new minimum.
        lr_tuning: Optional learning-rate tuning configuration.
    """

    experiment_dir: str
    checkpoint_dir: str
    max_epochs: int
    save_checkpoint: bool
    validate_using_ema: bool
    log_train_every_n_batches: int
    train_evaluation_batches: int
    checkpoint_every_n_batches: int
    segment_epochs: int | None
    checkpoint_save_epochs: Slice | None
    ema_checkpoint_save_epochs: Slice | None
    evaluate_before_training: bool
    save_best_inference_epoch_checkpoints: bool
    lr_tuning: LRTuningConfig | None


PS = TypeVar("PS", contravariant=True)  # prognostic state
TO = TypeVar("TO", bound="TrainOutputABC")  # train output
BD = TypeVar("BD")  # batch data for training
FD = TypeVar("FD")  # forcing data for inference
SD = TypeVar("SD")  # stepped data from inference


class AggregatorBuilderABC(abc.ABC, Generic[TO]):
    @abc.abstractmethod
    def get_train_aggregator(self) -> AggregatorABC[TO]:
        pass


class CheckpointPaths:
    def __init__(self, checkpoint_dir: str):
        self.checkpoint_dir = checkpoint_dir

    @property
    def latest_checkpoint_path(self) -> str:
        return os.path.join(self.checkpoint_dir, "ckpt.tar")

    @property
    def best_checkpoint_path(self) -> str:
        return os.path.join(self.checkpoint_dir, "best_ckpt.tar")

    @property
    def best_inference_checkpoint_path(self) -> str:
        return os.path.join(self.checkpoint_dir, "best_inference_ckpt.tar")

    def epoch_checkpoint_path(self, epoch: int) -> str:
        return os.path.join(self.checkpoint_dir, f"ckpt_{epoch:04d}.tar")

    def ema_epoch_checkpoint_path(self, epoch: int) -> str:
        return os.path.join(self.checkpoint_dir, f"ema_ckpt_{epoch:04d}.tar")

    def best_inference_epoch_checkpoint_path(self, epoch: int) -> str:
        return os.path.join(self.checkpoint_dir, f"best_inference_ckpt_{epoch:04d}.tar")


class Trainer:
    def __init__(
        self,
        train_data: GriddedDataABC[BD],
        stepper: TrainStepperABC[PS, BD, FD, SD, TO],
        build_optimization: Callable[[torch.nn.ModuleList], Optimization],
        build_ema: Callable[[torch.nn.ModuleList], EMATracker],
        params: TrainerParams,
        aggregator_builder: AggregatorBuilderABC[TO],
        validation_callback: ValidationCallback,
        end_of_batch_callback: EndOfBatchCallback = lambda: None,
        end_of_epoch_callback: EndOfEpochCallback = null_end_of_epoch_callback,
        inference_callback: InferenceCallback = _null_inference_callback,
        validate_stepper: ValidateStepper | None = None,
        do_gc_collect: bool = True,
    ):
        """
        Args:
            train_data: Training data loader.
            stepper: Training stepper.
            build_optimization: Factory that builds the Optimization from the
                stepper's modules.
            build_ema: Factory that builds the EMATracker from the stepper's
                modules.
            params: Plain leaf training parameters read by the Trainer.
            aggregator_builder: Builder for per-epoch aggregators.
            validation_callback: Called once per epoch to run epoch-end
                validation against ``self.stepper``. The Trainer wraps the
                call in ``validation_context()`` so that EMA params are
                applied exactly once for the entire validation+inference
                block when ``validate_using_ema`` is True; the callback must
                therefore not enter ``validation_context()`` itself.
            end_of_batch_callback: Called after each training batch.
            end_of_epoch_callback: Called after validation/inference each
                epoch; may return additional logs.
            inference_callback: Called once per epoch to run inline
                inference. Like ``validation_callback``, runs inside
                ``validation_context()`` and must not re-enter it.
            validate_stepper: Optional callback used only by LR tuning. It
                receives a *trial* stepper and a *trial* EMATracker (separate
                from ``self.stepper`` / ``self._ema``) and is responsible for
                managing EMA state on those trial instances itself, since the
                Trainer's ``validation_context`` only applies EMA to the main
                stepper. Required when ``params.lr_tuning`` is configured.
            do_gc_collect: Whether to run a Python GC pass between epochs.
        """
        logging.info(f"Current device is {fme.get_device()}")
        dist = Distributed.get_instance()
        if dist.is_root():
            if not os.path.isdir(params.experiment_dir):
                os.makedirs(params.experiment_dir)
            if not os.path.isdir(params.checkpoint_dir):
                os.makedirs(params.checkpoint_dir)
        self.params = params
        self.paths = CheckpointPaths(params.checkpoint_dir)
        if dist.is_root():
            remove_stale_tmp_checkpoints(self.paths.checkpoint_dir)

        if dist.is_root() and not self.params.save_checkpoint:
            logging.warning(
                "Configured value of save_checkpoint is false, no "
                "checkpoints whatsoever will be saved!"
            )

        self.train_data = train_data

        self.num_batches_seen = 0
        self._start_epoch = 0
        self._epochs_trained = self._start_epoch
        self._current_epoch_num_batches_seen = 0
        self._best_validation_loss = torch.inf
        self._best_inference_error = torch.inf

        self.stepper = stepper
        self.stepper.update_training_history(TrainingJob.from_env())

        self._build_optimization = build_optimization
        self._build_ema = build_ema
        self.optimization = build_optimization(stepper.modules)
        self._end_of_batch_callback = end_of_batch_callback
        self._end_of_epoch_callback = end_of_epoch_callback
        self._no_optimization = NullOptimization()
        self._aggregator_builder = aggregator_builder
        self._ema = build_ema(stepper.modules)  # build before restore_checkpoint

        resuming = os.path.isfile(self.paths.latest_checkpoint_path)
        if resuming:
            logging.info(f"Resuming training from {self.paths.latest_checkpoint_path}")
            self.restore_checkpoint(self.paths.latest_checkpoint_path)

        wandb = WandB.get_instance()
        wandb.watch(self.stepper.modules)

        n_params = count_parameters(self.stepper.modules)
        logging.info(f"Number of trainable model parameters: {n_params}")

        self._do_gc_collect = do_gc_collect
        self._in_ema_context = False
        self._started_training = False
        self._validation_callback: ValidationCallback = validation_callback
        self._inference_callback: InferenceCallback = inference_callback
        self._validate_stepper_callback: ValidateStepper | None = validate_stepper

        def save_restart_checkpoints_on_terminate():
            """Preserve mid-epoch progress when the job is preempted.

            Runs on the termination listener's thread, after the communicators
            are aborted and once the main thread has parked at a loop boundary
            or blocked in the shutdown context's exit, so it must stay free of
            collectives and of the logging module (see
            `add_post_abort_callback` and `write_stderr`). `save_checkpoint`
            is root-only and reads local state, which satisfies that.
            """
            if (
                self._current_epoch_num_batches_seen > 0
                and self._should_save_checkpoints()
            ):
                if self._in_ema_context:
                    write_stderr(
                        "In EMA context during interrupt, not saving "
                        "restart checkpoints as it is unsafe to do so\n"
                    )
                elif not self._started_training:
                    write_stderr(
                        "Not saving restart checkpoints as training has "
                        "not started\n"
                    )
                else:
                    write_stderr(
                        "Saving restart checkpoint to "
                        f"{self.paths.latest_checkpoint_path} after "
                        f"{self.num_batches_seen} batches\n"
                    )
                    self.save_checkpoint(
                        self.paths.latest_checkpoint_path,
                        include_optimization=True,
                    )

        dist = Distributed.get_instance()
        if not dist.has_spatial_parallelism:
            # rank 0 holds the full model state, so the save needs no other
            # rank's cooperation; a spatially-parallel stepper's state is
            # sharded, and assembling it would need the aborted communicators
            add_post_abort_callback(save_restart_checkpoints_on_terminate)

    def switch_off_grad(self, model: torch.nn.Module):
        for param in model.parameters():
            param.requires_grad = False

    def _should_save_checkpoints(self) -> bool:
        dist = Distributed.get_instance()
        return self.params.save_checkpoint and dist.is_root()

    def _copy_stepper(self) -> TrainStepperABC:
        """Create a copy of the stepper via its state serialization API."""
        import copy

        new_stepper = copy.deepcopy(self.stepper)
        new_stepper.load_state(copy.deepcopy(self.stepper.get_state()))
        return new_stepper

    def _copy_ema(self, modules: torch.nn.ModuleList) -> EMATracker:
        """Create a new EMATracker initialized from the current EMA state."""
        return EMATracker.from_state(self._ema.get_state(), modules)

    def _validate_stepper(
        self, stepper: TrainStepperABC, ema: EMATracker, epoch: int
    ) -> float:
        if self._validate_stepper_callback is None:
            raise RuntimeError(
                "validate_stepper callback is required when lr_tuning is configured"
            )
        return self._validate_stepper_callback(stepper, ema, epoch)

    def _maybe_tune_lr(self):
        cfg = self.params.lr_tuning
        if cfg is None:
            return
        if self._current_epoch_num_batches_seen > 0:
            return  # resumed mid-epoch, tuning already ran (or wasn't needed)
        if not cfg.epochs.contains(self._epochs_trained):
            return

        # set_epoch so the trial sees the same first N batches as the real epoch
        self.train_data.set_epoch(self._epochs_trained + 1)
        new_lr = run_lr_tuning_trial(
            train_data=self.train_data,
            optimization=self.optimization,
            copy_stepper=self._copy_stepper,
            build_optimization=self._build_optimization,
            copy_ema=self._copy_ema,
            config=cfg,
            current_lr=self.optimization.learning_rate,
            epoch=self._epochs_trained + 1,
            validate_stepper=self._validate_stepper,
        )
        if new_lr is not None:
            logging.info(f"LR tuning: adopting candidate LR {new_lr}")
            self.optimization.set_learning_rate(new_lr)

    def train(self):
        logging.info("Starting Training Loop...")

        validation_callback = self._validation_callback
        inference_callback = self._inference_callback

        if self.params.segment_epochs is None:
            segment_max_epochs = self.params.max_epochs
        else:
            segment_max_epochs = min(
                self._start_epoch + self.params.segment_epochs, self.params.max_epochs
            )

        if (
            self.params.evaluate_before_training
            and self._epochs_trained == 0
            and self._current_epoch_num_batches_seen == 0
        ):
            logging.info("Starting validation before training")
            with self.validation_context():
                valid_logs, valid_loss = validation_callback(self._epochs_trained)
                logging.info("Starting inline inference before training")
                inference_logs, _ = inference_callback(self._epochs_trained)
            logging.info(f"Validation loss before training: {valid_loss}")
            logging.info("Logging to wandb")
            all_logs = valid_logs | inference_logs | {"epoch": self._epochs_trained}
            wandb = WandB.get_instance()
            wandb.log(all_logs, step=self.num_batches_seen)

        while self._epochs_trained < segment_max_epochs:
            if self._do_gc_collect:
                # garbage collect to avoid CUDA error in some contexts
                # https://github.com/pytorch/pytorch/issues/67978#issuecomment-1661986812  # noqa: E501
                gc.collect()
            logging.info(
                f"Beginning epoch after {self._epochs_trained} complete epochs"
            )
            self._maybe_tune_lr()
            start_time = time.time()
            train_summary = self.train_one_epoch()
            train_end = time.time()
            logging.info(
                f"Starting validation step for model trained for "
                f"{self._epochs_trained} epochs"
            )
            with self.validation_context():
                valid_logs, valid_loss = validation_callback(self._epochs_trained)
                valid_end = time.time()
                logging.info(
                    f"Starting inference step for model trained for "
                    f"{self._epochs_trained} epochs"
                )
                inference_logs, inference_error = inference_callback(
                    self._epochs_trained
                )
                inference_end: float | None = time.time() if inference_logs else None

            train_loss = train_summary.loss
            # need to get the learning rate before stepping the scheduler
            lr = self.optimization.learning_rate
            self.optimization.step_scheduler(valid_loss=valid_loss, is_iteration=False)

            time_elapsed = time.time() - start_time
            logging.info(
                f"Time taken for epoch {self._epochs_trained} is {time_elapsed} sec"
            )
            if train_loss is not None:
                logging.info(f"Train loss: {train_loss}")
            else:
                logging.info("No train loss available")
            logging.info(f"Valid loss: {valid_loss}")
            if inference_error is not None:
                logging.info(f"Inference error: {inference_error}")

            # must happen before logging, so the logged bests are read from the
            # updated state rather than recomputed (min(nan, x) is nan, which
            # let a diverged epoch report itself as the best)
            self._update_best_metrics(valid_loss, inference_error)

            with self.validation_context():
                additional_logs = self._end_of_epoch_callback(self._epochs_trained)

            logging.info("Logging to wandb")
            all_logs = {
                **train_summary.logs,
                **valid_logs,
                **inference_logs,
                **additional_logs,
                **{
                    "lr": lr,
                    "epoch": self._epochs_trained,
                    "epoch_train_seconds": train_end - start_time,
                    "epoch_validation_seconds": valid_end - train_end,
                    "epoch_total_seconds": time_elapsed,
                    "best_val_loss": self._best_validation_loss,
                    "best_inference_error": self._best_inference_error,
                },
            }
            if inference_end is not None:
                all_logs["epoch_inference_seconds"] = inference_end - valid_end
            wandb = WandB.get_instance()
            wandb.log(all_logs, step=self.num_batches_seen)

            if self._should_save_checkpoints():
                logging.info(f"Saving checkpoints for epoch {self._epochs_trained}")
                self.save_all_checkpoints(valid_loss, inference_error)

    def _log_first_batch_metrics(self):
        wandb = WandB.get_instance()
        dist = Distributed.get_instance()
        with torch.no_grad(), GlobalTimer():
            batch = next(iter(self.train_data.loader))
            stepped = self.stepper.train_on_batch(
                batch,
                optimization=self._no_optimization,
            )

            if self.params.log_train_every_n_batches > 0:
                with torch.no_grad():
                    metrics = {
                        f"batch_{name}": dist.reduce_mean(metric)
                        for name, metric in sorted(stepped.get_metrics().items())
                    }
                wandb.log(metrics, step=self.num_batches_seen)

    def train_one_epoch(self):
        """Train for one epoch and return logs from TrainAggregator."""
        logging.info(
            f"Starting training step for model trained for {self._epochs_trained} "
            "complete epochs"
        )
        self.train_data.set_epoch(self._epochs_trained + 1)
        # Only signal a fresh-epoch boundary to the stepper if we are
        # actually starting one; on mid-epoch resume the in-module
        # per-epoch state should reflect the partial epoch up to the
        # crash and then continue accumulating.
        if self._current_epoch_num_batches_seen == 0:
            self.stepper.set_epoch(self._epochs_trained + 1)
        wandb = WandB.get_instance()
        names_to_log = ("batch_loss", "training_samples_per_second_on_rank_0", "lr")
        n_samples_seen_since_logging = 0
        self.stepper.set_train()
        if self.num_batches_seen == 0:
            # Before training, log the loss on the first batch.
            self._log_first_batch_metrics()
        if self._current_epoch_num_batches_seen > 0:
            logging.info(
                "Subsetting train loader sampler to skip first "
                f"{self._current_epoch_num_batches_seen} batches since these were "
                "already processed for this epoch in a previous training run."
            )
        epoch_data = self.train_data.subset_loader(
            start_batch=self._current_epoch_num_batches_seen,
        )
        if self._current_epoch_num_batches_seen > 0:
            logging.info(
                f"Subsetted train loader created, has {len(epoch_data)} batches"
            )
        self._last_saved_num_batches_seen = self.num_batches_seen
        self._started_training = True
        current_time = time.time()
        metrics_aggregator = MetricsAggregator()
        dist = Distributed.get_instance()
        for batch in epoch_data:
            dist.park_if_terminating()
            with GlobalTimer():
                stepped = self.stepper.train_on_batch(batch, self.optimization)
            self._end_of_batch_callback()
            self._ema(model=self.stepper.modules)
            # Step scheduler per-iteration if configured to do so
            self.optimization.step_scheduler(is_iteration=True)
            self.num_batches_seen += 1
            self._current_epoch_num_batches_seen += 1
            n_samples_seen_since_logging += self.train_data.batch_size
            metrics_aggregator.record(stepped.get_metrics())
            if (
                self.params.log_train_every_n_batches > 0
                and self.num_batches_seen % self.params.log_train_every_n_batches == 0
            ):
                metrics = {
                    f"batch_{name}": value
                    for name, value in metrics_aggregator.get_metrics().items()
                }
                metrics_aggregator.clear()
                duration = time.time() - current_time
                current_time = time.time()
                samples_per_second = n_samples_seen_since_logging / duration
                metrics["training_samples_per_second_on_rank_0"] = samples_per_second
                metrics["lr"] = self.optimization.learning_rate
                wandb.log(metrics, step=self.num_batches_seen)
                metrics_to_log = {k: metrics[k] for k in names_to_log if k in metrics}
                logging.info(f"Step {self.num_batches_seen}: {metrics_to_log}")
                n_samples_seen_since_logging = 0
            if (
                self._should_save_checkpoints()
                and self.params.checkpoint_every_n_batches > 0
                and self.num_batches_seen % self.params.checkpoint_every_n_batches == 0
            ):
                self._save_restart_checkpoints()
                self._last_saved_num_batches_seen = self.num_batches_seen
        # evaluate after training on an independent shuffle of the data
        self.train_data.alternate_shuffle()
        aggregator = self._aggregator_builder.get_train_aggregator()
        self.stepper.set_eval()
        self.stepper.seed_eval(seed=0)
        with torch.no_grad(), self.validation_context():
            for batch in self.train_data.subset_loader(
                stop_batch=self.params.train_evaluation_batches
            ):
                dist.park_if_terminating()
                with GlobalTimer():
                    stepped = self.stepper.train_on_batch(
                        batch, self._no_optimization, evaluate_all_steps=True
                    )
                aggregator.record_batch(stepped)
        if (
            self._should_save_checkpoints()
            and self.num_batches_seen > self._last_saved_num_batches_seen
        ):
            self._save_restart_checkpoints()  # before incrementing epoch so we will validate after resuming  # noqa: E501
        # we will save restart checkpoints again after validation/inference
        # are recorded to wandb
        self._epochs_trained += 1
        self._current_epoch_num_batches_seen = 0
        aggregator.flush_diagnostics(subdir=f"epoch_{self._epochs_trained:04d}")
        return aggregator.get_summary(label="train")

    def _save_restart_checkpoints(self):
        logging.info(
            f"Saving latest checkpoint model trained for {self._epochs_trained} "
            f"complete epochs and {self._current_epoch_num_batches_seen} additional "
            f"batches, or {self.num_batches_seen} total batches, with "
            f"best_validation_loss {self._best_validation_loss} and "
            f"best_inference_error {self._best_inference_error}"
        )
        self.save_checkpoint(
            self.paths.latest_checkpoint_path,
            include_optimization=True,
        )

    @contextlib.contextmanager
    def validation_context(self):
        """
        The context for running validation.

        In this context, the stepper uses the EMA model if
        `self.params.validate_using_ema` is True.
        """
        if self.params.validate_using_ema:
            with self._ema_context():
                yield
        else:
            yield

    @contextlib.contextmanager
    def _ema_context(self):
        """
        A context where the stepper uses the EMA model.
        """
        if self._in_ema_context:
            raise RuntimeError(
                "_ema_context is not reentrant. The Trainer wraps all "
                "callbacks in validation_context(), so callbacks should not "
                "enter it themselves."
            )
        self._in_ema_context = True
        try:
            with self._ema.applied_params(self.stepper.modules):
                yield
        finally:
            self._in_ema_context = False

    def save_checkpoint(
        self,
        checkpoint_path: str,
        include_optimization: bool = False,
    ):
        if not Distributed.get_instance().is_root():
            raise RuntimeError("Only the root process should save checkpoints")
        # save to a temporary file in case we get pre-empted during save
        temporary_location = os.path.join(
            os.path.dirname(checkpoint_path), f".{uuid.uuid4()}.tmp"
        )
        try:
            data = {
                "num_batches_seen": self.num_batches_seen,
                "current_epoch_num_batches_seen": self._current_epoch_num_batches_seen,
                "epoch": self._epochs_trained,
                "best_validation_loss": self._best_validation_loss,
                "best_inference_error": self._best_inference_error,
                "stepper": self.stepper.get_state(),
                EMA_CHECKPOINT_KEY: self._ema.get_state(
                    include_params=include_optimization
                ),
            }
            if include_optimization:
                data["optimization"] = self.optimization.get_state()
            torch.save(data, temporary_location)
            os.replace(temporary_location, checkpoint_path)
        finally:
            if os.path.exists(temporary_location):
                os.remove(temporary_location)

    def restore_checkpoint(self, checkpoint_path):
        """
        Restore the checkpoint from the given path. This includes the existing state of
        the stepper, optimization, training epoch, and EMA. This is most suitable
        for resuming training from a checkpoint without changing the training schedule,
        i.e., to manage preemption.
        """
        _restore_checkpoint(self, checkpoint_path)

    def _epoch_checkpoint_enabled(self, epoch: int) -> bool:
        return epoch_checkpoint_enabled(
            epoch, self.params.max_epochs, self.params.checkpoint_save_epochs
        )

    def _ema_epoch_checkpoint_enabled(self, epoch: int) -> bool:
        return epoch_checkpoint_enabled(
            epoch, self.params.max_epochs, self.params.ema_checkpoint_save_epochs
        )

    def _update_best_metrics(
        self, valid_loss: float, inference_error: float | None
    ) -> tuple[bool, bool]:
        """Record this epoch's metrics as the best so far if they improve on it.

        Returns whether the validation loss and the inference error were each
        (re-)attained this epoch, i.e. whether their best checkpoints are due to
        be written.

        A diverged epoch's NaN never becomes the best, since every comparison
        with NaN is False. The comparisons are non-strict, so calling this twice
        with the same values gives the same answer both times and the caller can
        re-run it without changing what gets saved.
        """
        is_best_validation = valid_loss <= self._best_validation_loss
        if is_best_validation:
            self._best_validation_loss = valid_loss
        is_best_inference = False
        if inference_error is not None and (
            inference_error <= self._best_inference_error
        ):
            self._best_inference_error = inference_error
            is_best_inference = True
        return is_best_validation, is_best_inference

    def save_all_checkpoints(self, valid_loss: float, inference_error: float | None):
        if self.params.validate_using_ema:
            best_checkpoint_context = self._ema_context
        else:
            best_checkpoint_context = contextlib.nullcontext  # type: ignore
        prev_best_inference_error = self._best_inference_error
        save_best_checkpoint, save_best_inference_checkpoint = (
            self._update_best_metrics(valid_loss, inference_error)
        )
        with best_checkpoint_context():
            if save_best_inference_checkpoint:
                logging.info(
                    f"Epoch inference error ({inference_error}) is lower than "
                    f"previous best inference error ({prev_best_inference_error})."
                )
                logging.info(
                    "Saving lowest inference error checkpoint to "
                    f"{self.paths.best_inference_checkpoint_path}"
                )
                self.save_checkpoint(self.paths.best_inference_checkpoint_path)

                # Save epoch-specific best inference checkpoint if configured
                if self.params.save_best_inference_epoch_checkpoints:
                    best_inference_epoch_path = (
                        self.paths.best_inference_epoch_checkpoint_path(
                            self._epochs_trained
                        )
                    )
                    logging.info(
                        "Saving best inference checkpoint for epoch "
                        f"{self._epochs_trained} to {best_inference_epoch_path}"
                    )
                    self.save_checkpoint(best_inference_epoch_path)
            if save_best_checkpoint:
                logging.info(
                    "Saving lowest validation loss checkpoint to "
                    f"{self.paths.best_checkpoint_path}"
                )
                self.save_checkpoint(self.paths.best_checkpoint_path)

        self._save_restart_checkpoints()

        if self._ema_epoch_checkpoint_enabled(self._epochs_trained):
            ema_epoch_checkpoint_path = self.paths.ema_epoch_checkpoint_path(
                self._epochs_trained
            )
            logging.info(f"Saving EMA epoch checkpoint to {ema_epoch_checkpoint_path}")
            with self._ema_context():
                self.save_checkpoint(ema_epoch_checkpoint_path)
        if self._epoch_checkpoint_enabled(self._epochs_trained):
            epoch_checkpoint_path = self.paths.epoch_checkpoint_path(
                self._epochs_trained
            )
            logging.info(f"Saving epoch checkpoint to {epoch_checkpoint_path}")
            self.save_checkpoint(epoch_checkpoint_path, include_optimization=True)


@dataclasses.dataclass
class ValidationTask(Generic[BD, TO]):
    """One per-epoch validation run, packaged for ``build_validation_callback``.

    Attributes:
        name: Used as the log key prefix and output subdirectory.
        data: Validation dataset; ``set_epoch`` is called on it each epoch.
        aggregator_factory: Builds the aggregator. Called once per epoch,
            preserving the existing per-epoch construction semantics.
        weight: Contribution weight for the combined validation loss. Zero means
            the task runs but does not contribute to the metric.
        evaluate_all_steps: Whether to evaluate every forward step in the data
            window, rather than only the steps the stepper would evaluate for
            the batch during training.
    """

    name: str
    data: GriddedDataABC[BD]
    aggregator_factory: Callable[[], AggregatorABC[TO]]
    weight: float = 0.0
    evaluate_all_steps: bool = True


def build_validation_callback(
    tasks: Sequence[ValidationTask[BD, TO]],
    stepper: TrainStepperABC[PS, BD, FD, SD, TO],
) -> ValidationCallback:
    """Build a ``ValidationCallback`` shared between ACE and coupled training."""

    def validation_callback(epoch: int) -> tuple[dict[str, Any], float]:
        all_logs: dict[str, Any] = {}
        weighted_loss = 0.0
        for task in tasks:
            task.data.set_epoch(epoch)
            aggregator = task.aggregator_factory()
            summary = run_validation(
                train_stepper=stepper,
                validation_data=task.data,
                aggregator=aggregator,
                label=task.name,
                diagnostics_subdir=f"epoch_{epoch:04d}",
                record_logs=lambda logs: None,
                evaluate_all_steps=task.evaluate_all_steps,
            )
            overlap = all_logs.keys() & summary.logs.keys()
            if overlap:
                raise RuntimeError(
                    f"Validation entry {task.name!r} produced log keys that "
                    f"overlap with earlier entries: {sorted(overlap)}"
                )
            all_logs.update(summary.logs)
            if task.weight > 0:
                if summary.loss is None:
                    raise RuntimeError(
                        f"Validation entry {task.name!r} with "
                        f"weight={task.weight} did not produce a loss "
                        "for checkpoint selection."
                    )
                weighted_loss += task.weight * summary.loss
        return all_logs, weighted_loss

    return validation_callback


def inference_one_epoch(
    stepper: TrainStepperABC[PS, BD, FD, SD, TO],
    validation_context: Callable[[], contextlib.AbstractContextManager],
    dataset: InferenceDataABC[PS, FD],
    aggregator: InferenceAggregatorABC[PS, SD],
    label: str,
    epoch: int,
) -> InferenceSummary:
    stepper.set_eval()
    with torch.no_grad(), validation_context(), GlobalTimer():
        run_inference(
            predict=stepper.predict_paired,
            data=dataset,
            aggregator=aggregator,
        )
    logging.info("Starting flush of reduced diagnostics to disk")
    aggregator.flush_diagnostics(subdir=f"epoch_{epoch:04d}")
    logging.info("Getting inline inference aggregator summary")
    summary = aggregator.get_summary()
    prefixed_logs = {f"{label}/{k}": v for k, v in summary.logs.items()}
    return InferenceSummary(logs=prefixed_logs, loss=summary.loss)


@dataclasses.dataclass
class InferenceTask(Generic[PS, FD, SD]):
    """One inline inference run, packaged for ``build_inference_callback``.

    Attributes:
        name: Used as the log key prefix and output subdirectory.
        data: Source of initial condition and forcing windows.
        aggregator_factory: Builds the aggregator. Called once per epoch the task
            runs on, preserving the existing per-epoch construction semantics.
        epoch_set: Epochs on which this task should run.
        weight: Contribution weight for the combined checkpoint-selection error.
            Zero means the task runs but does not contribute to the metric.
    """

    name: str
    data: InferenceDataABC[PS, FD]
    aggregator_factory: Callable[[], InferenceAggregatorABC[PS, SD]]
    epoch_set: frozenset[int]
    weight: float = 0.0


def build_inference_callback(
    tasks: Sequence[InferenceTask[PS, FD, SD]],
    inference_epochs: Sequence[int],
    stepper: TrainStepperABC[PS, BD, FD, SD, TO],
) -> InferenceCallback:
    """Build an ``InferenceCallback`` shared between ACE and coupled training."""
    inference_epochs_set = set(inference_epochs)

    def inference_callback(epoch: int) -> tuple[dict[str, Any], float | None]:
        if epoch not in inference_epochs_set:
            return {}, None
        active_tasks = [t for t in tasks if epoch in t.epoch_set]
        if not active_tasks:
            return {}, None

        all_logs: dict[str, Any] = {}
        weighted_error: float | None = None
        for task in active_tasks:
            aggregator = task.aggregator_factory()
            summary = inference_one_epoch(
                stepper=stepper,
                validation_context=contextlib.nullcontext,
                dataset=task.data,
                aggregator=aggregator,
                label=task.name,
                epoch=epoch,
            )
            overlap = all_logs.keys() & summary.logs.keys()
            if overlap:
                raise RuntimeError(
                    f"Inference entry {task.name!r} produced log keys that "
                    f"overlap with earlier entries: {sorted(overlap)}"
                )
            all_logs.update(summary.logs)
            if task.weight > 0:
                if summary.loss is None:
                    raise RuntimeError(
                        f"Inference entry {task.name!r} with "
                        f"weight={task.weight} did not produce a loss "
                        "for checkpoint selection."
                    )
                if weighted_error is None:
                    weighted_error = 0.0
                weighted_error += task.weight * summary.loss
        return all_logs, weighted_error

    return inference_callback


def _restore_checkpoint(trainer: Trainer, checkpoint_path):
    checkpoint = torch.load(checkpoint_path, map_location="cpu", weights_only=False)
    trainer.stepper.load_state(checkpoint["stepper"])
    trainer.optimization.load_state(checkpoint["optimization"])
    trainer.num_batches_seen = checkpoint["num_batches_seen"]
    trainer._current_epoch_num_batches_seen = checkpoint[
        "current_epoch_num_batches_seen"
    ]
    trainer._start_epoch = checkpoint["epoch"]
    trainer._epochs_trained = checkpoint["epoch"]
    trainer._best_validation_loss = checkpoint["best_validation_loss"]
    trainer._best_inference_error = checkpoint["best_inference_error"]
    trainer._ema = EMATracker.from_state(
        checkpoint[EMA_CHECKPOINT_KEY], trainer.stepper.modules
    )


def count_parameters(modules: torch.nn.ModuleList) -> int:
    parameters = 0
    for module in modules:
        for parameter in module.parameters():
            if parameter.requires_grad:
                parameters += parameter.numel()
    return parameters


def epoch_checkpoint_enabled(
    epoch: int, max_epochs: int, save_epochs: Slice | None
) -> bool:
    if save_epochs is None:
        return False
    return epoch in range(max_epochs + 1)[save_epochs.slice]
