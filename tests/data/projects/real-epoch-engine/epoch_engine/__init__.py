# Author: Sergey Polivin <s.polivin@gmail.com>
# License: MIT License
