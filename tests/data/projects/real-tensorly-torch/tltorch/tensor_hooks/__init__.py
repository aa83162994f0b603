from ._tensor_lasso import tensor_lasso, remove_tensor_lasso, TensorLasso
from ._tensor_dropout import tensor_dropout, remove_tensor_dropout, TensorDropout