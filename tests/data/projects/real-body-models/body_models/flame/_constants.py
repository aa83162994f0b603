from body_models._constants import Joint

FLAME_JOINT_NAMES = ["root", "neck", "jaw", "left_eye", "right_eye"]
FLAME_JOINTS = {Joint.NECK: "neck", Joint.HEAD: "root"}
