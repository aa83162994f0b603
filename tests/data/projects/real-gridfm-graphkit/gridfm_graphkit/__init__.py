import gridfm_graphkit.datasets
import gridfm_graphkit.tasks.base_task
import gridfm_graphkit.models.gnn_heterogeneous_gns
import gridfm_graphkit.tasks.reconstruction_tasks

__all__ = [
    "gridfm_graphkit",
]
