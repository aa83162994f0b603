# vim: expandtab:ts=4:sw=4
