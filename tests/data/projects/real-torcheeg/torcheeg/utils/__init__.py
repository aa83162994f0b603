from .experiment import seed_everything
from .file import (download_url, get_package_dir_path, get_random_dir_path,
                   get_temp_dir_path)
from .visualize import (plot_2d_tensor, plot_3d_tensor, plot_adj_connectivity,
                        plot_feature_topomap, plot_graph, plot_raw_topomap,
                        plot_signal)
