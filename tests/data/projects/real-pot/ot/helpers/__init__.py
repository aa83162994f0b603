# Author: Remi Flamary <remi.flamary@unice.fr>
#
# License: MIT License
