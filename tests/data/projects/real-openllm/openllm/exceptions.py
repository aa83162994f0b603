from openllm_core.exceptions import (
  Error as Error,
  FineTuneStrategyNotSupportedError as FineTuneStrategyNotSupportedError,  #
  ForbiddenAttributeError as ForbiddenAttributeError,
  GpuNotAvailableError as GpuNotAvailableError,  #
  OpenLLMException as OpenLLMException,
  ValidationError as ValidationError,  #
  MissingAnnotationAttributeError as MissingAnnotationAttributeError,
  MissingDependencyError as MissingDependencyError,
)
