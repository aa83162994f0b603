from .bglow import BGlow
from .bcglow import BCGlow