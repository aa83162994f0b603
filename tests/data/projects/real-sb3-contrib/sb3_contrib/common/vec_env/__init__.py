from sb3_contrib.common.vec_env.async_eval import AsyncEval

__all__ = ["AsyncEval"]
