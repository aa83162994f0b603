"""Benchmark for the Linear Datamodeling Score metric."""

import fcntl
import logging
import os
import random
import warnings
from copy import deepcopy
from typing import Callable, List, Optional, Tuple, Union

import lightning as L
import torch
import yaml

from quanda.benchmarks.base import Benchmark
from quanda.benchmarks.config_parser import (
    MetadataConfigParser,
    ModelConfigParser,
    TrainerConfigParser,
)
from quanda.metrics.ground_truth.linear_datamodeling import (
    LinearDatamodelingMetric,
)
from quanda.utils.common import (
    chunked_logits,
    class_accuracy,
    resolve_config,
    subsample_dataset,
)
from quanda.utils.datasets.dataset_handlers import get_dataset_handler
from quanda.utils.functions import correlation_functions
from quanda.utils.training import Trainer

logger = logging.getLogger(__name__)


def _subset_postfix(i: int) -> str:
    """Shared postfix for the i-th subset's Hub repo id and local dir."""
    return f"_lds_subset_{i}"


def _subset_repo_id(base_repo_id: str, i: int) -> str:
    """HF Hub repo id for the i-th subset checkpoint.

    Format: ``<base_repo_id>_lds_subset_<i>``.
    """
    return f"{base_repo_id}{_subset_postfix(i)}"


def _subset_ckpt_paths(config: dict, i: int) -> Tuple[str, str]:
    """Resolve the two locations for the i-th subset checkpoint.

    Every subset lives in two parallel places — on disk (for training/
    loading) and on the HF Hub (for sharing). This returns both, derived
    from ``config["ckpt"]`` (base Hub repo id) and ``config["bench_save_dir"]``
    (local root).

    Returns
    -------
    Tuple[str, str]
        ``(local_ckpt_dir, hub_repo_id)`` for subset ``i``.

    """
    base_repo_id = config.get("subset_ckpt", config["ckpt"])
    bench_save_dir = config.get("bench_save_dir", "./tmp")
    subset_local_dir = os.path.join(
        bench_save_dir,
        "ckpt",
        f"{base_repo_id.split('/')[-1]}{_subset_postfix(i)}",
    )
    return (
        subset_local_dir,
        _subset_repo_id(base_repo_id, i),
    )


class LinearDatamodeling(Benchmark):
    """Benchmark for the Linear Datamodeling Score metric.

    The LDS measures how well a data attribution method can predict the effect
    of retraining a model on different subsets of the training data. It
    computes the correlation between the model’s output when retrained on
    subsets of the data and the attribution method’s predictions of those
    outputs.

    References
    ----------
    1) Sung Min Park, Kristian Georgiev, Andrew Ilyas, Guillaume Leclerc,
    and Aleksander Mądry. (2023). "TRAK: attributing model behavior at scale".
    In Proceedings of the 40th International Conference on Machine Learning"
    (ICML’23), Vol. 202. JMLR.org, Article 1128, (27074–27113).

    2) https://github.com/MadryLab/trak/

    """

    name: str = "Linear Datamodeling Score"
    eval_args: list = ["explanations", "test_data", "test_targets"]
    default_use_predictions: bool = False

    _push_subsets_during_train: bool = False
    _lds_skip_subsets: bool = False

    def __init__(
        self,
        *args,
        correlation_fn: Callable,
        m: int = 100,
        alpha: float = 0.5,
        cache_dir: str = "./tmp",
        model_id: str = "0",
        seed: int = 42,
        subset_ids: Optional[List[List[int]]] = None,
        subset_ckpt_filenames: Optional[List[str]] = None,
        counterfactual_trainer: Optional[Trainer] = None,
        trainer_fit_kwargs: Optional[dict] = None,
        **kwargs,
    ):
        """Initialize the `LinearDatamodeling` benchmark.

        Parameters
        ----------
        *args
            Positional arguments passed to the base class.
        m : int, optional
            Number of subsets, by default 100.
        alpha : float, optional
            Fraction of training data per subset, by default 0.5.
        cache_dir : str, optional
            Cache directory, by default "./tmp".
        model_id : str, optional
            Model identifier, by default "0".
        correlation_fn : Callable
            Correlation function to use.
        seed : int, optional
            Random seed, by default 42.
        subset_ids : Optional[List[List[int]]]
            Pre-computed subset indices.
        subset_ckpt_filenames : Optional[List[str]]
            Checkpoint filenames for subset models.
        counterfactual_trainer : Optional[Trainer]
            Trainer for counterfactual models.
        trainer_fit_kwargs : Optional[dict]
            Additional kwargs for trainer.fit().
        **kwargs
            Arguments passed to the base Benchmark class.

        """
        super().__init__(*args, **kwargs)
        self.m = m
        self.alpha = alpha
        self.cache_dir = cache_dir
        self.model_id = model_id
        self.correlation_fn = correlation_fn
        self.seed = seed
        self.subset_ids = subset_ids or []
        self.subset_ckpt_filenames = subset_ckpt_filenames or []
        self.counterfactual_trainer = counterfactual_trainer
        self.trainer_fit_kwargs = trainer_fit_kwargs

    def _train_subset_model_by_idx(
        self,
        i: int,
        trainer: "Trainer",
        local_ckpt_dir: str,
        repo_id: str,
        batch_size: int = 8,
        push_to_hub: bool = False,
        device: Optional[str] = None,
    ):
        """Train and save a single subset model by index."""
        subset = torch.utils.data.Subset(
            self.train_dataset, self.subset_ids[i]
        )
        subset_model = LinearDatamodelingMetric.train_subset_model(
            model=self.model,
            subset=subset,
            trainer=trainer,
            batch_size=batch_size,
            device=device if device is not None else self.device,
        )

        os.makedirs(local_ckpt_dir, exist_ok=True)
        if push_to_hub and len(os.listdir(local_ckpt_dir)) > 0:
            warnings.warn(
                f"Directory {local_ckpt_dir} already exists "
                "and is not empty. Checkpoints will be "
                "overwritten."
            )
        subset_model.save_pretrained(local_ckpt_dir, safe_serialization=True)

        if push_to_hub:
            subset_model.push_to_hub(repo_id)

    def _train_subset_models(
        self,
        trainer: "Trainer",
        config: dict,
        batch_size: int = 8,
        push_to_hub: bool = False,
    ):
        """Train and save all subset models."""
        for i in range(len(self.subset_ckpt_filenames)):
            local_ckpt_dir, repo_id = _subset_ckpt_paths(config, i)
            self._train_subset_model_by_idx(
                i=i,
                trainer=trainer,
                local_ckpt_dir=local_ckpt_dir,
                repo_id=repo_id,
                batch_size=batch_size,
                push_to_hub=push_to_hub,
            )

    @classmethod
    def train(  # type: ignore[override]
        cls,
        config: Union[dict, str],
        logger: Optional[L.pytorch.loggers.logger.Logger] = None,
        device: str = "cpu",
        batch_size: int = 64,
        skip_subsets: bool = False,
        load_fresh: bool = True,
        use_pid: bool = False,
    ) -> "LinearDatamodeling":
        """Train main model and subset models.

        Extends the base train method to also train and save
        the counterfactual subset models required for LDS evaluation.

        Parameters
        ----------
        config : dict
            Dictionary containing the configuration.
        logger : Optional[L.pytorch.loggers.logger.Logger], optional
            Logger to be used for logging, by default None.
        device : str, optional
            Device to use for training, by default "cpu".
        batch_size : int, optional
            Batch size for training, by default 8.
        skip_subsets : bool, optional
            If True, skip the subset training loop. Used when subsets
            are trained out-of-band (e.g. one-by-one in parallel
            workers via :meth:`train_subset`).
        load_fresh : bool, optional
            If True (default), regenerate splits/subset_ids/etc.
            instead of reusing the cache.
        use_pid : bool, optional
            If True, suffix checkpoint and metadata directories with
            the current process id to disambiguate concurrent runs. By
            default False.

        Returns
        -------
        LinearDatamodeling
            The trained benchmark instance.

        """
        config = resolve_config(config)
        obj = super().train(
            config=config,
            logger=logger,
            device=device,
            batch_size=batch_size,
            load_fresh=load_fresh,
            use_pid=use_pid,
        )
        if not isinstance(obj, LinearDatamodeling):
            raise TypeError("Expected a LinearDatamodeling instance.")

        if skip_subsets or cls._lds_skip_subsets:
            return obj

        trainer = TrainerConfigParser.parse_trainer_cfg(
            config["model"]["trainer"]
        )

        obj._train_subset_models(
            trainer=trainer,
            config=config,
            batch_size=batch_size,
            push_to_hub=cls._push_subsets_during_train,
        )

        return obj

    @classmethod
    def train_subset(
        cls,
        config: Union[dict, str],
        idx: int,
        device: str = "cpu",
        batch_size: int = 64,
        push_to_hub: bool = False,
        load_fresh: bool = False,
    ) -> "LinearDatamodeling":
        """Train and save a single subset model by index.

        Builds the benchmark from existing on-disk metadata (the main
        model and subset_ids must already be available — typically
        produced by a prior call to :meth:`train` with
        ``skip_subsets=True``), then trains subset ``idx`` only.

        Parameters
        ----------
        config : dict
            Benchmark configuration dictionary.
        idx : int
            Subset index in ``[0, m)``.
        device : str, optional
            Device to train on.
        batch_size : int, optional
            Batch size.
        push_to_hub : bool, optional
            If True, push the resulting subset checkpoint to HF Hub.
        load_fresh : bool, optional
            If True, regenerate cached metadata (subset_ids, etc.).
            Doing so can change the subset splits if generation is not
            deterministic. By default False — reuse cached metadata.

        """
        config = resolve_config(config)
        obj = cls.from_config(
            config,
            load_fresh=load_fresh,
            offline=True,
            device=device,
        )
        if not isinstance(obj, LinearDatamodeling):
            raise TypeError("Expected a LinearDatamodeling instance.")

        pretrained_base = ModelConfigParser.load_pretrained_base(
            model_cfg=config["model"], device=device
        )
        if pretrained_base is not None:
            obj.model = pretrained_base

        trainer = TrainerConfigParser.parse_trainer_cfg(
            config["model"]["trainer"]
        )
        local_ckpt_dir, repo_id = _subset_ckpt_paths(config, idx)
        obj._train_subset_model_by_idx(
            i=idx,
            trainer=trainer,
            local_ckpt_dir=local_ckpt_dir,
            repo_id=repo_id,
            batch_size=batch_size,
            push_to_hub=push_to_hub,
            device=device,
        )
        return obj

    @classmethod
    def generate_and_push_metadata(
        cls, config: Union[dict, str]
    ) -> None:  # pragma: no cover
        """Regenerate LDS metadata locally and push it to HF Hub.

        Calls ``from_config`` with ``load_fresh=True, offline=True`` to
        materialize splits and subset_ids under the metadata dir, then
        uploads that dir to ``meta_id``.
        """
        from huggingface_hub import HfApi  # local import; optional dep path

        config = resolve_config(config)
        metadata_dir = MetadataConfigParser.get_metadata_dir(
            cfg=config, bench_save_dir=config["bench_save_dir"]
        )
        meta_id = config.get(
            "meta_id", f"{config['repo_id']}/{config['id']}_metadata"
        )
        cls.from_config(config, load_fresh=True, offline=True)

        api = HfApi()
        api.create_repo(repo_id=meta_id, repo_type="dataset", exist_ok=True)
        api.upload_folder(
            folder_path=metadata_dir,
            repo_id=meta_id,
            repo_type="dataset",
        )

    @classmethod
    def push_subset(
        cls,
        config: Union[dict, str],
        idx: int,
    ) -> None:
        """Push an already-trained subset checkpoint to HF Hub.

        Used to serialize Hub uploads after parallel local training.
        """
        from huggingface_hub import HfApi  # local import; optional dep path

        config = resolve_config(config)
        local_ckpt_dir, repo_id = _subset_ckpt_paths(config, idx)

        if not os.path.isdir(local_ckpt_dir):
            raise FileNotFoundError(
                f"Subset checkpoint dir missing: {local_ckpt_dir}. "
                f"Train subset {idx} before pushing."
            )

        api = HfApi()
        api.create_repo(repo_id=repo_id, exist_ok=True)
        api.upload_folder(folder_path=local_ckpt_dir, repo_id=repo_id)

    @classmethod
    def _extra_kwargs_from_config(
        cls,
        config: dict,
        train_dataset: torch.utils.data.Dataset,
        eval_dataset: torch.utils.data.Dataset,
        metadata_dir: str,
        load_fresh: bool,
    ) -> dict:
        """Extract linear datamodeling kwargs from config."""
        m = config.get("m", 100)
        alpha = config.get("alpha", 0.5)
        seed = config["seed"]

        ckpt = config.get("subset_ckpt", config["ckpt"])

        subset_ckpt_filenames = [_subset_repo_id(ckpt, i) for i in range(m)]
        counterfactual_trainer_cfg = config.get(
            "counterfactual_trainer",
            config["model"].get("trainer", None),
        )
        if counterfactual_trainer_cfg is None:
            raise ValueError(
                "Either ‘trainer’ or ‘model.trainer’ should be set."
            )
        counterfactual_trainer = TrainerConfigParser.parse_trainer_cfg(
            counterfactual_trainer_cfg
        )

        os.makedirs(metadata_dir, exist_ok=True)

        generator = torch.Generator()
        generator.manual_seed(seed)

        subset_meta = f"{metadata_dir}/{config['subset_ids']}"
        if not load_fresh and os.path.exists(subset_meta):
            with open(subset_meta, "r") as f:
                subset_ids = yaml.safe_load(f)
        else:
            subset_ids = LinearDatamodelingMetric.generate_subsets(
                dataset=train_dataset,
                alpha=alpha,
                m=m,
                generator=generator,
            )
            with open(subset_meta, "w") as f:
                yaml.safe_dump(subset_ids, f)

        return {
            "m": m,
            "alpha": alpha,
            "cache_dir": config.get("bench_save_dir", "./tmp"),
            "model_id": config.get("model_id", "0"),
            "correlation_fn": correlation_functions[config["correlation_fn"]],
            "seed": seed,
            "subset_ids": subset_ids,
            "subset_ckpt_filenames": subset_ckpt_filenames,
            "counterfactual_trainer": counterfactual_trainer,
            # TODO: make trainer_fit_kwargs available to all benchmarks
            "trainer_fit_kwargs": config.get("trainer_fit_kwargs", None),
        }

    @classmethod
    def train_and_push_to_hub(
        cls,
        config: Union[dict, str],
        logger: Optional[L.pytorch.loggers.logger.Logger] = None,
        device: str = "cpu",
        batch_size: int = 64,
        load_fresh: bool = True,
        use_pid: bool = False,
    ):  # pragma: no cover
        """Train a model using the provided config and push to HF hub."""
        config = resolve_config(config)
        skip_subsets = bool(config.get("skip_subsets", False))
        cls._push_subsets_during_train = not skip_subsets
        cls._lds_skip_subsets = skip_subsets
        try:
            obj = super().train_and_push_to_hub(
                config=config,
                logger=logger,
                device=device,
                batch_size=batch_size,
                load_fresh=load_fresh,
                use_pid=use_pid,
            )
        finally:
            cls._push_subsets_during_train = False
            cls._lds_skip_subsets = False
        if not isinstance(obj, LinearDatamodeling):
            raise TypeError("Expected a LinearDatamodeling instance.")
        return obj

    def sanity_check(self, batch_size: int = 32) -> dict:
        """Compute accuracy of main model and all subset checkpoints.

        Parameters
        ----------
        batch_size : int, optional
            Batch size to be used for the evaluation, defaults to 32.

        Returns
        -------
        dict
            Dictionary containing the sanity check results, including
            per-subset checkpoint accuracies.

        """
        results = super().sanity_check(batch_size)

        eval_dl = torch.utils.data.DataLoader(
            self.eval_dataset,
            batch_size=batch_size,
            shuffle=False,
        )

        sampled = random.sample(
            list(enumerate(self.subset_ckpt_filenames)),
            k=min(3, len(self.subset_ckpt_filenames)),
        )
        for i, _ in sampled:
            subset_model = self._load_subset_model(i, device=self.device)
            acc = class_accuracy(subset_model, eval_dl, self.device)
            results[f"subset_acc_{i}"] = acc

        return results

    def _load_subset_model(
        self, idx: int, device: Optional[str] = None
    ) -> torch.nn.Module:
        """Deep-copy ``self.model``, load the ``idx``-th subset ckpt, eval."""
        subset_model = deepcopy(self.model)
        self.checkpoints_load_func(
            subset_model, self.subset_ckpt_filenames[idx]
        )
        subset_model.to(device if device is not None else self.device).eval()
        return subset_model

    @classmethod
    def subset_logits_cache_dir(
        cls,
        config: Union[dict, str],
        batch_size: int = 8,
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
    ) -> str:
        """Return default local cache dir for counterfactual subset logits."""
        config = resolve_config(config)
        repo = config.get("repo_id", "quanda-bench-test")
        group = config.get("explanations_group", config["id"])
        logits_id = (
            f"{repo}/{group}"
            f"__n{max_eval_n}_s{eval_seed}_b{batch_size}__subset_logits"
        )
        return os.path.join(
            config.get("bench_save_dir", "./tmp"),
            "subset_logits",
            logits_id.replace("/", "__"),
        )

    @staticmethod
    def _collect_eval_batches(
        obj: "LinearDatamodeling",
        batch_size: int,
        max_eval_n: Optional[int],
        eval_seed: int,
        device: str,
    ) -> list:
        """Return ``test_data`` batches for the subsampled eval set.

        Shared producer-side helper so that per-subset and all-subset cache
        methods batch the eval set identically (same batch boundaries = same
        ``i`` indexing as the ``_iter_explanations`` consumer).
        """
        eval_dataset = subsample_dataset(
            obj.eval_dataset, max_n=max_eval_n, seed=eval_seed
        )
        ds_handler = get_dataset_handler(dataset=eval_dataset)
        return [
            ds_handler.process_batch(batch=b, device=device)[0]
            for b in ds_handler.create_dataloader(
                dataset=eval_dataset, batch_size=batch_size
            )
        ]

    @classmethod
    def cache_subset_logits_per_idx(
        cls,
        config: Union[dict, str],
        idx: int,
        batch_size: int = 8,
        cache_dir: Optional[str] = None,
        device: str = "cpu",
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
        inference_batch_size: Optional[int] = None,
    ) -> str:
        """Cache counterfactual logits for a **single** subset index.

        ``config`` accepts a config dict, a registered ``bench_id``, or
        a path to a benchmark YAML.
        """
        config = resolve_config(config)
        obj = cls.from_config(config, device=device)
        if not isinstance(obj, LinearDatamodeling):
            raise TypeError("Expected a LinearDatamodeling instance.")

        save_dir = cache_dir or cls.subset_logits_cache_dir(
            config=config,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
        )
        os.makedirs(save_dir, exist_ok=True)

        batches = cls._collect_eval_batches(
            obj, batch_size, max_eval_n, eval_seed, device
        )
        subset_model = obj._load_subset_model(idx, device=device)
        with torch.no_grad():
            for i, test_data in enumerate(batches):
                logits = (
                    chunked_logits(
                        subset_model, test_data, inference_batch_size
                    )
                    .detach()
                    .cpu()
                )
                path = os.path.join(save_dir, f"{i}.pt")
                # concurrent workers won't clash
                with open(path + ".lock", "a") as lock_fd:
                    fcntl.flock(lock_fd.fileno(), fcntl.LOCK_EX)
                    batch_dict = (
                        torch.load(path) if os.path.exists(path) else {}
                    )
                    batch_dict[idx] = logits
                    torch.save(batch_dict, path)

        return save_dir

    @classmethod
    def cache_subset_logits(
        cls,
        config: Union[dict, str],
        batch_size: int = 8,
        cache_dir: Optional[str] = None,
        device: str = "cpu",
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
        inference_batch_size: Optional[int] = None,
    ) -> str:
        """Cache counterfactual logits for every (subset, eval batch).

        ``config`` accepts a config dict, a registered ``bench_id``, or
        a path to a benchmark YAML.
        """
        config = resolve_config(config)
        obj = cls.from_config(config, device=device)
        if not isinstance(obj, LinearDatamodeling):
            raise TypeError("Expected a LinearDatamodeling instance.")

        save_dir = cache_dir or cls.subset_logits_cache_dir(
            config=config,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
        )
        os.makedirs(save_dir, exist_ok=True)

        batches = cls._collect_eval_batches(
            obj, batch_size, max_eval_n, eval_seed, device
        )
        per_batch: List[dict] = [{} for _ in batches]
        for s in range(obj.m):
            subset_model = obj._load_subset_model(s, device=device)
            with torch.no_grad():
                for i, test_data in enumerate(batches):
                    per_batch[i][s] = (
                        chunked_logits(
                            subset_model, test_data, inference_batch_size
                        )
                        .detach()
                        .cpu()
                    )
            del subset_model

        for i, d in enumerate(per_batch):
            torch.save(d, os.path.join(save_dir, f"{i}.pt"))

        return save_dir

    def evaluate(
        self,
        explainer_cls: type,
        expl_kwargs: Optional[dict] = None,
        batch_size: int = 8,
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
        cache_dir: Optional[str] = None,
        use_cached_expl: bool = False,
        use_hf_expl: bool = False,
        inference_batch_size: Optional[int] = None,
        subset_logits_dir: Optional[str] = None,
        bootstrap: bool = False,
    ):
        """Evaluate the given data attributor.

        Parameters
        ----------
        explainer_cls : type
            Class of the explainer to be used for the evaluation.
        expl_kwargs : Optional[dict], optional
            Additional keyword arguments for the explainer, by default None.
        batch_size : int, optional
            Batch size to be used for the evaluation, defaults to 8
        max_eval_n: Optional[int], optional
            Maximum number of evaluation samples to use. If None, uses the
            entire evaluation dataset. By default 1000.
        eval_seed: int, optional
            Random seed for evaluation sampling, by default 42.
        cache_dir: Optional[str], optional
            Directory where cached explanations are stored. Required if
            `use_cached_expl` or `use_hf_expl` is True. By default None.
        use_cached_expl: bool, optional
            Whether to use cached explanations, by default False.
        use_hf_expl: bool, optional
            Whether to use Hugging Face cached explanations, by default False.
            If use_cached_expl is also True, will prioritize local cache over
            HF cache.
        inference_batch_size: Optional[int], optional
            If set, split the per-batch model forward (prediction and the
            ``m`` counterfactual forwards inside the metric) into
            sub-batches of this size. ``None`` keeps the full ``batch_size``
            forward.
        subset_logits_dir: Optional[str], optional
            If set, counterfactual logits are loaded per batch from this
            directory (as produced by :meth:`cache_subset_logits`) and
            fed into the metric, bypassing counterfactual inference. By
            default None.
        bootstrap: bool
            Whether to return bootstrapped metric score, if available,
            instead of the single-point estimate.
            By default False.

        Returns
        -------
                dict
                    Dictionary containing the evaluation results.

        """
        precomputed = self._resolve_precomputed_explanations(
            cache_dir=cache_dir,
            use_cached_expl=use_cached_expl,
            use_hf_expl=use_hf_expl,
        )
        explainer = (
            None
            if precomputed is not None
            else self._prepare_explainer(
                dataset=self.train_dataset,
                explainer_cls=explainer_cls,
                expl_kwargs=expl_kwargs,
            )
        )

        metric = LinearDatamodelingMetric(
            model=self.model,
            checkpoints=self.checkpoints,
            checkpoints_load_func=self.checkpoints_load_func,
            train_dataset=self.train_dataset,
            alpha=self.alpha,
            m=self.m,
            cache_dir=self.cache_dir,
            model_id=self.model_id,
            correlation_fn=self.correlation_fn,
            seed=self.seed,
            batch_size=batch_size,
            subset_ids=self.subset_ids,
            subset_ckpt_filenames=self.subset_ckpt_filenames,
            inference_batch_size=inference_batch_size,
        )
        return self._evaluate_dataset(
            eval_dataset=self.eval_dataset,
            explainer=explainer,
            metric=metric,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
            precomputed_explanations=precomputed,
            inference_batch_size=inference_batch_size,
            subset_logits_dir=subset_logits_dir,
            bootstrap=bootstrap,
        )
