# Copyright (C) 2021-2026, Mindee | Felix Dittrich.

# This program is licensed under the Apache License 2.0.
# See LICENSE or go to <https://opensource.org/licenses/Apache-2.0> for full license details.

from typing import Any

import cv2
import numpy as np

from onnxtr.io.elements import Document
from onnxtr.models._utils import get_language
from onnxtr.models.detection.predictor import DetectionPredictor
from onnxtr.models.engine import EngineConfig
from onnxtr.models.layout.predictor import LayoutPredictor
from onnxtr.models.recognition.predictor import RecognitionPredictor
from onnxtr.models.table_structure.predictor import TablePredictor
from onnxtr.utils.geometry import detach_scores
from onnxtr.utils.repr import NestedObject

from .base import _OCRPredictor

__all__ = ["OCRPredictor"]


class OCRPredictor(NestedObject, _OCRPredictor):
    """Implements an object able to localize and identify text elements in a set of documents

    Args:
        det_predictor: detection module
        reco_predictor: recognition module
        assume_straight_pages: if True, speeds up the inference by assuming you only pass straight pages
            without rotated textual elements.
        straighten_pages: if True, estimates the page general orientation based on the median line orientation.
            Then, rotates page before passing it to the deep learning modules. The final predictions will be remapped
            accordingly. Doing so will improve performances for documents with page-uniform rotations.
        detect_orientation: if True, the estimated general page orientation will be added to the predictions for each
            page. Doing so will slightly deteriorate the overall latency.
        detect_language: if True, the language prediction will be added to the predictions for each
            page. Doing so will slightly deteriorate the overall latency.
        clf_engine_cfg: configuration of the orientation classification engine
        preserve_original_coords: if True and straighten_pages is True, the returned bounding boxes are mapped back
            to the original page coordinate space. Useful for redaction and annotation.
        layout_predictor: optional layout detection module
        table_predictor: optional table structure recognition module. Requires `layout_predictor`: table
            regions are located by the layout model, cropped, and passed to this module. Words falling inside a
            detected table are regrouped into a structured table and removed from the regular text output.
        **kwargs: keyword args of `DocumentBuilder`
    """

    _children_names = ["det_predictor", "reco_predictor", "doc_builder"]

    def __init__(
        self,
        det_predictor: DetectionPredictor,
        reco_predictor: RecognitionPredictor,
        assume_straight_pages: bool = True,
        straighten_pages: bool = False,
        preserve_aspect_ratio: bool = True,
        symmetric_pad: bool = True,
        detect_orientation: bool = False,
        detect_language: bool = False,
        clf_engine_cfg: EngineConfig | None = None,
        preserve_original_coords: bool = False,
        layout_predictor: LayoutPredictor | None = None,
        table_predictor: TablePredictor | None = None,
        **kwargs: Any,
    ) -> None:
        self.det_predictor = det_predictor
        self.reco_predictor = reco_predictor
        _OCRPredictor.__init__(
            self,
            assume_straight_pages,
            straighten_pages,
            preserve_aspect_ratio,
            symmetric_pad,
            detect_orientation,
            clf_engine_cfg=clf_engine_cfg,
            preserve_original_coords=preserve_original_coords,
            **kwargs,
        )
        self.detect_orientation = detect_orientation
        self.detect_language = detect_language
        self.layout_predictor = layout_predictor
        self.table_predictor = table_predictor
        # Layout class label whose regions are cropped and passed to the table model
        self.table_class_name = "Table"
        if self.table_predictor is not None and self.layout_predictor is None:
            raise ValueError(
                "`table_predictor` requires a `layout_predictor`: tables are located with the layout model, "
                "cropped, and then passed to the table model."
            )

    def __call__(
        self,
        pages: list[np.ndarray],
        **kwargs: Any,
    ) -> Document:
        # Dimension check
        if any(page.ndim != 3 for page in pages):
            raise ValueError("incorrect input shape: all pages are expected to be multi-channel 2D images.")

        origin_page_shapes = [page.shape[:2] for page in pages]

        regions: list[dict[str, Any]] | None
        if not self.straighten_pages:
            # Detect layout regions on the pages
            regions = self.layout_predictor(pages, **kwargs) if self.layout_predictor is not None else None
            det_pages = self._mask_regions(pages, regions)
        else:
            regions = None
            det_pages = pages

        # Localize text elements (segmentation maps are only materialized when actually consumed)
        if self.detect_orientation or self.straighten_pages:
            loc_preds, out_maps = self.det_predictor(det_pages, return_maps=True, **kwargs)
            bin_thresh = getattr(self.det_predictor.model.postprocessor, "bin_thresh")
            seg_maps = [((out_map > bin_thresh).astype(np.uint8) * 255) for out_map in out_maps]
        else:
            loc_preds = self.det_predictor(det_pages, **kwargs)  # type: ignore[assignment]

        # Detect document rotation and rotate pages
        if self.detect_orientation:
            general_pages_orientations, origin_pages_orientations = self._get_orientations(pages, seg_maps)
            orientations = [
                {"value": orientation_page, "confidence": None} for orientation_page in origin_pages_orientations
            ]
        else:
            orientations = None
            general_pages_orientations = None
            origin_pages_orientations = None
        if self.straighten_pages:
            _orig_shapes = origin_page_shapes
            _orig_pages = list(pages)
            pages, m_invs = self._straighten_pages(
                pages, seg_maps, general_pages_orientations, origin_pages_orientations
            )
            # update page shapes after straightening
            origin_page_shapes = [page.shape[:2] for page in pages]
            _straight_shapes = origin_page_shapes

            # Detect layout regions on the straightened pages
            regions = self.layout_predictor(pages, **kwargs) if self.layout_predictor is not None else None
            det_pages = self._mask_regions(pages, regions)

            # forward again to get predictions on straight pages
            loc_preds = self.det_predictor(det_pages, **kwargs)  # type: ignore[assignment]

        # Detach objectness scores from loc_preds
        loc_preds, objectness_scores = detach_scores(loc_preds)  # type: ignore[arg-type]

        # Apply hooks to loc_preds if any
        for hook in self.hooks:
            loc_preds = hook(loc_preds)

        # Crop images
        crops, loc_preds = self._prepare_crops(
            pages,
            loc_preds,
            channels_last=True,
            assume_straight_pages=self.assume_straight_pages,
            assume_horizontal=self._page_orientation_disabled,
        )
        # Rectify crop orientation and get crop orientation predictions
        crop_orientations: Any = []
        if not self.assume_straight_pages:
            crops, loc_preds, _crop_orientations = self._rectify_crops(crops, loc_preds)
            crop_orientations = [
                {"value": orientation[0], "confidence": orientation[1]} for orientation in _crop_orientations
            ]

        # Identify character sequences
        word_preds = self.reco_predictor([crop for page_crops in crops for crop in page_crops], **kwargs)
        if not crop_orientations:
            crop_orientations = [{"value": 0, "confidence": None} for _ in word_preds]

        boxes, text_preds, crop_orientations = self._process_predictions(loc_preds, word_preds, crop_orientations)

        if self.detect_language:
            languages = [get_language(" ".join([item[0] for item in text_pred])) for text_pred in text_preds]
            languages_dict = [{"value": lang[0], "confidence": lang[1]} for lang in languages]
        else:
            languages_dict = None

        # Recognize table structure: locate tables with the layout model, crop each one and run the table model
        tables = (
            self._tables_from_regions(pages, regions, **kwargs)
            if self.table_predictor is not None and regions is not None
            else None
        )

        out = self.doc_builder(
            pages,
            boxes,
            objectness_scores,
            text_preds,
            origin_page_shapes,
            crop_orientations,
            orientations,
            languages_dict,
            regions,
            tables,
        )

        if self.straighten_pages and self.preserve_original_coords:
            out = self._remap_to_original_coords(out, _orig_shapes, _straight_shapes, m_invs, _orig_pages)
        return out

    def _tables_from_regions(
        self,
        pages: list[np.ndarray],
        regions: list[dict[str, Any]],
        **kwargs: Any,
    ) -> list[list[dict[str, Any]]]:
        """Crop the table regions found by the layout model and run the table model on each crop.

        Each `Table` region is rectified to an upright crop with a perspective transform (so straight boxes and
        rotated polygons are both handled), the table model is applied per crop, and the predicted cell polygons
        are mapped back to page-relative coordinates through the inverse transform. A page therefore yields one
        structured table per detected `Table` region.

        Args:
            pages: the (possibly straightened) page images
            regions: the per-page layout predictions `{"class_names", "boxes", "scores"}`
            **kwargs: keyword arguments forwarded to the table predictor

        Returns:
            a per-page list of table grids `{"cells": [...], "num_rows": int, "num_cols": int}` in page-relative
            coordinates
        """
        crops: list[np.ndarray] = []
        # (page index, inverse transform, crop width, crop height, page width, page height)
        crop_meta: list[tuple[int, np.ndarray, int, int, int, int]] = []
        for p_idx, (page, region) in enumerate(zip(pages, regions)):
            if region is None:
                continue
            h, w = page.shape[:2]
            for cls_name, box in zip(region["class_names"], region["boxes"]):
                if cls_name != self.table_class_name:
                    continue
                pts = np.asarray(box, dtype=np.float32).reshape(-1, 2)
                if pts.shape[0] == 2:  # straight box (x_min, y_min, x_max, y_max) -> corners
                    (bx0, by0), (bx1, by1) = pts
                    src = np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]], dtype=np.float32)
                else:  # rotated 4-point polygon, already ordered (top-left, top-right, bottom-right, bottom-left)
                    src = pts.copy()
                # Relative -> absolute pixel corners
                src[:, 0] *= w
                src[:, 1] *= h
                # Upright crop size from the region side lengths
                crop_w = int(round(max(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[2] - src[3]))))
                crop_h = int(round(max(np.linalg.norm(src[3] - src[0]), np.linalg.norm(src[2] - src[1]))))
                if crop_w < 2 or crop_h < 2:
                    continue
                # Map the region onto an inset rectangle so the warp samples `pad` extra pixels of page
                # context on each side. Crop-relative [0, 1] still maps exactly to [0, out_w] / [0, out_h].
                pad = max(20, round(0.01 * max(crop_w, crop_h)))
                out_w, out_h = crop_w + 2 * pad, crop_h + 2 * pad
                dst = np.array(
                    [[pad, pad], [pad + crop_w, pad], [pad + crop_w, pad + crop_h], [pad, pad + crop_h]],
                    dtype=np.float32,
                )
                transform = cv2.getPerspectiveTransform(src, dst)
                inverse = cv2.getPerspectiveTransform(dst, src)
                crops.append(cv2.warpPerspective(page, transform, (out_w, out_h), borderMode=cv2.BORDER_REPLICATE))
                crop_meta.append((p_idx, inverse, out_w, out_h, w, h))

        tables_per_page: list[list[dict[str, Any]]] = [[] for _ in pages]
        if len(crops) == 0:
            return tables_per_page

        grids = self.table_predictor(crops, **kwargs)  # type: ignore[misc]
        for (p_idx, inverse, crop_w, crop_h, w, h), grid in zip(crop_meta, grids):
            remapped_cells: list[dict[str, Any]] = []
            for cell in grid["cells"]:
                # Cell polygon is crop-relative -> crop pixels -> page pixels (inverse transform) -> page-relative
                raw = np.asarray(cell["geometry"], dtype=np.float32)
                if raw.ndim == 1 and raw.size == 4:  # straight box (xmin, ymin, xmax, ymax)
                    x0, y0, x1, y1 = raw
                    poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
                else:
                    poly = raw.reshape(-1, 2)
                poly[:, 0] *= crop_w
                poly[:, 1] *= crop_h
                poly = cv2.perspectiveTransform(poly[None, :, :], inverse)[0]
                poly[:, 0] /= w
                poly[:, 1] /= h
                new_cell = dict(cell)
                new_cell["geometry"] = poly.tolist()
                remapped_cells.append(new_cell)
            if not remapped_cells:
                continue
            tables_per_page[p_idx].append({
                "cells": remapped_cells,
                "num_rows": grid["num_rows"],
                "num_cols": grid["num_cols"],
            })
        return tables_per_page
