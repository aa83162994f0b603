from .extract_hands import ExtractHandCrops
from .pose_heatmap import GeneratePoseHeatMap
