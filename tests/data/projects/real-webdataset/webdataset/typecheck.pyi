from typing import List

modules: List[str]
