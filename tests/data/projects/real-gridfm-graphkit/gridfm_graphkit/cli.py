from gridfm_graphkit.datasets.hetero_powergrid_datamodule import LitGridHeteroDataModule
from gridfm_graphkit.io.config_version import resolve_config
from gridfm_graphkit.io.param_handler import NestedNamespace
from gridfm_graphkit.io.registries import DATASET_WRAPPER_REGISTRY
from gridfm_graphkit.training.callbacks import (
    DEFAULT_MONITOR,
    SaveBestModelStateDict,
    EpochTimerCallback,
)
import importlib
import numpy as np
import os
import socket
import time
import yaml
import torch
import torch.distributed as dist
import pandas as pd

from gridfm_graphkit.io.param_handler import get_task
from gridfm_graphkit.tasks.opf_ac_dc_baseline import compute_opf_ac_dc_metrics
from gridfm_graphkit.tasks.pf_ac_dc_baseline import compute_pf_ac_dc_metrics
from lightning.pytorch.callbacks.early_stopping import EarlyStopping
from lightning.pytorch.callbacks.model_checkpoint import ModelCheckpoint
from lightning.pytorch.loggers import MLFlowLogger
from lightning.pytorch.strategies import DDPStrategy
import lightning as L


def _normalize_loaded_state_dict_keys(
    state_dict: dict[str, torch.Tensor],
) -> dict[str, torch.Tensor]:
    """Map legacy torch.compile checkpoint keys to the canonical model namespace."""
    has_compiled_prefix = any(key.startswith("model._orig_mod.") for key in state_dict)
    if not has_compiled_prefix:
        return state_dict
    return {
        key.replace("model._orig_mod.", "model."): value
        for key, value in state_dict.items()
    }


def _load_config(args) -> NestedNamespace:
    """Load, version-check/migrate, and wrap the YAML config into a namespace.

    Honours ``--config_conversion`` / ``--converted_config_path`` (see
    :func:`gridfm_graphkit.io.config_version.resolve_config`).
    """
    with open(args.config, "r") as f:
        base_config = yaml.safe_load(f)

    base_config = resolve_config(
        base_config,
        config_path=args.config,
        conversion_mode=getattr(args, "config_conversion", "no"),
        converted_config_path=getattr(args, "converted_config_path", None),
    )

    return NestedNamespace(**base_config)


def _load_plugins(plugins: list[str]) -> None:
    """Import plugin packages so their registry decorators fire."""
    for plugin_pkg in plugins:
        try:
            importlib.import_module(plugin_pkg)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"Plugin package '{plugin_pkg}' could not be imported: {e}. "
                "Make sure it is installed in the current environment.",
            ) from e


def _predictions_to_dataframe(predictions: list[dict[str, np.ndarray]]) -> pd.DataFrame:
    """Convert a list of prediction batch dicts into one concatenated DataFrame."""
    rows = {key: [] for key in predictions[0].keys()}
    for batch in predictions:
        for key in rows:
            rows[key].append(batch[key])
    return pd.DataFrame({key: np.concatenate(vals) for key, vals in rows.items()})


def _prediction_output_filename(grid_name: str, table_name: str) -> str:
    """Return the parquet filename for one prediction or embedding table."""

    if table_name == "bus":
        return f"{grid_name}_predictions.parquet"
    if table_name == "gen":
        return f"{grid_name}_gen_predictions.parquet"
    if table_name == "bus_embeddings":
        return f"{grid_name}_bus_embeddings.parquet"
    if table_name == "gen_embeddings":
        return f"{grid_name}_gen_embeddings.parquet"
    if table_name == "branch":
        return f"{grid_name}_branch_predictions.parquet"
    return f"{grid_name}_{table_name}_predictions.parquet"


def _validate_dataset_wrapper(name: str | None) -> None:
    """Raise a helpful error if *name* is not registered in DATASET_WRAPPER_REGISTRY."""
    if name is None:
        return
    if name not in DATASET_WRAPPER_REGISTRY:
        available = list(DATASET_WRAPPER_REGISTRY)
        raise KeyError(
            f"Dataset wrapper '{name}' is not registered. "
            f"Available wrappers: {available}. "
            "If it lives in a plugin package, pass it via --plugins.",
        )


def benchmark_cli(args):
    """Benchmark train-dataloader iteration speed over one or more epochs."""
    config_args = _load_config(args)

    num_workers_override = getattr(args, "num_workers", None)
    if num_workers_override is not None:
        config_args.data.workers = num_workers_override

    _load_plugins(getattr(args, "plugins", []))

    dataset_wrapper = getattr(args, "dataset_wrapper", None)
    dataset_wrapper_cache_dir = getattr(args, "dataset_wrapper_cache_dir", None)
    _validate_dataset_wrapper(dataset_wrapper)

    print("Setting up datamodule...")
    t0 = time.perf_counter()
    dm = LitGridHeteroDataModule(
        config_args,
        args.data_path,
        dataset_wrapper=dataset_wrapper,
        dataset_wrapper_cache_dir=dataset_wrapper_cache_dir,
        multiprocessing_context=getattr(args, "mp_context", None),
    )
    dm.setup(stage="fit")
    setup_time = time.perf_counter() - t0
    print(f"  Setup time        : {setup_time:.2f}s")

    loader = dm.train_dataloader()
    num_batches = len(loader)
    print(f"  Train batches     : {num_batches}")
    print(f"  Batch size        : {config_args.training.batch_size}")
    print(f"  Workers           : {config_args.data.workers}")
    print(f"  Dataset wrapper   : {dataset_wrapper or 'none'}")
    print()

    epoch_times = []
    for epoch in range(args.epochs):
        t_start = time.perf_counter()
        for _batch in loader:
            pass
        elapsed = time.perf_counter() - t_start
        per_batch = elapsed / num_batches if num_batches > 0 else 0.0
        epoch_times.append(elapsed)
        print(
            f"Epoch {epoch:>3}: {elapsed:7.3f}s total  "
            f"{per_batch:.4f}s/batch  ({num_batches} batches)",
        )

    if args.epochs > 1:
        avg = sum(epoch_times) / len(epoch_times)
        print(f"\nAverage over {args.epochs} epochs: {avg:.3f}s")


def get_training_callbacks(args):
    """Build the standard callback stack used for train/finetune runs.

    Args:
        args: config namespace providing ``callbacks.tol``, ``callbacks.patience``
            and the optional monitor keys above.
    """
    early_stopping_monitor = getattr(
        args.callbacks,
        "early_stopping_monitor",
        DEFAULT_MONITOR,
    )
    checkpoint_monitor = getattr(args.callbacks, "checkpoint_monitor", DEFAULT_MONITOR)

    early_stop_callback = EarlyStopping(
        monitor=early_stopping_monitor,
        min_delta=args.callbacks.tol,
        patience=args.callbacks.patience,
        verbose=False,
        mode="min",
        strict=True,
    )

    save_best_model_callback = SaveBestModelStateDict(
        monitor=checkpoint_monitor,
        mode="min",
        filename="best_model_state_dict.pt",
    )

    checkpoint_callback = ModelCheckpoint(
        save_last=True,
        save_top_k=0,
    )

    return [early_stop_callback, save_best_model_callback, checkpoint_callback]


def main_cli(args):
    """Run a GridFM CLI command using config-driven datamodule and trainer setup."""
    if getattr(args, "tf32", False):
        torch.set_float32_matmul_precision("high")  # enables TF32 on Ampere+ GPUs

    logger = MLFlowLogger(
        save_dir=args.log_dir,
        experiment_name=args.exp_name,
        run_name=args.run_name,
    )

    # When using torch.compile with Triton, dynamic graph support can cause
    # out-of-memory errors during autotuning on some kernels.
    # Disabling dynamic graph support allows those kernels
    # to be skipped gracefully instead of causing errors.
    torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True

    config_args = _load_config(args)
    config_args.get_embeddings = bool(getattr(args, "get_embeddings", False))

    L.seed_everything(config_args.seed, workers=True)

    normalizer_stats_path = getattr(args, "normalizer_stats", None)
    dataset_wrapper = getattr(args, "dataset_wrapper", None)
    dataset_wrapper_cache_dir = getattr(args, "dataset_wrapper_cache_dir", None)

    # CLI --num_workers overrides the YAML value (useful for debugging with 0)
    num_workers_override = getattr(args, "num_workers", None)
    if num_workers_override is not None:
        config_args.data.workers = num_workers_override

    batch_size_override = getattr(args, "batch_size", None)
    if batch_size_override is not None:
        config_args.training.batch_size = batch_size_override

    # CLI --stream-partitions overrides data.stream_partitions from YAML
    stream_partitions_override = getattr(args, "stream_partitions", None)
    if stream_partitions_override is not None:
        config_args.data.stream_partitions = stream_partitions_override

    _load_plugins(getattr(args, "plugins", []))
    _validate_dataset_wrapper(dataset_wrapper)

    litGrid = LitGridHeteroDataModule(
        config_args,
        args.data_path,
        normalizer_stats_path=normalizer_stats_path,
        dataset_wrapper=dataset_wrapper,
        dataset_wrapper_cache_dir=dataset_wrapper_cache_dir,
        multiprocessing_context=getattr(args, "mp_context", None),
    )
    model = get_task(config_args, litGrid.data_normalizers)
    if args.command != "train":
        print(f"Loading model weights from {args.model_path}")
        state_dict = torch.load(args.model_path, map_location="cpu")
        state_dict = _normalize_loaded_state_dict_keys(state_dict)
        model.load_state_dict(state_dict)

    precision = "bf16-true" if getattr(args, "bfloat16", False) else None
    if precision:
        print("Using bfloat16 precision (via Lightning Trainer precision='bf16-true')")

    compile_mode = getattr(args, "compile", None)
    if compile_mode is not None:
        if compile_mode in ("max-autotune", "max-autotune-no-cudagraphs"):
            # Allow ATen GEMM as fallback so Triton configs that exceed GPU
            # shared-memory limits (e.g. triton_mm OOM) are skipped gracefully
            # instead of causing autotuning errors.
            import torch._inductor.config as inductor_cfg

            inductor_cfg.max_autotune_gemm_backends = "ATEN,TRITON"
        print(f"Compiling model with torch.compile(mode='{compile_mode}')")
        model.model = torch.compile(model.model, mode=compile_mode)

    trainer_kwargs = {}
    if precision:
        trainer_kwargs["precision"] = precision
    profiler = getattr(args, "profiler", None)

    report_performance = getattr(args, "report_performance", False)
    epoch_timer = EpochTimerCallback() if report_performance else None

    training_callbacks = get_training_callbacks(config_args)
    if epoch_timer is not None:
        training_callbacks = training_callbacks + [epoch_timer]

    _accelerator = config_args.training.accelerator
    _strategy = config_args.training.strategy
    # if mps is available and accelerator is auto, explicitely set accelerator to mps to select the right strategy in the next block
    if _accelerator == "auto" and torch.backends.mps.is_available():
        _accelerator = "mps"
    if (
        _accelerator not in ("mps", "cpu")
        and isinstance(_strategy, str)
        and _strategy
        in (
            "auto",
            "ddp",
        )
    ):  # when using mps, we don't want to use ddp.
        _strategy = DDPStrategy(find_unused_parameters=False)

    trainer = L.Trainer(
        logger=logger,
        accelerator=config_args.training.accelerator,
        devices=config_args.training.devices,
        strategy=_strategy,
        log_every_n_steps=1000,
        default_root_dir=args.log_dir,
        max_epochs=config_args.training.epochs,
        callbacks=training_callbacks,
        deterministic=(
            True
            if getattr(args, "deterministic", None) == "true"
            else (getattr(args, "deterministic", None) or False)
        ),
        **trainer_kwargs,
        profiler=profiler,
    )

    # Print device summary so it's visible in job logs
    print(f"[device] hostname={socket.gethostname()}")
    if torch.cuda.is_available():
        n_gpus = torch.cuda.device_count()
        gpu_names = [torch.cuda.get_device_name(i) for i in range(n_gpus)]
        print(f"[device] CUDA available: {n_gpus} GPU(s): {gpu_names}")
        print(f"[device] CUDA_HOME={os.environ.get('CUDA_HOME', 'not set')}")
        nvcc = os.popen("which nvcc 2>/dev/null").read().strip()
        if not nvcc:
            cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
            if cuda_home:
                candidate = os.path.join(cuda_home, "bin", "nvcc")
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    nvcc = f"{candidate} (not on PATH)"
        print(f"[device] nvcc={'not found' if not nvcc else nvcc}")
    elif torch.backends.mps.is_available():
        print("[device] Using Apple MPS (Metal Performance Shaders)")
    else:
        print("[device] WARNING: No GPU found, running on CPU only")

    if args.command == "train" or args.command == "finetune":
        trainer.fit(model=model, datamodule=litGrid)
        if (
            report_performance
            and epoch_timer is not None
            and epoch_timer.last_epoch_time is not None
        ):
            print(f"[performance] last epoch time : {epoch_timer.last_epoch_time:.3f}s")
            if (
                epoch_timer.last_epoch_iters_per_sec is not None
                and epoch_timer._last_batch_count > 0
            ):
                print(
                    f"[performance] last epoch it/s : {epoch_timer.last_epoch_iters_per_sec:.2f}",
                )

    if args.command != "predict":
        # Reuse the fit trainer when coming from train/finetune so that
        # torch.compile kernel caches are already warm (avoids a second
        # AUTOTUNE pass on the first test batch).
        if args.command in ("train", "finetune"):
            test_trainer = trainer
        else:
            test_trainer = L.Trainer(
                logger=logger,
                accelerator=config_args.training.accelerator,
                devices=1,
                num_nodes=1,
                log_every_n_steps=1,
                default_root_dir=args.log_dir,
                **trainer_kwargs,
                profiler=profiler,
            )
        test_results = test_trainer.test(model=model, datamodule=litGrid)
        if report_performance:
            # test_results[0] may be empty when metrics are routed to the logger
            # only; fall back to trainer.callback_metrics which always has them.
            metrics = (
                test_results[0]
                if test_results and test_results[0]
                else dict(test_trainer.callback_metrics)
            )
            if metrics:
                first_metric, first_value = next(iter(metrics.items()))
                print(f"[performance] {first_metric} : {first_value}")
            else:
                print("[performance] no test metrics available")

    artifacts_dir = None
    is_rank0 = (
        not (dist.is_available() and dist.is_initialized()) or dist.get_rank() == 0
    )
    if is_rank0:
        artifacts_dir = os.path.join(
            logger.save_dir,
            logger.experiment_id,
            logger.run_id,
            "artifacts",
        )

    compute_dc_ac = getattr(args, "compute_dc_ac_metrics", False)
    task_type = {"optimalpowerflow": "opf", "powerflow": "pf"}.get(
        str(getattr(getattr(config_args, "task", None), "task_name", "")).lower(),
    )
    if is_rank0 and compute_dc_ac:
        sn_mva = config_args.data.baseMVA
        for grid_name in config_args.data.networks:
            raw_dir = os.path.join(args.data_path, grid_name, "raw")
            print(f"\nComputing ground-truth AC/DC metrics for {grid_name}...")
            if task_type == "opf":
                compute_opf_ac_dc_metrics(artifacts_dir, raw_dir, grid_name, sn_mva)
            elif task_type == "pf":
                compute_pf_ac_dc_metrics(artifacts_dir, raw_dir, grid_name, sn_mva)
            else:
                raise ValueError(f"Invalid task: {task_type}")

    save_output = getattr(args, "save_output", False) or args.command == "predict"
    if is_rank0 and save_output:
        if len(config_args.data.networks) > 1:
            raise NotImplementedError(
                "Predict/save_output with multiple grids is not yet supported.",
            )

        predict_trainer = L.Trainer(
            logger=logger,
            accelerator=config_args.training.accelerator,
            devices=1,
            num_nodes=1,
            log_every_n_steps=1,
            default_root_dir=args.log_dir,
            **trainer_kwargs,
            profiler=profiler,
        )
        predictions = predict_trainer.predict(model=model, datamodule=litGrid)

        grid_name = config_args.data.networks[0]
        if args.command == "predict":
            output_dir = args.output_path
        else:
            output_dir = os.path.join(artifacts_dir, "test")
        os.makedirs(output_dir, exist_ok=True)
        first_prediction = predictions[0]
        if any(isinstance(value, dict) for value in first_prediction.values()):
            for table_name in first_prediction:
                df = _predictions_to_dataframe(
                    [batch[table_name] for batch in predictions],
                )
                out_path = os.path.join(
                    output_dir,
                    _prediction_output_filename(grid_name, table_name),
                )
                df.to_parquet(out_path, index=False)
                print(f"Saved {table_name} predictions to {out_path}")
        else:
            df = _predictions_to_dataframe(predictions)
            out_path = os.path.join(output_dir, f"{grid_name}_predictions.parquet")
            df.to_parquet(out_path, index=False)
            print(f"Saved predictions to {out_path}")
