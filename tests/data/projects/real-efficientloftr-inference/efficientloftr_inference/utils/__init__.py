# Added for efficientloftr-inference, 2026: explicit package.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
