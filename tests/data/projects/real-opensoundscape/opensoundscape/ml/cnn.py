"""classes for pytorch machine learning models in opensoundscape

For tutorials, see notebooks on opensoundscape.org
"""

import copy
import json
import os
import warnings
from pathlib import Path
from time import time
from packaging import version

import numpy as np
import pandas as pd
import os
import copy

import os
import copy

import torch
from tqdm.autonotebook import tqdm

import opensoundscape
from opensoundscape.ml import cnn_architectures
from opensoundscape.ml.utils import (
    apply_activation_layer,
    check_labels,
    _version_mismatch_warn,
    _infinite_dataloader,
)
from opensoundscape.preprocess.preprocessors import (
    SpectrogramPreprocessor,
    preprocessor_from_dict,
)
from opensoundscape.preprocess import io
from opensoundscape.ml.datasets import AudioFileDataset
from opensoundscape.ml.dataloaders import collate_audio_samples
from opensoundscape.logging import wandb_table
from opensoundscape.ml import shallow_classifier
from opensoundscape.ml.cam import CAM
import torch
from torchmetrics.classification import (
    MulticlassAUROC,
    MulticlassAveragePrecision,
    MultilabelAUROC,
    MultilabelAveragePrecision,
)
from tqdm.autonotebook import tqdm

import opensoundscape
from opensoundscape.logging import wandb_table
from opensoundscape.ml import cnn_architectures, shallow_classifier
from opensoundscape.ml.base_model import BaseModule
from opensoundscape.ml.cam import CAM
from opensoundscape.ml.dataloaders import collate_audio_samples
from opensoundscape.ml.datasets import AudioFileDataset
from opensoundscape.ml.loss import (
    BCEWithLogitsLoss_hot,
    CrossEntropyLoss_hot,
    ResampleLoss,
)
from opensoundscape.ml.utils import (
    _version_mismatch_warn,
    _warn_output_size,
    apply_activation_layer,
    check_labels,
)
from opensoundscape.preprocess import io
from opensoundscape.preprocess.preprocessors import (
    SpectrogramPreprocessor,
    preprocessor_from_dict,
)
from opensoundscape.vector_database import _check_or_set_model_id, _require_hoplite

MODEL_CLS_DICT = dict()


def list_model_classes():
    """return list of available action function keyword strings
    (can be used to initialize Action class)
    """
    return list(MODEL_CLS_DICT.keys())


def register_model_cls(model_cls):
    """add class to MODEL_CLS_DICT

    this allows us to recreate the class when loading saved model file with load_model()

    """
    # register the model in dictionary
    MODEL_CLS_DICT[io.build_name(model_cls)] = model_cls
    # return the function
    return model_cls


def _require_grad_cam():
    try:
        import pytorch_grad_cam
    except ImportError as exc:
        raise ImportError(
            "generate_cams() requires the optional 'grad-cam' dependency. "
            "Install it with `pip install opensoundscape[grad-cam]` or `pip install grad-cam`."
        ) from exc

    return pytorch_grad_cam


class ChannelDimCheckError(Exception):
    pass


def get_channel_dim(model):

    # Get the first layer
    first_layer = list(model.children())[0]

    # If the first layer is a Sequential container, get its first module
    while isinstance(first_layer, torch.nn.Sequential):
        first_layer = list(first_layer.children())[0]

    # Get the number of input channels
    # try checking first layer's .in_channelss then .in_featuers
    try:
        return first_layer.in_channels
    except:
        raise ChannelDimCheckError(
            "Couldn't access .in_channels or .in_features of first layer"
        )


class SpectrogramModule(BaseModule):
    """Parent class for SpectrogramClassifier (pytorch) and LightningSpectrogramModule (lightning)

    implements functionality that is shared between both pure PyTorch and Lightning classes/workflows
    """

    def __init__(
        self,
        architecture,
        classes,
        sample_duration,
        sample_rate,
        single_target=False,
        preprocessor_dict=None,
        preprocessor_cls=SpectrogramPreprocessor,
        arch_weights="DEFAULT",
        **preprocessor_kwargs,
    ):
        """
        Args:
            architecture: a pytorch Module such as Resnet18 or a custom object
            classes: list of class names
            sample_duration: duration of audio samples in seconds
            sample_rate: audio sample rate (if None, audio is not resampled during preprocessing)
            single_target: if True, predict only class with max score
            preprocessor_dict: dictionary defining preprocessor and parameters,
                can be generated with preprocessor.to_dict()
                if not None, will override other preprocessor arguments
                (sample_duration, sample_height, sample_width, channels)
            preprocessor_cls:
                a class object that inherits from BasePreprocessor
                if preprocessor_dict is None, this class will be instantiated to set self.preprocessor
            arch_weights: weights to initialize architecture with, following pytorch convention.
                eg "DEFAULT" for pretrained weights or None for random initialization
                only used if `architecture` is a string matching a key in cnn_architectures.ARCH_DICT
                (ignored if `architecture` is a torch.nn.Module object)
            **preprocessor_kwargs: additional arguments to pass to the initialization of the preprocessor class
                this is ignored if preprocessor_dict is not None
                for the default SpectrogramPreprocessor, can pass any of:
                    width, height, channels, sample_rate, sample_shape, overlay_df
        """
        super().__init__()
        # don't allow ['file', 'start_time', 'end_time'] as class names since these are reserved for parsing samples dataframes
        if any(col in classes for col in ["file", "start_time", "end_time"]):
            raise ValueError(
                "Class names cannot be 'file', 'start_time', or 'end_time' since these column names are reserved for parsing samples dataframes"
            )
        self.classes = classes
        self._single_target = single_target
        self.name = "SpectrogramModule"
        self.class_outputs_key = (
            -1
        )  # key to use for model outputs corresponding to class predictions

        self.use_amp = False  # use automatic mixed precision
        self.lightning_mode = False  # True: skip things done automatically by Lightning

        self.lr_scheduler_step = -1
        """track number of calls to lr_scheduler.step()
        
        set to -1 to restart learning rate schedule from initial lr
        
        this value is used to initialize the lr_scheduler's `last_epoch` parameter
        it is tracked separately from self.current_step because the lr_scheduler
        might be stepped once per epoch, per step, or at other intervals

        Note that the initial learning rate is set via self.optimizer_params['kwargs']['lr']
        """

        ### PREPROCESSOR ###
        preprocessor_kwargs.update(
            sample_duration=sample_duration, sample_rate=sample_rate
        )

        if preprocessor_dict is None:
            self.preprocessor = preprocessor_cls(**preprocessor_kwargs)
        else:
            # reload a preprocessor serialized to a dictionary
            # finds the class using preprocessors.PREPROCESSOR_DICT lookup
            # note that some preprocessor settings may not be saved in the dictionary
            # in particular, Overlay augmentation's overlay_df and criterion_fn
            self.preprocessor = preprocessor_from_dict(preprocessor_dict)

        ### ARCHITECTURE ###
        # allow user to pass a string, in which case we look up the architecture
        # in cnn_architectures.ARCH_DICT and instantiate it
        if type(architecture) == str:
            assert architecture in cnn_architectures.list_architectures(), (
                f"architecture must be a pytorch model object or string matching "
                f"one of cnn_architectures.list_architectures() options. Got {architecture}"
            )
            architecture = cnn_architectures.ARCH_DICT[architecture](
                len(classes),
                num_channels=self.preprocessor.channels,
                weights=arch_weights,
            )
        else:  # user passed a torch.nn.Module object rather than a string
            assert issubclass(
                type(architecture), torch.nn.Module
            ), "architecture must be a string or an instance of a subclass of torch.nn.Module"

            # try to update channels arg to match architecture
            try:
                arch_channels = get_channel_dim(architecture)
                if self.preprocessor.channels != arch_channels:
                    warnings.warn(
                        f"Modifying .preprocessor to match architecture's expected number of channels ({arch_channels}) "
                        f"(originally {self.preprocessor.channels})."
                    )
                    self.preprocessor.channels = arch_channels
            except:
                pass  # couldn't check channel dim

        self.network = architecture
        """a pytorch Module such as Resnet18 or a custom object

        for convenience, __init__ also allows user to provide string matching
        a key from opensoundscape.ml.cnn_architectures.ARCH_DICT.
        
        List options: `opensoundscape.ml.cnn_architectures.list_architectures()`
        """

        ### LOSS FUNCTION ###
        # choose canonical loss for single or multi-target classification
        # can override by setting `self.loss_fn=...`
        if self.single_target:
            self.loss_fn = CrossEntropyLoss_hot()
        else:
            self.loss_fn = BCEWithLogitsLoss_hot()

        ### EVALUATION METRICS ###
        # These metrics are a good starting point
        # for single and multi-target classification
        # User can add/remove metrics as desired.
        self._init_torch_metrics()

        ### Logging ###
        self.wandb_logging = dict(
            n_preview_samples=8,  # before train/predict, log n random samples
            top_samples_classes=None,  # specify list of classes to see top samples from
            n_top_samples=3,  # after prediction, log n top scoring samples per class
            # logs histograms of params & grads every n batches;
            watch_freq=10,  # use  None for no logging of params & grads
            gradcam=True,  # if True, logs GradCAMs for top scoring samples during predict()
            # log the model graph to wandb - seems to cause issues when attempting to
            # continue training the model, so True is not recommended
            log_graph=False,
        )

        self.compute_per_class_metrics = True
        """if True, compute and log per-class metrics during training/validation"""

    def change_classifier(self, new_classifier, classes=None):
        """Replaces the classifier layer

        replaces the network's final linear classifier layer with a new classifier

        Args:
            new_classifier: the new classifier to replace the existing one
                typically, torch.nn.Linear or opensoundscape.ml.shallow_classifier.MLPClassifier object
            classes: optional list of class names to set for the new classifier; if None, will attempt to copy from new_classifier.classes attribute
        """
        if classes is None:
            try:
                classes = new_classifier.classes
            except AttributeError:
                raise ValueError(
                    "classes argument must be provided if new_classifier does not have a .classes attribute"
                )

        # get the number of input features to the classifier layer
        # for torch.nn.Linear and MLPClassifier, this is the in_features attribute
        # check that the new classifier has the same number of input features as the existing classifier layer, if possible
        try:
            in_features = self.classifier.in_features
            assert (
                new_classifier.in_features == in_features
            ), f"new_classifier has {new_classifier.in_features} input features, but expected {in_features} to match existing classifier layer."
        except AttributeError:
            warnings.warn(
                "Couldn't access .in_features of current classifier layer to check correct input dimension"
            )

        # replace the classifier layer with a new layer
        clf_layer_name = self.network.classifier_layer
        cnn_architectures.set_layer_from_name(
            self.network, clf_layer_name, new_classifier
        )

        # update class list
        self.classes = classes

        # re-initialize metrics, using the new number of classes
        # otherwise we'll get errors when computing metrics
        # (plus we should discard any old metrics after changing classes)
        self._init_torch_metrics()

    def change_classes(self, new_classes, hidden_layers=None):
        """change the classes that the model predicts

        replaces the network's final linear classifier layer with a new layer (or MLP, if
        hidden_layers is not None) initialized with random weights and the correct number of output
        features

        Supports torch.nn.Linear and opensoundscape.ml.shallow_classifier.MLPClassifier as the
        classifier layer to update. Will raise an error if self.network.classifier_layer is a
        different type

        Args:
            new_classes: list of class names
            hidden_layers: list of hidden layer sizes for the new classifier
                - None: creates a single torch.nn.Linear layer
                - (int, ...): creates an MLPClassifier object with hidden layers
                    of the specified sizes; eg (100, 50) creates 2 hidden layers
                    with 100 and 50 neurons, respectively.
                - (): empty tuple creates an MLPClassifier with no hidden layers
        """
        assert len(new_classes) > 0, "new_classes must have >0 elements"
        # don't allow ['file', 'start_time', 'end_time'] as class names since these are reserved for parsing samples dataframes
        if any(col in new_classes for col in ["file", "start_time", "end_time"]):
            raise ValueError(
                "Class names cannot be 'file', 'start_time', or 'end_time' since these column names are reserved for parsing samples dataframes"
            )

        # assert isinstance(self.classifier, torch.nn.Linear), (
        assert isinstance(
            self.classifier, (torch.nn.Linear, shallow_classifier.MLPClassifier)
        ), (
            f"Expected self.classifier to be a torch.nn.Linear or opensoundscape.ml.shallow_classifier.MLPClassifier, "
            f"but found {type(self.classifier)}."
        )

        # get the number of input features to the classifier layer
        # for torch.nn.Linear and MLPClassifier, this is the in_features attribute
        in_features = self.classifier.in_features

        # create a new classifier layer with the correct number of output features
        if hidden_layers is None:
            new_classifier = torch.nn.Linear(in_features, len(new_classes))
            new_classifier.classes = new_classes  # add classes attribute
        elif isinstance(hidden_layers, (list, tuple)):
            # create an MLPClassifier with the specified hidden layers
            new_classifier = shallow_classifier.MLPClassifier(
                input_size=in_features,
                output_size=len(new_classes),
                hidden_layer_sizes=hidden_layers,
                classes=new_classes,
            )
        else:
            raise ValueError(
                "hidden_layers must be None (for torch.nn.Linear), or list/tuple of integers (for MLPClassifier). "
                f"Got {hidden_layers} instead."
            )

        self.change_classifier(new_classifier, classes=new_classes)

    @property
    def classifier(self):
        """return the classifier layer of the network, based on .network.classifier_layer string"""
        return self.network.get_submodule(self.network.classifier_layer)

    @classifier.setter
    def classifier(self, new_classifier):
        self.change_classifier(new_classifier)

    @property
    def single_target(self):
        return self._single_target

    @single_target.setter
    def single_target(self, st):
        """Set single_target to True or False. If changed, re-initialize torch metrics

        Args:
            st: (bool) if True, uses softmax activation for evaluation, predicting only
                class with max score. If False, uses sigmoid activation, predicting all classes
                independently.
        """
        if not self._single_target == st:
            self._log(f"Updating torchmetrics and loss_fn to match single_target={st}")
            self._single_target = st
            self._init_torch_metrics()
            self.loss_fn = CrossEntropyLoss_hot() if st else BCEWithLogitsLoss_hot()

    def _generate_wandb_config(self):
        # create a dictionary of parameters to save for this run
        wandb_config = dict(
            architecture=io.build_name(self.network),
            sample_duration=self.preprocessor.sample_duration,
            cuda_device_count=torch.cuda.device_count(),
            mps_available=torch.backends.mps.is_available(),
            classes=self.classes,
            single_target=self.single_target,
            opensoundscape_version=self.opensoundscape_version,
        )
        if "weight_decay" in self.optimizer_params:
            wandb_config["l2_regularization"] = self.optimizer_params["weight_decay"]
        else:
            wandb_config["l2_regularization"] = "n/a"

        if "lr" in self.optimizer_params:
            wandb_config["learning_rate"] = self.optimizer_params["lr"]
        else:
            wandb_config["learning_rate"] = "n/a"

        try:
            wandb_config["sample_shape"] = [
                self.preprocessor.height,
                self.preprocessor.width,
                self.preprocessor.channels,
            ]
        except:
            wandb_config["sample_shape"] = "n/a"

        return wandb_config

    def _init_torch_metrics(self):
        if self.single_target:
            self.torch_metrics = {
                "map": MulticlassAveragePrecision(
                    len(self.classes), validate_args=False, thresholds=50
                ),
                # .log() doesn't allow logging lists of values, so we don't
                # log class-by-class metrics.
                # "class_ap": MulticlassAveragePrecision(
                #     len(self.classes),
                #     validate_args=False,
                #     average=None,
                #     thresholds=50,
                # ),
                "auroc": MulticlassAUROC(
                    len(self.classes),
                    validate_args=False,
                    thresholds=50,  # speeds up computation
                    average="macro",
                ),
                # "class_auroc": MulticlassAUROC(
                #     len(self.classes),
                #     validate_args=False,
                #     average=None,
                #     thresholds=50,
                # ),
            }
            self.score_metric = "auroc"
        else:
            self.torch_metrics = {
                "map": MultilabelAveragePrecision(
                    len(self.classes), validate_args=False, thresholds=50
                ),
                # "class_ap": MultilabelAveragePrecision(
                #     len(self.classes),
                #     validate_args=False,
                #     average=None,
                #     thresholds=50,
                # ),
                "auroc": MultilabelAUROC(
                    len(self.classes),
                    validate_args=False,
                    thresholds=50,
                    average="macro",
                ),
                # "class_auroc": MultilabelAUROC(
                #     len(self.classes), validate_args=False, thresholds=50, average=None
                # ),
            }
            self.score_metric = "auroc"

    def freeze_layers_except(self, train_layers=None):
        """Freeze all parameters of a model except the parameters in the target_layer(s)

        Freezing parameters means that the optimizer will not update the weights

        Modifies the model in place!

        Args:
            model: the model to freeze the parameters of
            train_layers: layer or list/iterable of the layers whose parameters should not be frozen
                For example: pass `model.classifier` to train only the classifier

        Example 1:
        ```
        freeze_all_layers_except(model, model.classifier)
        ```

        Example 2: freeze all but 2 layers
        ```
        freeze_all_layers_except(model, [model.layer1, model.layer2])
        ```
        """
        # handle single layer or list of layers
        if isinstance(train_layers, torch.nn.Module):
            train_layers = [train_layers]
        elif train_layers is None:
            train_layers = []

        for train_layer in train_layers:
            assert isinstance(
                train_layer, torch.nn.Module
            ), f"model attribute {train_layer} was not a torch.nn.Module"

        # first, disable gradients for all layers
        self.network.requires_grad_(False)

        # then, enable gradient updates for the target layers
        for train_layer in train_layers:
            train_layer.requires_grad_(True)

    def freeze_feature_extractor(self):
        """freeze all layers except self.classifier

        prepares the model for transfer learning where only the classifier is trained

        uses the attribute self.network.classifier_layer (via the .classifier attribute)
        to identify the classifier layer

        if this is not set will raise Exception - use freeze_layers_except() instead
        """
        try:
            clf_layer = self.classifier
            assert isinstance(clf_layer, torch.nn.Module)
        except Exception as e:
            raise ValueError(
                "freeze_feature_extractor() requires self.network.classifier_layer to be a string defining the classifier layer."
                "Consider using freeze_layers_except() and specifying layers to leave unfrozen."
            ) from e
        self.freeze_layers_except(train_layers=self.classifier)

    def unfreeze(self):
        """Unfreeze all layers & parameters of self.network

        Enables gradient updates for all layers & parameters

        Modifies the object in place
        """
        self.network.requires_grad_(True)


@register_model_cls
class SpectrogramClassifier(SpectrogramModule):
    """defines pure pytorch train, predict, and eval methods for a spectrogram classifier"""

    name = "SpectrogramClassifier"

    def __init__(
        self,
        architecture,
        classes,
        sample_duration,
        sample_rate,
        single_target=False,
        preprocessor_dict=None,
        preprocessor_cls=SpectrogramPreprocessor,
        device=None,
        **preprocessor_kwargs,
    ):
        """defines pure pytorch train, predict, and eval methods for a spectrogram classifier

        subclasses SpectrogramModule, defines methods that are used for pure PyTorch workflow. To
        use lightning, see ml.lightning.LightningSpectrogramModule.

        Args:
            architecture: a pytorch Module such as Resnet18 or a custom object
            classes: list of class names
            sample_duration: duration of audio samples in seconds
            sample_rate: audio sample rate
                - if None, audio is not resampled during preprocessing
            single_target: if True, predict only class with max score
            channels: number of channels in input data
            sample_height: height of input data
            sample_width: width of input data
            preprocessor_dict: dictionary defining preprocessor and parameters,
                can be generated with preprocessor.to_dict()
                if not None, will override other preprocessor arguments
                (sample_duration, sample_height, sample_width, channels)
            preprocessor_cls:
                a class object that inherits from BasePreprocessor
                if preprocessor_dict is None, this class will be instantiated to set self.preprocessor
            device: (torch.device or str) device to use for training and inference
                For example, 'cpu', 'cuda:0', 'mps', or torch.device('cuda:0')
                [default: None] if None, uses GPU if available, otherwise CPU
            **preprocessor_kwargs: additional arguments to pass to the initialization of the preprocessor class
                this is ignored if preprocessor_dict is not None
                for the default SpectrogramPreprocessor, can pass any of:
                    width, height, channels, sample_rate, sample_shape, overlay_df

        Methods:
            predict: generate predictions across a set of audio files or a dataframe defining audio
            files and start/end clip times

            train: fit the machine learning model using training data and evaluate with validation
            data

            save: save the model to a file load: load the model from a file

            embed: generate embeddings for a set of audio files

            generate_samples: creates preprocessed sample tensors, same arguments as predict()

            generate_cams: generate gradient activation maps for a set of audio files

            eval: evaluate performance by applying self.torch_metrics to predictions and labels

            run_evaluation: generate predictions and evaluate performance on samples with labels

            metrics change_classes: change the classes that the model predicts

            freeze_feature_extractor: freeze all layers except the classifier

            freeze_layers_except: freeze all parameters of a model, optionally exluding some layers

            train_dataloader: create dataloader for training predict_dataloader: create dataloader
            for inference (predict/validate/test)

            save_weights: save just the self.network state dict to a file

            load_weights: load just the self.network state dict from a file

        Editable Attributes & Properties:
            single_target: (bool) if True, predict only class with max score

            device: (torch.device or str) device to use for training and inference preprocessor:
            object defining preprocessing and augmentation operations, e.g. SpectrogramPreprocessor

            network: pytorch model object, e.g. Resnet18

            loss_fn: callable object to use for calculating loss during training, e.g.
            BCEWithLogitsLoss_hot()

            optimizer_params: (dict) with "class" and "kwargs" keys for class.__init__(**kwargs)

            lr_scheduler_params: (dict) with "class" and "kwargs" for class.__init__(**kwargs)
            use_amp: (bool) if True, uses automatic mixed precision for training wandb_logging:
            (dict) settings for logging to Weights and Biases

            score_metric: (str) name of the metric for overall evaluation - one of the keys in
            self.torch_metrics

            log_file: (str) path to save output to a text file logging_level: (int) amt of logging
            to log file. 0 for nothing, 1,2,3 for increasing logged info

            verbose: (int) amt of logging to stdout. 0 for nothing, 1,2,3 for increasing printed
            output

        Other attributes:
            torch_metrics: dictionary of torchmetrics name:object pairs to use for calculating
            metrics
                - override _init_torch_metrics() method in a subclass rather than modifying directly
                - in general, if self.single_target is True, metrics will be called with
                  metric(predictions, labels) where predictions is shape (n_samples,n_classes) and
                  labels has integer labels with shape (n_samples,). If single_target is False,
                  instead labels are multi-hot encoded and have shape (n_samples,n_classes)
            classes: list of class names
                - set the class list with __init__() or change_classes(), rather than modifying
                  directly
                This ensures that other parameters like self.torch_metrics are updated accordingly
        """
        super().__init__(
            architecture,
            classes,
            sample_duration,
            sample_rate,
            single_target=single_target,
            preprocessor_dict=preprocessor_dict,
            preprocessor_cls=preprocessor_cls,
            **preprocessor_kwargs,
        )

        self.log_file = None
        """specify a path to save output to a text file"""
        self.logging_level = 1
        """amount of logging to self.log_file. 0 for nothing, 1,2,3 for increasing logged info"""
        self.verbose = 1
        """amount of logging to stdout. 0 for nothing, 1,2,3 for increasing printed output"""
        self.scheduler = None  # learning rate scheduler, initialized during configure_optimizers() call
        self.optimizer = None  # optimizer during training , initialized during configure_optimizers() call
        self.current_step = 0
        """track number of complete training steps"""

        ### metrics ###
        self.loss_hist = []
        """list of batch loss values during training"""
        self.train_metrics = {}
        self.valid_metrics = {}

        # device (eg CPU, GPU) to use for training and inference
        if device is None:
            self.device = _gpu_if_available()
        else:

            self.device = torch.device(device)
            self.network.to(self.device)

        # Configure early stopping
        self.early_stopping_config = {
            "enabled": False,
            "patience": 10,
            "min_delta": 0.0,
            "mode": "max",
        }
        """Early stopping configuration dictionary.

        Early stopping halts training if the validation score does not improve
        for a specified number of steps (patience).

        The metric monitored for improvement is defined by self.score_metric, but
        adjust "mode" according to whether the score should be minimized (loss) or
        maximized (accuracy, f1, auroc, avg precision, etc).

        To enable early stopping, set `self.early_stopping_config['enabled']=True`
        and modify other parameters as desired. 

        'patience': number of steps with no improvement before stopping
        'min_delta': minimum change in the monitored quantity to qualify as an improvement
        'mode': 'max' or 'min', whether to look for maximum (eg accuracy) or minimum (eg loss) of the monitored quantity
        """

    def _log(self, message, level=1):
        txt = str(message)
        if self.logging_level >= level and self.log_file is not None:
            with open(self.log_file, "a") as logfile:
                logfile.write(txt + "\n")
        if self.verbose >= level:
            print(txt)

    def predict(
        self,
        samples,
        batch_size=1,
        num_workers=0,
        activation_layer=None,
        clip_overlap=None,
        overlap_fraction=None,
        clip_step=None,
        final_clip="extend",
        bypass_augmentations=True,
        invalid_samples_log=None,
        raise_errors=False,
        wandb_session=None,
        return_invalid_samples=False,
        progress_bar=True,
        audio_root=None,
        output_size_warning=1e9,
        **dataloader_kwargs,
    ):
        """Generate predictions on a set of samples

        Return dataframe of model output scores for each sample.
        Optional activation layer for scores
        (softmax, sigmoid, softmax then logit, or None)

        Args:
            samples:
                the files to generate predictions for. Can be:
                - a dataframe with index containing audio paths, OR
                - a dataframe with multi-index (file, start_time, end_time), OR
                - a list (or np.ndarray) of audio file paths
                - a single file path (str or pathlib.Path)
            batch_size:
                Number of files to load simultaneously [default: 1]
            num_workers:
                parallelization (ie cpus or cores), use 0 for current process
                [default: 0]
            activation_layer:
                Optionally apply an activation layer such as sigmoid or
                softmax to the raw outputs of the model.
                options:
                - None: no activation, return raw logit scores [-inf:inf]
                - 'softmax': scores all classes sum to 1, scores between 0 and 1
                - 'sigmoid': each class is independent, scores between 0 and 1
                - 'softmax_and_logit': applies softmax first then logit
                [default: None]
            overlap_fraction, clip_overlap, clip_step, final_clip:
                see `opensoundscape.utils.generate_clip_times_df`
            bypass_augmentations: If False, Actions with
                is_augmentation==True are performed. Default True.
            invalid_samples_log: if not None, samples that failed to preprocess
                will be listed in this text file.
            raise_errors:
                if True, raise errors when preprocessing fails
                if False, just log the errors to unsafe_samples_log
            wandb_session: a wandb session to log to
                - pass the value returned by wandb.init() to progress log to a
                Weights and Biases run
                - if None, does not log to wandb
            return_invalid_samples: bool, if True, returns second argument, a set
                containing file paths of samples that caused errors during preprocessing
                [default: False]
            progress_bar: bool, if True, shows a progress bar with tqdm [default: True]
            audio_root: optionally pass a root directory (pathlib.Path or str)
                - `audio_root` is prepended to each file path
                - if None (default), samples must contain full paths to files
            output_size_warning: int, if >0, raises a warning if the number of
                output scores (clips * classes) exceeds this number, as this
                can cause heavy memory usage. Set to None or 0 to disable.
                [default: 1e9]
            **dataloader_kwargs: additional arguments to self.predict_dataloader()

        Returns:
            df of post-activation_layer scores
            - if return_invalid_samples is True, returns (df,invalid_samples)
            where invalid_samples is a set of file paths that failed to preprocess

        Effects:
            (1) wandb logging
            If wandb_session is provided, logs progress and samples to Weights
            and Biases. A random set of samples is preprocessed and logged to
            a table. Progress over all batches is logged. Afte prediction,
            top scoring samples are logged.
            Use self.wandb_logging dictionary to change the number of samples
            logged or which classes have top-scoring samples logged.

            (2) unsafe sample logging
            If unsafe_samples_log is not None, saves a list of all file paths that
            failed to preprocess in unsafe_samples_log as a text file

        Note: if loading an audio file raises a PreprocessingError, the scores
            for that sample will be np.nan

        """
        if audio_root is not None:  # add this arg to dataloader keyword arguments
            dataloader_kwargs.update(dict(audio_root=audio_root))

        # check for matching class list
        samples = _check_classes_inference(samples, self.classes)

        # create dataloader to generate batches of AudioSamples
        dataloader = self.predict_dataloader(
            samples,
            bypass_augmentations=bypass_augmentations,
            overlap_fraction=overlap_fraction,
            clip_overlap=clip_overlap,
            clip_step=clip_step,
            final_clip=final_clip,
            batch_size=batch_size,
            num_workers=num_workers,
            raise_errors=raise_errors,
            **dataloader_kwargs,
        )

        # check size of output
        _warn_output_size(dataloader, len(self.classes), output_size_warning)

        # Initialize Weights and Biases (wandb) logging
        if wandb_session is not None:
            # update the run config with information about the model
            wandb_session.config.update(self._generate_wandb_config())

            # update the run config with prediction parameters
            wandb_session.config.update(
                dict(
                    batch_size=batch_size,
                    num_workers=num_workers,
                    activation_layer=activation_layer,
                )
            )

            # Log a table of preprocessed samples to wandb
            wandb_session.log(
                {
                    "Peprocessed_samples": wandb_table(
                        dataloader.dataset.dataset,
                        self.wandb_logging["n_preview_samples"],
                    )
                }
            )

        ### Prediction/Inference ###
        # iterate dataloader and run inference (forward pass) to generate scores
        pred_scores = self(
            dataloader=dataloader,
            wandb_session=wandb_session,
            progress_bar=progress_bar,
            targets=(self.class_outputs_key,),
        )[self.class_outputs_key]

        ### Apply activation layer ###
        pred_scores = apply_activation_layer(pred_scores, activation_layer)

        # return DataFrame with same index/columns as prediction_dataset's df
        df_index = dataloader.dataset.dataset.label_df.index
        score_df = pd.DataFrame(index=df_index, data=pred_scores, columns=self.classes)

        # warn the user if there were invalid samples (failed to preprocess)
        # and log them to a file
        invalid_samples = dataloader.dataset.report(log=invalid_samples_log)

        # log top-scoring samples per class to wandb table
        if wandb_session is not None:
            classes_to_log = self.wandb_logging["top_samples_classes"]
            if classes_to_log is None:  # pick the first few classes if none specified
                classes_to_log = self.classes
                if len(classes_to_log) > 5:  # don't accidentally log hundreds of tables
                    classes_to_log = classes_to_log[0:5]

            for i, c in enumerate(classes_to_log):
                top_samples = score_df.nlargest(
                    n=self.wandb_logging["n_top_samples"], columns=[c]
                )
                # note: the "labels" of these samples are actually prediction scores
                dataset = AudioFileDataset(
                    samples=top_samples,
                    preprocessor=self.preprocessor,
                    bypass_augmentations=True,
                )
                table = wandb_table(
                    dataset=dataset,
                    classes_to_extract=[c],
                    drop_labels=True,
                    gradcam_model=self if self.wandb_logging["gradcam"] else None,
                )
                wandb_session.log({f"Top_scoring_{c.replace(' ','_')}": table})

        if return_invalid_samples:
            return score_df, invalid_samples
        else:
            return score_df

    def generate_samples(
        self,
        samples,
        invalid_samples_log=None,
        return_invalid_samples=False,
        audio_root=None,
        **dataloader_kwargs,
    ):
        """
        Generate AudioSample objects. Input options same as .predict()

        Args:
            samples: (same as CNN.predict())
                the files to generate predictions for. Can be:
                - a dataframe with index containing audio paths, OR
                - a dataframe with multi-index (file, start_time, end_time), OR
                - a list (or np.ndarray) of audio file paths
                - a single file path as str or pathlib.Path
            see .predict() documentation for other args
            **dataloader_kwargs: any arguments to inference_dataloader_cls.__init__
                except samples (uses `samples`) and collate_fn (uses `identity`)
                (Note: default class is SafeAudioDataloader)

        Returns:
            a list of AudioSample objects
            - if return_invalid_samples is True, returns second value: list of paths to
            samples that failed to preprocess

        Example:
        ```
        from opensoundscappe.preprocess.utils import show_tensor_grid
        samples = generate_samples(['/path/file1.wav','/path/file2.wav'])
        tensors = [s.data for s in samples]
        show_tensor_grid(tensors,columns=3)
        ```
        """
        if audio_root is not None:  # add this to dataloader keyword arguments
            dataloader_kwargs.update(dict(audio_root=audio_root))
        # create dataloader to generate batches of AudioSamples
        dataloader = self.predict_dataloader(samples, **dataloader_kwargs)

        # move model to device
        try:
            self.network.to(self.device)
            self.network.eval()
        except AttributeError:
            pass  # not a PyTorch model object

        # generate samples in batches
        generated_samples = []
        for batch in dataloader:
            generated_samples.extend(batch)
        # get & log list of any sampls that failed to preprocess
        invalid_samples = dataloader.dataset.report(log=invalid_samples_log)

        if return_invalid_samples:
            return generated_samples, invalid_samples
        else:
            return generated_samples

    def eval(self, targets=None, scores=None, reset_metrics=True):
        """compute single-target or multi-target metrics from targets and scores

        Or, compute metrics on accumulated values in the TorchMetrics if targets is None

        By default, the overall model score is "map" (mean average precision)
        for multi-target models (self.single_target=False) and "f1" (average
        of f1 score across classes) for single-target models).

        update self.torch_metrics to include the desired metrics

        Args:
            targets: 0/1 for each sample and each class
            - if None, runs metric.compute() on each of self.torch_metrics
                (using accumulated values)
            scores: continuous values in 0/1 for each sample and class
            - if targets is None, this is ignored
            reset_metrics: if True, resets the metrics after computing them
                [default: True]

        Returns:
            dictionary of `metrics` (name: value)

        Raises:
            AssertionError: if targets are outside of range [0,1]
        """
        metrics = {}
        if targets is not None:
            # move tensors to device; avoid error float64 not supported on mps
            targets = torch.as_tensor(targets, dtype=torch.float32).to(self.device)
            scores = torch.as_tensor(scores, dtype=torch.float32).to(self.device)

            # check for invalid label values outside range of [0,1]
            assert (
                targets.max() <= 1 and targets.min() >= 0
            ), "Labels must in range [0,1], but found values outside range"

            # remove all samples with NaN for a prediction
            targets = targets[~torch.isnan(scores).any(dim=1), :]
            scores = scores[~torch.isnan(scores).any(dim=1), :]

            if len(scores) < 1:
                warnings.warn("Recieved empty list of predictions (or all nan)")
                return np.nan, np.nan

            # map is failing with memory limit on MPS, use CPU instead
            # TODO: reconsider casting labels to int (support soft labels)
            # if self.single_target, use argmax to get predicted class
            # because torchmetrics Multiclass metrics expect class indices
            y = targets.argmax(dim=1) if self.single_target else targets
            for name, metric in self.torch_metrics.items():
                device = (
                    self.device if self.device.type != "mps" else torch.device("cpu")
                )
                metrics[name] = metric.to(device)(
                    scores.detach().to(device), y.detach().long().to(device)
                ).cpu()

                if reset_metrics:
                    metric.reset()

            if self.compute_per_class_metrics:
                metrics.update(self.per_class_metrics(targets, scores))

        else:
            # compute each TorchMetrics overal value from accumulated values
            # since .reset() was last called
            # for instance, over all batches in an epoch
            for name, metric in self.torch_metrics.items():
                metrics[name] = metric.compute().cpu()
                if reset_metrics:
                    metric.reset()

        return metrics

    def per_class_metrics(self, targets, scores):
        """compute per-class metrics: au_roc, avg precision

        can override this method to customize per-class metrics

        Args:
            targets: 2d array of 0/1 for each sample and each class
            scores: 2d array of continuous valued score for each sample and class
        Returns:
            dictionary of per-class metrics
                {class_name: {metric_name: value}}
        """
        import sklearn.metrics as M

        if isinstance(targets, torch.Tensor):
            targets = targets.cpu().numpy()
        if isinstance(scores, torch.Tensor):
            scores = scores.cpu().numpy()

        metrics = {}
        for i, class_i in enumerate(self.classes):
            n = int(np.sum(np.array(targets)[:, i]))

            # au_roc and avg precision are not defined if all samples are from one class
            try:
                rocauc = M.roc_auc_score(
                    np.array(targets)[:, i], np.array(scores)[:, i]
                )
                avgp = M.average_precision_score(
                    np.array(targets)[:, i], np.array(scores)[:, i]
                )
            except ValueError:
                rocauc = np.nan
                avgp = np.nan

            metrics.update(
                {
                    class_i: {
                        "au_roc": rocauc,
                        "avg_precision": avgp,
                    }
                }
            )
        return metrics

    def run_evaluation(self, validation_df, progress_bar=True, **kwargs):
        """Generate predictions on labeled data and compute evaluation metrics

        override this to customize the validation step during training
        eg, could run validation on multiple datasets and save performance of each
        in self.valid_metrics[current_epoch][validation_dataset_name]

        Args:
            validation_df: dataframe of validation samples
            progress_bar: if True, show a progress bar with tqdm
            **kwargs: passed to self.predict_dataloader()

        Returns:
            metrics: dictionary of evaluation metrics calculated with self.torch_metrics

        Effects:
            updates self.valid_metrics[current_epoch] with metrics for the current epoch
        """
        # run inference, generating 0-1 prediction scores for each sample and class
        validation_scores = self.predict(
            validation_df,
            activation_layer=("softmax" if self.single_target else "sigmoid"),
            progress_bar=progress_bar,
            **kwargs,
        )

        # if validation_df index is file paths, we need to generate clip-df with labels
        # to evaluate the scores. Easiest to do this with self.predict_dataloader()
        dl = self.predict_dataloader(validation_df, **kwargs)
        val_labels = dl.dataset.dataset.label_df.values
        return self.eval(val_labels, validation_scores.values)

    def _generate_wandb_config(self):
        # create a dictionary of parameters to save for this run
        wandb_config = dict(
            architecture=io.build_name(self.network),
            sample_duration=self.preprocessor.sample_duration,
            cuda_device_count=torch.cuda.device_count(),
            mps_available=torch.backends.mps.is_available(),
            classes=self.classes,
            single_target=self.single_target,
            opensoundscape_version=self.opensoundscape_version,
        )
        if "weight_decay" in self.optimizer_params:
            wandb_config["l2_regularization"] = self.optimizer_params["weight_decay"]
        else:
            wandb_config["l2_regularization"] = "n/a"

        if "lr" in self.optimizer_params:
            wandb_config["learning_rate"] = self.optimizer_params["lr"]
        else:
            wandb_config["learning_rate"] = "n/a"

        try:
            wandb_config["sample_shape"] = [
                self.preprocessor.height,
                self.preprocessor.width,
                self.preprocessor.channels,
            ]
        except:
            wandb_config["sample_shape"] = "n/a"

        return wandb_config

    def train(
        self,
        train_df,
        validation_df=None,
        steps=1000,
        batch_size=64,
        num_workers=0,
        save_path=".",
        save_interval=-1,  # save weights every n steps
        log_interval=50,  # print metrics every n steps
        validation_interval=100,  # compute validation metrics every n steps
        reset_optimizer=False,
        restart_scheduler=False,
        invalid_samples_log="./invalid_training_samples.log",
        raise_errors=False,
        wandb_session=None,
        progress_bar=True,
        audio_root=None,
        reload_best_at_end=True,
        **dataloader_kwargs,
    ):
        """train the model on samples from train_dataset

        If customized loss functions, networks, optimizers, or schedulers
        are desired, modify the respective attributes before calling .train().

        Args:
            train_df:
                a dataframe of files and labels for training the model
                - either has index `file` or multi-index (file,start_time,end_time)
            validation_df:
                a dataframe of files and labels for evaluating the model
                [default: None means no validation is performed]
            steps:
                number of steps (ie batches or updates) to train the model for
            batch_size:
                number of training files simultaneously passed through
                forward pass, loss function, and backpropagation
            num_workers:
                number of parallel CPU tasks for preprocessing
                Note: use 0 for single (root) process (not 1)
            save_path:
                location to save intermediate and best model objects
                [default=".", ie current location of script]
            save_interval:
                interval in steps to save model object with weights
                Note: the best model is always saved to best.model
                [default:-1] means only save best.model and last.model
                in addition to other saved steps.
            log_interval:
                interval in batches to print training loss/metrics
            validation_interval:
                interval in steps to test the model on the validation set
                Note that model will only update it's best score and save best.model
                file on steps that it performs validation.
            reset_optimizer:
                if True, resets the optimizer rather than retaining state_dict
                of self.optimizer [default: False]
            restart_scheduler:
                if True, resets the learning rate scheduler rather than retaining
                state_dict of self.scheduler [default: False]
            invalid_samples_log:
                file path: log all samples that failed in preprocessing
                (file written when training completes)
                - if None,  does not write a file
            raise_errors:
                if True, raise errors when preprocessing fails
                if False, just log the errors to unsafe_samples_log
            wandb_session: a wandb session to log to
                - pass the value returned by wandb.init() to progress log to a
                Weights and Biases run
                - if None, does not log to wandb
                For example:
                ```
                import wandb
                wandb.login(key=api_key) #find your api_key at https://wandb.ai/settings
                session = wandb.init(enitity='mygroup',project='project1',name='first_run')
                ...
                model.train(...,wandb_session=session)
                session.finish()
                ```
            audio_root: optionally pass a root directory (pathlib.Path or str)
                - `audio_root` is prepended to each file path
                - if None (default), samples must contain full paths to files
            progress_bar: bool, if True, shows a progress bar with tqdm [default: True]
            reload_best_at_end: if True, after training completes, reloads the best
                model weights into self.network [default: True]
                Best model is determined by validation set's self.score_metric score
            **dataloader_kwargs: additional arguments passed to train_dataloader()
        Effects:
            If wandb_session is provided, logs progress and samples to Weights
            and Biases. A random set of training and validation samples
            are preprocessed and logged to a table. Training progress, loss,
            and metrics are also logged.
            Use self.wandb_logging dictionary to change the number of samples
            logged.
        """

        ### Input Validation ###
        # Validation of class list
        check_labels(train_df, self.classes)
        if validation_df is not None:
            check_labels(validation_df, self.classes)

        # Validation: warn user if no validation set
        if validation_df is None:
            warnings.warn(
                "No validation set was provided. Model will be "
                "evaluated using the performance on the training set."
            )

        if audio_root is not None:  # add this to dataloader keyword arguments
            dataloader_kwargs.update(dict(audio_root=audio_root))

        ## Initialization ##

        # Initialize attributes
        self.log_interval = log_interval
        self.save_interval = save_interval
        self.save_path = save_path

        # Initialize Weights and Biases (wandb) logging ###
        if wandb_session is not None:
            # update the run config with information about the model
            wandb_session.config.update(self._generate_wandb_config())

            # update the run config with training parameters
            wandb_session.config.update(
                dict(
                    steps=steps,
                    batch_size=batch_size,
                    num_workers=num_workers,
                    lr_sheculer_params=self.lr_scheduler_params,
                    optimizer_params=self.optimizer_params,
                    model_save_path=Path(save_path).resolve(),
                )
            )

            # use wandb.watch to log histograms of parameter and gradient values
            # value of None for log_freq means do not use wandb.watch()
            log_freq = self.wandb_logging["watch_freq"]
            if log_freq is not None:
                wandb_session.watch(
                    self.network,
                    log="all",
                    log_freq=log_freq,
                    log_graph=(self.wandb_logging["log_graph"]),
                )

            # log tables of preprocessed samples
            wandb_session.log(
                {
                    "training_samples": wandb_table(
                        AudioFileDataset(
                            train_df, self.preprocessor, bypass_augmentations=False
                        ),
                        self.wandb_logging["n_preview_samples"],
                    ),
                    "training_samples_no_aug": wandb_table(
                        AudioFileDataset(
                            train_df, self.preprocessor, bypass_augmentations=True
                        ),
                        self.wandb_logging["n_preview_samples"],
                    ),
                }
            )
            if validation_df is not None:
                wandb_session.log(
                    {
                        "validation_samples": wandb_table(
                            AudioFileDataset(
                                validation_df,
                                self.preprocessor,
                                bypass_augmentations=True,
                            ),
                            self.wandb_logging["n_preview_samples"],
                        )
                    },
                )

        # Move network to device
        self.network.to(self.device)

        ### Set Up DataLoader, Loss and Optimization ###
        train_loader = self.train_dataloader(
            train_df,
            batch_size=batch_size,
            num_workers=num_workers,
            raise_errors=raise_errors,
            **dataloader_kwargs,
        )
        # unlimited steps, cycle through dataset as needed
        train_batch_generator = _infinite_dataloader(train_loader)

        ######################
        # Optimization setup #
        ######################
        # TODO: check if resuming training is working properly for optimizer and scheduler

        # Set up optimizer parameters for each network component
        # Note: we re-create bc the user may have changed self.optimizer_params, or
        # if we re-created the objects, the IDs of the params list have changed.
        # if self.optimizer/self.scheduler are not None, re-loads their state_dicts
        optimizer_and_scheduler = self.configure_optimizers(
            reset_optimizer=reset_optimizer, restart_scheduler=restart_scheduler
        )
        self.scheduler = optimizer_and_scheduler["scheduler"]
        self.optimizer = optimizer_and_scheduler["optimizer"]

        # Note: loss function (self.loss_fn) was initialized at __init__
        # can override like model.loss_fn = SomeLossCls()

        self.best_score = -np.inf
        self.best_step = 0

        ### Train ###

        for step in tqdm(range(steps), disable=not progress_bar):
            # 1 epoch = 1 view of each training sample
            # loss fn, backpropogation, and optimizer step generally occur after each batch
            # validation generally occurs after validation_interval steps

            ### Training ###
            self.network.train()

            # get one batch of training data and run training step
            train_batch = next(train_batch_generator)
            loss = self.training_step(train_batch, step)
            self.loss_hist.append(loss.item())

            # update learning parameters each step
            self.scheduler.step()
            self.lr_scheduler_step += 1

            ###########
            # Logging #
            ###########
            # log basic train info (used to print every batch)
            if step % self.log_interval == 0:
                # show some basic progress
                self._log(f"Step: {step}/{steps} ({100 * step / steps :.1f}%)")

                # Log the Loss function
                avg_loss = np.mean(self.loss_hist[-self.log_interval :])
                self._log(f"\tRunning Average Loss: {avg_loss:.3f}")
                self._log(f"\tMost Recent Step Loss: {loss.item():.3f}")

                # compute and reset TorchMetrics for training set
                self.train_metrics[self.current_step] = self.eval()

                if wandb_session is not None:
                    wandb_session.log({"loss": loss.item()})
                    wandb_session.log(
                        {"training": self.train_metrics[self.current_step]}
                    )
                    wandb_session.log({"step": self.current_step})

            #### Validation ###
            if step % validation_interval == 0:

                if validation_df is not None:
                    self._log("\nValidation.")
                    val_metrics = self.run_evaluation(
                        validation_df,
                        batch_size=batch_size,
                        num_workers=num_workers,
                        raise_errors=raise_errors,
                        **dataloader_kwargs,
                    )
                    self.valid_metrics[self.current_step] = val_metrics
                    score = val_metrics[self.score_metric]  # overall score
                    if wandb_session is not None:
                        wandb_session.log({"validation": val_metrics})
                else:
                    # Get overall score from training metrics if no validation_df given
                    score = self.train_metrics[self.current_step][self.score_metric]

                stop_early = self._check_early_stopping(score, step)

                # if this is the best score, update & save weights to best.model
                # we save both the pickled and unpickled formats for best.model
                if score > self.best_score:
                    self.best_score = score
                    self.best_step = self.current_step
                    save_path = f"{self.save_path}/best.model"
                    pickle_path = f"{self.save_path}/best.pickle"
                    self.save(save_path, pickle=False)
                    self.save(pickle_path, pickle=True, error="warn")
                    self._log(
                        f"New best model at step {step} saved to {save_path}",
                        level=2,
                    )

            # save pickled model every n steps
            # pickled model file allows us to resume training
            if (
                self.current_step + 1
            ) % self.save_interval == 0 and self.save_interval > 0:
                save_path = f"{self.save_path}/step_{self.current_step}.model"
                self.save(save_path, pickle=False)
                self._log(f"Saving model to {save_path}", level=2)

            # save both pickle and non-pickle formats at last step
            if step == steps - 1 or stop_early:
                save_path = f"{self.save_path}/last.model"
                pickle_path = f"{self.save_path}/last.pickle"
                self._log(f"Saving model to {save_path}", level=2)
                self.save(save_path, pickle=False)
                self.save(pickle_path, pickle=True, error="warn")

            self.current_step += 1

            # Early stopping (only check if validation score was updated this epoch)
            if stop_early:
                break  # exit training loop

        ### Post-Training ###
        # optionally reload best epoch model weights at end of training
        if reload_best_at_end:
            best_model_path = f"{self.save_path}/best.pickle"
            try:
                self._log(
                    f"Reloading best model weights from step {self.best_step} at end of training",
                    level=2,
                )
                model = torch.load(
                    best_model_path, map_location=self.device, weights_only=False
                )
                weights = model.network.state_dict()
                self.network.load_state_dict(weights)
            except Exception as e:
                self._log(f"Error occurred while reloading best model: {e}", level=2)

        ### Logging ###
        self._log("Training complete", level=2)
        self._log(
            f"\nBest Model Appears at Step {self.best_step} "
            f"with Validation score {self.best_score:.3f}."
        )

        # warn the user if there were invalid samples (samples that failed to preprocess)
        invalid_samples = train_loader.dataset.report(log=invalid_samples_log)
        self._log(
            f"{len(invalid_samples)} of {len(train_df)} total training "
            f"samples failed to preprocess",
            level=2,
        )
        self._log(f"List of invalid samples: {invalid_samples}", level=3)

    def _check_early_stopping(self, current_score, current_step):
        """check if training should stop early based on validation score

        and self.early_stopping_config settings

        Args:
            current_score: score from this epoch to compare against
                self._best_early_stopping_score
            current_step: current training step count

        Returns:
            True if training should stop early, False otherwise
        """
        if self.early_stopping_config["enabled"]:
            if current_step == 0:
                self._best_score_early_stopping = current_score
                self._best_step_early_stopping = 0
            else:
                improvement = current_score - self._best_score_early_stopping
                if self.early_stopping_config["mode"] == "min":
                    improvement = -improvement

                if improvement > self.early_stopping_config["min_delta"]:
                    # reset counter if we see improvement over min_delta
                    # (but not necessarily best score overall: incremental progress
                    # <min_delta on best score does not update epoch or score)
                    self._best_score_early_stopping = current_score
                    self._best_step_early_stopping = current_step
            steps_no_improve = current_step - self._best_step_early_stopping
            if steps_no_improve >= self.early_stopping_config["patience"]:
                self._log(
                    f"Early stopping triggered at step {current_step}. No improvement in "
                    f"{self.early_stopping_config['patience']} steps.",
                )
                return True
        return False

    def save(self, path, save_hooks=False, pickle=False, error="raise"):
        """save model with weights using torch.save()

        load from saved file with CNN.load(path) or load_model(path)

        Note that pickled objects may not load properly across different versions of OpenSoundscape.
        However, the dictionary format does not retain the full training state for resuming model
        training. Therefore, we advise saving with pickle=True for resuming training and with
        pickle=False when and saving models for future use.

        Args:
            path: file path for saved model object
            save_hooks: retain forward and backward hooks on modules
                [default: False] Note: True can cause issues when using
                wandb.watch()
            pickle: if True, saves the entire model object using torch.save()
                Note: if using pickle=True, entire object is pickled, which means that
                saving and loading model objects across OpenSoundscape versions
                might not work properly. pickle=True is useful for resuming training,
                because it retains the state of the optimizer, scheduler, loss function, etc
                pickle=False is recommended for saving models for inference/deployment/sharing
                [default: False]
            error: behavior if saving with pickle fails
                - "raise": raise RuntimeError
                - "warn": issue a warning and save unpickled model instead
                - "ignore": no action (model not saved)
                [default: "raise"]
        """
        os.makedirs(Path(path).parent, exist_ok=True)

        model_copy = copy.deepcopy(self)

        if not save_hooks:
            # remove all forward and backward hooks on network.modules()
            from collections import OrderedDict

            for m in model_copy.network.modules():
                m._forward_hooks = OrderedDict()
                m._backward_hooks = OrderedDict()

        if pickle:
            # save a pickled model object; may not work across environments / opso versions
            try:
                torch.save(model_copy, path)
            except Exception as e:
                msg = """Saving pickled model failed. This may be beacuse the model is not picklable
                    e.g. if it contains a lambda function, generator, or other non-picklable
                    object."""
                if error == "warn":
                    warnings.warn(msg)
                elif error == "ignore":
                    return
                else:  # raise or any other value
                    raise RuntimeError(msg) from e

        else:
            try:
                arch_name = self.network.constructor_name
            except AttributeError:
                arch_name = "unknown"
                warnings.warn(
                    "Could not determine architecture constructor name for saved model"
                )

            # warn user if this architecture is not "registered", since we won't be able to reload it
            if (
                not hasattr(self.network, "constructor_name")
                or self.network.constructor_name
                not in cnn_architectures.ARCH_DICT.keys()
            ):
                warnings.warn(
                    """
                    This architecture is not listed in opensoundscape.ml.cnn_architectures.ARCH_DICT.
                    It will not be available for loading after saving the model with .save() (unless using pickle=True). 
                    To make it re-loadable, define a function that generates the architecture from arguments: (n_classes, n_channels) 
                    then use opensoundscape.ml.cnn_architectures.register_architecture() to register the generating function.

                    The function can also set the returned object's .constructor_name to the registered string key in ARCH_DICT
                    to avoid this warning and ensure it is reloaded correctly by opensoundscape.CNN.load().

                    See opensoundscape.ml.cnn_architectures module for examples of constructor functions
                    """
                )

            # save dictionary of separate components
            # better for cross-version compatability
            # dictionary can be loaded with torch.load() to inspect individual components
            torch.save(
                {
                    # these are used explicitly during .load()
                    "weights": self.network.state_dict(),
                    "class": io.build_name(self),
                    "opensoundscape_version": opensoundscape.__version__,
                    # these are kwargs to __init__():
                    "architecture": arch_name,
                    "classes": self.classes,
                    "sample_duration": self.sample_duration,
                    "sample_rate": self.sample_rate,
                    "single_target": self.single_target,
                    "preprocessor_dict": self.preprocessor.to_dict(),
                    "preprocessor_cls": io.build_name(self.preprocessor.__class__),
                    # doesn't support resuming training across with optimizer/scheduler states
                    # because there are many other parameters that would need to be saved
                    # instead, use pickle=True for resuming training
                    # "optimizer_state_dict": self.optimizer.state_dict(),
                    # "scheduler_state_dict": self.scheduler.state_dict(),
                },
                path,
            )

    @classmethod
    def load(cls, path, device=None, unpickle=True):
        """load a model saved using CNN.save()

        Args:
            path: path to file saved using CNN.save()
            device: device to load the model onto
                can be a torch.device or string (e.g. "cpu", "cuda:0", "mps")
            unpickle: if True, passes `weights_only=False` to
                torch.load(). This is necessary if the model was saved with
                pickle=True, which saves the entire model object. If
                `unpickle=False`, this function will work if the model was saved
                with pickle=False, but will raise an error if the model was saved
                with pickle=True. [default: True]

        Returns:
            new CNN instance

        Note: if you used pickle=True when saving, the model object might not load properly
        across different versions of OpenSoundscape.
        """
        return load_model(path, device=device, unpickle=unpickle)

    def save_weights(self, path):
        """save just the weights of the network

        This allows the saved weights to be used more flexibly than model.save()
        which will pickle the entire object. The weights are saved in a pickled
        dictionary using torch.save(self.network.state_dict())

        Args:
            path: location to save weights file
        """
        torch.save(self.network.state_dict(), path)

    def load_weights(self, path, strict=True):
        """load network weights state dict from a file

        For instance, load weights saved with .save_weights()
        in-place operation (modifies self.network)
        loads weights onto the same device as self.network (self.device)

        Args:
            path: file path with saved weights
            strict: (bool) see torch.load()
        """
        self.network.to(self.device)
        self.network.load_state_dict(
            torch.load(path, map_location=self.device), strict=strict
        )

    def __call__(
        self,
        dataloader,
        wandb_session=None,
        progress_bar=True,
        targets=None,
        avgpool_intermediates=True,
    ):
        """Run inference on a dataloader, generating scores for each sample

        Optionally also return outputs from intermediate layers

        The dataloader should provide lists of AudioSample objects when iterated.

        Args:
            dataloader: DataLoader object to create samples, e.g. from .predict_dataloader()
                Note: expects list of AudioSample objects, not (tensors, labels)
            wandb_session: a wandb session to log progress to (e.g. return value of wandb.init())
            progress_bar: bool, if True, shows a progress bar with tqdm [default: True]
            targets: list of layers to return outputs from. Default [None] will return final outputs
                with key self.class_outputs_key
            avgpool_intermediates: bool, if True, applies global average pooling to intermediate outputs
                i.e. averages across all dimensions except first to get a 1D vector per sample
                [default: True] (note that False may results in large memory usage)

        Returns:
            outs: dictionary of outputs for each requested target layer
                keys are layers and/or value of self.class_outputs_key (eg, -1 for final output)
                values are np.arrays with first dimension corresponding to samples output array
                dtypes depend on the layer output shapes; if avgpool_intermediates=True, outputs are
                always 2D arrays with shape (n_samples, n_features); if avgpool_intermediates=False,
                output array shapes and dtypes depend on the layer output shapes.
        """
        if targets is None:
            targets = [self.class_outputs_key]

        if not isinstance(dataloader, torch.utils.data.DataLoader):
            warnings.warn(
                "dataloader is not an instance of torch.utils.data.DataLoader!"
            )

        # move network to device
        self.network.to(self.device)
        self.network.eval()

        # initialize outputs dictionary
        targets = [] if targets is None else targets
        outs = {k: [] for k in targets}

        # disable gradient updates during inference

        for i, batch_samples in enumerate(tqdm(dataloader, disable=not progress_bar)):
            batch_outs = self.batch_forward(
                batch_samples,
                targets=targets,
                avgpool=avgpool_intermediates,
            )
            invalid_sample_mask = [s.is_alternative for s in batch_samples]
            # process and store outputs from batch
            # TODO: subset to desired target outputs?
            for k, v in batch_outs.items():
                # mask outputs for any invalid samples (samples that failed in preprocessing)
                # with np.nan, since the returned values don't correspond to the sample
                # (the preprocessor instead returned a placeholder value for the sample)
                # first dimension of v corresponds to batch dimension, all others to output shape
                v[invalid_sample_mask, ...] = np.nan
                outs[k].append(v)  # store outputs for this batch
            if wandb_session is not None:
                wandb_session.log(
                    {
                        "progress": i / len(dataloader),
                        "completed_batches": i,
                        "total_batches": len(dataloader),
                    }
                )

        # aggregate across all batches
        if len(list(outs.values())[0]) > 0:
            for k in outs.keys():
                outs[k] = np.vstack(outs[k])
        return outs

    def embed_to_hoplite_db(
        self,
        samples,
        db,
        deployment,
        project=None,
        file_to_datetime=None,
        target_layer=None,
        wandb_session=None,
        progress_bar=True,
        audio_root=None,
        embedding_exists_mode="skip",  # skip, error, add
        commit_frequency_batches=100,
        overflow_mode="warn",
        embedding_dim=None,
        strict_matching=False,
        **dataloader_kwargs,
    ):
        """Run inference on a dataloader, saving 1D outputs of target_layer to a hoplite database

        Note that all samples are associated with a single deployment (e.g. one audio recorder on one season)
        Call this method separately for each deployment to associate samples with different deployments in the database

        Args:
            samples: (same as CNN.predict())
            db: a hoplite database object or a path to a hoplite database folder
                - if a path is provided, the database will be created if it does not exist
                - when creating a new db, the embedding_dim argument must be provided
            deployment: name of deployment (ie one recorder deployed once) to associate embeddings with
                - if deployment does not exist in db, it will be created
                - if you wish to include metadata per deployment (eg lat, lon, point name), first
                    add the deployment to the db using perch_hoplite.db.interface.HopliteDB.insert_deployment()
            project: optional project name to associate deployment with
            file_to_datetime: optional function or dictionary mapping filenames to datetime objects
                - used to set recording start times in the database
                - if None, recording start times will not be set
                - if a function is provided, it should take a single argument (filename: str)
                    and return a datetime.datetime object
                - if a dictionary is provided, it should map filenames (str) to
                    datetime.datetime objects
            target_layer: layer to extract embeddings from
                if None [default], attempts to use architecture's default target_layer
                Note: only architectures created with opensoundscape 0.9.0+ will
                have a default target layer. See pytorch_grad_cam docs for suggestions.
                Note: if multiple layers are provided, the activations are merged across
                    layers (rather than returning separate activations per layer)
            wandb_session: a wandb session to log progress to (e.g. return value of wandb.init())
            progress_bar: bool, if True, shows a progress bar with tqdm [default: True]
            audio_root: the root directory for relative paths to audio files
            embedding_exists_mode: str, behavior when an embedding already exists for a given
                embedding. Options are: #TODO implement replace
                    "skip": skip inserting the embedding (default)
                    "error": raise an error
                    "add": add a new embedding entry to the db with the same source info
                Note: the strict_matching argument affects whether existing embeddings are only
                    matched within a deployment/project or across all deployments/projects.
                Note that hoplite doesn't currently support removing or replacing existing entries
            commit_frequency_batches: int, commit to db after every N batches[default: 1]
            overflow_mode: 'warn', 'error', or 'ignore' behvior when embedding values exceed
                the range of float16, which is the range of values allowed in hoplite db
            embedding_dim: int, dimension of the embeddings to be stored
                - only used when creating a new hoplite db
                - must match the output dimension of the model's target_layer
                - if creating new db and embedding_dim is None, guesses based on self.classifier.in_features
            strict_matching: bool, select strategy for matching existing deployments and embeddings
                - if True, deployments are only considered matching if both deployment name and project match;
                    embeddings are only considered matching if project, deployment, source_id, and offset all match
                - if False [default], deployments from any project are matched by name only;
                    embeddings are matched across all deployments and projects by source_id and offset only
            **dataloader_kwargs: additional keyword arguments to pass to the dataloader

        Returns:
            (embedding_db, dict with info about inserted window_id's and failed samples)

        Effects:
            Inserts embeddings into the provided hoplite database
            Adds deployment and recording entries to db as needed

        """
        _require_hoplite()
        from ml_collections import config_dict

        from opensoundscape.vector_database import (
            _handle_existing_windows,
            _insert_embeddings,
            load_or_create_hoplite_usearch_db,
        )

        if project is None:
            project = ""

        # load or create hoplite db if a path is provided (if hoplite db is passed, use it directly)
        if embedding_dim is None:
            try:
                embedding_dim = self.classifier.in_features
            except:
                pass  # keep None value
        db = load_or_create_hoplite_usearch_db(db, embedding_dim=embedding_dim)

        # check / insert metadata for model ID
        _check_or_set_model_id(db, self.name)

        # add deployment if provided and not yet in db
        # create deployment in db if it doesnt exist yet
        if strict_matching:
            project_matching_pattern = config_dict.create(
                eq=dict(name=deployment, project=project),
            )
        else:
            project_matching_pattern = config_dict.create(
                eq=dict(name=deployment),
            )
        matching_deployments = db.get_all_deployments(project_matching_pattern)
        if len(matching_deployments) == 0:
            deployment_id = db.insert_deployment(name=deployment, project=project)
        else:
            deployment_id = matching_deployments[0].id

        # create dataloader, collate using `identity` to return list of AudioSample
        # rather than (samples, labels) tensors
        dataloader = self.predict_dataloader(
            samples,
            audio_root=audio_root,
            **dataloader_kwargs,
        )

        # avoid duplicating embeddings in the db depending on embedding_exists_mode
        # this function modifies the sample dataframe in place to remove existing samples
        _handle_existing_windows(
            db=db,
            clips=dataloader.dataset.dataset.label_df,
            embedding_exists_mode=embedding_exists_mode,
            deployment_id=deployment_id if strict_matching else None,
            project=project if strict_matching else None,
        )

        if len(dataloader.dataset) == 0:
            # all samples already have embeddings, nothing to do
            print("all samples already have embeddings in the database")
            return db, {
                "preprocessing_failures": dataloader.dataset.report(),
                "insertion_failures": pd.DataFrame(
                    columns=["file", "start_time", "end_time", "reason"]
                ),
                "window_id": [],
                "embedded_samples": dataloader.dataset.dataset.label_df,
            }
        else:
            print(
                f"embedding {len(dataloader.dataset.dataset.label_df)} new windows to database"
            )

        # check current files in db;
        # if strict_matching, only consider files from this deployment_id
        # (will create new recording_id for a file if match is not found)
        recordings = db.get_all_recordings(
            filter=(
                config_dict.create(eq=dict(deployment_id=deployment_id))
                if strict_matching
                else None
            )
        )

        file_to_id = {rec.filename: rec.id for rec in recordings}

        # if file_to_datetime is a function, pre-compute look-up dictionary
        # to avoid recomputing datetime from file string for each embedding (many per file)
        if callable(file_to_datetime):
            # print("creating cached function for audio-> dateteme")
            import functools

            @functools.lru_cache(maxsize=None)
            def cached_file_to_datetime(file):
                if audio_root is not None:
                    # use the relative path for the source name stored in the db
                    file = str(Path(file).relative_to(audio_root))
                return file_to_datetime(file)

            file_mapper = cached_file_to_datetime
        else:
            file_mapper = file_to_datetime

        # move network to device
        self.network.to(self.device)
        self.network.eval()

        # use default target layer if none provided
        target_layer = self._check_or_get_default_embedding_layer(target_layer)

        failed_to_insert = []
        window_ids = []  # track and return window_id in database for each item
        for i, batch_samples in enumerate(tqdm(dataloader, disable=not progress_bar)):

            # forward pass of network, getting only target_layer outputs
            outs = self.batch_forward(
                batch_samples, targets=[target_layer], avgpool=True
            )

            batch_window_ids, batch_insertion_failures = _insert_embeddings(
                db=db,
                batch_samples=batch_samples,
                batch_embeddings=outs[target_layer],
                overflow_mode=overflow_mode,
                file_to_id=file_to_id,
                file_to_datetime=file_mapper,
                audio_root=audio_root,
                deployment_id=deployment_id,
            )

            failed_to_insert.extend(batch_insertion_failures)
            window_ids.extend(batch_window_ids)

            # commit once per commit_frequency_batches batches
            # committing is relatively slow, but we don't want to lose progress if interrupted
            if (i + 1) % commit_frequency_batches == 0:
                db.commit()
            if wandb_session is not None:
                wandb_session.log(
                    {
                        "progress": i / len(dataloader),
                        "completed_batches": i,
                        "total_batches": len(dataloader),
                    }
                )
        # end of batch loop

        # commit any remaining uncommited db entries!
        db.commit()

        # return database object and info about any failed samples
        insertion_failures = pd.DataFrame(
            failed_to_insert, columns=["file", "start_time", "end_time", "reason"]
        )
        return (
            db,
            {
                "embedded_samples": dataloader.dataset.dataset.label_df,
                "window_id": window_ids,
                "preprocessing_failures": dataloader.dataset.report(),
                "insertion_failures": insertion_failures,
            },
        )

    def similarity_search_hoplite_db(
        self,
        query_samples,
        db,
        num_results=5,
        exact_search=False,
        search_subset_size=None,
        # filters=None, # config_dict.create(...)
        target_score=None,
        audio_root=None,
        search_kwargs=None,
        **embedding_kwargs,
    ):
        """Perform a similarity search in the Hoplite database.

        Args:
            query_samples: audio examples for which to find most similar examples
                file path, list of paths, or dataframe with `file,start_time,end_time` multi-index
            db: a Hoplite database containing embeddings from the same model
            num_results: The number of results to return for each query
            exact_search: default False for usearch (faster), if True uses brute force search
            search_subset_size: Number of embeddings to compare with. If None, all embeddings
                are used. For floats between 0 and 1, sample a proportion of the database.
                For ints, sample the specified number of embeddings.
                if None [default], searches all embeddings
                Note: only implemented for exact_search=True
            target_score: if specified, searches for similarity scores close to target_score
                default [None] searches for most similar embeddings
            audio_root: root directory for relative paths to query audio files
            search_kwargs: dict of additional keyword arguments passed to db.ui.search() or
                brutalism.threaded_brute_search() if exact_search=True
                exact_search=False: radius, threads, exact, log, progress
                exact_search=True: batch_size, max_workers, rng_seed
            **embedding_kwargs: additional keyword arguments passed to self.embed(), such as
                batch_size and num_workers
        Returns:
            A dataframe with the search results, including columns:
                - query_file, query_start_time, query_end_time: the query sample info
                - file, window_id: the matched sample filepath and window_id from the database
                - start_time, end_time: the matched sample start and end time (relative to file) from the database
                - sort_score: the similarity score between the query and matched sample

        """
        _require_hoplite()
        from opensoundscape.vector_database import similarity_search_hoplite_db

        # generate embeddings for the query samples
        print("embedding query samples")
        embeddings = self.embed(
            query_samples, audio_root=audio_root, **embedding_kwargs
        )
        print(
            f"performing similarity search for each of {embeddings.shape[0]} query samples"
        )
        compiled_search_results = []
        for (qfile, qstart_time, qend_time), emb in embeddings.iterrows():
            search_results = similarity_search_hoplite_db(
                db=db,
                query_embedding=emb.values,
                num_results=num_results,
                exact_search=exact_search,
                search_subset_size=search_subset_size,
                target_score=target_score,
                search_kwargs=search_kwargs,
            )
            matches = pd.DataFrame(search_results)
            matches["query_file"] = qfile
            matches["query_start_time"] = qstart_time
            matches["query_end_time"] = qend_time
            compiled_search_results.append(matches)
        return pd.concat(compiled_search_results, ignore_index=True)

    def _check_or_get_default_embedding_layer(self, target_layer=None):
        """helper function to get default target layer for embeddings

        if target_layer is None, try to get the default embedding layer
        otherwise, ensure that target_layer is a module of self.network
        """
        if target_layer is None:
            try:
                target_layer = self.network.get_submodule(self.network.embedding_layer)
            except (AttributeError, KeyError) as exc:
                raise AttributeError(
                    "Please specify target_layer. Models trained with older versions of Opensoundscape, "
                    "or custom architectures, do not have default `.network.embedding_layer`. "
                    "e.g. For a ResNET model, try target_layers=[self.model.layer4]"
                ) from exc
        else:  # check that target_layers are modules of self.model
            assert (
                target_layer in self.network.modules()
            ), f"target_layers must be in self.model.modules(), but {target_layer} is not."
        return target_layer

    def profile(
        self,
        samples,
        batch_size=1,
        num_workers=0,
        forward=True,
        backward=True,
        bypass_augmentations=False,
        **dataloader_kwargs,
    ):
        """Profile the model preprocessing, forward, and backward speeds on a set of samples

        Args:
            samples: (same as CNN.predict())
                the files to generate predictions for. Can be:
                - a file path (str or Path) to a single audio file, OR
                - a dataframe with index containing audio paths, OR
                - a dataframe with multi-index (file, start_time, end_time), OR
                - a list (or np.ndarray) of audio file paths
            batch_size: number of samples to process simultaneously
            num_workers: number of parallel CPU tasks for preprocessing
            forward: bool, if True, profiles forward pass time [default: True]
            backward: bool, if True, profiles backward pass time [default: True]
            bypass_augmentations: bool, if True, bypasses data augmentations
                during preprocessing [default: False]
            **dataloader_kwargs: additional keyword arguments to pass to the dataloader
        Returns:
            a dictionary with timing information for:
                - breakdown of time spent on each preprocessing step
                    (measured for one sample)
                - preprocessing time per batch and per sample (seconds)
                If forward=True:
                - forward pass time per batch and per sample (seconds)
                If backward=True:
                - backward pass time per batch and per sample (seconds)

        Example:
        ```python
        m=opso.CNN('resnet18',[0,1],1,32000)
        # m.device='cpu' # optionally set a specific device
        m.network.to(m.device)
        samples = opso.utils.make_clip_df([opso.birds_path]*10,clip_duration=1)
        results_dict = m.profile(samples,batch_size=32,num_workers=0)
        ```
        """
        if backward and not forward:
            raise ValueError(
                "Cannot profile backward pass without profiling forward pass"
            )

        dataloader = self.predict_dataloader(
            samples, batch_size=batch_size, num_workers=num_workers, **dataloader_kwargs
        )
        dataloader.dataset.dataset.bypass_augmentations = bypass_augmentations

        # move network to device
        self.network.to(self.device)
        self.network.eval()

        # store results
        profile_dict = {
            "batch_size": batch_size,
            "num_workers": num_workers,
            "device": str(self.device),
        }
        preprocess_times = []
        forward_times = []
        backward_times = []

        # profile preprocessing steps for one sample
        first_sample = dataloader.dataset.dataset.label_df.iloc[0]
        sample = self.preprocessor.forward(
            first_sample, profile=True, bypass_augmentations=bypass_augmentations
        )
        profile_dict["preprocess_profile"] = sample.runtime.to_dict()

        # iterate batches
        start_time = time()
        for i, samples_batch in enumerate(tqdm(dataloader)):
            batch_tensors, _ = collate_audio_samples(samples_batch)
            preprocess_times.append(time() - start_time)
            batch_tensors = batch_tensors.to(self.device)
            batch_tensors.requires_grad = True

            if forward:
                start_time = time()
                logits = self.network(batch_tensors)
                forward_times.append(time() - start_time)

            if backward:
                start_time = time()
                loss = logits.sum()
                loss.backward()
                backward_times.append(time() - start_time)
            start_time = time()  # reset for next iteration

        profile_dict["preprocess_time_per_batch"] = float(np.mean(preprocess_times))
        profile_dict["preprocess_time_per_sample"] = float(
            np.mean(preprocess_times) / batch_size
        )
        if forward:
            profile_dict["forward_time_per_batch"] = float(np.mean(forward_times))
            profile_dict["forward_time_per_sample"] = float(
                np.mean(forward_times) / batch_size
            )
        if backward:
            profile_dict["backward_time_per_batch"] = float(np.mean(backward_times))
            profile_dict["backward_time_per_sample"] = float(
                np.mean(backward_times) / batch_size
            )
        return profile_dict

    def generate_cams(
        self,
        samples,
        method="gradcam",
        classes=None,
        target_layers=None,
        guided_backprop=False,
        progress_bar=True,
        audio_root=None,
        **dataloader_kwargs,
    ):
        """
        Generate a activation and/or backprop heatmaps for each sample

        Args:
            samples: (same as CNN.predict())
                the files to generate predictions for. Can be:
                - a file path (str or Path) to a single audio file, OR
                - a dataframe with index containing audio paths, OR
                - a dataframe with multi-index (file, start_time, end_time), OR
                - a list (or np.ndarray) of audio file paths
            method: method to use for activation map. Can be str (choose from below)
                or a class of pytorch_grad_cam (any subclass of BaseCAM), or None
                if None, activation maps will not be created [default:'gradcam']

                str can be any of the following:
                    "gradcam": pytorch_grad_cam.GradCAM,
                    "hirescam": pytorch_grad_cam.HiResCAM,
                    "scorecam": pytorch_grad_cam.ScoreCAM,
                    "gradcam++": pytorch_grad_cam.GradCAMPlusPlus,
                    "ablationcam": pytorch_grad_cam.AblationCAM,
                    "xgradcam": pytorch_grad_cam.XGradCAM,
                    "eigencam": pytorch_grad_cam.EigenCAM,
                    "eigengradcam": pytorch_grad_cam.EigenGradCAM,
                    "layercam": pytorch_grad_cam.LayerCAM,
                    "fullgrad": pytorch_grad_cam.FullGrad,
                    "gradcamelementwise": pytorch_grad_cam.GradCAMElementWise,

            classes (list): list of classes, will create maps for each class
                [default: None] if None, creates an activation map for the highest
                scoring class on a sample-by-sample basis
            target_layers (list): list of target layers for GradCAM
                - if None [default] attempts to use architecture's default target_layer
                Note: only architectures created with opensoundscape 0.9.0+ will
                have a default target layer. See pytorch_grad_cam docs for suggestions.
                Note: if multiple layers are provided, the activations are merged across
                    layers (rather than returning separate activations per layer)
            guided_backprop: bool [default: False] if True, performs guided backpropagation
                for each class in classes. AudioSamples will have attribute .gbp_maps,
                a pd.Series indexed by class name
            audio_root: str or Path, root directory to prepend to audio file paths
                in samples, if samples do not contain full paths.
                [default: None]
            **kwargs are passed to SafeAudioDataloader
                (incl: batch_size, num_workers, split_file_into_clips, bypass_augmentations,
                invalid_sample_behavior, overlap_fraction, final_clip, other DataLoader args)

        Returns:
            a list of AudioSample objects with .cam attribute, an instance of the CAM class (
            visualize with `sample.cam.plot()`). See the CAM class for more details

        See pytorch_grad_cam documentation for references to the source of each method.
        """

        pytorch_grad_cam = _require_grad_cam()
        from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget

        if classes is not None:  # check that classes are in model.classes
            assert np.all(
                [c in self.classes for c in classes]
            ), "`classes` must be in self.classes"

        # if target_layer is None, attempt to retrieve default target layers of network
        if target_layers is None:
            try:
                # get default layer to use for outputs to CAMs
                target_layers = [self.network.get_submodule(self.network.cam_layer)]
            except AttributeError as exc:
                raise AttributeError(
                    "Please specify target_layers. Models trained with older versions of Opensoundscape "
                    "and user-specified models do not have default target layers for the cam. "
                    "For example, for a ResNET model, try target_layers=[model.network.layer4]"
                ) from exc
        else:  # check that target_layers are modules of self.network
            for tl in target_layers:
                assert (
                    tl in self.network.modules()
                ), f"target_layers must be in self.network.modules(), but {tl} is not."

        ## INITIALIZE CAMS AND DATALOADER ##
        # move model to device
        self.network.to(self.device)
        self.network.eval()

        # initialize cam object: `method` is either str in methods_dict keys, or the class
        methods_dict = {
            "gradcam": pytorch_grad_cam.GradCAM,
            "hirescam": pytorch_grad_cam.HiResCAM,
            "scorecam": pytorch_grad_cam.ScoreCAM,
            "gradcam++": pytorch_grad_cam.GradCAMPlusPlus,
            "ablationcam": pytorch_grad_cam.AblationCAM,
            "xgradcam": pytorch_grad_cam.XGradCAM,
            "eigencam": pytorch_grad_cam.EigenCAM,
            "eigengradcam": pytorch_grad_cam.EigenGradCAM,
            "layercam": pytorch_grad_cam.LayerCAM,
            "fullgrad": pytorch_grad_cam.FullGrad,
            "gradcamelementwise": pytorch_grad_cam.GradCAMElementWise,
        }
        if isinstance(method, str) and method in methods_dict:
            # get cam clsas based on string name and create instance
            cam = methods_dict[method](model=self.network, target_layers=target_layers)
            cam.device = self.device
        elif method is None:
            cam = None
        elif isinstance(method, type) and issubclass(
            method, pytorch_grad_cam.base_cam.BaseCAM
        ):
            # generate instance of cam from class
            cam = method(model=self.network, target_layers=target_layers)
            cam.device = self.device
        else:
            raise ValueError(
                f"`method` {method} not supported. "
                f"Must be str from list of supported methods or a subclass of "
                f"pytorch_grad_cam.base_cam.BaseCAM. See docstring for details. "
            )

        # initialize guided back propagation object
        if guided_backprop:
            gb_model = pytorch_grad_cam.GuidedBackpropReLUModel(
                model=self.network, device=self.device
            )

        # create dataloader, collate using `identity` to return list of AudioSample
        # rather than (samples, labels) tensors
        if audio_root is not None:
            dataloader_kwargs["audio_root"] = audio_root
        dataloader = self.predict_dataloader(samples, **dataloader_kwargs)

        ## GENERATE SAMPLES ##

        generated_samples = []
        for i, samples in enumerate(
            tqdm(
                dataloader,
                disable=not progress_bar,
            )
        ):
            # load a batch of images and labels from the dataloader
            # we collate here rather than in the DataLoader so that
            # we can still access the AudioSamples and thier information
            batch_tensors, batch_labels = collate_audio_samples(samples)
            batch_tensors = batch_tensors.to(self.device)
            batch_tensors.requires_grad = False

            # generate logits with forward pass
            logits = self.network(batch_tensors)

            # generate class activation maps using cam object
            def target(class_name):
                """helper for pytorch_grad_cam class syntax"""
                # first get integet position of class name in self.classes
                class_idx = list(self.classes).index(class_name)
                # then create list of class required by pytorch_grad_cam
                return [ClassifierOutputTarget(class_idx)]

            if cam is not None:
                if classes is None:  # selects highest scoring class per sample
                    batch_maps = pd.Series({None: cam(batch_tensors)})
                else:  # one activation map per class
                    batch_maps = pd.Series(
                        {c: cam(batch_tensors, targets=target(c)) for c in classes}
                    )

            # update the AudioSample objects to include the activation maps
            # and create guided backprop maps, one sample at a time
            for i, sample in enumerate(samples):
                # add the scores (logits) from the network to AudioSample as dictionary
                sample.scores = dict(
                    zip(self.classes, logits[i].detach().cpu().numpy())
                )

                # add the cams as a dictionary keyed by class
                if cam is None:
                    activation_maps = None
                else:
                    # extract this sample's activation maps from batch (all classes)
                    activation_maps = pd.Series(
                        {c: batch_maps[c][i] for c in batch_maps.index}
                    )

                # if requested, calculate the ReLU backpropogation, which creates
                # high resolution pixel-activation levels for specific classes
                # GuidedBackpropReLUasModule does not support batching
                if guided_backprop:
                    # create "batch" with one sample
                    t = batch_tensors[i].unsqueeze(0)
                    # target_category expects the index position of the class eg 0 for
                    # first class, rather than the class name
                    # note: t.detach() to avoid bug,
                    # see https://github.com/jacobgil/pytorch-grad-cam/issues/401
                    if classes is None:  # defaults to highest scoring class
                        gbp_maps = pd.Series({None: gb_model(t.detach())})
                    else:  # one for each class
                        cls_list = list(self.classes)
                        gbp_maps = pd.Series(
                            {
                                c: gb_model(
                                    t.detach(), target_category=cls_list.index(c)
                                )
                                for c in classes
                            }
                        )

                    # average the guided backprop map over the channel dimension
                    def avg_over_channels(img):
                        return img.mean(axis=-1)

                    gbp_maps = gbp_maps.apply(avg_over_channels)

                else:  # no guided backprop requested
                    gbp_maps = None

                # add CAM object as sample.cam (includes activation_map and gbp_maps)
                sample.cam = CAM(
                    base_image=batch_tensors[i],
                    activation_maps=activation_maps,
                    gbp_maps=gbp_maps,
                )

                # add sample to list of outputs to return
                generated_samples.append(sample)

        # return list of AudioSamples containing .cam attributes
        return generated_samples

    def batch_forward(self, batch_samples, targets=None, avgpool=True):
        """
        Forward pass for a batch of data

        Args:
            batch_samples: a batch of samples from a dataloader
            targets: list of layers from self.network to extract outputs from
                The key `self.class_outputs_key` (-1 by default) corresponds to final model output.
                If None, only returns final model output.
            avgpool: bool, if True, applies global average pooling to
                intermediate outputs (average across all dimensions except first to get
        Returns:
            dictionary with key for each output request in `targets`
            Key matching `self.class_outputs_key` corresponds to final model output.
        """
        if targets is None:
            targets = [self.class_outputs_key]
        batch_data, _ = collate_audio_samples(batch_samples)
        outs = {k: None for k in targets}

        # define a function that will be used to save the output of each target layer
        # during inference
        def forward_hook_to_save_output(layer_name):
            def hook(module, input, output):
                if avgpool:
                    # apply global average pooling to intermediate outputs
                    # (average across all dimensions except first to get a 1D vector per sample)
                    # (also skip batch dimension: so start averaging from dim 2)
                    if output.dim() > 2:
                        output = output.mean(list(range(2, output.dim())))
                outs[layer_name] = output.detach().cpu().numpy()

            return hook

        # initialize forward hooks to save intermediate outputs
        fhooks = []  # keep the handles so we can remove the hooks later
        for idx, l in enumerate(targets):
            if l == self.class_outputs_key:
                continue  # final model output is handled separately
            fhooks.append(l.register_forward_hook(forward_hook_to_save_output(l)))

        batch_tensors = torch.as_tensor(batch_data).to(self.device)
        batch_tensors.requires_grad = False

        # forward pass of network: feature extractor + classifier
        with torch.set_grad_enabled(False):
            # run the forward pass
            model_out = self.network(batch_tensors).detach().cpu().numpy()
            if self.class_outputs_key in outs:  # store final model output if requested
                outs[self.class_outputs_key] = model_out

        # clean up by removing forward hooks
        for fh in fhooks:
            fh.remove()

        return outs

    def embed(
        self,
        samples,
        batch_size=1,
        num_workers=0,
        target_layer=None,
        progress_bar=True,
        return_preds=False,
        avgpool=True,
        return_dfs=True,
        audio_root=None,
        output_size_warning=1e9,
        **dataloader_kwargs,
    ):
        """
        Generate embeddings (intermediate layer outputs) for audio files/clips

        Note: to capture embeddings on multiple layers, use self.__call__ with intermediate_layers
        argument directly. This wrapper only allows one target_layer.

        Note: Output can be n-dimensional array (return_dfs=False) or pd.DataFrame with multi-index
        like .predict() (return_dfs=True). If avgpool=False, return_dfs is forced to False since we
        can't create a DataFrame with >2 dimensions.

        For advanced use cases (e.g. multiple target layers), use self.__call__() directly.

        Args:
            samples: same as CNN.predict(): file path, list of file paths, OR pd.DataFrame with index
                containing audio file paths, OR a pd.DataFrame with multi-index (file, start_time,
                end_time)
            batch_size: batch size to use for dataloader [default: 1]
            num_workers: number of parallel CPU workers to use for dataloader [default: 0]
            target_layer: layer from self.model._modules to
                extract outputs from - if None, attempts to use self.model.embedding_layer as
                default
            progress_bar: bool, if True, shows a progress bar with tqdm [default: True]
            return_preds: bool, if True, returns two outputs (embeddings, logits)
            avgpool: bool, if True, applies global average pooling to intermediate outputs
                i.e. averages across all dimensions except first to get a 1D vector per sample
            return_dfs: bool, if True, returns embeddings as pd.DataFrame with multi-index like
                .predict(). if False, returns np.array of embeddings [default: True]. If
                avg_pool=False, overrides to return np.array since we can't have a df with >2
                dimensions
            audio_root: optionally pass a root directory (pathlib.Path or str)
                - `audio_root` is prepended to each file path
                - if None (default), samples must contain full paths to files
            dataloader_kwargs are passed to self.predict_dataloader()

        Returns: (embeddings, preds) if return_preds=True or embeddings if return_preds=False
            types are pd.DataFrame if return_dfs=True, or np.array if return_dfs=False

        """
        dataloader_kwargs.update(
            dict(audio_root=audio_root, batch_size=batch_size, num_workers=num_workers)
        )
        if not avgpool:  # cannot create a DataFrame with >2 dimensions
            return_dfs = False
        samples = _check_classes_inference(samples, self.classes)

        # if target_layer is None, attempt to retrieve default target layers of network
        # if specified, check that target_layer is a module of self.network
        target_layer = self._check_or_get_default_embedding_layer(target_layer)

        # create dataloader to generate batches of AudioSamples
        dataloader = self.predict_dataloader(samples, **dataloader_kwargs)

        # warn the user if the output size is very large
        try:
            out_dim = target_layer.out_features
        except:
            out_dim = 1000  # guess embedding size
        _warn_output_size(dataloader, out_dim, output_size_warning)

        # run inference, returns dict with keys for each target
        outs = self(
            dataloader=dataloader,
            progress_bar=progress_bar,
            targets=(
                [target_layer, self.class_outputs_key]
                if return_preds
                else [target_layer]
            ),
            avgpool_intermediates=avgpool,
        )
        embeddings = outs[target_layer]

        if return_dfs:
            # put embeddings in DataFrame with multi-index like .predict()
            embeddings = pd.DataFrame(
                data=embeddings, index=dataloader.dataset.dataset.label_df.index
            )

        if return_preds:
            preds = outs[self.class_outputs_key]
            if return_dfs:
                # put predictions in a DataFrame with same index as embeddings
                preds = pd.DataFrame(
                    data=preds, index=dataloader.dataset.dataset.label_df.index
                )
            return embeddings, preds
        return embeddings

    @property
    def device(self):
        return self._device

    @device.setter
    def device(self, device):
        """
        Set the device to use in train/predict, casting strings to torch.device datatype

        Automatically gpu (default is 'cuda:0' or 'mps') if available. Can set after init, eg
        model.device='cuda:1'. Network and samples are moved to device during training/inference.
        Devices could be 'cuda:0', torch.device('cuda'), torch.device('cpu'), torch.device('mps')
        etc

        Args:
            device: a torch.device object or str such as 'cuda:0', 'mps', 'cpu'
        """
        self._device = torch.device(device)

    def save_onnx(
        self,
        path,
        activation_layer=None,
        include_preprocessor_output=True,
        include_embedding_output=True,
        include_classifier_output=True,
        **kwargs,
    ):
        """Export the model to ONNX format

        The preprocessor must be a TorchSpectrogramPreprocessor with
        torch.nn.Modules in preprocessor.pipeline['transform'].transforms
        (see example below)

        See also: to_onnx_model() to create opensoundscape.ONNXModel for inference

        Requires that onnx, onnxruntime, and onnxscript are packages are installed

        Args:
            path: file path to save the ONNX model
                pass None to return an in-memory torch.onnx.ONNXProgram object without saving to disk
            activation_layer: if provided, applies an activation layer to classifier outputs
                options: 'softmax', 'sigmoid', or None [default: None]
            include_preprocessor_output: if True, includes the output of the preprocessor
                in the ONNX model outputs as key "preprocessor" [default: True]
            include_embedding_output: if True, includes the output of the embedding layer
                in the ONNX model outputs as key "embedding" [default: True]
            include_classifier_output: if True, includes the output of the classifier
                in the ONNX model outputs as key "classifier" [default: True]
            **kwargs: additional keyword arguments passed to
                opensoundscape.ml.export.to_onnx_program()
        Returns:
            onnx_program: a torch.onnx.ONNXProgram object

        Example:

        Exporting an EfficientNet model to ONNX format:
        ```python
        from opensoundscape import CNN, preprocessors

        model = CNN(
            architecture="efficientnet_b0",
            classes=[0, 1, 2, 3],
            sample_duration=3,
            preprocessor_cls=preprocessors.TorchSpectrogramPreprocessor,
            sample_rate=32000,
        )
        onnx_program = model.save_onnx("./opso_efficientnet.onnx")
        ```

        Using the saved model for inference with onnx runtime:

        ```python
        import onnx, onnxruntime
        import numpy as np

        combined_model = onnx.load("opso_efficientnet.onnx")
        output_names = [node.name for node in combined_model.graph.output]

        onnx.checker.check_model(combined_model)


        EP_list = ["CPUExecutionProvider"]  # ["CUDAExecutionProvider", "CPUExecutionProvider"]
        ort_session = onnxruntime.InferenceSession("opso_efficientnet.onnx", providers=EP_list)

        # make up some random inputs
        audio_samples_per_input = (
            combined_model.graph.input[0].type.tensor_type.shape.dim[2].dim_value
        )
        batch_size = 3
        input_batched = np.random.rand(batch_size, 1, audio_samples_per_input).astype(
            np.float32
        )

        # compute ONNX Runtime output prediction
        ort_inputs = {ort_session.get_inputs()[0].name: input_batched}
        ort_outs = ort_session.run(None, ort_inputs)

        # restore the name-value dictionary mapping of outputs
        outs_dict = {name: ort_outs[i] for i, name in enumerate(output_names)}
        print(f"shape of outputs for inference on one batch of batch size {batch_size}:")
        print({k: v.shape for k, v in outs_dict.items()})
        ```

        Example 2: Exporting a model with customized preprocessing transforms

        ```python
        from opensoundscape import CNN, preprocessors

        model = CNN(
            architecture="efficientnet_b0",
            classes=[0, 1, 2, 3],
            sample_duration=3,
            preprocessor_cls=preprocessors.TorchSpectrogramPreprocessor,
            sample_rate=32000,
            bandpass_range=(3000, 10000),
            lower_dB_range=-30,
            rescale_mean_sd=(-30, 20),
            spec_nfft=512,
            spec_window_length=512,
            spec_hop_length=128,
            # resize_ft=(200, 512), # using resize_ft breaks serialization for json save/load!
            n_mels=64,
        )
        onnx_program = model.save_onnx("./opso_efficientnet_melspec.onnx")
        ```

        Example 3: Writing a custom list of preprocessing transforms

        ```python
        import torchaudio
        from opensoundscape import CNN, preprocessors
        model = CNN("resnet18", classes=[0], sample_duration=5, sample_rate=32000)
        # custom list of torchaudio and torchvision transforms
        my_transforms = [
            torchaudio.transforms.Spectrogram(
                n_fft=512,
                win_length=512,
                hop_length=128,
                center=False, #highly recommended because default=True will zero-pad, creating extra columns
            ),
            torchaudio.transforms.AmplitudeToDB(top_db=80),
        ]
        model.preprocessor = preprocessors.TorchSpectrogramPreprocessor(
            sample_rate=32000,
            sample_duration=model.preprocessor.sample_duration,
            torch_transforms=my_transforms,
        )
        onnx_program = model.save_onnx("./opso_efficientnet_custom.onnx")
        ```
        """
        try:
            import onnx
        except ImportError as e:
            raise ImportError(
                "onnx package is required for ONNX export. Please install to use this feature. "
                "For example `pip install opensoundscape[onnx]`"
            ) from e

        # give helpful error if preprocessor is not TorchSpectrogramPreprocessor
        # or if preprocessor.pipeline['transform'].transforms is not accessible
        assert isinstance(
            self.preprocessor,
            opensoundscape.preprocess.preprocessors.TorchSpectrogramPreprocessor,
        ), """ONNX export only supported for TorchSpectrogramPreprocessor in which
            preprocessor.pipeline["transform"].transforms contains a list of torch.nn.Modules
            that preprocess the audio waveform signal into the model input format (eg spectrograms).
            """

        try:
            transforms = self.preprocessor.pipeline["transform"].transforms
        except AttributeError as e:
            raise AttributeError(
                """Could not access self.preprocessor.pipeline['transform'].transforms. 
                ONNX export only supported for TorchSpectrogramPreprocessor in which
                preprocessor.pipeline['transform'].transforms contains a list of
                torch.nn.Modules that preprocess the audio waveform signal into the model
                input format (eg spectrograms).
                """
            ) from e

        n_audio_samples_per_input = int(
            self.preprocessor.sample_rate * self.preprocessor.sample_duration
        )
        # set network to evaluation mode
        self.network.eval()

        # create torch.onnx.ONNXProgram composing the preprocessor and the network
        onnx_program = opensoundscape.ml.export.to_onnx_program(
            preprocessing_transforms=transforms,
            torch_model=self.network,
            input_length=n_audio_samples_per_input,
            activation_layer=activation_layer,
            include_embedding_output=include_embedding_output,
            include_classifier_output=include_classifier_output,
            include_preprocessor_output=include_preprocessor_output,
            **kwargs,
        )
        if path is not None:
            # save model to disk
            onnx_program.save(path)

            # re-load model to add metadata
            om = onnx.load(path)

            # add metadata properties
            meta = om.metadata_props.add()
            meta.key = "sample_duration"
            meta.value = str(self.preprocessor.sample_duration)
            meta = om.metadata_props.add()
            meta.key = "sample_rate"
            meta.value = str(self.preprocessor.sample_rate)
            meta = om.metadata_props.add()
            meta.key = "classes"
            meta.value = json.dumps(self.classes)
            if include_classifier_output:
                meta = om.metadata_props.add()
                meta.key = "class_outputs_key"
                meta.value = "classifier"
            if include_embedding_output:
                meta = om.metadata_props.add()
                meta.key = "embedding_outputs_key"
                meta.value = "embedding"

            # re save model with metadata
            onnx.save(om, path)

        return onnx_program

    @property
    def sample_duration(self):
        return self.preprocessor.sample_duration

    # setter
    @sample_duration.setter
    def sample_duration(self, duration):
        self.preprocessor.sample_duration = duration

    @property
    def sample_rate(self):
        return self.preprocessor.sample_rate

    @sample_rate.setter
    def sample_rate(self, rate):
        self.preprocessor.sample_rate = rate


# alias for convenience
@register_model_cls
class CNN(SpectrogramClassifier):
    pass


CNN.__doc__ = SpectrogramClassifier.__doc__
CNN.__init__.__doc__ = SpectrogramClassifier.__init__.__doc__


def _check_classes_inference(samples, model_classes):
    if (
        isinstance(samples, pd.DataFrame)
        and len(samples.columns) > 0
        and list(model_classes) != list(samples.columns)
    ):
        warnings.warn(
            "The columns of input samples df differ from `model.classes`. "
            "Discarding sample df columns."
        )
        samples = samples.copy()[[]]
    return samples


def use_resample_loss(model, train_df):
    """Modify a model to use ResampleLoss for multi-target training

    ResampleLoss may perform better than BCE Loss for multitarget problems
    in some scenarios.

    Args:
        model: CNN object
        train_df: dataframe of labels, used to calculate class frequency
    """
    class_frequency = torch.tensor(train_df.values).sum(0).to(model.device)
    model.loss_fn = ResampleLoss(class_frequency)


def load_model(path, device=None, unpickle=True):
    """load a saved model object from a file

    This function handles models saved with model.save() either as pickled objects (pickle=True)
    or as a dictionary (pickle=False) including weights, preprocessing parameters, architecture name, etc.

    Note that pickled objects may not load properly across different versions of
    OpenSoundscape. However, the dictionary format does not retain the full training state
    for resuming model training. Therefore, we advise saving with pickle=True for resuming training
    and with pickle=False when and saving models for future use.

    Args:
        path: file path of saved model
        device: which device to load into,
            can be string (eg 'cuda:0', 'mps', 'cpu', 'cuda:1', 'cuda') or torch.device object.
            [default: None] will choose first gpu if available, otherwise cpu
        unpickle: if True, passes `weights_only=False` to torch.load(). This is necessary if the
        model was saved with`pickle=True`, which saves the entire model object.
            If `unpickle=False`, this function will work if the model was saved with pickle=False,
            but will raise an error if the model was saved with pickle=True. [default: True]
    Returns:
        a model object with loaded weights
    """
    # auto-select gpu when available, if device is not specified
    if device is None:
        device = _gpu_if_available()

    # loading directly to other devices can cause issues if there are any tensors that should stay on cpu
    # therefore we first load the saved content to cpu, then move the model to the desired device at the end
    loaded_content = torch.load(
        path,
        map_location="cpu",
        weights_only=not unpickle,
    )

    # the loaded content can either be an entire pickled model object or a dictionary specifying how to construct the model
    if isinstance(loaded_content, dict):
        # user saved with pickle=False. Reconstruct from dictionary
        # warn the user if loaded model's opso version doesn't match the current one
        if "opensoundscape_version" in loaded_content:
            model_opso_version = loaded_content.pop("opensoundscape_version")
        else:
            # unknown version
            raise ValueError(
                """The model did not contain sufficient information to load. 
                It was likely saved by an early version of OpenSoundscape that is no longer
                supported. Consider extracting the weights dictionary with torch.load(path) and
                manually creating a model with the same architecture and preprocessing
                parameters."""
            )
        _version_mismatch_warn(model_opso_version)

        # find the model class by name
        if "class" in loaded_content:
            model_cls = MODEL_CLS_DICT[loaded_content.pop("class")]
        else:
            warnings.warn("Class not specified, assuming CNN")
            model_cls = CNN
        state_dict = loaded_content.pop("weights")

        # initialize the model class from the dictionary keys and load the weights
        if version.parse(model_opso_version) < version.parse("0.13.0"):
            # use backwards-compatible loading
            pre_dict = loaded_content["preprocessor_dict"]
            pre_dict["init_kwargs"]["sample_rate"] = None
            pre_dict["pipeline"]["overlay"]["params"]["break_on_key"] = "overlay"
            pre_dict["pipeline"]["load_audio"]["params"].pop("sample_rate")
            pre_dict["init_kwargs"]["use_legacy_spectrogram"] = True
            model = model_cls(**loaded_content, sample_rate=None)
            # formerly included conv1.bias but torchvision models create conv1.bias=None, which we now retain
            original_conv1_bias = state_dict.pop("conv1.bias", None)
            model.network.load_state_dict(state_dict)
            if original_conv1_bias is not None:
                model.network.conv1.bias = torch.nn.Parameter(original_conv1_bias)

            # we inverted the default spectrogram values in 0.7.0
            if version.parse(model_opso_version) < version.parse("0.7.0"):
                model.preprocessor.pipeline.to_tensor.set(invert=True)

        else:
            model = model_cls(**loaded_content)
            model.network.load_state_dict(state_dict)

    else:  # entire pickled object was saved and loaded
        _version_mismatch_warn(loaded_content.opensoundscape_version)
        model = loaded_content

    # now we can move the network to the user-specified device
    model.network.to(device)

    return model


def _gpu_if_available():
    """
    Return a torch.device, chosing cuda:0 or mps if available

    Returns the first available GPU device (torch.device('cuda:0')) if cuda is available,
    otherwise returns torch.device('mps') if MPS is available,
    otherwise returns the CPU device.
    """
    if torch.cuda.is_available():
        device = torch.device("cuda:0")
    elif torch.backends.mps.is_available():
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    return device
