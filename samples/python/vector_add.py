#!/usr/bin/env python3
"""vector_add.py - libairrt from Python through ctypes (standard library only).

    python3 vector_add.py [--library PATH/libairrt.so] [vector_add.mlir] [--device URI]

Loads the shared library (from --library, else $AIRRT_LIBRARY, else the build
directory next to this checkout), parses the vector-add AIR program text, opens
a device, imports three ctypes arrays as buffers (no copies), dispatches the entry
function, waits, checks c == a + b and releases everything. Exit status 0 when
the result is right, 1 when it is not or a call fails, 2 for bad usage.

The C ABI was made for this: no varargs, no structs passed by value, fixed-width
integers, and every fallible call returns a status pointer (NULL = success) that
the caller frees.
"""
import argparse
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
N = 4096

c_status = ctypes.c_void_p  # air_status_t: NULL on success
c_handle = ctypes.c_void_p  # every opaque object


class Binding(ctypes.Structure):  # air_binding_t
    _fields_ = [("buffer", c_handle), ("offset", ctypes.c_uint64),
                ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class TimepointList(ctypes.Structure):  # air_timepoint_list_t
    _fields_ = [("count", ctypes.c_uint32),
                ("semaphores", ctypes.POINTER(c_handle)),
                ("values", ctypes.POINTER(ctypes.c_uint64))]


class AirError(Exception):
    pass


def load(path):
    # A bare name would be searched on the loader path only; a file here wins.
    lib = ctypes.CDLL(os.path.abspath(path) if os.path.exists(path) else path)
    out = ctypes.POINTER(c_handle)
    protos = {
        "air_context_create": (c_status, [c_handle, c_handle, out]),
        "air_context_destroy": (None, [c_handle]),
        "air_program_parse": (c_status, [c_handle, ctypes.c_char_p, ctypes.c_size_t,
                                         c_handle, out]),
        "air_program_destroy": (None, [c_handle]),
        "air_device_open": (c_status, [c_handle, ctypes.c_char_p, out]),
        "air_device_release": (None, [c_handle]),
        "air_executable_create": (c_status, [c_handle, c_handle, ctypes.c_uint32, out]),
        "air_executable_release": (None, [c_handle]),
        "air_executable_lookup": (c_status, [c_handle, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_uint32)]),
        "air_buffer_import": (c_status, [c_handle, c_handle, ctypes.c_uint64,
                                         ctypes.c_uint32, out]),
        "air_buffer_release": (None, [c_handle]),
        "air_command_buffer_create": (c_status, [c_handle, ctypes.c_uint32, out]),
        "air_command_buffer_dispatch": (c_status, [c_handle, c_handle, ctypes.c_uint32,
                                                   ctypes.c_uint32, ctypes.POINTER(Binding),
                                                   c_handle]),
        "air_command_buffer_end": (c_status, [c_handle]),
        "air_command_buffer_release": (None, [c_handle]),
        "air_semaphore_create": (c_status, [c_handle, ctypes.c_uint64, out]),
        "air_semaphore_release": (None, [c_handle]),
        "air_semaphore_wait": (c_status, [c_handle, ctypes.c_uint64, ctypes.c_int64]),
        "air_device_queue_execute": (c_status, [c_handle, ctypes.c_uint32,
                                                ctypes.POINTER(TimepointList), c_handle,
                                                ctypes.POINTER(TimepointList)]),
        "air_status_message": (ctypes.c_char_p, [c_status]),
        "air_status_free": (None, [c_status]),
    }
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def check(lib, what, status):
    """Raises on a failed status, freeing it first (the caller owns it)."""
    if status:
        message = lib.air_status_message(status).decode("utf-8", "replace")
        lib.air_status_free(status)
        raise AirError(f"{what}: {message}")


def run(lib, text, uri):
    context, program, device, exe = c_handle(), c_handle(), c_handle(), c_handle()
    cb, done = c_handle(), c_handle()
    buffers = [c_handle() for _ in range(3)]
    a = (ctypes.c_float * N)(*[float(i) for i in range(N)])
    b = (ctypes.c_float * N)(*[0.25 * (N - i) for i in range(N)])
    c = (ctypes.c_float * N)(*([-1.0] * N))
    try:
        check(lib, "context", lib.air_context_create(None, None, ctypes.byref(context)))
        check(lib, "parse", lib.air_program_parse(context, text, len(text), None,
                                                  ctypes.byref(program)))
        check(lib, "device", lib.air_device_open(context, uri.encode(), ctypes.byref(device)))
        check(lib, "executable", lib.air_executable_create(device, program, 0,
                                                           ctypes.byref(exe)))
        entry = ctypes.c_uint32()
        check(lib, "entry", lib.air_executable_lookup(exe, b"vector_add", ctypes.byref(entry)))
        for buf, arr in zip(buffers, (a, b, c)):
            check(lib, "import", lib.air_buffer_import(device, ctypes.addressof(arr),
                                                       ctypes.sizeof(arr), 0,
                                                       ctypes.byref(buf)))
        bindings = (Binding * 3)(*[Binding(buf, 0, 0, 0.0) for buf in buffers])
        check(lib, "command buffer", lib.air_command_buffer_create(device, 0, ctypes.byref(cb)))
        check(lib, "dispatch", lib.air_command_buffer_dispatch(cb, exe, entry, 3, bindings, None))
        check(lib, "end", lib.air_command_buffer_end(cb))
        check(lib, "semaphore", lib.air_semaphore_create(context, 0, ctypes.byref(done)))
        sems = (c_handle * 1)(done)
        values = (ctypes.c_uint64 * 1)(1)
        signal = TimepointList(1, sems, values)
        check(lib, "submit", lib.air_device_queue_execute(device, 0, None, cb,
                                                          ctypes.byref(signal)))
        check(lib, "run", lib.air_semaphore_wait(done, 1, 30 * 10**9))
        bad = [i for i in range(N) if c[i] != a[i] + b[i]]
        for i in bad[:5]:
            print(f"vector_add.py: c[{i}] = {c[i]}, expected {a[i] + b[i]}", file=sys.stderr)
        return len(bad)
    finally:
        # Every release accepts NULL, so this also cleans up after a failure.
        lib.air_semaphore_release(done)
        lib.air_command_buffer_release(cb)
        for buf in buffers:
            lib.air_buffer_release(buf)
        lib.air_executable_release(exe)
        lib.air_device_release(device)
        lib.air_program_destroy(program)
        lib.air_context_destroy(context)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", nargs="?",
                        default=os.path.join(HERE, "..", "vector_add.mlir"))
    parser.add_argument("--library", default=os.environ.get("AIRRT_LIBRARY") or
                        os.path.join(HERE, "..", "..", "build", "libairrt.so"))
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    try:
        lib = load(args.library)
    except OSError as e:
        print(f"vector_add.py: error: cannot load {args.library}: {e}", file=sys.stderr)
        return 1
    try:
        with open(args.program, "rb") as f:
            text = f.read()
    except OSError as e:
        print(f"{args.program}: error: {e.strerror}", file=sys.stderr)
        return 1
    try:
        bad = run(lib, text, args.device)
    except AirError as e:
        print(f"vector_add.py: error: {e}", file=sys.stderr)
        return 1
    print(f"vector_add.py: {N} elements on {args.device} through ctypes: "
          f"{'FAIL' if bad else 'PASS'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
