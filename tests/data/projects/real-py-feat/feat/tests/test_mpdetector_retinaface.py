"""Regression test for the MPDetector retinaface migration.

Before this PR landed, MPDetector(face_model='retinaface') raised a
NotImplementedError because the v0.7 RetinaFace rebuild left MPDetector's
face-detection path pointing at the deleted MobileNet0.25 class. Now it
uses the same ResNet34 wrapper that Detectorv1(face_model='retinaface')
uses, so end-to-end MPDetector with retinaface works again.

Pin the contract:
1. Construction succeeds with face_model='retinaface' on both Detectorv1
   and MPDetector. The same kwarg works in both classes (no alias
   table — the v0.7-dev `'retinaface_r34'` spelling has been dropped).
2. detect() on multi_face.jpg returns a Fex with one row per detected face,
   real bbox coords, and finite pose values (no NaN, no inf).
"""

from __future__ import annotations

import math
import os

import pytest


def _have_test_image() -> bool:
    from feat.utils.io import get_test_data_path

    return os.path.exists(os.path.join(get_test_data_path(), "multi_face.jpg"))


@pytest.mark.skipif(not _have_test_image(), reason="multi_face.jpg missing")
def test_mpdetector_retinaface_constructs_and_detects():
    """End-to-end: MPDetector with face_model='retinaface' builds,
    detects faces in a real image, and returns a Fex with finite pose
    values. Specifically pins down that the pre-existing dtype mismatch
    in convert_landmarks_3d (Python `float` -> float64 vs canonical
    face model's float32) is fixed alongside the migration."""
    from feat.MPDetector import MPDetector
    from feat.utils.io import get_test_data_path

    mp = MPDetector(
        device="cpu",
        face_model="retinaface",
        landmark_model="mp_facemesh_v2",
        au_model=None,
        emotion_model=None,
        identity_model=None,
        facepose_model=None,
    )
    assert mp.face_detector is not None
    assert type(mp.face_detector).__name__ == "Retinaface"

    img = os.path.join(get_test_data_path(), "multi_face.jpg")
    fex = mp.detect(img)

    # multi_face.jpg has 5 detectable faces at default thresholds.
    assert len(fex) >= 4, f"expected >=4 faces, got {len(fex)}"

    # Pose is computed via MPDetector's mesh-based path (Umeyama alignment
    # of the 478-pt mesh against MediaPipe's canonical model). It must be
    # finite — the dtype-mismatch bug previously made this whole stage
    # crash before the dataframe was filled.
    for col in ("Pitch", "Roll", "Yaw"):
        vals = fex[col]
        assert not vals.isna().any(), f"{col} has NaN values"
        assert vals.abs().max() <= math.pi, f"{col} out of [-pi, pi]"

    # Sanity bound: multi_face.jpg is 5 forward-facing upright portraits.
    # Pre-fix Pitch clustered at +/- pi because the MediaPipe-pixel and
    # canonical-mesh coordinate systems disagreed on Y and Z axis sign;
    # convert_landmarks_3d now translates between them. After the fix,
    # |Pitch| should be modest (< 30 degrees) for every detected face.
    assert fex.Pitch.abs().max() < math.radians(30), (
        f"max |Pitch| = {math.degrees(fex.Pitch.abs().max()):.1f} deg "
        "on a forward-facing group is suspicious - check the MediaPipe "
        "Y/Z-axis convention flip in convert_landmarks_3d"
    )


@pytest.mark.skipif(not _have_test_image(), reason="multi_face.jpg missing")
def test_mpdetector_retinaface_with_resmasknet_emotion():
    """Regression test for a NameError that lurked in detect_faces' resmasknet
    branch. The old retinaface block defined `single_frame` (mean-subtracted
    copy of `frame`) and the resmasknet branch downstream reused that
    variable. When the migration deleted the mean-subtract block, the
    `single_frame` reference stayed but the variable no longer existed -
    so MPDetector(face_model='retinaface', emotion_model='resmasknet')
    would raise NameError at the first detected face. This test exercises
    that exact combination."""
    from feat.MPDetector import MPDetector
    from feat.utils.io import get_test_data_path

    mp = MPDetector(
        device="cpu",
        face_model="retinaface",
        landmark_model="mp_facemesh_v2",
        au_model=None,
        emotion_model="resmasknet",  # the path that used to NameError
        identity_model=None,
        facepose_model=None,
    )
    img = os.path.join(get_test_data_path(), "multi_face.jpg")
    # Just need to confirm detect runs to completion without NameError.
    fex = mp.detect(img)
    assert len(fex) >= 4
    # Resmasknet emotion outputs must be finite.
    for col in ("anger", "disgust", "fear", "happiness", "sadness", "surprise", "neutral"):
        if col in fex.columns:
            assert not fex[col].isna().any(), f"{col} has NaN"


@pytest.mark.skipif(not _have_test_image(), reason="multi_face.jpg missing")
def test_mpdetector_landmark_scale_buffer():
    """`_landmark_scale` is a registered buffer with the right shape/value.

    `MPDetector.forward` used to allocate `(1/face_size, 1/face_size)`
    on every call; it's now precomputed in __init__. The shape contract
    is `[1, 1, 2]` (broadcastable against `[N, 478, 2]` landmarks), and
    registering as a buffer (rather than a plain attribute) means
    `MPDetector.to(other_device)` migrates it alongside the registered
    submodules — important if a future caller swaps device after
    construction.
    """
    import torch

    from feat.MPDetector import MPDetector

    mp = MPDetector(
        device="cpu",
        face_model="retinaface",
        landmark_model="mp_facemesh_v2",
        au_model=None,
        emotion_model=None,
        identity_model=None,
        facepose_model=None,
    )
    assert "_landmark_scale" in dict(mp.named_buffers())
    assert mp._landmark_scale.shape == (1, 1, 2)
    expected = 1.0 / mp.face_size
    assert torch.allclose(
        mp._landmark_scale,
        torch.tensor([[[expected, expected]]], dtype=torch.float32),
    )
