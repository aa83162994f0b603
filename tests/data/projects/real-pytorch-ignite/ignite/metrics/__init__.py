import ignite.metrics.clustering
import ignite.metrics.fairness
import ignite.metrics.regression

from ignite.metrics.accumulation import Average, GeometricAverage, VariableAccumulation
from ignite.metrics.accuracy import Accuracy
from ignite.metrics.average_precision import AveragePrecision
from ignite.metrics.classification_report import ClassificationReport
from ignite.metrics.cohen_kappa import CohenKappa
from ignite.metrics.confusion_matrix import ConfusionMatrix, DiceCoefficient, IoU, JaccardIndex, mIoU
from ignite.metrics.cosine_similarity import CosineSimilarity
from ignite.metrics.entropy import Entropy
from ignite.metrics.epoch_metric import EpochMetric
from ignite.metrics.fbeta import Fbeta
from ignite.metrics.frequency import Frequency
from ignite.metrics.gan.fid import FID
from ignite.metrics.gan.inception_score import InceptionScore
from ignite.metrics.gpu_info import GpuInfo
from ignite.metrics.hsic import HSIC
from ignite.metrics.js_divergence import JSDivergence
from ignite.metrics.kl_divergence import KLDivergence
from ignite.metrics.loss import Loss
from ignite.metrics.maximum_mean_discrepancy import MaximumMeanDiscrepancy
from ignite.metrics.mean_absolute_error import MeanAbsoluteError
from ignite.metrics.mean_average_precision import MeanAveragePrecision
from ignite.metrics.mean_pairwise_distance import MeanPairwiseDistance
from ignite.metrics.mean_squared_error import MeanSquaredError
from ignite.metrics.matthews_corrcoef import MatthewsCorrCoef
from ignite.metrics.metric import BatchFiltered, BatchWise, EpochWise, Metric, MetricUsage
from ignite.metrics.metric_group import MetricGroup
from ignite.metrics.metrics_lambda import MetricsLambda
from ignite.metrics.multilabel_confusion_matrix import MultiLabelConfusionMatrix
from ignite.metrics.mutual_information import MutualInformation
from ignite.metrics.nlp.bleu import Bleu
from ignite.metrics.nlp.character_error_rate import CharacterErrorRate
from ignite.metrics.nlp.rouge import Rouge, RougeL, RougeN
from ignite.metrics.nlp.perplexity import Perplexity
from ignite.metrics.precision import Precision
from ignite.metrics.precision_recall_curve import PrecisionRecallCurve
from ignite.metrics.psnr import PSNR
from ignite.metrics.recall import Recall
from ignite.metrics.rec_sys.hitrate import HitRate
from ignite.metrics.rec_sys.ndcg import NDCG
from ignite.metrics.roc_auc import ROC_AUC, RocCurve
from ignite.metrics.root_mean_squared_error import RootMeanSquaredError
from ignite.metrics.running_average import RunningAverage
from ignite.metrics.ssim import SSIM
from ignite.metrics.top_k_categorical_accuracy import TopKCategoricalAccuracy
from ignite.metrics.vision.object_detection_average_precision_recall import (
    coco_tensor_list_to_dict_list,
    CommonObjectDetectionMetrics,
    ObjectDetectionAvgPrecisionRecall,
)

__all__ = [
    "Metric",
    "Accuracy",
    "Loss",
    "MetricGroup",
    "MetricsLambda",
    "MeanAbsoluteError",
    "MeanPairwiseDistance",
    "MeanSquaredError",
    "MatthewsCorrCoef",
    "ConfusionMatrix",
    "CosineSimilarity",
    "ClassificationReport",
    "TopKCategoricalAccuracy",
    "Average",
    "DiceCoefficient",
    "Entropy",
    "EpochMetric",
    "Fbeta",
    "FID",
    "GeometricAverage",
    "IoU",
    "InceptionScore",
    "mIoU",
    "JaccardIndex",
    "JSDivergence",
    "KLDivergence",
    "HSIC",
    "MaximumMeanDiscrepancy",
    "MultiLabelConfusionMatrix",
    "MutualInformation",
    "Precision",
    "PSNR",
    "Recall",
    "RootMeanSquaredError",
    "RunningAverage",
    "VariableAccumulation",
    "Frequency",
    "SSIM",
    "Bleu",
    "CharacterErrorRate",
    "Rouge",
    "RougeN",
    "RougeL",
    "Perplexity",
    "regression",
    "clustering",
    "fairness",
    "AveragePrecision",
    "CohenKappa",
    "GpuInfo",
    "PrecisionRecallCurve",
    "RocCurve",
    "ROC_AUC",
    "MeanAveragePrecision",
    "ObjectDetectionAvgPrecisionRecall",
    "CommonObjectDetectionMetrics",
    "coco_tensor_list_to_dict_list",
    "HitRate",
    "NDCG",
]
