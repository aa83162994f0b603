from . import nexfort as _nexfort_backend
