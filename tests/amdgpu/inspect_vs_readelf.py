#!/usr/bin/env python3
"""inspect_vs_readelf.py AIRC LLVM_READELF MANIFEST - `airc inspect --json` must show
the values `llvm-readelf --notes` decodes from the same NT_AMDGPU_METADATA note:
the target and, per kernel, the segment sizes, wavefront size, register counts and
every argument's offset, size and value kind. Runs over the objects of the test
manifest (built by tests/amdgpu.cmake) and the AMDGPU images embedded in
libhsa-runtime64 when it is installed. Exit 0 when all agree."""
import json
import os
import struct
import subprocess
import sys
import tempfile

import yaml

FIELDS = ["kernarg_segment_size", "group_segment_fixed_size", "private_segment_fixed_size",
          "wavefront_size", "sgpr_count", "vgpr_count"]


def readelf_metadata(readelf, path):
    out = subprocess.run([readelf, "--notes", path], check=True, capture_output=True,
                         text=True).stdout
    start = out.index("---")
    end = out.index("\n...", start)
    return yaml.safe_load(out[start:end])


def inspect(airc, path):
    r = subprocess.run([airc, "inspect", path, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"airc inspect {path} failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def compare(airc, readelf, path):
    mine = inspect(airc, path)
    ref = readelf_metadata(readelf, path)
    errors = []
    if "amdhsa.target" in ref and ref["amdhsa.target"] != mine["target"]:
        errors.append(f"target {mine['target']} != {ref['amdhsa.target']}")
    refk = ref.get("amdhsa.kernels", [])
    if len(refk) != len(mine["kernels"]):
        errors.append(f"{len(mine['kernels'])} kernels != {len(refk)}")
    for a, b in zip(mine["kernels"], refk):
        if a["name"] != b[".name"]:
            errors.append(f"kernel {a['name']} != {b['.name']}")
        for f in FIELDS:
            if a[f] != b["." + f]:
                errors.append(f"{a['name']}.{f}: {a[f]} != {b['.' + f]}")
        refargs = b.get(".args", [])
        if len(a["args"]) != len(refargs):
            errors.append(f"{a['name']}: {len(a['args'])} args != {len(refargs)}")
        for i, (x, y) in enumerate(zip(a["args"], refargs)):
            for f in ["offset", "size", "value_kind"]:
                if x[f] != y["." + f]:
                    errors.append(f"{a['name']} arg {i} {f}: {x[f]} != {y['.' + f]}")
    return mine, errors


def libhsa_images(tmp):
    lib = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"
    if not os.path.exists(lib):
        return []
    data = open(lib, "rb").read()
    paths, at = [], 0
    while True:
        at = data.find(b"\x7fELF", at + 1)
        if at < 0:
            return paths
        if data[at + 4] != 2 or struct.unpack_from("<H", data, at + 18)[0] != 224:
            continue
        if data[at + 8] == 0:  # code object v2: not decoded by airc (refused)
            continue
        shoff, = struct.unpack_from("<Q", data, at + 0x28)
        entsize, num = struct.unpack_from("<HH", data, at + 0x3a)
        path = os.path.join(tmp, f"libhsa-{len(paths)}.co")
        with open(path, "wb") as f:
            f.write(data[at:at + shoff + entsize * num])
        paths.append(path)


def main():
    airc, readelf, manifest = sys.argv[1:4]
    paths = [line.split()[0] for line in open(manifest) if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        paths += libhsa_images(tmp)
        bad = 0
        kernels = args = 0
        for p in paths:
            mine, errors = compare(airc, readelf, p)
            kernels += len(mine["kernels"])
            args += sum(len(k["args"]) for k in mine["kernels"])
            for e in errors:
                print(f"{os.path.basename(p)}: {e}")
            bad += bool(errors)
    print(f"{len(paths)} code objects, {kernels} kernels, {args} arguments compared with "
          f"{os.path.basename(readelf)}: {len(paths) - bad} agree, {bad} differ")
    return 1 if bad or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
