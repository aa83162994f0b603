"""
Experimental implementation of a base class for `tslib` models.
"""

from typing import Optional, Union
from warnings import warn

import torch
import torch.nn as nn
from torch.optim import Optimizer

from pytorch_forecasting.metrics import Metric
from pytorch_forecasting.models.base._base_model_v2 import BaseModel


class TslibBaseModel(BaseModel):
    """
    Base class for `tslib` models.

    Parameters
    ----------
    loss : Descendants of ``pytorch_forecasting.metrics.Metric`` class
        Loss function to use for training.
    logging_metrics : Optional[list[nn.Module]], optional
        list of metrics to log during training, validation, and testing.
    optimizer : Optional[Union[Optimizer, str, callable]], optional
        Optimizer to use for training.
        Can be a string ("adam", "adamw", "adagrad", "sgd", or any
        ``torch.optim`` class name), a callable returning an optimizer,
        or an instance of ``torch.optim.Optimizer``.
    optimizer_params : Optional[dict], optional
        Parameters for the optimizer.
    lr_scheduler : Optional[str], optional
        Learning rate scheduler to use.
    lr_scheduler_params : Optional[dict], optional
        Parameters for the learning rate scheduler.
    metadata : Optional[dict], default=None
        Metadata for the model from TslibDataModule.
    """

    def __init__(
        self,
        loss: Metric,
        logging_metrics: list[nn.Module] | None = None,
        optimizer: Optimizer | str | None = "adam",
        optimizer_params: dict | None = None,
        lr_scheduler: str | None = None,
        lr_scheduler_params: dict | None = None,
        metadata: dict | None = None,
    ):
        super().__init__(
            loss=loss,
            logging_metrics=logging_metrics,
            optimizer=optimizer,
            optimizer_params=optimizer_params,
            lr_scheduler=lr_scheduler,
            lr_scheduler_params=lr_scheduler_params,
        )
        self.save_hyperparameters(ignore=["loss", "logging_metrics", "metadata"])
        self.metadata = metadata or {}
        self.model_name = self.__class__.__name__

        warn(
            f"The Model '{self.model_name}' is part of an experimental implementation"
            "of the pytorch-forecasting model layer for Time Series Library, scheduled"
            "for release with v2.0.0. The API is not stable"
            "and may change without prior warning. This class is intended for beta"
            "testing, not for stable production use.",
            UserWarning,
        )

        self.context_length = self.metadata.get("context_length", 0)
        self.prediction_length = self.metadata.get("prediction_length", 0)

        feature_indices = self.metadata.get("feature_indices", {})
        self.cont_indices = feature_indices.get("continuous", [])
        self.cat_indices = feature_indices.get("categorical", [])
        self.known_indices = feature_indices.get("known", [])
        self.unknown_indices = feature_indices.get("unknown", [])
        self.target_indices = feature_indices.get("target", [])

        feature_dims = self.metadata.get("n_features", {})
        self.cont_dim = feature_dims.get("continuous", 0)
        self.cat_dim = feature_dims.get("categorical", 0)
        self.static_cat_dim = feature_dims.get("static_categorical", 0)
        self.static_cont_dim = feature_dims.get("static_continuous", 0)
        self.target_dim = feature_dims.get("target", 1)

        self.feature_names = self.metadata.get("feature_names", {})

        # feature-mode
        self.features = self.metadata.get("features", "MS")

    def _init_network(self):
        """
        Initialize the network architecture.
        This method should be implemented in subclasses to define the specific layers
        and sub_modules of the model.
        """
        raise NotImplementedError("Subclasses must implement _init_network method.")

    def forward(self, x: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """
        Forward pass of the model.

        Parameters
        ----------
        x: dict[str, torch.Tensor]
            Dictionary containing input tensors.

        Returns
        -------
        dict[str, torch.Tensor]
            Dictionary containing output tensors. These can include
            - predictions:
                Prediction_output of shape (batch_size, prediction_length, target_dim)
            - attention_weights: Optionally, output attention weights
        """

        raise NotImplementedError("Subclasses must implement forward method.")

    def predict_step(
        self,
        batch: tuple[dict[str, torch.Tensor]],
        batch_idx: int,
        dataloader_idx: int = 0,
    ) -> torch.Tensor:
        """
        Prediction step for the model.

        Parameters
        ----------
        batch : tuple[dict[str, torch.Tensor]]
            Batch of data containing input tensors.
        batch_idx : int
            Index of the batch.
        dataloader_idx : int
            Index of the dataloader.

        Returns
        -------
        torch.Tensor
            Predicted output tensor.
        """
        x, _ = batch
        y_hat = self(x)

        if "target" in x:
            y_hat["target"] = x["target"]

        return y_hat

    def transform_output(
        self,
        y_hat: torch.Tensor
        | list[
            torch.Tensor
        ],  # evidenced from TimeXer implementation - in PR #1797  # noqa: E501
        target_scale: dict[str, torch.Tensor] | None,
    ) -> torch.Tensor | list[torch.Tensor]:
        """
        Transform the output of the model to the original scale.

        Parameters
        ----------
        y_hat : Union[torch.Tensor, list[torch.Tensor]]
            Dictionary containing the model output.
        target_scale : Optional[dict[str, torch.Tensor]]
            Dictionary containing the target scale for inverse transformation.

        Returns
        -------
        Union[torch.Tensor, list[torch.Tensor]]
            Dictionary containing the transformed output.

        Notes
        -----
        WARNING! : This is a temporary implementation and is meant to be replaced with
        a more robust scaling and normalization module for v2 of PTF.
        """

        scale = None
        center = None

        if "scale" in target_scale and "center" in target_scale:
            scale = target_scale["scale"]
            center = target_scale["center"]
        else:
            raise ValueError("Cannot transform output without scale and center.")

        while scale.dim() < y_hat.dim():
            scale = scale.unsqueeze(0)
            center = center.unsqueeze(0)

        return y_hat * scale + center
