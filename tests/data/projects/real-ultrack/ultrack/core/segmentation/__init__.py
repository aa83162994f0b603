from ultrack.core.segmentation.processing import get_nodes_features
