from mmhuman3d.apis import inference, test, train
from mmhuman3d.apis.inference import (
    feature_extract,
    inference_image_based_model,
    inference_video_based_model,
    init_model,
)
from mmhuman3d.apis.test import (
    collect_results_cpu,
    collect_results_gpu,
    multi_gpu_test,
    single_gpu_test,
)
from mmhuman3d.apis.train import set_random_seed, train_model

__all__ = [
    'LoadImage', 'collect_results_cpu', 'collect_results_gpu', 'inference',
    'feature_extract', 'inference_image_based_model',
    'inference_video_based_model', 'init_model', 'multi_gpu_test',
    'set_random_seed', 'single_gpu_test', 'test', 'train', 'train_model'
]
