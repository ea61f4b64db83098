"""
Confinement: the boundary ``gateway run`` runs an allowed call in, and where a path lies in it.

A namespace of the public API (like ``trio.lowlevel``): `resolve_confinement`
turns a profile's ``[profiles.NAME.confinement]`` into a `Confinement` for one
call (what it may read and write, what is hidden, protected or scratch, and
whether it reaches the network); `Places` answers where a path lies in it (a
`Place`); `Confining` is what a caller that confines its calls passes to
``Gateway.review``; `not_confinable` says why this machine cannot set up a
boundary. docs/confinement.md tells the whole story.

Examples:
    >>> from gateway import default_config
    >>> from gateway.confinement import Places, resolve_confinement
    >>> config = default_config()
    >>> box = resolve_confinement(
    ...     "workspace-write", config.profile("workspace-write").confinement,
    ...     cwd="/work/app", home="/home/me", paths=config.paths)
    >>> Places(box).place("/work/app/src/main.py")
    'writable'
"""

from gateway._calls._confinement import Confinement as Confinement, Confining as Confining
from gateway._review._boundary import (
    Place as Place,
    Places as Places,
    resolve_confinement as resolve_confinement,
)
from gateway._review._bwrap import not_confinable as not_confinable

__all__ = ["Confinement", "Confining", "Place", "Places", "not_confinable", "resolve_confinement"]
