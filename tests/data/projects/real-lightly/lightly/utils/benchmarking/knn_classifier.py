from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
from pytorch_lightning import LightningModule
from torch import Tensor
from torch.nn import Module

from lightly.utils.benchmarking import knn_predict
from lightly.utils.benchmarking.topk import mean_topk_accuracy


class KNNClassifier(LightningModule):
    def __init__(
        self,
        model: Optional[Module],
        num_classes: int,
        knn_k: int,
        knn_t: float,
        train_dataloader_idx: int,
        val_dataloader_idx: int,
        topk: Tuple[int, ...] = (1, 5),
        feature_dtype: torch.dtype = torch.float32,
        normalize: bool = True,
    ):
        """KNN classifier for benchmarking.

        Settings based on InstDisc [0]. Code adapted from MoCo [1].

        - [0]: InstDisc, 2018, https://arxiv.org/pdf/1805.01978v1.pdf
        - [1]: MoCo, 2019, https://github.com/facebookresearch/moco

        Args:
            model:
                Model used for feature extraction. Must define a forward(images) method
                that returns a feature tensor. If not defined, hands over the features
                directly.
            num_classes:
                Number of classes in the dataset.
            knn_k:
                Number of neighbors used for KNN search.
            knn_t:
                Temperature parameter to reweights similarities.
            topk:
                Tuple of integers defining the top-k accuracy metrics to compute.
            feature_dtype:
                Torch data type of the features used for KNN search. Reduce to float16
                for memory-efficient KNN search.
            normalize:
                Whether to normalize the features for KNN search.

        Examples:
            >>> from pytorch_lightning import Trainer
            >>> from torch import nn
            >>> import torchvision
            >>> from lightly.models import LinearClassifier
            >>> from lightly.models.modules import SimCLRProjectionHead
            >>>
            >>> class SimCLR(nn.Module):
            >>>     def __init__(self):
            >>>         super().__init__()
            >>>         self.backbone = torchvision.models.resnet18()
            >>>         self.backbone.fc = nn.Identity() # Ignore classification layer
            >>>         self.projection_head = SimCLRProjectionHead(512, 512, 128)
            >>>
            >>>     def forward(self, x):
            >>>         features = self.backbone(x).flatten(start_dim=1)  # Forward must return image features.
            >>>         return features
            >>>
            >>> # Initialize a model.
            >>> model = SimCLR()
            >>>
            >>>
            >>> # Wrap it with a KNNClassifier.
            >>> knn_classifier = KNNClassifier(resnet, num_classes=10)
            >>>
            >>> # Extract features and evaluate.
            >>> trainer = Trainer(max_epochs=1)
            >>> trainer.validate(
                    model=knn_classifier,
                    dataloaders=[train_dataloader, val_dataloader],
                )
        """
        super().__init__()
        self.save_hyperparameters(
            {
                "num_classes": num_classes,
                "knn_k": knn_k,
                "knn_t": knn_t,
                "topk": topk,
                "feature_dtype": str(feature_dtype),
            }
        )
        self.train_dataloader_idx = train_dataloader_idx
        self.val_dataloader_idx = val_dataloader_idx
        self.model = model
        self.num_classes = num_classes
        self.knn_k = knn_k
        self.knn_t = knn_t
        self.topk = topk
        self.feature_dtype = feature_dtype
        self.normalize = normalize

        self._train_features: List[Tensor] = []
        self._train_targets: List[Tensor] = []
        self._train_features_tensor: Optional[Tensor] = None
        self._train_targets_tensor: Optional[Tensor] = None

    def _prepare_features(self, features: Tensor) -> Tensor:
        """Normalize and convert feature dtype for KNN scoring."""
        if self.normalize:
            features = F.normalize(features, dim=1)
        features = features.to(self.feature_dtype)
        return features

    def forward(self, images: Tensor) -> Tensor:
        assert self.model is not None
        features = self.model.forward(images).flatten(start_dim=1)
        features = self._prepare_features(features)
        return features

    def append_train_features(self, features: Tensor, targets: Tensor) -> None:
        self._train_features.append(features.cpu())
        self._train_targets.append(targets.cpu())

    def concat_train_features(self) -> None:
        if self._train_features and self._train_targets:
            # Features and targets have size (world_size, batch_size, dim) and
            # (world_size, batch_size) after gather. For non-distributed training,
            # features and targets have size (batch_size, dim) and (batch_size,).
            features = self.all_gather(torch.cat(self._train_features, dim=0))
            assert isinstance(features, Tensor)
            self._train_features = []
            targets = self.all_gather(torch.cat(self._train_targets, dim=0))
            assert isinstance(targets, Tensor)
            self._train_targets = []
            # Reshape to (dim, world_size * batch_size)
            features = features.flatten(end_dim=-2).t().contiguous()
            self._train_features_tensor = features.to(self.device)
            # Reshape to (world_size * batch_size,)
            targets = targets.flatten().t().contiguous()
            self._train_targets_tensor = targets.to(self.device)

    def reset_storage(self) -> None:
        """Clears the feature bank to prepare for a new validation epoch."""
        self._train_features = []
        self._train_targets = []
        self._train_features_tensor = None
        self._train_targets_tensor = None

    @torch.no_grad()
    def training_step(  # type: ignore[override]
        self, batch: Tuple[Tensor, ...], batch_idx: int
    ) -> None:
        pass

    def validation_step(  # type: ignore[override]
        self, batch: Tuple[Tensor, ...], batch_idx: int, dataloader_idx: int
    ) -> Dict[str, Tensor] | None:
        """Run a step for kNN validation.

        One dataloader contains training data and we use it to build the feature bank.
        The other dataloader contains validation data and we use it for kNN evaluation.
        In case of the step running on validation data, this function returns a dict
        containing the kNN top-k accuracy metrics.
        """
        if self.model is None:
            # We receive the features directly
            features, targets = batch
            features = self._prepare_features(features)
        else:
            # Extracting features
            images, targets = batch[0], batch[1]
            features = self(images)

        if dataloader_idx == self.train_dataloader_idx:
            if batch_idx == 0:
                # Reset storage at beginning of new train dataloader.
                self.reset_storage()
            # The first dataloader is the training dataloader.
            self.append_train_features(features=features, targets=targets)
        elif dataloader_idx == self.val_dataloader_idx:
            if batch_idx == 0:
                # Concatenate train features when starting the validation dataloader.
                self.concat_train_features()

            assert self._train_features_tensor is not None
            assert self._train_targets_tensor is not None
            predicted_classes = knn_predict(
                feature=features,
                feature_bank=self._train_features_tensor,
                feature_labels=self._train_targets_tensor,
                num_classes=self.num_classes,
                knn_k=self.knn_k,
                knn_t=self.knn_t,
            )
            topk = mean_topk_accuracy(
                predicted_classes=predicted_classes, targets=targets, k=self.topk
            )
            log_dict = {f"val_knn_top{k}": acc for k, acc in topk.items()}

            if self.trainer is not None:
                self.log_dict(
                    log_dict, prog_bar=True, sync_dist=True, batch_size=len(targets)
                )

            return log_dict
        return None

    def configure_optimizers(self) -> None:
        # configure_optimizers must be implemented for PyTorch Lightning. Returning None
        # means that no optimization is performed.
        pass
