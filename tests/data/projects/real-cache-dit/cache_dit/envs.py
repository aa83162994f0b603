import os


class ENV(object):
  # ENVs for cache-dit

  # Logging ENVs
  CACHE_DIT_LOG_LEVEL: str = os.environ.get("CACHE_DIT_LOG_LEVEL", "info")
  CACHE_DIT_LOG_DIR: str = os.environ.get("CACHE_DIT_LOG_DIR", None)

  # Parallelism ENVs

  # Avoid re-registering custom attention backend dispatch in cache-dit.
  # Inner use only. Users should not set this variable directly.
  CACHE_DIT_CUSTOM_ATTN_ALREADY_DISPATCH: bool = bool(
    int(os.getenv("CACHE_DIT_CUSTOM_ATTN_ALREADY_DISPATCH", "0")))

  # Models ENVs

  # Users should never use this variable directly, it is only for developers
  # to control whether to enable dummy blocks for FLUX, default to enabled.
  CACHE_DIT_FLUX_ENABLE_DUMMY_BLOCKS: bool = bool(
    int(os.environ.get("CACHE_DIT_FLUX_ENABLE_DUMMY_BLOCKS", "1")))

  # Torch compile ENVs

  # Enable epilogue and prologue fusion in cache-dit compile optimizations
  CACHE_DIT_EPILOGUE_PROLOGUE_FUSION: bool = bool(
    int(os.environ.get("CACHE_DIT_EPILOGUE_PROLOGUE_FUSION", "0")))

  # Enable compile compute-communication (all reduce) overlap in cache-dit by
  # default. Users can set the environment variable to 0 to disable this behavior.
  # Default to enabled for better performance.
  CACHE_DIT_ENABLE_COMPILE_COMPUTE_COMM_OVERLAP: bool = bool(
    int(os.environ.get("CACHE_DIT_ENABLE_COMPILE_COMPUTE_COMM_OVERLAP", "1")))

  # Force disable custom compile config in cache-dit by setting the environment
  # variable to 1. Otherwise, cache-dit will set custom compile configs for
  # better performance during torch.compile.
  CACHE_DIT_FORCE_DISABLE_CUSTOM_COMPILE_CONFIG: bool = bool(
    int(os.environ.get("CACHE_DIT_FORCE_DISABLE_CUSTOM_COMPILE_CONFIG", "0")))

  # Patch Functors ENVs

  # Force disable the checking of whether the model is from diffusers in patch functors.
  # Users can set the environment variable to 1 to disable this behavior.
  CACHE_DIT_PATCH_FUNCTOR_DISABLE_DIFFUSERS_CHECK: bool = bool(
    int(os.environ.get("CACHE_DIT_PATCH_FUNCTOR_DISABLE_DIFFUSERS_CHECK", "0")))

  # Logger ENVs

  # Force only rank 0 logging in cache-dit by setting the environment variable to 1.
  # By default, cache-dit allows only rank 0 to log in real-time, but other ranks
  # can still log if they are not using the custom logger. Users can set this variable
  # to 0 to allow all ranks to log, but it is not recommended for distributed training
  # as it may cause cluttered logs.
  CACHE_DIT_FORCE_ONLY_RANK0_LOGGING: bool = bool(
    int(os.environ.get("CACHE_DIT_FORCE_ONLY_RANK0_LOGGING", "1")))

  # Force enable loggers suppress in cache-dit by setting the environment variable to 1.
  # By default, cache-dit DON'T suppresses some noisy loggers. Users can set this variable
  # to 1 to suppress these loggers globally, which is recommended for better log readability.
  CACHE_DIT_ENABLE_LOGGERS_SUPPRESS: bool = bool(
    int(os.environ.get("CACHE_DIT_ENABLE_LOGGERS_SUPPRESS", "0")))

  # Quantization ENVs

  # Temporarily exclude some layers for quantization, e.g, layers applied RowwiseParallel.
  # Avoid torch._scaled_mm error: "RuntimeError: Expected b.stride(0) == 1 to be true,
  # but got false", RowwiseParallel (TP) seems will cause the layout of the linear weights
  # changedly after '_dispatch_get_local_results_slow_path'. Why? Need further investigation.
  # Users can set the environment variable to 1 to force disable this behavior, but it is not
  # recommended now since it may cause scaled_mm error for some models after TP.
  CACHE_DIT_DISABLE_EXCLUDE_FOR_QUANTIZE_AFTER_TP: bool = bool(
    int(os.environ.get("CACHE_DIT_DISABLE_EXCLUDE_FOR_QUANTIZE_AFTER_TP", "0")))
