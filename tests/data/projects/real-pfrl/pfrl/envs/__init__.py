from pfrl.envs.multiprocess_vector_env import MultiprocessVectorEnv  # NOQA
from pfrl.envs.serial_vector_env import SerialVectorEnv  # NOQA
