from pl_bolts.transforms.self_supervised.ssl_transforms import Patchify, RandomTranslateWithReflect  # noqa: F401
