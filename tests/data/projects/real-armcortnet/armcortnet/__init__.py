from armcortnet.prediction import Net
from armcortnet.utils import write_polydata
