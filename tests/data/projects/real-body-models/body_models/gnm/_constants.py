from body_models._constants import Joint

GNM_JOINTS = {
    Joint.NECK: "neck",
    Joint.HEAD: "head",
}

__all__ = ["GNM_JOINTS"]
