"""Shared base for fact-tracing benchmarks (MRR, Recall@k, Tail-Patch).

Lifts the three concerns they share — config-driven construction,
prompt/evidence/entailment dataset loading, and the evaluate() loop
skeleton — into a single class so the concrete benchmarks only need
to declare their metric and metric-specific kwargs.
"""

from typing import List, Optional, Union

import datasets  # type: ignore
import torch

from quanda.benchmarks.base import Benchmark, _resolve_ckpts
from quanda.benchmarks.config_parser import (
    FactTracingConfigParser,
    ModelConfigParser,
)
from quanda.explainers import Explainer
from quanda.metrics import Metric
from quanda.utils.cache import BatchedCachedExplanations
from quanda.utils.common import (
    CheckpointLoadFunc,
    ds_len,
    resolve_config,
    subsample_indices,
)


class FactTracingBenchmark(Benchmark):
    """Base class for fact-tracing benchmarks.

    Subclasses provide:
    - ``name`` class attribute (benchmark display name)
    - ``eval_args`` class attribute (metric input keys)
    - ``_build_metric(self)`` returning the concrete metric instance
    - ``_extra_kwargs_from_config(cls, config)`` (optional) for extra
      ``__init__`` kwargs beyond ``entailment_labels``
    """

    name: str
    eval_args: list = ["explanations", "entailment_labels"]

    def __init__(
        self,
        model: torch.nn.Module,
        train_dataset: Union[torch.utils.data.Dataset, datasets.Dataset],
        eval_dataset: torch.utils.data.Dataset,
        checkpoints: List[str],
        checkpoints_load_func: CheckpointLoadFunc,
        device: str = "cpu",
        val_dataset: Optional[
            Union[torch.utils.data.Dataset, datasets.Dataset]
        ] = None,
        use_predictions: bool = False,
        entailment_labels: Optional[torch.Tensor] = None,
    ):
        """Mirror :class:`~quanda.benchmarks.base.Benchmark`'s signature.

        Adds ``entailment_labels`` — the binary ``(n_eval, n_train)`` fact
        matrix — as a fact-tracing-specific attribute.
        """
        super().__init__(
            model=model,
            train_dataset=train_dataset,
            eval_dataset=eval_dataset,
            checkpoints=checkpoints,
            checkpoints_load_func=checkpoints_load_func,
            device=device,
            val_dataset=val_dataset,
            use_predictions=use_predictions,
        )
        self.entailment_labels: Optional[torch.Tensor] = entailment_labels

    @classmethod
    def from_config(
        cls,
        config: Union[dict, str],
        offline: bool = False,
        device: str = "cpu",
        metadata_suffix: str = "",
        load_fresh: bool = False,
    ) -> "FactTracingBenchmark":
        """Initialize the benchmark from a config.

        Parameters
        ----------
        config : Union[dict, str]
            The benchmark configuration dictionary, a path to a YAML file
            or registered ``bench_id``
            (see :data:`quanda.benchmarks.resources.config_map.config_map`).
        offline : bool, optional
            If True, no HTTP request is issued to the Hub; all assets
            (metadata, model) must already be present under
            ``config['bench_save_dir']``. By default False.
        device : str, optional
            Device to load the model on, by default "cpu".
        metadata_suffix : str, optional
            Suffix to disambiguate metadata directories. By default "".
        load_fresh: bool, False
            If True, regenerate any cached split/wrapper metadata
            (overwriting local files) and, when ``offline=False``,
            re-download metadata/model from the Hub. When False
            (default), cached metadata is reused if present and only
            missing pieces are generated.

        """
        config = resolve_config(config)
        prompt_ds, evidence_ds, entailment_labels, _ = (
            FactTracingConfigParser.parse_fact_tracing_cfg(
                config["fact_tracing"],
                offline=offline,
                load_fresh=load_fresh,
            )
        )

        model, checkpoints, checkpoints_load_func = (
            ModelConfigParser.parse_model_cfg(
                model_cfg=config["model"],
                bench_save_dir=config.get("bench_save_dir", "./tmp"),
                ckpts=_resolve_ckpts(config),
                offline=offline,
                device=device,
            )
        )

        return cls(
            model=model,
            train_dataset=evidence_ds,
            eval_dataset=prompt_ds,
            checkpoints=checkpoints,
            checkpoints_load_func=checkpoints_load_func,
            device=device,
            use_predictions=config.get("use_predictions", False),
            entailment_labels=entailment_labels,
            **cls._extra_kwargs_from_config(config),
        )

    @classmethod
    def _extra_kwargs_from_config(
        cls,
        *args,
        **kwargs,
    ) -> dict:
        """Override to supply benchmark-specific ``__init__`` kwargs."""
        return {}

    def _build_metric(
        self, inference_batch_size: Optional[int] = None
    ) -> Metric:
        """Return the concrete metric instance for this benchmark."""
        raise NotImplementedError

    def _evaluate_dataset(
        self,
        eval_dataset: torch.utils.data.Dataset,
        explainer: Optional[Explainer],
        metric: Metric,
        batch_size: int,
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
        precomputed_explanations: Optional[BatchedCachedExplanations] = None,
        inference_batch_size: Optional[int] = None,
        subset_logits_dir: Optional[str] = None,
        bootstrap: bool = False,
    ):
        """Subsample ``entailment_labels`` to align with the eval iteration.

        Stashes the aligned matrix on ``self`` so the per-batch hook can
        slice it without re-running the (deterministic) subsampling.
        """
        self._entailment_labels_aligned: Optional[torch.Tensor]
        if self.entailment_labels is None:
            self._entailment_labels_aligned = None
        else:
            indices = subsample_indices(
                ds_len(eval_dataset), max_eval_n, eval_seed
            )
            self._entailment_labels_aligned = self.entailment_labels[indices]

        return super()._evaluate_dataset(
            eval_dataset=eval_dataset,
            explainer=explainer,
            metric=metric,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
            precomputed_explanations=precomputed_explanations,
            inference_batch_size=inference_batch_size,
            subset_logits_dir=subset_logits_dir,
            bootstrap=bootstrap,
        )

    def _extra_metric_inputs(
        self,
        batch_index: int,
        batch_size: int,
        explanations: torch.Tensor,
    ) -> dict:
        """Return the rows of ``entailment_labels`` matching this batch."""
        if self._entailment_labels_aligned is None:
            return {}
        start = batch_index * batch_size
        end = start + explanations.shape[0]
        return {
            "entailment_labels": self._entailment_labels_aligned[start:end]
        }

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
        bootstrap: bool = False,
    ):
        """Evaluate the benchmark using a given explanation method.

        Parameters mirror :meth:`Benchmark.evaluate`.
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

        return self._evaluate_dataset(
            eval_dataset=self.eval_dataset,
            explainer=explainer,
            metric=self._build_metric(
                inference_batch_size=inference_batch_size
            ),
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
            precomputed_explanations=precomputed,
            inference_batch_size=inference_batch_size,
            bootstrap=bootstrap,
        )
