"""The issue's name for the many-people benchmark: `python benchmarks/concurrent.py` runs `busy.py` with the
same arguments (see its docstring).

Running any script in this folder puts the folder first on `sys.path`, so this file is what
`import concurrent.futures` finds when asyncio imports it: the name of the standard library's package. So,
imported under that name, it becomes that package: its `__path__` is the standard library's `concurrent`
folder (whose `__init__.py` is empty), and `concurrent.futures` is the real one. Nothing else runs then.
Imported as `benchmarks.concurrent` (from the project's root), it gives busy.py's parts.
"""

import os

__path__ = [os.path.join(os.path.dirname(os.__file__), "concurrent")]

if __name__ == "benchmarks.concurrent":  # imported from the project's root: busy.py's own parts
    from benchmarks.busy import main, run, seed, table  # noqa: F401

if __name__ == "__main__":
    import runpy

    runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "busy.py"), run_name="__main__")
