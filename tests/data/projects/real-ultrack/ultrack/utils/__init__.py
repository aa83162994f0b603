from ultrack.utils.edge import labels_to_contours, labels_to_edges
from ultrack.utils.estimation import estimate_parameters_from_labels
