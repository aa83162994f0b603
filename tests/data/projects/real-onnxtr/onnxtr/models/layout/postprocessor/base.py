# Copyright (C) 2021-2026, Mindee | Felix Dittrich.

# This program is licensed under the Apache License 2.0.
# See LICENSE or go to <https://opensource.org/licenses/Apache-2.0> for full license details.

import cv2
import numpy as np

from onnxtr.utils.geometry import order_points

__all__ = ["LWDETRPostProcessor"]


class LWDETRPostProcessor:
    """Implements a post processor for the LW-DETR model

    Args:
        num_classes: number of classes
        score_thresh: confidence threshold for filtering predictions
        iou_thresh: IoU threshold for NMS
        topk: number of top predictions to keep before NMS
        assume_straight_pages: whether the pages are assumed to be straight (i.e., no rotation)
    """

    def __init__(
        self,
        num_classes: int,
        score_thresh: float = 0.5,
        iou_thresh: float = 0.5,
        topk: int = 300,
        assume_straight_pages: bool = True,
    ):
        self.num_classes = num_classes
        self.score_thresh = score_thresh
        self.iou_thresh = iou_thresh
        self.topk = topk
        self.assume_straight_pages = assume_straight_pages

    def _decode_boxes(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Decode the predicted boxes from OBB format to polygon format

        Args:
            boxes: array of predicted boxes in OBB format (N, 6) (cx, cy, w, h, sin(theta), cos(theta))

        Returns:
            tuple of (polys, angles) where polys is an array of decoded polygons (N, 4, 2)
                and angles is an array of angles in radians (N,)
        """
        cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        sin, cos = boxes[:, 4], boxes[:, 5]

        angles = np.arctan2(sin, cos)

        polys = []
        for i in range(len(boxes)):
            rect = ((float(cx[i]), float(cy[i])), (float(w[i]), float(h[i])), float(np.degrees(angles[i])))

            poly = order_points(cv2.boxPoints(rect))
            polys.append(poly)

        return np.asarray(polys, dtype=np.float32), angles

    def _iou(self, poly1: np.ndarray, poly2: np.ndarray) -> float:
        """Compute the IoU between two polygons

        Args:
            poly1: first polygon (4, 2)
            poly2: second polygon (4, 2)

        Returns:
            IoU between the two polygons
        """
        inter = cv2.intersectConvexConvex(
            poly1.astype(np.float32),
            poly2.astype(np.float32),
        )[0]

        if inter <= 0:
            return 0.0

        area1 = cv2.contourArea(poly1)
        area2 = cv2.contourArea(poly2)

        return inter / (area1 + area2 - inter + 1e-6)

    def _nms(self, polys: np.ndarray, scores: np.ndarray, labels: np.ndarray) -> list[int]:
        """Class-wise greedy NMS for rotated polygons.

        Args:
            polys: (N, 4, 2)
            scores: (N,)
            labels: (N,)

        Returns:
            indices kept after NMS (global indices)
        """
        if len(polys) == 0:
            return []

        keep: list[int] = []

        # Process each class independently
        for cls in np.unique(labels):
            cls_idxs = np.where(labels == cls)[0]
            if len(cls_idxs) == 0:
                continue

            cls_scores = scores[cls_idxs]
            cls_polys = polys[cls_idxs]

            # sort by confidence
            order = np.argsort(cls_scores)[::-1]
            cls_idxs = cls_idxs[order]
            cls_polys = cls_polys[order]
            cls_scores = cls_scores[order]

            suppressed = np.zeros(len(cls_idxs), dtype=bool)

            for i in range(len(cls_idxs)):
                if suppressed[i]:
                    continue

                keep.append(cls_idxs[i])

                # compare current box with the rest
                for j in range(i + 1, len(cls_idxs)):
                    if suppressed[j]:
                        continue

                    iou = self._iou(cls_polys[i], cls_polys[j])
                    if iou >= self.iou_thresh:
                        suppressed[j] = True
        return keep

    def __call__(self, logits: np.ndarray, boxes: np.ndarray) -> list[tuple[list[int], np.ndarray, list[float]]]:
        logits = np.asarray(logits)
        boxes = np.asarray(boxes)

        results: list[tuple[list[int], np.ndarray, list[float]]] = []

        for b in range(boxes.shape[0]):
            # Sigmoid scores (the model is trained with a sigmoid-based (IA-BCE) loss without
            # a background class)
            prob = 1.0 / (1.0 + np.exp(-logits[b]))  # (num_queries, num_classes)
            num_classes = prob.shape[-1]

            # Keep only the topk (query, class) pairs before NMS
            flat_prob = prob.reshape(-1)
            topk = min(self.topk, flat_prob.size) if self.topk is not None else flat_prob.size
            topk_idxs = np.argsort(flat_prob)[::-1][:topk]

            scores_b = flat_prob[topk_idxs]
            labels_b = topk_idxs % num_classes
            query_idxs = topk_idxs // num_classes
            bboxes = boxes[b][query_idxs]

            mask = scores_b > self.score_thresh

            bboxes = bboxes[mask]
            scores_b = scores_b[mask]
            labels_b = labels_b[mask]

            polys, _ = (
                self._decode_boxes(bboxes)
                if len(bboxes) > 0
                else (
                    np.zeros((0, 4, 2), dtype=np.float32),
                    np.zeros((0,), dtype=np.float32),
                )
            )

            keep = self._nms(polys, scores_b, labels_b) if len(polys) > 0 else []

            final_labels = []
            final_boxes = []
            final_scores = []

            for idx in keep:
                poly = polys[idx].reshape(-1).tolist()
                if self.assume_straight_pages:
                    x_coords = poly[0::2]
                    y_coords = poly[1::2]
                    xmin, xmax = min(x_coords), max(x_coords)
                    ymin, ymax = min(y_coords), max(y_coords)
                    final_boxes.append([xmin, ymin, xmax, ymax])
                else:
                    final_boxes.append(poly)

                final_labels.append(int(labels_b[idx]))
                final_scores.append(float(scores_b[idx]))

            final_boxes_arr = (
                np.asarray(final_boxes, dtype=np.float32).reshape(-1, 4, 2)
                if not self.assume_straight_pages
                else np.asarray(final_boxes, dtype=np.float32).reshape(-1, 4)
            ).clip(0, 1)

            results.append((
                final_labels,
                final_boxes_arr,
                final_scores,
            ))

        return results
