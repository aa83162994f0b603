from .nms import batched_nms, HAS_CPP_NMS
from .metrics import ANETdetection, remove_duplicate_annotations
from .train_utils import (make_optimizer, make_scheduler, save_checkpoint,
                          AverageMeter, train_one_epoch, valid_one_epoch,
                          fix_random_seed, ModelEma)
from .postprocessing import postprocess_results
from .loss_logger import LossLogger, compute_loss_breakdown, compute_iou_stats
from .temporal_constraints import (TemporalConstraints, enforce_class_constraints,
                                   merge_close_detections)

__all__ = ['batched_nms', 'HAS_CPP_NMS', 'make_optimizer', 'make_scheduler', 'save_checkpoint',
           'AverageMeter', 'train_one_epoch', 'valid_one_epoch', 'ANETdetection',
           'postprocess_results', 'fix_random_seed', 'ModelEma', 'remove_duplicate_annotations',
           'LossLogger', 'compute_loss_breakdown', 'compute_iou_stats',
           'TemporalConstraints', 'enforce_class_constraints', 'merge_close_detections']
