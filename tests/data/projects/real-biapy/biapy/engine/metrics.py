"""
Metrics and loss functions for BiaPy.

This module provides a variety of metrics and loss functions for evaluating and training
deep learning models in BiaPy. It includes implementations for Jaccard index (IoU),
Dice loss, BCE, Cross-Entropy, contrastive losses, instance segmentation losses,
detection metrics, and wrappers for SSIM, MSE, and MAE-based losses. Both PyTorch and
NumPy-based metrics are supported for 2D and 3D biomedical image analysis.
"""
import torch
import numpy as np
import pandas as pd
from scipy.spatial import distance_matrix
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import precision_score, recall_score, f1_score
from torchmetrics import JaccardIndex
from torchmetrics.image import StructuralSimilarityIndexMeasure, LearnedPerceptualImagePatchSimilarity
from pytorch_msssim import SSIM
import torch.nn.functional as F
import torch.nn as nn
from torchvision import transforms
from torchvision.models import vgg16, VGG16_Weights
from typing import Optional, List, Tuple, Dict, Union

def jaccard_index_numpy(y_true, y_pred):
    """
    Compute the Jaccard index (Intersection over Union) between ground truth and prediction.

    Parameters
    ----------
    y_true : N dim Numpy array
        Ground truth masks. E.g. ``(num_of_images, x, y, channels)`` for 2D images or
        ``(volume_number, z, x, y, channels)`` for 3D volumes.

    y_pred : N dim Numpy array
        Predicted masks. E.g. ``(num_of_images, x, y, channels)`` for 2D images or
        ``(volume_number, z, x, y, channels)`` for 3D volumes.

    Returns
    -------
    jac : float
        Jaccard index value.
    """
    if y_true.ndim != y_pred.ndim:
        raise ValueError("Dimension mismatch: {} and {} provided".format(y_true.shape, y_pred.shape))

    TP = np.count_nonzero(y_pred * y_true)
    FP = np.count_nonzero(y_pred * (y_true - 1))
    FN = np.count_nonzero((y_pred - 1) * y_true)

    if (TP + FP + FN) == 0:
        jac = 0
    else:
        jac = TP / (TP + FP + FN)

    return jac


def jaccard_index_numpy_without_background(y_true, y_pred):
    """
    Compute Jaccard index excluding the background class (first channel).

    Parameters
    ----------
    y_true : N dim Numpy array
        Ground truth masks. E.g. ``(num_of_images, x, y, channels)`` for 2D images or
        ``(volume_number, z, x, y, channels)`` for 3D volumes.

    y_pred : N dim Numpy array
        Predicted masks. E.g. ``(num_of_images, x, y, channels)`` for 2D images or
        ``(volume_number, z, x, y, channels)`` for 3D volumes.

    Returns
    -------
    jac : float
        Jaccard index value.
    """
    if y_true.ndim != y_pred.ndim:
        raise ValueError("Dimension mismatch: {} and {} provided".format(y_true.shape, y_pred.shape))

    TP = np.count_nonzero(y_pred[..., 1:] * y_true[..., 1:])
    FP = np.count_nonzero(y_pred[..., 1:] * (y_true[..., 1:] - 1))
    FN = np.count_nonzero((y_pred[..., 1:] - 1) * y_true[..., 1:])

    if (TP + FP + FN) == 0:
        jac = 0
    else:
        jac = TP / (TP + FP + FN)

    return jac


def weight_binary_ratio(target):
    """
    Compute a weight map to balance foreground and background pixels.

    Parameters
    ----------
    target : torch.Tensor
        Target tensor.

    Returns
    -------
    weight : torch.Tensor
        Weight map.
    """
    if torch.max(target) == torch.min(target):
        return torch.ones_like(target, dtype=torch.float32)

    # Generate weight map by balancing the foreground and background.
    min_ratio = 5e-2
    label = target.clone()  # copy of target label

    label = (label != 0).double()  # foreground

    ww = label.sum() / torch.prod(torch.tensor(label.shape, dtype=torch.double))

    ww = torch.clamp(ww, min=min_ratio, max=1 - min_ratio)

    weight_factor = max(ww, 1 - ww) / min(ww, 1 - ww)  # type: ignore

    # Case 1 -- Affinity Map
    # In that case, ww is large (i.e., ww > 1 - ww), which means the high weight
    # factor should be applied to background pixels.

    # Case 2 -- Contour Map
    # In that case, ww is small (i.e., ww < 1 - ww), which means the high weight
    # factor should be applied to foreground pixels.

    if ww > 1 - ww:
        # Switch when foreground is the dominant class.
        label = 1 - label
    weight = weight_factor * label + (1 - label)

    return weight.float()


class jaccard_index:
    """
    Jaccard index (IoU) metric for PyTorch tensors.

    Supports binary and multiclass segmentation, with optional thresholding and ignore index.
    """

    def __init__(
        self,
        num_classes: int,
        device: torch.device,
        t: float = 0.5,
        model_source: str = "biapy",
        ndim: int = 2,
        ignore_index: int = -1,
    ):
        """
        Define Jaccard index.

        Parameters
        ----------
        num_classes : int
            Number of classes.

        device : Torch device
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps",
            "xpu", "xla" or "meta".

        t : float, optional
            Threshold to be applied.

        model_source : str, optional
            Source of the model. It can be "biapy", "bmz" or "torchvision".

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.

        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.
        """
        self.model_source = model_source
        self.loss = torch.nn.CrossEntropyLoss()
        self.device = device
        self.num_classes = num_classes
        self.t = t
        self.ndim = ndim
        self.ignore_index = ignore_index if ignore_index != -1 else None
        if self.num_classes > 2:
            self.jaccard = JaccardIndex(
                task="multiclass", threshold=self.t, num_classes=self.num_classes, ignore_index=self.ignore_index
            ).to(self.device, non_blocking=True)
        else:
            self.jaccard = JaccardIndex(
                task="binary", threshold=self.t, num_classes=self.num_classes, ignore_index=self.ignore_index
            ).to(self.device, non_blocking=True)

    def __call__(self, y_pred, y_true):
        """
        Calculate Jaccard index (intersection over union).

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor
            Predicted masks.

        Returns
        -------
        jaccard : torch.Tensor
            Jaccard index value.
        """
        _y_pred = y_pred["pred"] if isinstance(y_pred, dict) and "pred" in y_pred else y_pred

        # For those cases that are predicting 2 channels (binary case) we adapt the GT to match.
        # It's supposed to have 0 value as background and 1 as foreground
        if self.model_source == "bmz" and self.num_classes <= 2 and _y_pred.shape[1] != y_true.shape[1]:
            y_true = torch.cat((1 - y_true, y_true), 1)

        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]

        iou = 0
        for j, pd in enumerate(_y_pred):
            _y_true = scale_target(y_true, pd.shape[-self.ndim :]) if pd.shape[-self.ndim :] != y_true.shape[-self.ndim :] else y_true

            if self.num_classes > 2:
                if pd.shape[1] > 1:
                    _y_true = _y_true.squeeze()
                if len(pd.shape) - 2 == len(_y_true.shape):
                    _y_true = _y_true.unsqueeze(0)
            iou += self.jaccard(pd, _y_true.long() if _y_true.is_floating_point() else _y_true)

        return iou/len(_y_pred)


def flow_target_scale(channel_extra_opts: Optional[Dict]) -> float:
    """
    Scale applied to Cellpose/Omnipose flow *targets* (Gv/Gh/Gz) at loss/metric time.

    Neither Cellpose nor Omnipose bakes this factor into the stored flow field; both multiply the flow
    target by 5 inside the loss (Cellpose: ``veci = 5.*flow``; Omnipose: ``lbl[:,-dim:] = mu*5.0`` in
    ``batch_labels``). The gradient type is read from the same place the flow-field builder uses
    (``DATA_CHANNELS_EXTRA_OPTS['Gv']['gradient_type']``), so the loss/metric always agree with how the
    stored GT was produced.
    """
    gtype = (channel_extra_opts or {}).get("Gv", {}).get("gradient_type", "cellpose")
    return 5.0 if gtype in ("cellpose", "omnipose") else 1.0


# torch.unique's CUDA backend errors ("num_inp ... too big for CUB") above this many elements.
_CUDA_UNIQUE_ELEMENT_LIMIT = 2**31 - 1


def _call_metric_safely(metric_fn: nn.Module, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Run ``metric_fn(pred, target)``, falling back to CPU if the CUDA unique-element limit would be hit."""
    if pred.is_cuda and pred.numel() > _CUDA_UNIQUE_ELEMENT_LIMIT:
        device = pred.device
        val = metric_fn.cpu()(pred.cpu(), target.cpu())
        metric_fn.to(device)
        return val.to(device)
    return metric_fn(pred, target)


class multiple_metrics:
    """
    Compute multiple metrics for instance segmentation workflows.

    Supports IoU, L1, and other metrics for multi-head or multi-channel outputs.
    """

    def __init__(
        self,
        num_classes: int,
        metric_names: List[str],
        device: torch.device,
        out_channels: Optional[List[str]]=["F"],
        channel_extra_opts: Optional[Dict]={},
        ignore_index: int = -1,
        model_source: str = "biapy",
        ndim: int = 2,
    ):
        """
        Define instance segmentation workflow metrics.

        Parameters
        ----------
        num_classes : int
            Number of classes.

        metric_names : list of str
            Names of the metrics to use.

        device : Torch device
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps",
            "xpu", "xla" or "meta".

        out_channels : list of str, optional
            Output channels to be predicted. E.g. ["F", "C"] for foreground and class channels.

        channel_extra_opts : dict, optional
            Additional options for each output channel (e.g., {"B": {"mask_values": True}}).

        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.

        model_source : str, optional
            Source of the model. It can be "biapy", "bmz" or "torchvision".

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.
        """
        self.num_classes = num_classes
        self.metric_names = metric_names
        self.device = device
        self.out_channels = out_channels.copy() if out_channels is not None else [".",]*len(metric_names)
        if self.num_classes > 2:
            self.out_channels += ["class"]
        # Ignore the weight extra channel and the virtual instance channel ('I' is dropped by the
        # generator before the model, so it is never predicted nor scored).
        self.out_channels = [x for x in self.out_channels if x not in ("We", "I")]
        self.channel_extra_opts = channel_extra_opts
        self.model_source = model_source
        self.ignore_index = ignore_index if ignore_index != -1 else None
        self.ndim = ndim
        # Flow targets (Gv/Gh/Gz) are stored as unit vectors; scale them to the network's target
        # range here so the L1 metric compares like-for-like (see flow_target_scale).
        self.flow_target_scale = flow_target_scale(channel_extra_opts)

        self.metric_func = []
        for i in range(len(metric_names)):
            if "IoU (classes)" in metric_names[i]:
                loss_func = JaccardIndex(
                    task="multiclass", threshold=0.5, num_classes=self.num_classes, ignore_index=self.ignore_index
                ).to(self.device, non_blocking=True)
            elif "IoU" in metric_names[i]:
                loss_func = JaccardIndex(
                    task="binary", threshold=0.5, num_classes=2, ignore_index=self.ignore_index
                ).to(self.device, non_blocking=True)
            elif "L1" in metric_names[i]:
                loss_func = torch.nn.L1Loss()
            else:
                raise ValueError(f"Metric {metric_names[i]} not recognized.")

            self.metric_func.append(loss_func)

    def __call__(self, y_pred, y_true):
        """
        Calculate metrics.

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor or list of Tensors
            Prediction.

        Returns
        -------
        dict : dict
            Metrics and their values.
        """
        if isinstance(y_pred, dict):
            _y_pred = y_pred["pred"]
        else:
            _y_pred = y_pred

        # Check multi-head
        if isinstance(y_pred, dict) and "class" in y_pred:
            _y_pred_class = torch.argmax(y_pred["class"], dim=1)
        else:      
            # Just take the last channel as class prediction from the first output, which is assumed to be the main one
            if isinstance(_y_pred, list):    
                _y_pred_class = _y_pred[0][:, -1] 
            else: 
                _y_pred_class = _y_pred[:, -1]
            
        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]

        res_metrics = {}
        for pd in _y_pred:
            _y_true = scale_target(y_true, pd.shape[-self.ndim :]) if pd.shape[-self.ndim :] != y_true.shape[-self.ndim :] else y_true
 
            db_val_type = ""
            for pred_ch_start, channel in enumerate(self.out_channels):
                gt_ch_start = pred_ch_start
                if channel == "A":
                    pred_ch_end = pd.shape[1]
                    gt_ch_end = pred_ch_end
                elif channel == "R":
                    assert self.channel_extra_opts is not None and "R" in self.channel_extra_opts, "Rays channel options must be provided."
                    pred_ch_end = self.channel_extra_opts["R"].get("nrays", 32) + pred_ch_start
                    gt_ch_end = pred_ch_end
                elif channel == "Db":
                    assert self.channel_extra_opts is not None and "Db" in self.channel_extra_opts, "Distance to border channel options must be provided."
                    db_val_type = self.channel_extra_opts.get("Db", {}).get("val_type", "norm")
                    if db_val_type == "discretize":
                        db_dis_bin_size = 0.1
                        db_dis_K = int(round(1.0 / db_dis_bin_size))  # 10
                        db_channels = db_dis_K + 1   
                    else:
                        db_channels = 1
                    pred_ch_end = pred_ch_start + db_channels
                    gt_ch_end = pred_ch_end
                else:
                    pred_ch_end = pred_ch_start + 1
                    gt_ch_end = pred_ch_end

                if self.metric_names[pred_ch_start] not in res_metrics:
                    res_metrics[self.metric_names[pred_ch_start]] = []

                # Measure metric
                if self.metric_names[pred_ch_start] == "IoU (classes)":
                    res_metrics[self.metric_names[pred_ch_start]].append(
                        _call_metric_safely(self.metric_func[pred_ch_start], _y_pred_class, _y_true[:, 1])
                    )
                else:
                    y_pred_slice = pd[:, pred_ch_start:pred_ch_end]
                    y_true_slice = _y_true[:, gt_ch_start:gt_ch_end].float()
                    if channel in ("Gv", "Gh", "Gz"):
                        y_true_slice = y_true_slice * self.flow_target_scale
                    if y_pred_slice.shape[1] != y_true_slice.shape[1] and "Db" == channel and db_val_type == "discretize":
                        y_pred_slice = torch.argmax(y_pred_slice, dim=1).unsqueeze(1).float()
                        y_true_slice = y_true_slice.float()
                    res_metrics[self.metric_names[pred_ch_start]].append(
                        _call_metric_safely(self.metric_func[pred_ch_start], y_pred_slice, y_true_slice)
                    )

        # Mean of same metric values
        for key, value in res_metrics.items():
            if len(value) > 1:
                res_metrics[key] = torch.mean(torch.as_tensor(value))
            else:
                res_metrics[key] = torch.as_tensor(value[0])
        return res_metrics


def scale_target(targets_: torch.Tensor, scaled_size: Tuple[int, ...]) -> torch.Tensor:
    """
    Scale the target masks to match the size of the predictions.

    Parameters
    ----------
    targets_ : torch.Tensor
        Ground truth masks.

    scaled_size : tuple
        Size to scale the masks to.

    Returns
    -------
    targets : torch.Tensor
        Scaled ground truth masks.
    """
    targets = F.interpolate(targets_.clone(), size=scaled_size, mode="nearest")
    return targets

class loss_encapsulation(nn.Module):
    """Just a wrapper to any other common loss deataching the prediction from the dict given by the model."""

    def __init__(self, loss):
        """
        Initialize the loss_encapsulation module.

        Parameters
        ----------
        loss : nn.Module or callable
            The loss function to wrap.
        """
        super(loss_encapsulation, self).__init__()
        self.loss = loss 

    def forward(self, inputs, targets):
        """
        Forward pass for the encapsulated loss.

        Parameters
        ----------
        inputs : torch.Tensor or dict
            Model predictions. If a dict, expects the prediction under the "pred" key.
        targets : torch.Tensor
            Ground truth targets.

        Returns
        -------
        loss : torch.Tensor
            Computed loss value.
        """
        if isinstance(inputs, dict):
            inputs = inputs["pred"]
        return {"losses": [self.loss(inputs, targets)]}
       
class CrossEntropyLoss_wrapper:
    """
    Wrapper for PyTorch's CrossEntropyLoss and BCEWithLogitsLoss with support for class rebalancing.
    """

    def __init__(
        self,
        num_classes: int,
        ndim: int = 2,
        class_rebalance: str = "none",
        class_weights: List[float] = [],
        ignore_index: int = -1,
        device=None,
    ):
        """
        Initialize wrapper to Pytorch's CrossEntropyLoss.

        Parameters
        ----------
        num_classes : int
            Number of classes.

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.

        class_rebalance: str, optional
            Whether to reweight classes or not. Options are: "none" and "manual".

        class_weights : list of float, optional
            List of weights for each class to be used in "manual" class rebalancing. E.g. ``[0.7, 0.3]`` for 2 classes.

        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.
        
        device : Torch device, optional
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps".
        """
        self.ndim = ndim
        self.num_classes = num_classes
        self.class_rebalance = class_rebalance
        self.class_weights = None
        self.ignore_index = ignore_index if ignore_index != -1 else -100  # Default ignore index for CrossEntropyLoss
        self.device = device if device is not None else torch.device("cpu")

        # For intermediate outputs weighting
        self.gamma = 0.5

        if self.class_rebalance == "manual":
            self.class_weights = torch.tensor(class_weights, device=device, dtype=torch.float32)

        if num_classes <= 2:
            self.loss = torch.nn.BCEWithLogitsLoss(weight=self.class_weights)
        else:
            self.loss = torch.nn.CrossEntropyLoss(ignore_index=self.ignore_index, weight=self.class_weights)

    def __call__(self, y_pred, y_true):
        """
        Calculate CrossEntropyLoss.

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor
            Predicted masks.

        Returns
        -------
        loss : torch.Tensor
            Loss value.
        """
        _y_pred = y_pred["pred"] if isinstance(y_pred, dict) and "pred" in y_pred else y_pred

        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]
            inter_output_weights = [1.0]
        else:
            w = [self.gamma**i for i in range(len(_y_pred))]
            s = sum(w)
            inter_output_weights = [x / s for x in w]

        loss = 0
        for j, pd in enumerate(_y_pred):
            _y_true = scale_target(y_true, pd.shape[-self.ndim :]) if pd.shape[-self.ndim :] != y_true.shape[-self.ndim :] else y_true

            if self.num_classes <= 2:
                _loss = self.loss(pd, _y_true.type(torch.float32))
            else:
                _loss = self.loss(pd, _y_true[:, 0].type(torch.long))
        
            loss += _loss * inter_output_weights[j]

        return loss


class detection_loss:
    """
    Loss for detection models with separated_class_channel. Combines BCE for the foreground and CrossEntropy for the class channel, 
    with optional class rebalancing and channel weighting.
    """

    def __init__(
        self,
        ndim: int = 2,
        class_rebalance_within_channels: bool = True,
        separated_class_channel: bool = False,
        channel_weights = (1, 1),
        class_rebalance: str = "none",
        class_weights: List[float] = [],
        ignore_index: int = -1,
        device=None,
    ):
        """
        Initialize detection loss.

        Parameters
        ----------
        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.

        class_rebalance_within_channels : bool, optional
            Whether to apply a rebalancing strategy to the loss function to give more importance to underrepresented pixels within the channels.
            The weights are calculated automatically based on the number of pixels of each class. In the specific case of detection, where there
            are usually much less pixels representing the center of the objects to detect than background pixels, with this option activated, 
            the loss will give more importance to the pixels representing the center of the objects to help the model learn better to predict them.
        
        separated_class_channel : bool, optional
            When a separated class channel is expected in the predictions e.g. points + classification in detection.

        channel_weights : 2 float tuple, optional
            Weights to be applied to each channel of the data, i.e., centroid detection and class. E.g. ``(1, 0.2)``.
            This only works if ``separated_class_channel`` is ``True``.

        class_rebalance: str, optional
            Whether to reweight classes or not. This only works if ``separated_class_channel`` is ``True``. 
            Options are: "none" and ``"manual"``.

        class_weights : list of float, optional
            List of weights for each class to be used in ``"manual"`` class rebalancing. This only works when ``separated_class_channel`` is ``True`` and
            ``class_rebalance`` is ``"manual"``. E.g. ``[1, 1.7, 0.5]`` for 3 classes.

        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.
        
        device : Torch device, optional
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps".
        """
        if separated_class_channel:
            if class_rebalance == "manual" and not class_weights:
                raise ValueError("class_weights must be provided when class_rebalance is 'manual'")
            self.channel_weights = channel_weights
            if len(self.channel_weights) != 2:
                raise ValueError("channel_weights must be a tuple of 2 float values when separated_class_channel is True")
        else:
            self.channel_weights = (1, 0)
        self.ndim = ndim
        self.separated_class_channel = separated_class_channel
        self.class_rebalance_within_channels = class_rebalance_within_channels
        self.class_rebalance = class_rebalance
        self.class_weights = None
        self.ignore_index = ignore_index if ignore_index != -1 else -100  # Default ignore index for CrossEntropyLoss
        self.device = device if device is not None else torch.device("cpu")
        self.gamma = 0.5

        if self.class_rebalance == "manual":
            self.class_weights = torch.tensor(class_weights, device=device, dtype=torch.float32)

        self.centroid_loss = torch.nn.BCEWithLogitsLoss()
        if self.separated_class_channel:
            self.class_channel_loss = torch.nn.CrossEntropyLoss(ignore_index=self.ignore_index, weight=self.class_weights, reduction="none")

    def __call__(self, y_pred, y_true):
        """
        Calculate CrossEntropyLoss.

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor
            Predicted masks.

        Returns
        -------
        loss : torch.Tensor
            Loss value.
        """
        if self.separated_class_channel:
            _y_pred = y_pred["pred"]
            _y_pred_class = y_pred["class"]
            assert (
                y_true.shape[1] == 2
            ), f"In separated_class_channel setting the ground truth is expected to have 2 channels. Provided {y_true.shape}"
        else:
            _y_pred = y_pred["pred"] if isinstance(y_pred, dict) and "pred" in y_pred else y_pred

        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]
            _y_pred_class = [_y_pred_class] if self.separated_class_channel else None
            inter_output_weights = [1.0]
        else:
            w = [self.gamma**i for i in range(len(_y_pred))]
            s = sum(w)
            inter_output_weights = [x / s for x in w]

        loss = 0
        for j, pd in enumerate(_y_pred):
            _y_true = scale_target(y_true, pd.shape[-self.ndim :]) if pd.shape[-self.ndim :] != y_true.shape[-self.ndim :] else y_true

            if self.class_rebalance_within_channels:
                weight_mask = weight_binary_ratio(_y_true[:, 0])
                loss_fn = torch.nn.BCEWithLogitsLoss(weight=weight_mask)
            else:
                loss_fn = self.centroid_loss

            _loss = self.channel_weights[0] * loss_fn(pd[:, 0], _y_true[:, 0].type(torch.float32))

            if self.separated_class_channel:
                mask = (_y_true[:, 0] != 0).float()
                if isinstance(self.ignore_index, (int, float)):
                    mask = mask * (_y_true[:, 0] != self.ignore_index).float()
                loss_cls = self.class_channel_loss(_y_pred_class[j], _y_true[:, -1].type(torch.long))
                loss_cls = loss_cls * mask
                loss_cls = loss_cls.sum() / mask.sum().clamp_min(1.0)

                _loss += self.channel_weights[1] * loss_cls
            
            loss += _loss * inter_output_weights[j]

        return loss

class DiceLoss(nn.Module):
    def __init__(self, batch_dice: bool = True, smooth: float = 1e-5):
        super().__init__()
        self.batch_dice = batch_dice
        self.smooth = smooth

    def forward(self, y_pred, y_true):
        # 1. Apply Sigmoid or Softmax to predictions to get probabilities
        if y_pred.shape[1] == 1:
            y_pred = torch.sigmoid(y_pred)
        else:
            y_pred = torch.softmax(y_pred, dim=1)
            
        # Ensure y_true is one-hot encoded if predicting multiple classes
        if y_pred.shape != y_true.shape:
            y_true = torch.nn.functional.one_hot(y_true.to(torch.int64), num_classes=y_pred.shape[1])
            y_true = y_true.permute(0, 4, 1, 2, 3).squeeze(1) # Adjust permute based on 2D/3D

        y_true = y_true.float()

        # 2. Decide which axes to sum over.
        # For a tensor [Batch, Channels, Height, Width] (2D) or [B, C, D, H, W] (3D):
        # If batch_dice is True, we sum over the Batch dimension (0) AND the spatial dimensions.
        # If False, we ONLY sum over the spatial dimensions, leaving Batch intact.
        axes = list(range(2, len(y_pred.shape))) # e.g., [2, 3] for 2D
        if self.batch_dice:
            axes = [0] + axes # e.g., [0, 2, 3] for 2D

        # 3. Calculate Intersection and Union
        intersection = torch.sum(y_pred * y_true, dim=axes)
        union = torch.sum(y_pred, dim=axes) + torch.sum(y_true, dim=axes)
        
        # 4. Compute Dice
        dice = (2.0 * intersection + self.smooth) / (union + self.smooth)
        
        # 5. Return loss (1 - Dice). Mean across remaining dimensions (Channels/Batches)
        return 1.0 - torch.mean(dice)

class DiceCELoss(nn.Module):
    """
    Combines Cross Entropy (or Binary Cross Entropy) and Dice Loss. Supports multi-head (separated_class_channel), deep supervision lists, 
    class rebalancing, and channel weighting.
    """
    def __init__(
        self,
        num_classes: int,
        ndim: int = 2,
        separated_class_channel: bool = False,
        batch_dice: bool = True,
        smooth: float = 1e-5,
        model_source: str = "biapy",
        class_rebalance: str = "none",
        class_weights: List[float] = [],
        channel_weights: Tuple[float, float] = (1.0, 1.0),
        w_ce: float = 1.0,
        w_dice: float = 1.0,
        ignore_index: int = -1,
        device=None,
    ):
        """
        Initialize DiceCELoss.

        Parameters
        ----------
        num_classes : int
            Number of classes.

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.
        
        separated_class_channel : bool, optional
            For separated_class_channel predictions e.g. points + classification in detection.

        batch_dice : bool, optional
            Whether to calculate Dice loss across the batch dimension or not.

        smooth : float, optional
            Smoothing factor to avoid division by zero in Dice loss.
        
        model_source : str, optional
            Source of the model. It can be "biapy", "bmz" or "torchvision".
        
        class_rebalance: str, optional
            Whether to reweight classes (inside loss function) or not. Options are: "none", "auto" and "manual".

        class_weights : list of float, optional
            List of weights for each class to be used in "manual" class rebalancing. E.g. ``[0.7, 0.3]`` for 2 classes.

        channel_weights : tuple of float, optional
            Weights to be applied to segmentation (binary and contours) and to distances respectively. E.g. ``(1, 0.2)``, ``1`` should be multipled by
            ``BCE`` for the first two channels and ``0.2`` to ``MSE`` for the last channel.

        w_ce : float, optional
            Weight for the Cross Entropy component of the loss.

        w_dice : float, optional
            Weight for the Dice component of the loss.
        
        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.
        
        device : Torch device, optional
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps", "xpu", "xla" or "meta".
        """
        super(DiceCELoss, self).__init__()
        self.num_classes = num_classes
        self.ndim = ndim
        self.separated_class_channel = separated_class_channel
        self.batch_dice = batch_dice
        self.smooth = smooth
        self.model_source = model_source
        self.class_rebalance = class_rebalance
        self.channel_weights = channel_weights
        self.w_ce = w_ce
        self.w_dice = w_dice
        self.ignore_index = ignore_index if ignore_index != -1 else -100
        self.device = device if device is not None else torch.device("cpu")
        self.gamma = 0.5  # For intermediate outputs weighting

        self.class_weights_tensor = None
        if class_weights is not None and len(class_weights) > 0:
            self.class_weights_tensor = torch.tensor(class_weights, device=self.device, dtype=torch.float32)

        # Initialize standard CE/BCE
        if num_classes <= 2:
            self.loss = torch.nn.BCEWithLogitsLoss(weight=self.class_weights_tensor)
        else:
            self.loss = torch.nn.CrossEntropyLoss(ignore_index=self.ignore_index, weight=self.class_weights_tensor)
        
        # Initialize Classification Head Loss
        if self.separated_class_channel:
            self.class_channel_loss = torch.nn.CrossEntropyLoss(ignore_index=self.ignore_index)

    def _compute_dice(self, y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
        """Helper function to compute Dice loss on spatial outputs."""
        if self.num_classes <= 2:
            pred_probs = torch.sigmoid(y_pred)
            dice_target = y_true.view_as(pred_probs).float()
        else:
            pred_probs = torch.softmax(y_pred, dim=1)
            if y_true.ndim == y_pred.ndim:
                y_true_squeezed = y_true.squeeze(1).long()
            else:
                y_true_squeezed = y_true.long()
                
            dice_target = F.one_hot(y_true_squeezed, num_classes=self.num_classes)
            if y_pred.ndim == 4: # 2D: (B, C, H, W)
                dice_target = dice_target.permute(0, 3, 1, 2)
            elif y_pred.ndim == 5: # 3D: (B, C, D, H, W)
                dice_target = dice_target.permute(0, 4, 1, 2, 3)
            dice_target = dice_target.float()

        axes = list(range(2, y_pred.ndim)) 
        if self.batch_dice:
            axes = [0] + axes

        intersection = torch.sum(pred_probs * dice_target, dim=axes)
        union = torch.sum(pred_probs, dim=axes) + torch.sum(dice_target, dim=axes)
        dice = (2.0 * intersection + self.smooth) / (union + self.smooth)

        return 1.0 - torch.mean(dice)

    def forward(self, y_pred: Union[torch.Tensor, dict, List], y_true: torch.Tensor) -> torch.Tensor:
        """
        Calculates Dice + CE Loss mimicking CrossEntropyLoss_wrapper structure.

        Parameters
        ----------
        y_pred : torch.Tensor, dict, or list of Tensors
            Model predictions. Can be a single tensor, a dict with "pred" and optionally "
            class" keys, or a list of tensors for deep supervision.
        y_true : torch.Tensor
            Ground truth masks.

        Returns
        -------
        loss : torch.Tensor
            Combined Dice + CE loss value.
        """
        # 1. Extract predictions dict if needed
        if self.separated_class_channel:
            _y_pred = y_pred["pred"]
            _y_pred_class = y_pred["class"]
            assert (
                y_true.shape[1] == 2
            ), f"In separated_class_channel setting the ground truth is expected to have 2 channels. Provided {y_true.shape}"
        else:
            _y_pred = y_pred["pred"] if isinstance(y_pred, dict) and "pred" in y_pred else y_pred

        # 2. Handle specific model source adaptations
        if self.model_source == "bmz" and self.num_classes <= 2 and _y_pred.shape[1] != y_true.shape[1]:
            y_true = torch.cat((1 - y_true, y_true), 1)

        # 3. Handle Lists for Deep Supervision
        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]
            _y_pred_class = [_y_pred_class] if self.separated_class_channel else None
            inter_output_weights = [1.0]
        else:
            w = [self.gamma**i for i in range(len(_y_pred))]
            s = sum(w)
            inter_output_weights = [x / s for x in w]

        # 4. Loop over outputs and calculate combined loss
        loss = 0
        for j, pd in enumerate(_y_pred):
            # Assumes `scale_target` is defined globally in your environment
            _y_true = scale_target(y_true, pd.shape[-self.ndim :]) if pd.shape[-self.ndim :] != y_true.shape[-self.ndim :] else y_true

            # Determine CE loss function (handles 'auto' rebalancing)
            if self.class_rebalance == "auto":
                if self.separated_class_channel:
                    weight_mask = weight_binary_ratio(_y_true[:, 0]) # Assumes global function
                    loss_fn = torch.nn.BCEWithLogitsLoss(weight=weight_mask)
                else:
                    if self.num_classes <= 2:
                        weight_mask = weight_binary_ratio(_y_true) # Assumes global function
                        loss_fn = torch.nn.BCEWithLogitsLoss(weight=weight_mask)
                    else:
                        loss_fn = self.loss
            else:
                loss_fn = self.loss

            # Calculate Loss based on routing
            if self.separated_class_channel:
                # Spatial branch (CE + Dice)
                ce_spatial = loss_fn(pd[:, 0], _y_true[:, 0].float())
                dice_spatial = self._compute_dice(pd[:, 0].unsqueeze(1), _y_true[:, 0].unsqueeze(1))
                combined_spatial_loss = (self.w_ce * ce_spatial) + (self.w_dice * dice_spatial)

                # Classification branch (CE only)
                class_loss = self.class_channel_loss(_y_pred_class[j], _y_true[:, -1].type(torch.long))

                # Apply channel weights
                _loss = (self.channel_weights[0] * combined_spatial_loss) + (self.channel_weights[1] * class_loss)
            
            else:
                if self.num_classes <= 2:
                    ce_l = loss_fn(pd, _y_true.type(torch.float32))
                else:
                    ce_l = loss_fn(pd, _y_true[:, 0].type(torch.long))
                
                dice_l = self._compute_dice(pd, _y_true)
                _loss = (self.w_ce * ce_l) + (self.w_dice * dice_l)
            
            loss += _loss * inter_output_weights[j]

        return loss


class ContrastCELoss(nn.Module):
    """
    Contrastive Cross Entropy Loss for semantic segmentation tasks. It mixes the main loss function and the constrastive loss.

    Parameters
    ----------
    main_loss : nn.Module
        The main loss function to be used for the segmentation task.

    ndim : int, optional
        Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes. Default is 2.

    weight : float, optional
        Weight for the contrastive loss. Default is 1.0.
        This weight is used to balance the contribution of the contrastive loss in the final loss calculation
        and can be adjusted based on the specific requirements of the task.

    ignore_index : int, optional
        Label to ignore in the loss calculation. Default is -1.
    """

    def __init__(
        self,
        main_loss: nn.Module,
        ndim: int = 2,
        weight: float = 1.0,
        ignore_index: int = -1,
    ):
        """
        Initialize the ContrastCELoss module.

        Parameters
        ----------
        main_loss : nn.Module
            The main loss function to be used for the segmentation task.

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes. Default is 2.

        weight : float, optional
            Weight for the contrastive loss. Default is 1.0.

        ignore_index : int, optional
            Label to ignore in the loss calculation. Default is -1.
        """
        super(ContrastCELoss, self).__init__()
        self.ndim = ndim
        self.main_loss = main_loss
        self.contrast_criterion = PixelContrastLoss(ignore_index=ignore_index, ndim=ndim)
        self.loss_weight = weight

    def forward(self, preds, target, with_embed=False):
        """
        Forward pass of the Contrastive Cross Entropy Loss.

        Parameters
        ----------
        preds : dict
            Dictionary containing the predictions from the model. It should contain:
            - "pred": Segmentation predictions.
            - "embed": Embedding predictions.
            - "segment_queue": Segment queues for contrastive learning.
            - "pixel_queue": Pixel queues for contrastive learning.

        target : torch.Tensor
            Ground truth segmentation masks.

        with_embed : bool, optional
            Whether to include the embedding in the loss calculation. Default is False.
        """
        assert "pred" in preds, "Segmentation prediction is missing in the input dictionary."
        assert "embed" in preds, "Embedding prediction is missing in the input dictionary."

        seg = preds["pred"]
        embedding = preds["embed"]

        segment_queue = preds["segment_queue"] if "segment_queue" in preds else None
        pixel_queue = preds["pixel_queue"] if "pixel_queue" in preds else None

        if seg.shape[-self.ndim :] != target.shape[-self.ndim :]:
            mode = "bilinear" if self.ndim == 2 else "trilinear"
            pred = F.interpolate(input=seg, size=target.shape[-self.ndim :], mode=mode, align_corners=True)
        else:
            pred = seg

        loss = self.main_loss(pred, target)

        loss_contrast = 0
        if segment_queue is not None and pixel_queue is not None:
            queue = torch.cat((segment_queue, pixel_queue), dim=1)

            # When the classes are less or equal 2 the background class channel is not added in BiaPy
            # so can't apply directly an argmax/max operation
            if seg.shape[1] <= 2:
                _, predict = seg.max(dim=1)

                if predict.ndim == 3:
                    offsets = torch.tensor([1, 2], device=seg.device).view(1, 2, 1, 1)
                else:
                    offsets = torch.tensor([1, 2], device=seg.device).view(1, 2, 1, 1, 1)
                predict = predict * offsets
                predict, _ = predict.max(dim=1)
            else:
                predict = torch.argmax(seg, 1)

            loss_contrast += self.contrast_criterion(
                embedding,
                labels=target,
                predict=predict,
                queue=queue,
            )
        else:
            loss_contrast += 0

        if with_embed:
            return loss + self.loss_weight * loss_contrast

        return loss + 0 * loss_contrast  # just a trick to avoid errors in distributed training


class PixelContrastLoss(nn.Module):
    """
    Pixel Contrastive Loss for semantic segmentation tasks.

    Supports hard anchor sampling and negative sampling for contrastive learning.
    """

    def __init__(
        self,
        temperature: float = 0.07,
        base_temperature: float = 0.07,
        ignore_index: int = -1,
        max_samples: int = 1024,
        max_views: int = 1,
        ndim: int = 2,
    ):
        """
        Initialize the Pixel Contrastive Loss for semantic segmentation tasks.

        Parameters
        ----------
        temperature : float, optional
            Temperature parameter for the contrastive loss. Default is 0.07.

        base_temperature : float, optional
            Base temperature for the contrastive loss. Default is 0.07.

        ignore_index : int, optional
            Label to ignore in the loss calculation. Default is -1.

        max_samples : int, optional
            Maximum number of samples to consider for the contrastive loss. Default is 1024.

        max_views : int, optional
            Maximum number of views to consider for the contrastive loss. Default is 1.

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes. Default is 2.
        """
        super(PixelContrastLoss, self).__init__()

        self.temperature = temperature
        self.base_temperature = base_temperature
        self.ignore_index = ignore_index
        self.max_samples = max_samples
        self.max_views = max_views
        self.ndim = ndim

    def _hard_anchor_sampling(
        self, X: torch.Tensor, y_hat: torch.Tensor, y: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Sample hard anchors from the input features and their corresponding labels.

        Parameters
        ----------
        X : torch.Tensor
            Input features of shape (batch_size, num_samples, feature_dim).
            E.g. (2, 32768, 256) for a batch size of 2, 32768 samples and 256 features.

        y_hat : torch.Tensor
            Ground truth labels of shape (batch_size, num_samples).
            E.g. (2, 32768) for a batch size of 2 and 32768 samples.

        y : torch.Tensor
            Predicted labels of shape (batch_size, num_samples).
            E.g. (2, 32768) for a batch size of 2 and 32768 samples.

        Returns
        -------
        X_ : torch.Tensor
            Sampled features of shape (total_classes, self.max_views, feature_dim).
            E.g. (82, 1, 256) for 82 classes (this can vary depeding on the classes
            found in the ground truth), and 256 features.

        y_ : torch.Tensor
            Sampled labels of shape (total_classes,). E.g. (82,) for 82 classes (this
            can vary depeding on the classes found in the ground truth).
        """
        batch_size, feat_dim = X.shape[0], X.shape[-1]

        classes = []
        total_classes = 0
        for ii in range(batch_size):
            this_y = y_hat[ii]
            this_classes = torch.unique(this_y)
            this_classes = [x for x in this_classes if x != self.ignore_index]
            this_classes = [x for x in this_classes if (this_y == x).nonzero().shape[0] > self.max_views]

            classes.append(this_classes)
            total_classes += len(this_classes)

        if total_classes == 0:
            return None, None  # type: ignore

        n_view = self.max_samples // total_classes
        n_view = min(n_view, self.max_views)

        X_ = torch.zeros((total_classes, n_view, feat_dim), dtype=torch.float).cuda()
        y_ = torch.zeros(total_classes, dtype=torch.float).cuda()

        X_ptr = 0
        for ii in range(batch_size):
            this_y_hat = y_hat[ii]
            this_y = y[ii]
            this_classes = classes[ii]

            for cls_id in this_classes:
                hard_indices = ((this_y_hat == cls_id) & (this_y != cls_id)).nonzero()
                easy_indices = ((this_y_hat == cls_id) & (this_y == cls_id)).nonzero()

                num_hard = hard_indices.shape[0]
                num_easy = easy_indices.shape[0]

                if num_hard >= n_view / 2 and num_easy >= n_view / 2:
                    num_hard_keep = n_view // 2
                    num_easy_keep = n_view - num_hard_keep
                elif num_hard >= n_view / 2:
                    num_easy_keep = num_easy
                    num_hard_keep = n_view - num_easy_keep
                elif num_easy >= n_view / 2:
                    num_hard_keep = num_hard
                    num_easy_keep = n_view - num_hard_keep
                else:
                    raise Exception("this shoud be never touched! {} {} {}".format(num_hard, num_easy, n_view))

                perm = torch.randperm(num_hard)
                hard_indices = hard_indices[perm[:num_hard_keep]]
                perm = torch.randperm(num_easy)
                easy_indices = easy_indices[perm[:num_easy_keep]]
                indices = torch.cat((hard_indices, easy_indices), dim=0)

                X_[X_ptr, :, :] = X[ii, indices, :].squeeze(1)
                y_[X_ptr] = cls_id
                X_ptr += 1

        return X_, y_

    def _sample_negative(self, Q: torch.Tensor):
        """
        Sample negative examples from the queue.

        The queue is expected to be of shape (class_num, cache_size, feat_size), where:
            - class_num is the number of classes,
            - cache_size is the number of samples per class,
            - feat_size is the size of the feature vector.

        Parameters
        ----------
        Q : torch.Tensor
            Queue of shape (class_num, cache_size, feat_size).
            E.g. (2, 60, 256) for 2 classes, 60 samples per class and 256 features.

        Returns
        -------
        X_ : torch.Tensor
            Sampled negative examples of shape (class_num * cache_size, feat_size).
            E.g. (120, 256) for 2 classes, 60 samples per class and 256 features.

        y_ : torch.Tensor

        """
        class_num, cache_size, feat_size = Q.shape

        X_ = torch.zeros((class_num * cache_size, feat_size)).float().cuda()
        y_ = torch.zeros((class_num * cache_size, 1)).float().cuda()
        sample_ptr = 0
        for ii in range(class_num):
            if ii == 0: continue
            this_q = Q[ii, :cache_size, :]

            X_[sample_ptr : sample_ptr + cache_size, ...] = this_q
            y_[sample_ptr : sample_ptr + cache_size, ...] = ii
            sample_ptr += cache_size

        return X_, y_

    def _contrastive(
        self,
        X_anchor: torch.Tensor,
        y_anchor: torch.Tensor,
        queue: Optional[torch.Tensor] = None,
    ):
        """
        Contrastive loss calculation.

        Parameters
        ----------
        X_anchor : torch.Tensor
            Anchor features of shape (total_classes, self.max_views, feature_dim).
            E.g. (82, 1, 256) for 82 classes (this can vary depeding on the classes
            found in the ground truth), and 256 features.

        y_anchor : torch.Tensor
            Anchor labels of shape (total_classes,). E.g. (82,) for 82 classes (this
            can vary depeding on the classes found in the ground truth).

        queue : torch.Tensor, optional
            Queue of negative examples of shape (class_num, cache_size, feat_size).
            E.g. (19, 10000, 256) for 19 classes, 10000 samples per class and 256 features.
            If not provided, the contrastive loss will be calculated using the anchor features only.
        """
        anchor_num, n_view = X_anchor.shape[0], X_anchor.shape[1]

        y_anchor = y_anchor.contiguous().view(-1, 1)
        anchor_count = n_view
        anchor_feature = torch.cat(torch.unbind(X_anchor, dim=1), dim=0)

        if queue is not None:
            X_contrast, y_contrast = self._sample_negative(queue)
            y_contrast = y_contrast.contiguous().view(-1, 1)
            contrast_count = 1
            contrast_feature = X_contrast
        else:
            y_contrast = y_anchor
            contrast_count = n_view
            contrast_feature = torch.cat(torch.unbind(X_anchor, dim=1), dim=0)

        mask = torch.eq(y_anchor, y_contrast.T).float().cuda()

        anchor_dot_contrast = torch.div(torch.matmul(anchor_feature, contrast_feature.T), self.temperature)

        logits_max, _ = torch.max(anchor_dot_contrast, dim=1, keepdim=True)

        logits = anchor_dot_contrast - logits_max.detach()

        mask = mask.repeat(anchor_count, contrast_count)
        neg_mask = 1 - mask

        logits_mask = torch.ones_like(mask).scatter_(1, torch.arange(anchor_num * anchor_count).view(-1, 1).cuda(), 0)

        mask = mask * logits_mask

        neg_logits = torch.exp(logits) * neg_mask
        neg_logits = neg_logits.sum(1, keepdim=True)

        exp_logits = torch.exp(logits)

        log_prob = logits - torch.log(exp_logits + neg_logits)

        mean_log_prob_pos = (mask * log_prob).sum(1) / mask.sum(1)

        loss = -(self.temperature / self.base_temperature) * mean_log_prob_pos
        loss = loss.mean()

        return loss

    def forward(
        self,
        feats: torch.Tensor,
        labels: torch.Tensor,
        predict: torch.Tensor,
        queue: Optional[torch.Tensor] = None,
    ):
        """
        Forward pass of the Pixel Contrastive Loss.

        Parameters
        ----------
        feats : torch.Tensor
            Input features of shape (batch_size, feat_size, H, W) or (batch_size, feat_size, D, H, W).
            E.g. (2, 256, 128, 256) for a batch size of 2, 256 features and a spatial size of 128x256.

        labels : torch.Tensor
            Ground truth labels of shape (batch_size, C, H, W) or (batch_size, C, D, H, W).
            E.g. (2, 1, 128, 256) for a batch size of 2, 1 channel and a
            spatial size of 128x256. 

        predict : torch.Tensor
            Predicted labels of shape (batch_size, H, W) or (batch_size, D, H, W).
            E.g. (2, 128, 256) for a batch size of 2 and a spatial size of 128x256.

        queue : torch.Tensor, optional
            Queue of negative examples of shape (class_num, cache_size, feat_size).
            E.g. (2, 60, 256) for 2 classes, 60 samples per class and 256 features.
            If not provided, the contrastive loss will be calculated using the anchor features only.

        Returns
        -------
        loss : torch.Tensor
            Contrastive loss value.
        """
        labels = torch.nn.functional.interpolate(labels.float().clone(), feats.shape[-self.ndim :], mode="nearest")

        # When working in instance segmentation the channels are more than 1 so we need to merge then into 
        # just one channel.
        if labels.shape[1] != 1:
            if labels.ndim == 4:
                offsets = torch.tensor([1, 2], device=labels.device).view(1, 2, 1, 1)
            else:
                offsets = torch.tensor([1, 2], device=labels.device).view(1, 2, 1, 1, 1)
            labels = labels * offsets
            labels, _ = labels.max(dim=1)
        # In semantic the target is already compressed into one channel
        else:  
            labels = labels.squeeze(1)
        labels = labels.long()
        
        assert labels.shape[-1] == feats.shape[-1], "Labels ({}) and features ({}) does not match in shape".format(
            labels.shape, feats.shape
        )

        batch_size = feats.shape[0]
        labels = labels.contiguous().view(batch_size, -1)
        predict = predict.contiguous().view(batch_size, -1)

        if feats.ndim == 4:
            feats = feats.permute(0, 2, 3, 1)
        else:
            feats = feats.permute(0, 2, 3, 4, 1)
        feats = feats.contiguous().view(feats.shape[0], -1, feats.shape[-1])

        
        feats_, labels_ = self._hard_anchor_sampling(feats, labels, predict)

        if feats_ is not None and labels_ is not None:
            loss = self._contrastive(feats_, labels_, queue=queue)
            return loss
        else:
            return 0


class instance_segmentation_loss:
    """
    Custom loss for instance segmentation tasks in BiaPy.

    This loss combines different loss functions (e.g., BCE, L1, CrossEntropy) for multiple output channels,
    such as binary masks, contours, distances, and class channels. It supports class rebalancing, masking
    of distance channels, and different instance segmentation output types (e.g., "regular", "synapses").
    The loss is configurable for various output channel combinations and can handle multi-class and 
    multi-head settings.

    Parameters
    ----------
    channel_weights : tuple of float, optional
        Weights to be applied to each output channel loss. E.g. (1, 0.2).

    out_channels : List of str, optional
        String specifying the output channels (e.g., ["F", "C"], ["B", "C", "P"], ["B","C","D"], etc.).

    losses_to_use : list of str, optional
        List of loss functions to use for each output channel (e.g., ["BCE", "MSE"]).

    channel_extra_opts : dict, optional
        Additional options for each output channel (e.g., {"D": {"mask_values": True}}).
    
    gt_channels_expected : int, optional
        Number of channels expected in the ground truth (default: 1).   

    class_rebalance : str, optional
        Whether to reweight classes (inside loss function) or not. Options are: "none" and "auto".

    class_weights : List[float], optional
        Weights for each class to be used in the loss calculation (default: None).

    ignore_index : int, optional
        Value to ignore in the loss calculation (default: -1).
    """

    def __init__(
        self,
        channel_weights=(1, 1),
        ndim: int = 2,
        class_rebalance_within_channels: bool = False,
        separated_class_channel: bool = False,
        out_channels=["F", "C"],
        losses_to_use=[],
        channel_extra_opts={},
        gt_channels_expected: int = 1,
        class_rebalance: str = "none",
        class_weights: List[float] = [],
        ignore_index: int = -1,
        device = None,
    ):
        """
        Initialize the custom loss that mixed BCE and MSE depending on the ``out_channels`` variable.

        Parameters
        ----------
        channel_weights : 2 float tuple, optional
            Weights to be applied to be applied to each channel of the data. E.g. if working with F + C channels, 
            you can provide for example these weights: ``(1, 2)`` so the contours will have more importance in the
            loss calculation. 

        ndim : int, optional
            Number of dimensions of the input data. 2 for 2D images, 3 for 3D volumes.

        class_rebalance_within_channels : bool, optional
            Whether to apply a rebalancing strategy to the loss function to give more importance to underrepresented pixels within the channels.
            The weights are calculated automatically based on the number of pixels of each class. In the specific case of detection, where there
            are usually much less pixels representing the center of the objects to detect than background pixels, with this option activated, 
            the loss will give more importance to the pixels representing the center of the objects to help the model learn better to predict them.
        
        separated_class_channel : bool, optional
            When a separated class channel is expected in the predictions e.g. instances + classification in instance segmentation.

        out_channels : List of str, optional
            Channels to operate with.

        losses_to_use : list of str, optional
            List of loss functions to use for each output channel (e.g., ["ce", "bce", "mae"]).
        
        channel_extra_opts : dict, optional
            Additional options for each output channel (e.g., {"B": {"mask_values": True}}).

        gt_channels_expected : int, optional
            Number of channels expected in the ground truth (default: 1). This is used to check that the GT loaded has the
            expected number of channels. If ``extra_weight_in_borders`` is ``True``, then 1 channel will be added to the expected
            GT channels to account for the extra weight in borders channel.

        class_rebalance: str, optional
            Whether to reweight classes or not. This only works if ``separated_class_channel`` is ``True``. 
            Options are: "none" and ``"manual"``.

        class_weights : list of float, optional
            List of weights for each class to be used in ``"manual"`` class rebalancing. This only works when ``separated_class_channel`` is ``True`` and
            ``class_rebalance`` is ``"manual"``. E.g. ``[1, 1.7, 0.5]`` for 3 classes.

        ignore_index : int, optional
            Value to ignore in the loss calculation. If not provided, no value will be ignored.
        
        device : Torch device, optional
            Using device. Most commonly "cpu" or "cuda" for GPU, but also potentially "mps".
        """
        if separated_class_channel:
            if class_rebalance == "manual" and not class_weights:
                raise ValueError("class_weights must be provided when class_rebalance is 'manual'")

        self.channel_weights = channel_weights
        self.class_rebalance_within_channels = class_rebalance_within_channels 
        self.separated_class_channel = separated_class_channel
        self.ndim = ndim
        # 'I' is the virtual instance channel: the generator drops it before the model, so unlike 'We' it
        # never reaches the loss and must not be counted in the expected GT channels either.
        self.out_channels = [x for x in out_channels if x not in ("We", "I")]
        self.extra_weight_in_borders = out_channels.count("We") > 0
        self.gt_channels_expected = gt_channels_expected if not self.extra_weight_in_borders else gt_channels_expected + 1
        self.channel_extra_opts = channel_extra_opts
        # Flows are stored as unit vectors and scaled at loss time (5x for Cellpose, 1x for Omnipose).
        self.flow_target_scale = flow_target_scale(channel_extra_opts)
        self.class_rebalance = class_rebalance
        self.class_weights = None
        self.ignore_index = ignore_index
        self.ignore_values = True if ignore_index != -1 else False
        self.losses_to_use = losses_to_use
        self.device = device if device is not None else torch.device("cpu")
        self.gamma = 0.5

        if self.class_rebalance == "manual":
            self.class_weights = torch.tensor(class_weights, device=device, dtype=torch.float32)

        if len(self.losses_to_use) != 0:
            assert len(self.out_channels) == len(self.losses_to_use), "Length of out_channels and losses_to_use should be the same. Provided {} and {}".format(
                self.out_channels, self.losses_to_use
            )

        if self.separated_class_channel:
            self.class_channel_loss = torch.nn.CrossEntropyLoss(ignore_index=self.ignore_index, weight=self.class_weights, reduction="none")

    def _gt_channel_width(self, ch: str) -> int:
        """
        Number of physical channels a data channel occupies in the ground truth.

        Most channels are a single GT channel. The exceptions are those that expand: ``'R'`` (one per ray)
        and ``'A'`` (one per requested affinity). Note this is the *GT* width, which can differ from the
        prediction width (e.g. a discretized ``'Db'`` is a single index channel in the GT but a K+1-way
        softmax in the prediction).

        Parameters
        ----------
        ch : str
            Data channel name.

        Returns
        -------
        int
            Number of GT channels the channel occupies.
        """
        if ch == "R":
            return int(self.channel_extra_opts.get("R", {}).get("nrays", 32)) if self.channel_extra_opts else 32
        if ch == "A":
            a_opts = self.channel_extra_opts.get("A", {}) if self.channel_extra_opts else {}
            return (
                len(a_opts.get("z_affinities", []))
                + len(a_opts.get("y_affinities", []))
                + len(a_opts.get("x_affinities", []))
            ) or 1
        return 1

    def _foreground_mask(self, y_true: torch.Tensor) -> "Optional[torch.Tensor]":
        """
        Return a ``(B, 1, ...)`` float foreground mask from the ground-truth channels.

        Preference order: a dedicated binary channel — ``'F'``/``'M'`` (foreground=1) or ``'B'``
        (background=1 → foreground=0) — and, failing that, the ``'Db'`` distance-to-boundary channel, which
        is ``> 0`` exactly on foreground pixels (StarDist-style setups have no binary channel, only
        ``'Db'`` + ``'R'``). The GT channel offset is accumulated from the physical width of each preceding
        channel (see :meth:`_gt_channel_width`) rather than the list position, so it stays correct when an
        earlier channel expands into several GT channels (e.g. ``'R'`` → nrays).

        Parameters
        ----------
        y_true : torch.Tensor
            Ground-truth mask with channels laid out as in ``self.out_channels``.

        Returns
        -------
        torch.Tensor or None
            Float foreground mask, or ``None`` when no suitable channel is present.
        """
        phys = 0
        db_offset = None
        for ch in self.out_channels:
            if ch in ("F", "M"):
                return (y_true[:, phys : phys + 1] > 0).float()
            if ch == "B":
                return (y_true[:, phys : phys + 1] == 0).float()
            if ch == "Db" and db_offset is None:
                db_offset = phys
            phys += self._gt_channel_width(ch)
        # Fall back to 'Db' (>0 on foreground) only after ruling out every binary channel.
        if db_offset is not None:
            return (y_true[:, db_offset : db_offset + 1] > 0).float()
        return None

    def __call__(self, y_pred, y_true):
        """
        Calculate instance segmentation loss.

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor or list of Tensors
            Predictions.

        Returns
        -------
        loss : torch.Tensor
            Loss value.
        """
        if isinstance(y_pred, dict):
            _y_pred = y_pred["pred"]
        else:
            _y_pred = y_pred
    
        if self.separated_class_channel:
            assert isinstance(y_pred, dict), "When separated_class_channel is True, y_pred should be a dict with 'pred' and 'class' keys. Provided type: {}".format(type(y_pred))
            assert "class" in y_pred, "When separated_class_channel is True, y_pred should be a dict with 'pred' and 'class' keys. Provided keys: {}".format(y_pred.keys())
            _y_pred_class = y_pred["class"]

        assert (y_true.shape[1] == self.gt_channels_expected), (
            "Seems that the GT loaded doesn't have {} channels as expected in {}. GT shape: {}".format(
                self.gt_channels_expected, self.out_channels, y_true.shape
            )
        )

        w_borders = None
        if self.extra_weight_in_borders:
            w_borders = y_true[:, -1]

        if not isinstance(_y_pred, list):
            _y_pred = [_y_pred]
            _y_pred_class = [_y_pred_class] if self.separated_class_channel else None
            inter_output_weights = [1.0]
        else:
            w = [self.gamma**i for i in range(len(_y_pred))]
            s = sum(w)
            inter_output_weights = [x / s for x in w]

        loss = 0
        for idx, pd in enumerate(_y_pred):
            inter_output_loss = 0
            for i, channel in enumerate(self.out_channels):
                pred_ch_start = self.out_channels.index(channel)
                gt_ch_start = pred_ch_start
                if channel == "A":
                    pred_ch_end = pd.shape[1]
                    gt_ch_end = pred_ch_end
                elif channel == "R":
                    pred_ch_end = self.channel_extra_opts["R"].get("nrays", 32) + pred_ch_start
                    gt_ch_end = pred_ch_end
                elif channel == "Db":
                    val_type = self.channel_extra_opts.get("Db", {}).get("val_type", "norm")
                    if val_type == "discretize":
                        db_dis_bin_size = 0.1
                        db_dis_K = int(round(1.0 / db_dis_bin_size))  # 10
                        db_channels = db_dis_K + 1   
                    else:
                        db_channels = 1
                    pred_ch_end = pred_ch_start + db_channels
                    gt_ch_end = pred_ch_start + 1
                else:
                    pred_ch_end = pred_ch_start + 1
                    gt_ch_end = pred_ch_end

                y_pred_slice = pd[:, pred_ch_start:pred_ch_end]
                y_true_slice = y_true[:, gt_ch_start:gt_ch_end].float()

                # element-wise mask for the loss
                mask_vals = self.channel_extra_opts.get(channel, {}).get("mask_values", False)
                mask = None
                if channel in ("Gv", "Gh", "Gz"):
                    # Scale the flow target by flow_target_scale here and compute the MSE over the
                    # whole patch (background targets are 0, driving predictions to 0 outside cells),
                    # so leave mask=None.
                    y_true_slice = y_true_slice * self.flow_target_scale
                    mask = None
                elif channel in ("Db", "Dc", "Dn", "R"):
                    # 'mask_values' restricts the loss to foreground (F/M/B or Db>0, else y_true_slice>0).
                    # mask_values=False covers the whole image, as a probability channel needs (e.g.
                    # StarDist's 'Db' BCE, where background is a real 0 target).
                    if mask_vals:
                        mask = self._foreground_mask(y_true)
                        if mask is None:
                            mask = (y_true_slice > 0).float()
                    else:
                        mask = None
                elif mask_vals:
                    mask = (y_true_slice != 0).float()
                    if self.ignore_values:
                        mask = mask * (y_true_slice != self.ignore_index).float()

                if y_pred_slice.shape[-self.ndim :] != y_true_slice.shape[-self.ndim :]:
                    y_true_slice = scale_target(y_true_slice, y_pred_slice.shape[-self.ndim :])

                # class-rebalance weight (per-pixel spatial map) for BCE only.
                # CrossEntropyLoss.weight expects a 1-D (C,) per-class tensor, not a spatial
                # map, so weight_binary_ratio is not applicable there.
                weight = None
                if self.losses_to_use[i] == "bce" and channel in ["B","F","P","C","T","A","M","F_pre","F_post"]:
                    if self.class_rebalance_within_channels:
                        weight = weight_binary_ratio(y_true_slice).float()
                    if self.ignore_values:
                        ignore_mask = (y_true_slice != self.ignore_index).float()
                        weight = ignore_mask if weight is None else weight * ignore_mask

                spatial_weight = None  # combined spatial weight, built below for BCE only

                # instantiate criterion with no reduction so we can mask/weight safely
                if self.losses_to_use[i] == "bce":
                    # weight is applied manually below so it can be additively combined with
                    # w_borders following the U-Net formula: w(x) = w_c(x) + w_border(x).
                    crit = torch.nn.BCEWithLogitsLoss(reduction="none")
                elif self.losses_to_use[i] == "ce":
                    crit = torch.nn.CrossEntropyLoss(reduction="none")
                    y_true_slice = y_true_slice.long().squeeze(1)
                elif self.losses_to_use[i] in ["l1", "mae"]:
                    crit = torch.nn.L1Loss(reduction="none")
                elif self.losses_to_use[i] == "mse":
                    crit = torch.nn.MSELoss(reduction="none")
                else:
                    raise ValueError("Loss function {} not recognized".format(self.losses_to_use[i]))

                if self.losses_to_use[i] != "ce":
                    y_pred_slice = y_pred_slice.float()
                    y_true_slice = y_true_slice.float()

                loss_tensor = crit(y_pred_slice, y_true_slice)  # same shape as slice

                # For BCE: build combined spatial weight w(x) = w_c(x) + w_border(x).
                # Addition keeps the border bump independent of the class-balance magnitude,
                # avoiding compounding amplification from multiplication.
                if self.losses_to_use[i] == "bce":
                    if weight is not None and w_borders is not None:
                        spatial_weight = weight + w_borders
                    elif w_borders is not None:
                        spatial_weight = w_borders
                    elif weight is not None:
                        spatial_weight = weight
                    if spatial_weight is not None:
                        loss_tensor = loss_tensor * spatial_weight
                elif w_borders is not None:
                    # For all other loss types apply w_borders multiplicatively (no additive
                    # class-balance term exists for them).
                    loss_tensor = loss_tensor * w_borders

                # apply optional element mask AFTER computing the per-element loss
                if mask is not None:
                    loss_tensor = loss_tensor * mask
                    # Normalise by masked *elements* (pixels x channels) so a multi-channel target like the
                    # 'R' rays is a true mean over rays (matching StarDist) and DATA_CHANNEL_WEIGHTS behave
                    # as set. The mask may have 1 channel or the full count, so scale by that ratio.
                    ch_factor = loss_tensor.shape[1] // mask.shape[1]
                    if spatial_weight is not None:
                        # Normalise by total weight inside the mask so the loss scale is
                        # invariant to the magnitude of the combined weight map.
                        denom = (spatial_weight * mask).sum().clamp_min(1.0) * ch_factor
                    else:
                        denom = mask.sum().clamp_min(1.0) * ch_factor
                else:
                    if spatial_weight is not None:
                        denom = spatial_weight.sum().clamp_min(1.0)
                    else:
                        denom = torch.tensor(loss_tensor.numel(), device=loss_tensor.device, dtype=loss_tensor.dtype)

                channel_loss_val = loss_tensor.sum() / denom
                inter_output_loss += self.channel_weights[i] * channel_loss_val
            
            if self.separated_class_channel:
                loss_tensor = self.class_channel_loss(_y_pred_class[idx], y_true[:, -1].type(torch.long))
                # multiply by spatial border weights after crit
                if w_borders is not None:
                    loss_tensor = loss_tensor * w_borders
                # Apply always a mask to the class channel to consider only the pixels where there is an instance (non-zero in the GT)
                # for the loss calculation, otherwise the loss value can be very low and not contribute to the training. 
                if mask is None:
                    mask = (y_true[:, -1] != 0).float()
                loss_tensor = loss_tensor * mask
                denom = mask.sum().clamp_min(1.0)
                loss += self.channel_weights[-1] * (loss_tensor.sum() / denom)
            
            loss += inter_output_weights[idx] * inter_output_loss

        return loss

def detection_metrics(
    true_points,
    pred_points,
    true_classes=None,
    pred_classes=None,
    tolerance=10,
    resolution: List[int | float] = [1, 1, 1],
    bbox_to_consider=[],
    verbose=False,
) -> Tuple[Dict[str, float], pd.DataFrame, pd.DataFrame]:
    """
    Calculate detection metrics (precision, recall, F1) for point-based object detection.

    Parameters
    ----------
    true_points : List of list
        List containing coordinates of ground truth points. E.g. ``[[5,3,2], [4,6,7]]``.

    pred_points : 4D Tensor
        List containing coordinates of predicted points. E.g. ``[[5,3,2], [4,6,7]]``.

    true_classes : List of ints, optional
        Classes of each ground truth points.

    pred_classes : List of ints, optional
        Classes of each predicted points.

    tolerance : optional, int
        Maximum distance far away from a GT point to consider a point as a true positive.

    resolution : List of int/float
        Weights to be multiply by each axis. Useful when dealing with anysotropic data to reduce the distance value
        on the axis with less resolution. E.g. ``(1,1,0.5)``.

    bbox_to_consider : List of tuple/list, optional
        To not take into account during metric calculation to those points outside the bounding box defined with
        this variable. Order is: ``[[z_min, z_max], [y_min, y_max], [x_min, x_max]]``. For example, using an image
        of ``10x100x200`` to not take into account points on the first/last slices and with a border of ``15`` pixel
        for ``x`` and ``y`` axes, this variable could be defined as follows: ``[[1, 9], [15, 85], [15, 185]]``.

    verbose : bool, optional
        To print extra information.

    Returns
    -------
    metrics : List of strings
        List containing precision, accuracy and F1 between the predicted points and ground truth.
    """
    if len(bbox_to_consider) > 0:
        assert len(bbox_to_consider) == 3, "'bbox_to_consider' need to be of length 3"
        assert [len(x) == 2 for x in bbox_to_consider], (
            "'bbox_to_consider' needs to be a list of " "two element array/tuple. E.g. [[1,1],[15,100],[10,200]]"
        )
    if true_classes is not None and pred_classes is None:
        raise ValueError("'pred_classes' must be provided when 'true_classes' is set")

    if true_classes is not None and pred_classes is not None:
        if len(true_classes) != len(true_points):
            raise ValueError("'true_points' and 'true_classes' length must be the same")
        if len(pred_classes) != len(pred_points):
            raise ValueError("'pred_points' and 'pred_classes' length must be the same")
        class_metrics = True
    else:
        class_metrics = False

    _true = np.array(true_points, dtype=np.float32)
    if len(pred_points) > 0:
        _pred = np.array(pred_points, dtype=np.float32)
    else:
        _pred = np.zeros((0, 3), dtype=np.float32)

    TP, FP, FN = 0, 0, 0
    tag = ["FN" for x in _true]
    fp_preds = list(range(1, len(_pred) + 1))
    dis = [-1 for x in _true]
    pred_id_assoc = [-1 for x in _true]

    TP_not_considered = 0
    if len(_true) > 0:
        # Multiply each axis for the its real value
        for i in range(len(resolution)):
            _true[:, i] *= resolution[i]
            _pred[:, i] *= resolution[i]

        # Create cost matrix
        distances = distance_matrix(_pred, _true)
        n_matched = min(len(_true), len(_pred))
        costs = -(distances >= tolerance).astype(float) - distances / (2 * n_matched)
        pred_ind, true_ind = linear_sum_assignment(-costs)

        # Analyse which associations are below the tolerance to consider them TP
        for i in range(len(pred_ind)):
            # Filter out those point outside the defined bounding box
            consider_point = False
            if len(bbox_to_consider) > 0:
                point = true_points[true_ind[i]]
                if (
                    bbox_to_consider[0][0] <= point[0] <= bbox_to_consider[0][1]
                    and bbox_to_consider[1][0] <= point[1] <= bbox_to_consider[1][1]
                    and bbox_to_consider[2][0] <= point[2] <= bbox_to_consider[2][1]
                ):
                    consider_point = True
            else:
                consider_point = True

            if distances[pred_ind[i], true_ind[i]] < tolerance:
                if consider_point:
                    TP += 1
                    tag[true_ind[i]] = "TP"
                else:
                    tag[true_ind[i]] = "NC"
                    TP_not_considered += 1
                fp_preds.remove(pred_ind[i] + 1)

            dis[true_ind[i]] = distances[pred_ind[i], true_ind[i]]
            pred_id_assoc[true_ind[i]] = pred_ind[i] + 1

        if TP_not_considered > 0:
            print(f"{TP_not_considered} TPs not considered due to filtering")
        FN = len(_true) - TP - TP_not_considered

    # FP filtering
    FP_not_considered = 0
    fp_tags = ["FP" for x in fp_preds]
    if len(bbox_to_consider) > 0:
        for i in range(len(fp_preds)):
            point = pred_points[fp_preds[i] - 1]
            if not (
                bbox_to_consider[0][0] <= point[0] <= bbox_to_consider[0][1]
                and bbox_to_consider[1][0] <= point[1] <= bbox_to_consider[1][1]
                and bbox_to_consider[2][0] <= point[2] <= bbox_to_consider[2][1]
            ):
                FP_not_considered += 1
                fp_tags[i] = "NC"

        print(f"{FP_not_considered} FPs not considered due to filtering")
    FP = len(fp_preds) - FP_not_considered

    # Create two dataframes with the GT and prediction points association made and another one with the FPs
    df, df_fp = None, None
    df_columns =[
        "gt_id",
        "pred_id",
        "distance",
        "tag",
        "axis-0",
        "axis-1",
        "axis-2",
        "gt_class",
        "pred_axis-0",
        "pred_axis-1",
        "pred_axis-2",
        "pred_class",
    ]
    if len(_true) > 0:
        _true = np.array(true_points, dtype=np.float32)
        if len(pred_points) > 0:
            _pred = np.array(pred_points, dtype=np.float32)
        else:
            _pred = np.zeros((0, 3), dtype=np.float32)

        # Capture FP coords
        fp_coords = np.zeros((len(fp_preds), _pred.shape[-1]))
        pred_fp_class = [-1] * len(fp_preds)
        for i in range(len(fp_preds)):
            fp_coords[i] = _pred[fp_preds[i] - 1]
            if class_metrics:
                assert pred_classes is not None
                pred_fp_class[i] = int(pred_classes[fp_preds[i] - 1])

        # Capture prediction coords
        pred_coords = np.zeros((len(pred_id_assoc), _pred.shape[-1]), dtype=np.float32)
        pred_class = [-1] * len(pred_id_assoc)
        if not class_metrics:
            true_classes = [-1] * len(pred_id_assoc)
        for i in range(len(pred_id_assoc)):
            if pred_id_assoc[i] != -1:
                pred_coords[i] = _pred[pred_id_assoc[i] - 1]
                if class_metrics:
                    assert pred_classes is not None
                    pred_class[i] = int(pred_classes[pred_id_assoc[i] - 1])
            else:
                pred_coords[i] = [0] * _pred.shape[-1]

        df = pd.DataFrame(
            zip(
                list(range(1, len(_true) + 1)),
                pred_id_assoc,
                dis,
                tag,
                _true[..., 0],
                _true[..., 1],
                _true[..., 2],
                true_classes,  # type: ignore
                pred_coords[..., 0],
                pred_coords[..., 1],
                pred_coords[..., 2],
                pred_class,
            ),  # type: ignore
            columns=df_columns,
        )
        df_fp = pd.DataFrame(
            zip(
                fp_preds,
                fp_coords[..., 0],
                fp_coords[..., 1],
                fp_coords[..., 2],
                fp_tags,
                pred_fp_class,
            ),
            columns=["pred_id", "axis-0", "axis-1", "axis-2", "tag", "pred_class"],
        )

    try:
        precision = TP / (TP + FP)
    except:
        precision = 0
    try:
        recall = TP / (TP + FN)
    except:
        recall = 0
    try:
        F1 = 2 * ((precision * recall) / (precision + recall))
    except:
        F1 = 0

    if not class_metrics:
        if df is not None:
            df = df.drop(columns=["gt_class", "pred_class"])
        if df_fp is not None:
            df_fp = df_fp.drop(columns=["pred_class"])
    else:
        if df is not None:
            # Class metrics must be computed only on true detections (TP by distance),
            # not on all Hungarian associations.
            tp_df = df[df["tag"] == "TP"]
            if len(tp_df) > 0:
                TP_classes = int((tp_df["gt_class"] == tp_df["pred_class"]).sum())
                FN_classes = int((tp_df["gt_class"] != tp_df["pred_class"]).sum())
            else:
                TP_classes = 0
                FN_classes = 0
        else:
            TP_classes = 0
            FN_classes = 0

        if TP_classes + FN_classes > 0:
            precision_classes = precision_score(
                tp_df["gt_class"], tp_df["pred_class"], average="macro", zero_division=0
            )
            recall_classes = recall_score(
                tp_df["gt_class"], tp_df["pred_class"], average="macro", zero_division=0
            )
            F1_classes = f1_score(
                tp_df["gt_class"], tp_df["pred_class"], average="macro", zero_division=0
            )
        else:
            precision_classes = 0
            recall_classes = 0
            F1_classes = 0

    if verbose:
        if len(bbox_to_consider) > 0:
            print(
                "Points in ground truth: {} ({} total but {} not considered), Points in prediction: {} "
                "({} total but {} not considered)".format(
                    len(_true),
                    len(true_points),
                    TP_not_considered,
                    len(_pred),
                    len(pred_points),
                    FP_not_considered,
                )
            )
        else:
            print("Points in ground truth: {}, Points in prediction: {}".format(len(_true), len(_pred)))
        print("True positives: {}, False positives: {}, False negatives: {}".format(int(TP), int(FP), int(FN)))
        if class_metrics:
            print("True positives (class): {}, False negatives (class): {}".format(int(TP_classes), int(FN_classes)))

    if not class_metrics:
        r_dict = {
            "Precision": precision,
            "Recall": recall,
            "F1": F1,
            "TP": int(TP),
            "FP": int(FP),
            "FN": int(FN),
        }
    else:
        r_dict = {
            "Precision": precision,
            "Recall": recall,
            "F1": F1,
            "TP": int(TP),
            "FP": int(FP),
            "FN": int(FN),
            "Precision (class)": precision_classes,
            "Recall (class)": recall_classes,
            "F1 (class)": F1_classes,
            "TP (class)": int(TP_classes),
            "FN (class)": int(FN_classes),
        }
    if df is None:
        if "gt_class" in df_columns:
            df_columns.remove("gt_class")
        if "pred_class" in df_columns:
            df_columns.remove("pred_class")
        df = pd.DataFrame(columns=df_columns)
    if df_fp is None:
        df_fp = pd.DataFrame(columns=["pred_id", "axis-0", "axis-1", "axis-2", "tag"])
    return r_dict, df, df_fp


class SSIM_loss(torch.nn.Module):
    """SSIM loss using torchmetrics StructuralSimilarityIndexMeasure."""

    def __init__(self, data_range, device):
        """
        Initialize the SSIM_loss module.

        Parameters
        ----------
        data_range : float
            The value range of the input images (e.g., 1.0 or 255).
        device : torch.device
            Device to use for computation.
        """
        super(SSIM_loss, self).__init__()
        self.ssim = StructuralSimilarityIndexMeasure(data_range=data_range).to(device, non_blocking=True)

    def forward(self, input, target):
        """
        Compute the SSIM loss.

        Parameters
        ----------
        input : torch.Tensor or dict
            Predicted images. If a dict, expects the prediction under the "pred" key.
        target : torch.Tensor
            Ground truth images.

        Returns
        -------
        loss : torch.Tensor
            1 minus the SSIM value (so that lower is better).
        """
        if isinstance(input, dict):
            input = input["pred"]
        return 1 - self.ssim(input, target)


class W_MAE_SSIM_loss(torch.nn.Module):
    """
    Weighted combination of MAE and SSIM loss.

    This loss combines Mean Absolute Error (MAE) and Structural Similarity Index Measure (SSIM)
    for image regression tasks, allowing the user to balance pixel-wise and perceptual similarity.
    """

    def __init__(self, data_range, device, w_mae=0.5, w_ssim=0.5):
        """
        Initialize the W_MAE_SSIM_loss module.

        Parameters
        ----------
        data_range : float
            The value range of the input images (e.g., 1.0 or 255).
        device : torch.device
            Device to use for computation.
        w_mae : float, optional
            Weight for the MAE loss component (default: 0.5).
        w_ssim : float, optional
            Weight for the SSIM loss component (default: 0.5).
        """
        super(W_MAE_SSIM_loss, self).__init__()
        self.w_mae = w_mae
        self.w_ssim = w_ssim
        self.mse = torch.nn.L1Loss().to(device, non_blocking=True)
        self.ssim = StructuralSimilarityIndexMeasure(data_range=data_range).to(device, non_blocking=True)

    def forward(self, input, target):
        """
        Compute the weighted sum of MAE and SSIM loss.

        Parameters
        ----------
        input : torch.Tensor or dict
            Predicted images. If a dict, expects the prediction under the "pred" key.
        target : torch.Tensor
            Ground truth images.

        Returns
        -------
        loss : torch.Tensor
            Weighted sum of MAE and (1 - SSIM) loss.
        """
        if isinstance(input, dict):
            input = input["pred"]
        return (self.mse(input, target) * self.w_mae) + ((1 - self.ssim(input, target)) * self.w_ssim)


class W_MSE_SSIM_loss(torch.nn.Module):
    """
    Weighted combination of MSE and SSIM loss.

    This loss combines Mean Squared Error (MSE) and Structural Similarity Index Measure (SSIM)
    for image regression tasks, allowing the user to balance pixel-wise and perceptual similarity.
    """

    def __init__(self, data_range, device, w_mse=0.5, w_ssim=0.5):
        """
        Initialize the W_MSE_SSIM_loss module.

        Parameters
        ----------
        data_range : float
            The value range of the input images (e.g., 1.0 or 255).
        device : torch.device
            Device to use for computation.
        w_mse : float, optional
            Weight for the MSE loss component (default: 0.5).
        w_ssim : float, optional
            Weight for the SSIM loss component (default: 0.5).
        """
        super(W_MSE_SSIM_loss, self).__init__()
        self.w_mse = w_mse
        self.w_ssim = w_ssim
        self.mse = torch.nn.MSELoss().to(device, non_blocking=True)
        self.ssim = StructuralSimilarityIndexMeasure(data_range=data_range).to(device, non_blocking=True)

    def forward(self, input, target):
        """
        Compute the weighted sum of MSE and SSIM loss.

        Parameters
        ----------
        input : torch.Tensor or dict
            Predicted images. If a dict, expects the prediction under the "pred" key.
        target : torch.Tensor
            Ground truth images.

        Returns
        -------
        loss : torch.Tensor
            Weighted sum of MSE and (1 - SSIM) loss.
        """
        if isinstance(input, dict):
            input = input["pred"]
        return (self.mse(input, target) * self.w_mse) + ((1 - self.ssim(input, target)) * self.w_ssim)


def n2v_loss_mse(y_pred, y_true):
    """
    Noise2Void MSE loss for self-supervised denoising.

    Parameters
    ----------
    y_pred : torch.Tensor or dict
        Predicted output.
    y_true : torch.Tensor
        Ground truth and mask.

    Returns
    -------
    loss : torch.Tensor
        Loss value.
    """
    if isinstance(y_pred, dict):
        y_pred = y_pred["pred"]
    target = y_true[:, :y_pred.shape[1]]
    mask = y_true[:, y_pred.shape[1]:]
    loss = torch.sum(torch.square(target - y_pred * mask)) / torch.sum(mask)
    return loss


class SSIM_wrapper:
    """Wrapper for SSIM loss using pytorch_msssim."""

    def __init__(self):
        """Initiate wrapper to SSIM loss function."""
        self.loss = SSIM(data_range=1, size_average=True, channel=1)

    def __call__(self, y_pred, y_true):
        """
        Calculate instance segmentation loss.

        Parameters
        ----------
        y_true : torch.Tensor
            Ground truth masks.

        y_pred : torch.Tensor or list of Tensors
            Predictions.

        Returns
        -------
        loss : torch.Tensor
            Loss value.
        """
        if isinstance(y_pred, dict):
            y_pred = y_pred["pred"]
        return 1 - self.loss(y_pred, y_true)


def lovasz_hinge(logits: torch.Tensor,
                 labels: torch.Tensor,
                 per_image: bool = True,
                 ignore_index: int | None = None) -> torch.Tensor:
    """
    Single-function binary Lovász hinge loss.
    - logits: unnormalized scores, same shape as labels (e.g. (1,H,W) or (1,D,H,W))
    - labels: {0,1} or bool tensor, same shape as logits
    - per_image: average loss per-item if a batch dim exists
    - ignore_index: label value to ignore (optional)
    """
    if logits.shape != labels.shape:
        raise ValueError(f"Shape mismatch: logits {logits.shape} vs labels {labels.shape}")

    # Handle per-image averaging if a batch dim is present
    if per_image and logits.dim() >= 2 and logits.size(0) > 1:
        losses = []
        for li, yi in zip(logits, labels):
            # Flatten and optionally filter ignore_index
            l_flat = li.reshape(-1)
            y_flat = yi.to(dtype=torch.long, device=li.device).reshape(-1)
            if ignore_index is not None:
                valid = (y_flat != ignore_index)
                l_flat = l_flat[valid]
                y_flat = y_flat[valid]
            if l_flat.numel() == 0:
                continue

            # Signs in {-1,+1}, hinge errors, sort desc
            signs = y_flat.float() * 2 - 1
            errors = 1 - l_flat * signs
            errs_sorted, perm = torch.sort(errors, descending=True)
            y_sorted = y_flat[perm].float()

            # Lovász gradient (Jaccard) in-place, no helpers
            p = y_sorted.numel()
            if p == 0:
                continue
            gts = y_sorted.sum()
            inter = gts - y_sorted.cumsum(0)
            union = gts + (1 - y_sorted).cumsum(0)
            jacc = 1.0 - inter / torch.clamp_min(union, 1.0)
            if p > 1:
                jacc[1:p] = jacc[1:p] - jacc[0:p-1]

            losses.append(F.relu(errs_sorted) @ jacc)

        return (torch.stack(losses).mean() if len(losses) else logits.new_tensor(0.0))

    # Single item (or per_image=False): same steps without the loop
    l_flat = logits.reshape(-1)
    y_flat = labels.to(dtype=torch.long, device=logits.device).reshape(-1)
    if ignore_index is not None:
        valid = (y_flat != ignore_index)
        l_flat = l_flat[valid]
        y_flat = y_flat[valid]
    if l_flat.numel() == 0:
        return logits.new_tensor(0.0)

    signs = y_flat.float() * 2 - 1
    errors = 1 - l_flat * signs
    errs_sorted, perm = torch.sort(errors, descending=True)
    y_sorted = y_flat[perm].float()

    p = y_sorted.numel()
    gts = y_sorted.sum()
    inter = gts - y_sorted.cumsum(0)
    union = gts + (1 - y_sorted).cumsum(0)
    jacc = 1.0 - inter / torch.clamp_min(union, 1.0)
    if p > 1:
        jacc[1:p] = jacc[1:p] - jacc[0:p-1]

    return F.relu(errs_sorted) @ jacc


class SpatialEmbLoss(nn.Module):
    """
    Spatial Embedding loss (2D/3D) inspired by `EmbedSeg <https://github.com/juglab/EmbedSeg>`__.

    Parameters
    ----------
    anisotropy : List of float or int, optional
        Voxel spacing ``(z, y, x)``; only the ratios matter (z carries the anisotropy).
    ndims : int, optional
        Number of spatial dimensions (2 or 3).
    center_mode : str, optional
        Object center used in the loss: ``"centroid"`` or ``"medoid"``.
    medoid_max_points : int, optional
        Sub-sample cap for the medoid to avoid an O(N^2) ``cdist`` on huge objects.
    channel_weights : List of float, optional
        Weights ``[foreground, instance, variance, seed]``.
    grid_size : int, optional
        Canonical coordinate grid; the per-pixel step is ``1 / (grid_size - 1)`` (EmbedSeg's ``n_x=n_y``).
    """

    def __init__(
        self,
        anisotropy: List[float | int] = [1, 1, 1],
        ndims: int = 2,
        center_mode: str = "centroid",
        medoid_max_points: Optional[int] = 10000,
        channel_weights: List[float] = [1.0, 1.0, 1.0, 1.0],
        grid_size: int = 1024,
    ):
        super().__init__()

        self.ndims = ndims
        self.center_mode = center_mode
        self.medoid_max_points = medoid_max_points

        # Canonical coordinate grid with a fixed per-pixel step 1/(grid_size-1), so training crops and
        # test images share one scale (the original's sigma init s = exp(10) assumes it). Built on
        # demand (no big buffer) and cached per input shape. z ratios carry the voxel anisotropy.
        self.grid_size = int(grid_size)
        self.norm = float(self.grid_size - 1)
        pixel_z = anisotropy[0] if ndims == 3 else 1
        self.ratio_x = float(anisotropy[2]) / float(anisotropy[1])
        self.ratio_y = 1.0
        self.ratio_z = float(pixel_z) / float(anisotropy[1])

        self.channel_weights = channel_weights
        self.foreground_weight, self.w_inst, self.w_var, self.w_seed = channel_weights
        self._coord_cache = {}

    def _coords_for(self, D: int, Z: int, H: int, W: int, device) -> torch.Tensor:
        """Coordinate map ``(D, [Z,] H, W)``; coordinate at index ``i`` is ``i * ratio_axis / norm``."""
        key = (str(device), D, Z, H, W)
        cached = self._coord_cache.get(key)
        if cached is not None:
            return cached

        ym = (torch.arange(H, device=device, dtype=torch.float32) * (self.ratio_y / self.norm)).view(1, -1, 1)
        xm = (torch.arange(W, device=device, dtype=torch.float32) * (self.ratio_x / self.norm)).view(1, 1, -1)
        if D == 2:
            coords = torch.cat((xm.expand(1, H, W), ym.expand(1, H, W)), 0)  # (2, H, W) as (x, y)
        else:
            zm = (torch.arange(Z, device=device, dtype=torch.float32) * (self.ratio_z / self.norm)).view(-1, 1, 1)
            coords = torch.stack(
                (xm.expand(Z, H, W), ym.expand(Z, H, W), zm.expand(Z, H, W)), 0
            )  # (3, Z, H, W) as (x, y, z)
        coords = coords.contiguous()
        self._coord_cache[key] = coords
        return coords

    def _calculate_binary_iou(self, pred, label):
        """Per-object IoU as an on-device scalar tensor (``clamp(min=1)`` avoids a host sync; the
        caller accumulates these and calls ``.item()`` once per batch)."""
        intersection = (label & pred).sum()
        union = (label | pred).sum()
        return intersection / union.clamp(min=1)
    
    @torch.no_grad()
    def _center_from_mask(
        self,
        coords: torch.Tensor,   # (D, ...)
        in_mask: torch.Tensor,  # (1, ...)
    ) -> torch.Tensor:
        """Object center ``(D, 1, ..., 1)`` from the mask's coordinates (centroid or medoid)."""
        D = coords.size(0)
        # Extract coordinates of all pixels/voxels in the instance: (N, D)
        pts = coords[in_mask.expand_as(coords)].view(D, -1).t().contiguous()  # (N, D)
        if pts.numel() == 0:
            # No pixels: fall back to zeros
            return torch.zeros(D, *([1] * (coords.dim() - 1)), device=coords.device, dtype=coords.dtype)

        if self.center_mode == "centroid" or pts.shape[0] == 1:
            c = pts.mean(0)  # (D,)
        else:
            # MEDOID: minimize sum of Euclidean distances to all other points
            # Optionally sub-sample to keep cdist tractable
            if self.medoid_max_points is not None and pts.shape[0] > self.medoid_max_points:
                idx = torch.randperm(pts.shape[0], device=pts.device)[: self.medoid_max_points]
                pts_sub = pts[idx]
                dist = torch.cdist(pts_sub, pts_sub, p=2)  # (M, M)
                sums = dist.sum(dim=1)
                best = torch.argmin(sums)
                c = pts_sub[best]  # approximate medoid
            else:
                dist = torch.cdist(pts, pts, p=2)  # (N, N)
                sums = dist.sum(dim=1)
                best = torch.argmin(sums)
                c = pts[best]  # exact medoid
        return c.view(D, *([1] * (coords.dim() - 1)))  # (D, 1, ..., 1)

    def forward(
        self,
        prediction: torch.Tensor,   # (B, C, H, W) or (B, C, D, H, W)
        instances: torch.Tensor,    # (B, H, W) or (B, D, H, W)
    ) -> Dict:
        if prediction.dim() not in (4, 5):
            raise ValueError(
                f"Unsupported prediction tensor dimensionality {prediction.dim()}. "
                "Expected 4D (B,C,H,W) or 5D (B,C,D,H,W)."
            )

        B = prediction.size(0)
        D = prediction.dim() - 2  # number of spatial dims (2 or 3)
        assert D in (2, 3), "Only 2D or 3D supported"
        assert D == self.ndims, f"Model ndims={D} does not match loss ndims={self.ndims}"

        # Spatial sizes
        if D == 2:
            H, W = prediction.size(2), prediction.size(3)
            # coords: (2, H, W) sliced from the canonical grid (grown if the input is larger)
            coords = self._coords_for(D, 1, H, W, prediction.device)
            total_voxels = H * W
        else:
            Z, H, W = prediction.size(2), prediction.size(3), prediction.size(4)
            # coords: (3, Z, H, W)
            coords = self._coords_for(D, Z, H, W, prediction.device)
            total_voxels = Z * H * W

        # Remove the extra channel dimension in instances; cast to int32 because
        # UInt16 is not supported by CUDA indexing operations (unique, eq, etc.)
        instances = instances[:, 0].to(torch.int32)

        # Channel partition
        emb_ch = D                   # 2 for 2D, 3 for 3D
        sig_ch = self.ndims          # equal to D
        seed_ch = 1

        loss = prediction.new_tensor(0.0)
        iou = prediction.new_tensor(0.0)

        for b in range(B):
            # offset (tanh) and seed (sigmoid) activations are already applied by the model head; here we
            # only add the coordinate grid to the offset. exp(sigma*10) below is part of the distance.
            spatial_emb = prediction[b, :emb_ch] + coords              # (D, ...)
            sigma = prediction[b, emb_ch:emb_ch + sig_ch]              # (D, ...)
            seed_map = prediction[b, emb_ch + sig_ch: emb_ch + sig_ch + seed_ch]  # (1, ...)

            var_loss = prediction.new_tensor(0.0)
            instance_loss = prediction.new_tensor(0.0)
            seed_loss = prediction.new_tensor(0.0)
            batch_iou = prediction.new_tensor(0.0)
            obj_count = 0

            instance = instances[b].unsqueeze(0)       # (1, ...)
            instance_ids = instance.unique()
            instance_ids = instance_ids[instance_ids != 0]

            # Regress background seeds to zero
            bg_mask = (instances[b] == 0).unsqueeze(0)  # (1, ...)
            if bg_mask.sum() > 0:
                seed_loss = seed_loss + torch.sum(torch.pow(seed_map[bg_mask] - 0, 2))

            for idv in instance_ids:
                in_mask = instance.eq(idv)  # (1, ...)

                center = self._center_from_mask(coords, in_mask)

                # Sigma stats on object pixels/voxels
                sigma_in = sigma[in_mask.expand_as(sigma)].view(sig_ch, -1)  # (D, N)
                s_mean = sigma_in.mean(1).view(sig_ch, 1)                    # (D, 1)

                # Variance loss (before exp), detaching mean to match originals
                var_loss = var_loss + torch.mean(torch.pow(sigma_in - s_mean.detach(), 2))

                # Distance field
                s = torch.exp(s_mean.view(sig_ch, *([1] * D)) * 10)          # (D, 1...1)
                dist = torch.exp(
                    -1 * torch.sum(torch.pow(spatial_emb - center, 2) * s, dim=0, keepdim=True)
                )  # (1, ...)

                # Instance (Lovász hinge) loss on the soft mask
                instance_loss = instance_loss + lovasz_hinge(dist * 2 - 1, in_mask)

                # Seed regression loss towards distance field (fg only)
                seed_loss = seed_loss + self.foreground_weight * torch.sum(
                    torch.pow(seed_map[in_mask] - dist[in_mask].detach(), 2)
                )

                # Measure IoU at 0.5 threshold (accumulated on-device; synced once below)
                batch_iou = batch_iou + self._calculate_binary_iou(dist > 0.5, in_mask)

                obj_count += 1

            if obj_count > 0:
                instance_loss = instance_loss / obj_count
                var_loss = var_loss / obj_count
                iou = iou + batch_iou / obj_count

            seed_loss = seed_loss / total_voxels

            loss = loss + (self.w_inst * instance_loss + self.w_var * var_loss + self.w_seed * seed_loss)

        loss = loss / B

        return {
            "losses": [loss + prediction.sum() * 0],
            "metrics": {"IoU": (iou / B).item()}  # single host sync per batch
        }

def pcc_loss(pred, target, eps=1e-8):
    """``1 - Pearson correlation coefficient``, per sample, averaged over the batch.

    Parameters
    ----------
    pred : torch.Tensor
        Predicted tensor, shape (B, ...).
    target : torch.Tensor
        Target tensor, same shape as ``pred``.
    eps : float
        Numerical stability constant guarding near-zero-variance samples.

    Returns
    -------
    torch.Tensor
        Scalar loss value.
    """
    B = pred.shape[0]
    pred_flat = pred.reshape(B, -1).to(torch.float32)
    target_flat = target.reshape(B, -1).to(torch.float32)
    pred_c = pred_flat - pred_flat.mean(dim=1, keepdim=True)
    target_c = target_flat - target_flat.mean(dim=1, keepdim=True)
    numerator = (pred_c * target_c).sum(dim=1)
    denominator = torch.sqrt(pred_c.pow(2).sum(dim=1) * target_c.pow(2).sum(dim=1) + eps)
    pcc = numerator / denominator
    return (1.0 - pcc).mean()


def charbonnier_loss(pred, target, eps=1e-3):
    """Charbonnier (robust L1) loss.

    A smooth approximation of L1 loss that is differentiable everywhere.

    Parameters
    ----------
    pred : torch.Tensor
        Predicted tensor.
    target : torch.Tensor
        Target tensor.
    eps : float
        Numerical stability constant.

    Returns
    -------
    torch.Tensor
        Scalar loss value.
    """
    diff = (pred - target).to(torch.float32)
    return torch.mean(torch.sqrt(diff * diff + eps**2))


def laplacian_loss(pred, target):
    """Laplacian edge-preserving loss.

    Computes L1 distance between Laplacian-filtered prediction and target,
    emphasizing edge and high-frequency structure.

    Parameters
    ----------
    pred : torch.Tensor
        Predicted image tensor ``(B, C, H, W)`` or ``(B, C, D, H, W)``.
    target : torch.Tensor
        Target image tensor of same shape as ``pred``.

    Returns
    -------
    torch.Tensor
        Scalar loss value.
    """
    ndim = pred.dim() - 2
    channels = pred.shape[1]

    # Kernels normalized by sum of abs weights (12 for 3D, 8 for 2D) -- unnormalized, this term's
    # gradient was ~5x larger than MAE's at the same point.
    if ndim == 3:
        # 3D Laplacian kernel: center -6, 6-neighbors are 1, others 0
        kernel = torch.tensor([
            [[0., 0., 0.], [0., 1., 0.], [0., 0., 0.]],
            [[0., 1., 0.], [1., -6., 1.], [0., 1., 0.]],
            [[0., 0., 0.], [0., 1., 0.], [0., 0., 0.]]
        ], device=pred.device, dtype=pred.dtype) / 12.0
        kernel = kernel.unsqueeze(0).unsqueeze(0)
        kernel = kernel.repeat(channels, 1, 1, 1, 1)
        p = F.conv3d(pred, kernel, padding=1, groups=channels)
        t = F.conv3d(target, kernel, padding=1, groups=channels)
    else:
        # 2D Laplacian kernel: center -4, 4-neighbors are 1, others 0
        kernel = torch.tensor([[0., 1., 0.], [1., -4., 1.], [0., 1., 0.]],
                              device=pred.device, dtype=pred.dtype) / 8.0
        kernel = kernel.unsqueeze(0).unsqueeze(0)
        kernel = kernel.repeat(channels, 1, 1, 1)
        p = F.conv2d(pred, kernel, padding=1, groups=channels)
        t = F.conv2d(target, kernel, padding=1, groups=channels)

    return F.l1_loss(p, t)


def fft_highfreq_loss(pred, target, eps=1e-6):
    """Frequency-domain loss emphasizing high-frequency details.

    Applies a radial distance mask to FFT magnitudes so that higher
    spatial frequencies contribute more to the loss.

    Parameters
    ----------
    pred : torch.Tensor
        Predicted image tensor ``(B, 1, H, W)`` or ``(B, 1, D, H, W)``.
    target : torch.Tensor
        Target image tensor same shape as ``pred``.
    eps : float
        Numerical stability constant.

    Returns
    -------
    torch.Tensor
        Scalar loss value.
    """
    p = clip_grad_norm_passthrough(pred[:, 0].float(), max_norm=0.1)
    t = target[:, 0].float()

    if p.dim() == 4: # 3D batch: (B, D, H, W)
        D, H, W = p.shape[-3:]
        fft_p = torch.fft.fftshift(torch.fft.fftn(p, dim=(-3, -2, -1)))
        fft_t = torch.fft.fftshift(torch.fft.fftn(t, dim=(-3, -2, -1)))

        zz = torch.arange(D, device=p.device) - D / 2
        yy = torch.arange(H, device=p.device) - H / 2
        xx = torch.arange(W, device=p.device) - W / 2
        Z, Y, X = torch.meshgrid(zz, yy, xx, indexing='ij')
        dist = torch.sqrt(X**2 + Y**2 + Z**2)
        mask = dist / (dist.max() + 1e-9)
        mask = mask.unsqueeze(0)
    else: # 2D batch: (B, H, W)
        fft_p = torch.fft.fftshift(torch.fft.fft2(p))
        fft_t = torch.fft.fftshift(torch.fft.fft2(t))

        H, W = p.shape[-2:]
        yy = torch.arange(H, device=p.device) - H / 2
        xx = torch.arange(W, device=p.device) - W / 2
        Y, X = torch.meshgrid(yy, xx, indexing='ij')
        dist = torch.sqrt(X**2 + Y**2)
        mask = dist / (dist.max() + 1e-9)
        mask = mask.unsqueeze(0)

    # Magnitude of the complex residual, Charbonnier-smoothed (see rfft_highfreq_loss below).
    diff = fft_p - fft_t
    smooth_mag = torch.sqrt(diff.real**2 + diff.imag**2 + eps**2)
    return (mask * smooth_mag).mean()


def rfft_highfreq_loss(pred, target, eps=1e-9):
    """Frequency-domain loss on the real-FFT half-spectrum, masked to emphasize high frequencies.

    Similar intent to :func:`fft_highfreq_loss`, computed on the cheaper real-input half-spectrum
    (``torch.fft.rfft2``/``rfftn``) instead of the full, fftshifted spectrum, with two fixes for
    numerical scale next to the pixel-domain loss terms: an "ortho"-normalized FFT (raw/unnormalized
    FFT magnitude is O(sqrt(H*W)), i.e. in the tens/hundreds for typical patch sizes) and the same
    radial-distance mask (an unmasked magnitude L1 is dominated by a few huge low-frequency/DC bins).

    Parameters
    ----------
    pred : torch.Tensor
        Predicted image tensor ``(B, 1, H, W)`` or ``(B, 1, D, H, W)``.
    target : torch.Tensor
        Target image tensor same shape as ``pred``.
    eps : float
        Numerical stability constant.

    Returns
    -------
    torch.Tensor
        Scalar loss value.
    """
    p = normalize_to_minus_one_one(clip_grad_norm_passthrough(pred[:, 0].float(), max_norm=0.1))
    t = normalize_to_minus_one_one(target[:, 0].float())

    if p.dim() == 4:  # 3D batch: (B, D, H, W)
        _, D, H, W = p.shape
        fft_p = torch.fft.rfftn(p, dim=(-3, -2, -1), norm="ortho")
        fft_t = torch.fft.rfftn(t, dim=(-3, -2, -1), norm="ortho")
        freq_d = torch.fft.fftfreq(D, device=p.device)
        freq_h = torch.fft.fftfreq(H, device=p.device)
        freq_w = torch.fft.rfftfreq(W, device=p.device)
        FD, FH, FW = torch.meshgrid(freq_d, freq_h, freq_w, indexing="ij")
        radius = torch.sqrt(FD**2 + FH**2 + FW**2)
    else:  # 2D batch: (B, H, W)
        _, H, W = p.shape
        fft_p = torch.fft.rfft2(p, norm="ortho")
        fft_t = torch.fft.rfft2(t, norm="ortho")
        freq_h = torch.fft.fftfreq(H, device=p.device)
        freq_w = torch.fft.rfftfreq(W, device=p.device)
        FH, FW = torch.meshgrid(freq_h, freq_w, indexing="ij")
        radius = torch.sqrt(FH**2 + FW**2)

    mask = (radius / (radius.max() + eps)).unsqueeze(0)
    # Magnitude of the complex residual (fft_p - fft_t), Charbonnier-smoothed. Not the difference
    # of magnitudes L1(|fft_p|,|fft_t|): that has zero gradient at fft_p==0, which is every non-DC
    # bin of a flat pred. Plain abs() on the residual is also unstable near-zero in complex64.
    diff = fft_p - fft_t
    smooth_mag = torch.sqrt(diff.real**2 + diff.imag**2 + eps**2)
    return (mask * smooth_mag).mean()


class _ClipGradNorm(torch.autograd.Function):
    """Identity in forward; clips the incoming gradient's norm to ``max_norm`` in backward.

    Bounds how much gradient a numerically fragile term (VGG/LPIPS/SSIM/RFFT/FFT, which divide by
    a variance/norm that can approach zero) can inject into `pred`.
    """

    @staticmethod
    def forward(ctx, x, max_norm):
        ctx.max_norm = max_norm
        return x

    @staticmethod
    def backward(ctx, grad_output):
        norm = grad_output.norm()
        if not torch.isfinite(norm):
            grad_output = torch.zeros_like(grad_output)
        elif norm > ctx.max_norm:
            grad_output = grad_output * (ctx.max_norm / (norm + 1e-12))
        return grad_output, None


def clip_grad_norm_passthrough(x: torch.Tensor, max_norm: float = 2.0) -> torch.Tensor:
    """Identity forward; clips (or zeroes, if non-finite) the gradient flowing back through `x`."""
    return _ClipGradNorm.apply(x, max_norm)


def normalize_to_minus_one_one(x: torch.Tensor) -> torch.Tensor:
    """Min-max normalize a tensor to the range [-1, 1].

    Used to bring arbitrary-range inputs (e.g. [0, 1] scale-range output)
    into the [-1, 1] domain expected by perceptual losses (VGG, LPIPS, SSIM).

    Parameters
    ----------
    x : torch.Tensor
        Input tensor of any range.

    Returns
    -------
    torch.Tensor
        Tensor rescaled to [-1, 1].
    """
    # min()/max() detached: they define a fixed rescale, not something to differentiate through
    # (left attached, their gradient blows up when x has near-zero variance).
    x_min = x.min().detach()
    x_max = x.max().detach()
    return ((x - x_min) / (x_max - x_min + 1e-9)) * 2 - 1


class VGG(nn.Module):
    """Perceptual loss based on VGG16 feature activations.

    This loss compares intermediate VGG feature maps of prediction and target
    images using an L1 distance. It is commonly used as a perceptual term in
    image-to-image GAN training.

    Notes
    -----
    - Uses pretrained ``torchvision.models.vgg16`` features up to layer ``:16``.
    - Supports both 2D `(B, C, H, W)` and 3D `(B, C, D, H, W)` tensors.
      For 3D inputs, depth is folded into batch to reuse 2D VGG.
    - Single-channel inputs are replicated to 3 channels before VGG.

    References
    ----------
    - Johnson et al., "Perceptual Losses for Real-Time Style Transfer and
      Super-Resolution", ECCV 2016.
      https://arxiv.org/abs/1603.08155
    - Implementation adapted for this project from:
      https://github.com/GolpedeRemo37/NafNet-in-AI4Life-Microscopy-Supervised-Denoising-Challenge
    """

    def __init__(self, device):
        """Initialize VGG perceptual loss.

        Parameters
        ----------
        device : torch.device
            Device where VGG features and loss operations are executed.
        """
        super().__init__()
        self.vgg = vgg16(weights=VGG16_Weights.IMAGENET1K_V1).features[:16].eval().to(device)
        for param in self.vgg.parameters():
            param.requires_grad = False
        self.loss = nn.L1Loss()
        self.register_buffer(
            "imagenet_mean",
            torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1).to(device)
        )
        self.register_buffer(
            "imagenet_std",
            torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1).to(device)
        )

    def _prep(self, x):
        """Pre-process a tensor for VGG: normalize to [-1,1], expand to 3ch, then ImageNet stats."""
        # 1. Min-max normalize to [-1, 1] (matches updated original)
        x = normalize_to_minus_one_one(x)
        # 2. Expand grayscale to 3 channels
        if x.shape[1] == 1:
            x = x.repeat(1, 3, 1, 1)
        # 3. Convert [-1, 1] → [0, 1], then apply ImageNet normalization
        x = (x + 1.0) / 2.0
        return (x - self.imagenet_mean) / self.imagenet_std

    def forward(self, pred, target):
        """Compute perceptual distance between prediction and target.

        Parameters
        ----------
        pred : torch.Tensor or dict
            Predicted image tensor. If dict, prediction is taken from ``pred['pred']``.
        target : torch.Tensor or dict
            Target image tensor. If dict, target is taken from ``target['pred']``.

        Returns
        -------
        torch.Tensor
            Scalar perceptual loss value (L1 over VGG features).
        """
        if isinstance(pred, dict):
            pred = pred["pred"]
        if isinstance(target, dict):
            target = target["pred"]

        # If 3D, fold Depth (dim 2) into Batch (dim 0) -> (B*D, C, H, W)
        if pred.dim() == 5:
            B, C, D, H, W = pred.shape
            pred = pred.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)
            target = target.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)

        # See `clip_grad_norm_passthrough`'s docstring: bounds the gradient this
        # variance-normalizing term can inject into `pred` when `pred` is near-constant.
        pred = clip_grad_norm_passthrough(pred, max_norm=0.1)

        pred_vgg = self.vgg(self._prep(pred))
        target_vgg = self.vgg(self._prep(target))
        return self.loss(pred_vgg, target_vgg)


class LPIPSLoss(nn.Module):
    """LPIPS perceptual loss, normalizing arbitrary-range input to [-1, 1] first."""

    def __init__(self, device):
        super().__init__()
        self.lpips = LearnedPerceptualImagePatchSimilarity(net_type="alex", normalize=False).eval().to(device)
        for param in self.lpips.parameters():
            param.requires_grad = False

    def forward(self, pred, target):
        if isinstance(pred, dict):
            pred = pred["pred"]
        if isinstance(target, dict):
            target = target["pred"]
        # See `clip_grad_norm_passthrough`'s docstring.
        pred = clip_grad_norm_passthrough(pred, max_norm=0.1)
        pred = normalize_to_minus_one_one(pred)
        target = normalize_to_minus_one_one(target)
        if pred.dim() == 5:
            B, C, D, H, W = pred.shape
            pred = pred.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)
            target = target.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)
        if pred.shape[1] == 1:
            pred = pred.repeat(1, 3, 1, 1)
            target = target.repeat(1, 3, 1, 1)
        return self.lpips(pred, target).mean()


class SSIMTermLoss(nn.Module):
    """``1 - SSIM``, normalizing arbitrary-range input to [-1, 1] first (matches VGG/LPIPS)."""

    def __init__(self, device):
        super().__init__()
        # data_range=2.0: inputs are normalized to [-1, 1] before SSIM.
        self.ssim = StructuralSimilarityIndexMeasure(data_range=2.0).to(device)

    def forward(self, pred, target):
        if isinstance(pred, dict):
            pred = pred["pred"]
        if isinstance(target, dict):
            target = target["pred"]
        # See `clip_grad_norm_passthrough`'s docstring.
        pred = clip_grad_norm_passthrough(pred, max_norm=0.1)
        pred_n = normalize_to_minus_one_one(pred)
        target_n = normalize_to_minus_one_one(target)
        if pred.dim() == 5:
            B, C, D, H, W = pred.shape
            pred_n = pred_n.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)
            target_n = target_n.permute(0, 2, 1, 3, 4).reshape(B * D, C, H, W)
        return 1.0 - self.ssim(pred_n, target_n)


class _FunctionalLoss(nn.Module):
    """Wraps a plain ``(pred, target) -> scalar`` function as an ``nn.Module``."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, pred, target):
        if isinstance(pred, dict):
            pred = pred["pred"]
        if isinstance(target, dict):
            target = target["pred"]
        return self.fn(pred, target)


class WeightedCompositeLoss(nn.Module):
    """Weighted sum of named sub-losses: ``sum(w_i * loss_i(pred, target))``.

    Shared building block for every workflow's ``LOSS.TYPE``/``LOSS.WEIGHTS`` composition (see
    ``resolve_weighted_composite_loss``) and for ``CycleGanLoss``'s reconstruction terms.
    """

    def __init__(self, weighted_terms):
        """
        Parameters
        ----------
        weighted_terms : list of (float, callable)
            ``(weight, loss_fn)`` pairs, ``loss_fn(pred, target) -> scalar tensor``. Only
            positive-weight entries should be passed in.
        """
        super().__init__()
        self._registered_modules = nn.ModuleList([fn for _, fn in weighted_terms if isinstance(fn, nn.Module)])
        self.weighted_terms = weighted_terms

    def forward(self, pred, target):
        if isinstance(pred, dict):
            pred = pred["pred"]
        if isinstance(target, dict):
            target = target["pred"]
        total = pred.new_zeros(())
        for w, fn in self.weighted_terms:
            total = total + w * fn(pred, target)
        return total


def continuous_image_loss_registry(device):
    """Name -> zero-arg factory for the atomic losses shared by every continuous-image workflow
    (IMAGE_TO_IMAGE, SUPER_RESOLUTION, SELF_SUPERVISED, and CycleGanLoss's reconstruction part).
    """
    return {
        "MAE": lambda: nn.L1Loss(),
        "MSE": lambda: nn.MSELoss(),
        "PCC": lambda: _FunctionalLoss(pcc_loss),
        "CHARBONNIER": lambda: _FunctionalLoss(charbonnier_loss),
        "VGG": lambda: VGG(device),
        "LPIPS": lambda: LPIPSLoss(device),
        "SSIM": lambda: SSIMTermLoss(device),
        "LAPLACIAN": lambda: _FunctionalLoss(laplacian_loss),
        "FFT": lambda: _FunctionalLoss(fft_highfreq_loss),
        "RFFT": lambda: _FunctionalLoss(rfft_highfreq_loss),
    }


def resolve_weighted_composite_loss(names, weights, registry, workflow_label):
    """Build a ``WeightedCompositeLoss`` from ``LOSS.TYPE``/``LOSS.WEIGHTS``-style lists.

    Parameters
    ----------
    names : list of str
        ``LOSS.TYPE``. Matched case-insensitively against ``registry``'s keys.
    weights : list of float
        ``LOSS.WEIGHTS``, same length as ``names``.
    registry : dict of str -> zero-arg callable
        Maps an allowed (uppercased) name to a factory building that term's loss module/callable.
    workflow_label : str
        Used only in the error message when a name isn't in ``registry``.

    Returns
    -------
    WeightedCompositeLoss
    """
    assert len(names) == len(weights), (
        f"'LOSS.TYPE' and 'LOSS.WEIGHTS' must have the same length, got {len(names)} vs {len(weights)}"
    )
    terms = []
    for name, w in zip(names, weights):
        key = str(name).upper()
        assert key in registry, (
            f"'{name}' is not a valid LOSS.TYPE entry for {workflow_label}; options: {sorted(registry)}"
        )
        if w == 0:
            continue
        terms.append((w, registry[key]()))
    assert terms, f"'LOSS.WEIGHTS' must have at least one positive entry (LOSS.TYPE={list(names)})"
    return WeightedCompositeLoss(terms)


class CycleGanLoss(nn.Module):
    """Weighted composite loss for generator and discriminator training.

    This class combines multiple objectives for GAN-based image restoration:

    - Adversarial BCE term
    - L1 reconstruction term
    - MSE reconstruction term
    - VGG perceptual term
    - SSIM term

    Each term is controlled by ``LOSS.TYPE``/``LOSS.WEIGHTS`` (plus ``LOSS.GAN`` for the
    adversarial term's own knobs). Heavy components (VGG/SSIM modules) are created only
    when their weight is greater than zero.

    References
    ----------
    - Isola et al., "Image-to-Image Translation with Conditional Adversarial
        Networks", CVPR 2017 (pix2pix).
        https://arxiv.org/abs/1611.07004
    - Generator family inspiration (NAFNet/NAFSSR):
        Chu et al., "NAFSSR: Stereo Image Super-Resolution Using NAFNet",
        CVPR Workshops 2022.
        https://openaccess.thecvf.com/content/CVPR2022W/NTIRE/html/Chu_NAFSSR_Stereo_Image_Super-Resolution_Using_NAFNet_CVPRW_2022_paper.html
    - Structural/perceptual metrics are implemented with torchmetrics
        (e.g., ``torchmetrics.image.StructuralSimilarityIndexMeasure``).
    - Implementation adapted for this project from:
        https://github.com/GolpedeRemo37/NafNet-in-AI4Life-Microscopy-Supervised-Denoising-Challenge
    """

    def __init__(self, cfg, device):
        """Initialize composed GAN loss from configuration.

        Parameters
        ----------
        cfg : yacs.config.CfgNode
                Global configuration node. Uses ``cfg.LOSS.TYPE``/``cfg.LOSS.WEIGHTS`` and ``cfg.LOSS.GAN``.
        device : torch.device
                Device where loss terms are computed.
        """
        super().__init__()
        self.device = device

        # "BCE"/"HINGE" are pulled out into self.w_gan/self.gan_type instead of the composite,
        # since the adversarial term needs d_fake, not just (pred, target).
        names = list(cfg.LOSS.TYPE)
        weights = list(cfg.LOSS.WEIGHTS)
        assert len(names) == len(weights), (
            f"'LOSS.TYPE' and 'LOSS.WEIGHTS' must have the same length, got {len(names)} vs {len(weights)}"
        )
        registry = continuous_image_loss_registry(device)
        self.w_gan = 0.0
        self.gan_type = None
        recon_terms = []
        for name, w in zip(names, weights):
            key = str(name).upper()
            if key in ("BCE", "HINGE"):
                assert self.gan_type is None, "'LOSS.TYPE' must not include both 'BCE' and 'HINGE'"
                self.gan_type = key.lower()
                self.w_gan = w
                continue
            assert key in registry, (
                f"'{name}' is not a valid LOSS.TYPE entry for CYCLEGAN; options: {sorted(registry) + ['BCE', 'HINGE']}"
            )
            if w == 0:
                continue
            recon_terms.append((w, registry[key]()))
        self.recon_loss_fn = WeightedCompositeLoss(recon_terms) if recon_terms else None

        self.r1_gamma = cfg.LOSS.GAN.R1_GAMMA
        self.adaptive_gan_weight = cfg.LOSS.GAN.ADAPTIVE_GAN_WEIGHT
        self.bce = nn.BCEWithLogitsLoss()

    def _calculate_adaptive_weight(self, recon_loss, g_loss, last_layer):
        """Gradient-norm ratio (recon/adv) at the last layer, clamped to [0, 1e4]. VQGAN trick."""
        recon_grads = torch.autograd.grad(recon_loss, last_layer, retain_graph=True)[0]
        g_grads = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
        d_weight = torch.norm(recon_grads) / (torch.norm(g_grads) + 1e-4)
        return torch.clamp(d_weight, 0.0, 1e4).detach()

    def forward_generator(self, pred, target, d_fake, last_layer=None):
        """Compute weighted generator loss.

        Parameters
        ----------
        pred : torch.Tensor or dict
            Generator prediction. If dict, reads ``pred['pred']``.
        target : torch.Tensor or dict
            Ground-truth target. If dict, reads ``target['pred']``.
        d_fake : torch.Tensor
            Discriminator logits for generated samples.
        last_layer : torch.nn.Parameter, optional
            Weight of the generator's final conv. Required for
            ``LOSS.GAN.ADAPTIVE_GAN_WEIGHT``; ignored otherwise.

        Returns
        -------
        torch.Tensor
            Scalar generator loss as weighted sum of active terms.
        """
        # Dict extraction
        if isinstance(pred, dict): pred = pred["pred"]
        if isinstance(target, dict): target = target["pred"]

        pred = torch.nan_to_num(pred, nan=0.0, posinf=1.0, neginf=-1.0)
        target = torch.nan_to_num(target, nan=0.0, posinf=1.0, neginf=-1.0)

        if self.recon_loss_fn is not None:
            recon_loss = self.recon_loss_fn(pred, target)
        else:
            recon_loss = torch.tensor(0.0, device=self.device)

        total_loss = recon_loss

        if self.w_gan > 0:
            if self.gan_type == "hinge":
                g_loss = F.softplus(-d_fake).mean()
            else:
                g_loss = self.bce(d_fake, torch.ones_like(d_fake))

            if self.adaptive_gan_weight and last_layer is not None:
                d_weight = self._calculate_adaptive_weight(recon_loss, g_loss, last_layer) * self.w_gan
            else:
                d_weight = self.w_gan
            total_loss = total_loss + d_weight * g_loss

        if torch.isnan(total_loss):
            print("Warning: NaN detected in generator loss. Returning zero loss.")
            total_loss = torch.tensor(0.0, requires_grad=True).to(self.device)

        return total_loss

    def forward_discriminator(self, d_real, d_fake, real_images=None):
        """Compute discriminator adversarial loss.

        Uses BCE with one-sided label smoothing for real logits (or hinge loss,
        depending on whether ``LOSS.TYPE`` has 'BCE' or 'HINGE').

        Parameters
        ----------
        d_real : torch.Tensor
            Discriminator logits for real samples.
        d_fake : torch.Tensor
            Discriminator logits for generated samples.
        real_images : torch.Tensor, optional
            Real image batch for R1 gradient penalty computation.

        Returns
        -------
        torch.Tensor
            Scalar discriminator loss.
        """
        if self.gan_type == "hinge":
            loss_real = torch.mean(F.relu(1.0 - d_real))
            loss_fake = torch.mean(F.relu(1.0 + d_fake))
            total_loss = 0.5 * (loss_real + loss_fake)
        else:
            real_loss = self.bce(d_real, torch.full_like(d_real, 0.9))  # Label smoothing (0.9 instead of 1.0)
            fake_loss = self.bce(d_fake, torch.zeros_like(d_fake))
            total_loss = (real_loss + fake_loss) / 2.0

        if real_images is not None and self.r1_gamma > 0:
            total_loss = total_loss + self.calculate_r1_penalty(d_real, real_images)

        if torch.isnan(total_loss):
            print("Warning: NaN detected in discriminator loss. Returning zero loss.")
            total_loss = torch.tensor(0.0, requires_grad=True).to(self.device)

        return total_loss

    def calculate_r1_penalty(self, d_real_logits, real_images):
        """Compute R1 gradient penalty for the discriminator.

        Encourages discriminator smoothness around the real data manifold.
        Requires ``real_images`` to be passed through with ``requires_grad=True``
        by the caller (see :meth:`forward_discriminator`).

        Parameters
        ----------
        d_real_logits : torch.Tensor
            Discriminator logits for real samples.
        real_images : torch.Tensor
            Real image batch.

        Returns
        -------
        torch.Tensor
            Scalar R1 penalty (0.0 if disabled).
        """
        if self.r1_gamma <= 0 or not d_real_logits.requires_grad:
            return torch.tensor(0.0, device=self.device)
        grads = torch.autograd.grad(
            outputs=d_real_logits.sum(), inputs=real_images,
            create_graph=True, retain_graph=True, only_inputs=True
        )[0]
        penalty = (grads.view(grads.size(0), -1).pow(2).sum(1)).mean()
        return 0.5 * self.r1_gamma * penalty


class WeightedBCEAffinityLoss(nn.Module):
    """Foreground/background-balanced BCE on affinity logits, via :func:`weight_binary_ratio`."""

    def __init__(self):
        """Initialize the weighted BCE affinity loss."""
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, pred_logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        Compute the weighted BCE loss.

        Parameters
        ----------
        pred_logits : torch.Tensor
            Raw (pre-sigmoid) affinity logits, ``(B, C, ...)``.

        target : torch.Tensor
            GT affinities (0/1), same shape as ``pred_logits``.

        Returns
        -------
        loss : torch.Tensor
            Scalar loss.
        """
        weight = weight_binary_ratio(target).float()
        loss = self.bce(pred_logits.float(), target.float())
        return (loss * weight).sum() / weight.sum().clamp_min(1.0)


def _soft_erode(img: torch.Tensor) -> torch.Tensor:
    """Morphological soft erosion (min-pool via ``-max_pool(-img)``), 2D or 3D."""
    if img.dim() == 4:
        p1 = -F.max_pool2d(-img, (3, 1), stride=1, padding=(1, 0))
        p2 = -F.max_pool2d(-img, (1, 3), stride=1, padding=(0, 1))
        return torch.min(p1, p2)
    else:
        p1 = -F.max_pool3d(-img, (3, 1, 1), stride=1, padding=(1, 0, 0))
        p2 = -F.max_pool3d(-img, (1, 3, 1), stride=1, padding=(0, 1, 0))
        p3 = -F.max_pool3d(-img, (1, 1, 3), stride=1, padding=(0, 0, 1))
        return torch.min(torch.min(p1, p2), p3)


def _soft_dilate(img: torch.Tensor) -> torch.Tensor:
    """Morphological soft dilation (max-pool), 2D or 3D."""
    if img.dim() == 4:
        return F.max_pool2d(img, (3, 3), stride=1, padding=1)
    else:
        return F.max_pool3d(img, (3, 3, 3), stride=1, padding=1)


def _soft_skeletonize(img: torch.Tensor, iters: int = 5) -> torch.Tensor:
    """
    Iterative soft skeletonization (Shit et al., clDice), 2D or 3D.

    Parameters
    ----------
    img : torch.Tensor
        Soft binary map, ``(B, 1, H, W)`` or ``(B, 1, D, H, W)``, values in ``[0, 1]``.

    iters : int, optional
        Number of soft-erosion iterations.

    Returns
    -------
    skel : torch.Tensor
        Soft skeleton, same shape as ``img``.
    """
    img1 = _soft_dilate(_soft_erode(img))
    skel = F.relu(img - img1)
    for _ in range(iters):
        img = _soft_erode(img)
        img1 = _soft_dilate(_soft_erode(img))
        delta = F.relu(img - img1)
        skel = skel + F.relu(delta - skel * delta)
    return skel


class CLDiceComponentPenaltyLoss(nn.Module):
    """
    clDice on a derived membrane probability, plus a spurious-component penalty.

    - clDice (Shit et al., https://arxiv.org/abs/2003.07311): soft-skeleton topology-preserving
      Dice between a "membrane probability" derived from the affinity logits
      (``1 - mean(sigmoid(logits), channel)``) and the same quantity from the target affinities.
    - Spurious-component penalty: connected components in the (detached, thresholded) predicted
      membrane probability with no overlap in the thresholded target get their mean predicted
      probability penalised toward 0.
    """

    def __init__(self, cl_iters: int = 5, smooth: float = 1.0, threshold: float = 0.5, component_weight: float = 1.0):
        """
        Initialize the clDice + spurious-component-penalty loss.

        Parameters
        ----------
        cl_iters : int, optional
            Soft-skeletonization iterations.

        smooth : float, optional
            clDice Laplace smoothing constant.

        threshold : float, optional
            Threshold used to binarize the (detached) membrane probability for the
            connected-component analysis.

        component_weight : float, optional
            Weight applied to the spurious-component penalty term relative to clDice.
        """
        super().__init__()
        self.cl_iters = cl_iters
        self.smooth = smooth
        self.threshold = threshold
        self.component_weight = component_weight

    def _membrane_prob(self, affinity_prob: torch.Tensor) -> torch.Tensor:
        """Derive a single-channel membrane probability from multi-channel affinity probabilities."""
        return 1.0 - affinity_prob.mean(dim=1, keepdim=True)

    def _spurious_component_penalty(self, membrane_pred: torch.Tensor, membrane_true: torch.Tensor) -> torch.Tensor:
        """Penalize the mean predicted probability inside predicted components with no GT overlap."""
        import scipy.ndimage as ndi

        pred_np = (membrane_pred.detach().cpu().numpy() > self.threshold)
        true_np = (membrane_true.detach().cpu().numpy() > self.threshold)
        penalty_weight = np.zeros_like(pred_np, dtype=np.float32)

        for b in range(pred_np.shape[0]):
            pred_bin = pred_np[b, 0]
            true_bin = true_np[b, 0]
            labeled, n = ndi.label(pred_bin)
            if n == 0:
                continue
            for lbl in range(1, n + 1):
                comp_mask = labeled == lbl
                if not (comp_mask & true_bin).any():
                    penalty_weight[b, 0][comp_mask] = 1.0

        weight_t = torch.from_numpy(penalty_weight).to(membrane_pred.device, membrane_pred.dtype)
        if weight_t.sum() == 0:
            return torch.zeros((), device=membrane_pred.device, dtype=membrane_pred.dtype)
        return (membrane_pred * weight_t).sum() / weight_t.sum().clamp_min(1.0)

    def forward(self, pred_logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """
        Compute the clDice + spurious-component-penalty loss.

        Parameters
        ----------
        pred_logits : torch.Tensor
            Raw (pre-sigmoid) affinity logits, ``(B, C, H, W)`` or ``(B, C, D, H, W)``.

        target : torch.Tensor
            GT affinities (0/1), same shape as ``pred_logits``.

        Returns
        -------
        loss : torch.Tensor
            Scalar loss (clDice + ``component_weight`` * spurious-component penalty).
        """
        affinity_prob = torch.sigmoid(pred_logits)
        membrane_pred = self._membrane_prob(affinity_prob)
        membrane_true = self._membrane_prob(target.float())

        skel_pred = _soft_skeletonize(membrane_pred, self.cl_iters)
        skel_true = _soft_skeletonize(membrane_true, self.cl_iters)

        tprec = (torch.sum(skel_pred * membrane_true) + self.smooth) / (torch.sum(skel_pred) + self.smooth)
        tsens = (torch.sum(skel_true * membrane_pred) + self.smooth) / (torch.sum(skel_true) + self.smooth)
        cl_dice = 1.0 - 2.0 * (tprec * tsens) / (tprec + tsens)

        penalty = self._spurious_component_penalty(membrane_pred, membrane_true)
        return cl_dice + self.component_weight * penalty