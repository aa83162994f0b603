from .task_sampler import TaskSampler
