from .as_set import AsSet
from .as_time_series import AsTimeSeries
from .broadcast import Broadcast
from .concatenate import Concatenate
from .constrain import Constrain
from .convert_dtype import ConvertDType
from .drop import Drop
from .elementwise_transform import ElementwiseTransform
from .expand_dims import ExpandDims
from .filter_transform import FilterTransform
from .group import Group
from .keep import Keep
from .log import Log
from .map_transform import MapTransform
from .numpy_transform import NumpyTransform
from .one_hot import OneHot
from .rename import Rename
from .scale import Scale
from .serializable_custom_transform import SerializableCustomTransform
from .shift import Shift
from .split import Split
from .squeeze import Squeeze
from .sqrt import Sqrt
from .standardize import Standardize
from .to_array import ToArray
from .to_dict import ToDict
from .transform import Transform
from .random_subsample import RandomSubsample
from .take import Take
from .ungroup import Ungroup
from .nan_to_num import NanToNum

from ...utils._docs import _add_imports_to_all

_add_imports_to_all(include_modules=["transforms"])
