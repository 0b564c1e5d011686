"""trainsim from Python: the C library (libtrainsim) through the standard library's ctypes.

No installs: point TRAINSIM_LIB at libtrainsim.so (a build tree's build/sim/libtrainsim.so,
or an installed PREFIX/lib/libtrainsim.so), or let the module look beside itself and in the
usual library paths. Each call returns the answer of the trainsim command of the same name
as a dict (the JSON the command prints with --format json), or raises TrainsimError with the
command's exit status and message.

    import trainsim
    r = trainsim.run("configs/gpt3-175b-a100.json", set={"parallel.tp": 4})
    print(r["iteration_time_s"], r["mfu"])
    best = trainsim.sweep("configs/quickstart-sweep.json")["best"]
    systems = trainsim.list("systems")["entries"]

A job or sweep is a path, a JSON text, or a dict (sent as JSON text). One call at a time per
process (the library captures standard error during a call).
"""

import ctypes
import ctypes.util
import json
import os

__all__ = ["run", "sweep", "list", "show", "version", "TrainsimError"]


class TrainsimError(Exception):
    """A trainsim call failed: status 2 is bad input (the message names file and JSON path),
    1 a runtime failure."""

    def __init__(self, status, message):
        super().__init__(message.strip() or "trainsim failed with status %d" % status)
        self.status = status
        self.message = message


class _Result(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("json", ctypes.c_char_p), ("messages", ctypes.c_char_p)]


_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("TRAINSIM_LIB", "")]
    candidates += [os.path.join(here, name) for name in ("libtrainsim.so", "../../lib/libtrainsim.so",
                                                          "../../build/sim/libtrainsim.so")]
    found = ctypes.util.find_library("trainsim")
    if found:
        candidates.append(found)
    errors = []
    for path in candidates:
        if not path:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_Result)]
        for fn in (lib.trainsim_run, lib.trainsim_sweep):
            fn.argtypes, fn.restype = argtypes, ctypes.c_int
        for fn in (lib.trainsim_list, lib.trainsim_show):
            fn.argtypes, fn.restype = [ctypes.c_char_p, ctypes.POINTER(_Result)], ctypes.c_int
        lib.trainsim_result_free.argtypes, lib.trainsim_result_free.restype = [ctypes.POINTER(_Result)], None
        lib.trainsim_version.argtypes, lib.trainsim_version.restype = [], ctypes.c_char_p
        _lib = lib
        return lib
    raise TrainsimError(1, "libtrainsim.so not found (set TRAINSIM_LIB): " + "; ".join(errors))


def _options(set=None, options=None):
    opts = []
    for key, value in (set or {}).items():
        text = value if isinstance(value, str) else json.dumps(value)
        opts += ["--set", "%s=%s" % (key, text)]
    opts += [str(o) for o in (options or [])]
    array = (ctypes.c_char_p * (len(opts) + 1))()
    for i, o in enumerate(opts):
        array[i] = o.encode()
    array[len(opts)] = None
    return array


def _finish(status, result, lib):
    text = result.json.decode() if result.json else None
    messages = result.messages.decode() if result.messages else ""
    lib.trainsim_result_free(ctypes.byref(result))
    if status != 0:
        raise TrainsimError(status, messages)
    return json.loads(text)


def _input(x):
    if isinstance(x, dict):
        return json.dumps(x).encode()
    return os.fspath(x).encode()


def run(job, set=None, options=None):
    """`trainsim run JOB --format json`: the answer as a dict. `set` maps JSON paths to values
    (--set PATH=VALUE), `options` lists more command-line options (e.g. ["--seed", "7"])."""
    lib = _load()
    r = _Result()
    status = lib.trainsim_run(_input(job), _options(set, options), ctypes.byref(r))
    return _finish(status, r, lib)


def sweep(sweep_file, set=None, options=None):
    """`trainsim sweep SWEEP --format json`: best, top, pareto, rejected, ... as a dict."""
    lib = _load()
    r = _Result()
    status = lib.trainsim_sweep(_input(sweep_file), _options(set, options), ctypes.byref(r))
    return _finish(status, r, lib)


def list(kind):  # noqa: A001 - the command's name
    """`trainsim list KIND --format json`: the catalogue entries of one kind."""
    lib = _load()
    r = _Result()
    return _finish(lib.trainsim_list(kind.encode(), ctypes.byref(r)), r, lib)


def show(name):
    """`trainsim show NAME --format json`: one catalogue entry and its file."""
    lib = _load()
    r = _Result()
    return _finish(lib.trainsim_show(name.encode(), ctypes.byref(r)), r, lib)


def version():
    return _load().trainsim_version().decode()
