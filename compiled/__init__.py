"""The optional mypyc build of the project, behind one seam.

Everything about compiling lives here, outside the rules (``engine/``) and the
server (``server/``), which are written as plain, typed Python and run so
without it:

* :mod:`compiled.modules`: which modules are compiled (the list the build reads);
* :mod:`compiled.build`: the build (``python -m compiled.build``), run on an
  unchanged copy of the sources: what it compiles is the reviewed code;
* :mod:`compiled.converters`: the module of :mod:`engine.codec`'s generated
  conversions that the build writes and compiles (:data:`compiled.modules.GENERATED`);
* :mod:`compiled.runtime`: the small check a process runs at start (which modules
  run compiled, and whether a library is older than its source).

The compiler is mypy's mypyc, pinned to one version in ``pyproject.toml``: the
build depends on how exactly it compiles.  Importing this package imports
nothing else (:mod:`engine.codec` looks for the compiled conversions in it).
"""
