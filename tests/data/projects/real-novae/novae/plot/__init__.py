from ._graph import _domains_hierarchy, paga, connectivities
from ._spatial import domains, spatially_variable_genes
from ._heatmap import _weights_clustermap, pathway_scores
from ._bar import domains_proportions
from ._line import loss_curve
