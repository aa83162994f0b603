from .svd import SVDHead
from .transformer import Transformer, Identity
from .ppfnet_util import angle_difference, square_distance, index_points, farthest_point_sample, query_ball_point, sample_and_group, sample_and_group_multi
from .pointconv_util import PointConvDensitySetAbstraction
from .model_common_utils import (
	knn,
	pc_normalize,
	square_distance,
	index_points,
	farthest_point_sample,
	knn_point,
	query_ball_point,
	get_graph_feature
)
from .curvenet_util import (
	LPFA,
	CIC,
)

try:
	from .lib import pointnet2_utils
except:
	print("Error raised in pointnet2 module in utils!\nEither don't use pointnet2_utils or retry it's setup.")