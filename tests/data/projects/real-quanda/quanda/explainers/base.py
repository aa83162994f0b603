"""Base class for explainers."""

from abc import ABC, abstractmethod
from typing import List, Optional, Union

import datasets  # type: ignore
import lightning as L
import torch
from tqdm import tqdm

from quanda.utils.common import (
    CheckpointLoadFunc,
    cache_result,
    ds_len,
    get_load_state_dict_func,
    load_last_checkpoint,
    resolve_device,
)
from quanda.utils.datasets import OnDeviceDataset
from quanda.utils.datasets.dataset_handlers import get_dataset_handler
from quanda.utils.tasks import TaskLiterals


class Explainer(ABC):
    """Base class for explainer wrappers.

    Defines the interface that all explainer classes must implement.

    Notes
    -----
    Conventions for wrapper subclasses that cache intermediate artifacts
    (activations, projected gradients, factor estimates, etc.) on disk:

    - ``cache_dir`` is the on-disk root under which the wrapper may read
      and write. Wrappers should treat it as their own scratch space and
      must not assume any particular layout inside it.
    - ``model_id`` is a stable, user-supplied string that uniquely
      identifies the ``(model, train_dataset, explainer_config)`` triple.
      It is used to namespace files inside ``cache_dir`` so that runs
      with different models or configurations do not clobber each
      other's caches. Changing any input that would invalidate cached
      artifacts should imply a new ``model_id``.
    - Individual wrappers may repurpose ``model_id`` for library-specific
      identifiers (e.g. an activation directory, a TRAK checkpoint key,
      a Kronfluence analysis name). Callers should not rely on its
      downstream semantics, only on its role as a cache namespace.

    These parameters are not part of the base ``__init__`` signature
    because not every explainer caches to disk; subclasses opt in.

    """

    accepted_tasks: List[TaskLiterals] = []

    def __init__(
        self,
        model: Union[torch.nn.Module, L.LightningModule],
        train_dataset: Union[torch.utils.data.Dataset, datasets.Dataset],
        task: TaskLiterals = "image_classification",
        checkpoints: Optional[Union[str, List[str]]] = None,
        checkpoints_load_func: Optional[CheckpointLoadFunc] = None,
        **kwargs,
    ):
        """Initialize the `Explainer` class.

        Parameters
        ----------
        model : Union[torch.nn.Module, pl.LightningModule]
            The model to be used for the influence computation.
        train_dataset : Union[torch.utils.data.Dataset, datasets.Dataset]
            Training dataset to be used for the influence computation.
        task: TaskLiterals, optional
            Task type of the model. Defaults to "image_classification".
            Possible options: "image_classification", "text_classification",
            "causal_lm".
        checkpoints : Optional[Union[str, List[str]]], optional
            Path to the model checkpoint file(s), defaults to None.
        checkpoints_load_func : Optional[CheckpointLoadFunc], optional
            Function to load the model from the checkpoint file, takes
            (model, checkpoint path) as two arguments, by default None.
        **kwargs : dict
            Additional keyword arguments passed to the explainer.

        """
        if task not in self.accepted_tasks:
            raise ValueError(
                f"Task {task} not supported by this explainer. "
                f"Supported tasks: {self.accepted_tasks}"
            )

        self.model = model
        self.device: str = resolve_device(model)

        if checkpoints_load_func is None:
            self.checkpoints_load_func = get_load_state_dict_func(self.device)
        else:
            self.checkpoints_load_func = checkpoints_load_func

        if checkpoints is None:
            self.checkpoints = []
        else:
            self.checkpoints = (
                checkpoints if isinstance(checkpoints, List) else [checkpoints]
            )

        train_dataset = OnDeviceDataset(train_dataset, self.device)

        self.train_dataset = train_dataset

    @abstractmethod
    def explain(
        self,
        test_data: torch.Tensor,
        targets: Union[List[int], torch.Tensor],
    ) -> torch.Tensor:
        """Abstract method for computing influence scores for the test samples.

        Parameters
        ----------
        test_data : torch.Tensor
            Test samples for which influence scores are computed.
        targets : Union[List[int], torch.Tensor]
            Labels for the test samples.

        Returns
        -------
        torch.Tensor
            2D Tensor of shape (test_samples, train_dataset_size) containing
            the influence scores.

        """
        raise NotImplementedError

    @cache_result
    def self_influence(self, batch_size: int = 32) -> torch.Tensor:
        """Compute self-influence scores by explaining one by one.

        Parameters
        ----------
        batch_size : int, optional
            Batch size used for iterating over the dataset. Defaults to 32.

        Returns
        -------
        torch.Tensor
            Self-influence score for each datapoint in the training dataset.

        """
        # Pre-allcate memory for influences, because torch.cat is slow
        n = ds_len(self.train_dataset)
        influences = torch.empty((n,), device=self.device)
        handler = get_dataset_handler(self.train_dataset)
        ldr = handler.create_dataloader(
            self.train_dataset, shuffle=False, batch_size=batch_size
        )
        batch_size = min(batch_size, n)

        for i, batch in tqdm(
            zip(range(0, n, batch_size), ldr),
            total=len(ldr),
            desc="Computing self-influence",
        ):
            inputs, labels = handler.process_batch(batch, self.device)
            explanations = self.explain(test_data=inputs, targets=labels)
            influences[i : i + batch_size] = explanations.diag(diagonal=i)

        return influences

    def load_last_checkpoint(self):
        """Load the last checkpoint in ``self.checkpoints`` into the model."""
        load_last_checkpoint(
            model=self.model,
            checkpoints=self.checkpoints,
            checkpoints_load_func=self.checkpoints_load_func,
        )
