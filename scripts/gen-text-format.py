#!/usr/bin/env python3
"""gen-text-format.py - writes docs/text-format.md from the sources, so the page
cannot drift from what the code does:

  - the operations and their classes come from the op table
    (src/runtime/ir/ir_ops.def), the class names from src/runtime/ir/ir.h;
  - an example of every operation comes from the programs the tests parse
    (samples/, tests/data/), with its file and line;
  - "executed" is read from the CPU executor's sources (src/hal/cpu/): an
    operation it handles by kind or by class; what it refuses is every
    UNIMPLEMENTED message it can return;
  - the attributes with a meaning are every attribute name the library's code
    looks up, with the layers that read it.

    python3 scripts/gen-text-format.py            # rewrite docs/text-format.md
    python3 scripts/gen-text-format.py --check    # exit 1 when the page is stale

A new op class, an op without an example program, or an attribute the code reads
without a description below makes the script fail: the page is then updated in
the same change (ctest runs --check as docs_text_format).
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOC = os.path.join(ROOT, "docs", "text-format.md")

# What each op class looks like in text: the shape shared by its ops (ir.h groups
# ops by textual shape and operand layout). A class missing here fails the script.
CLASS_FORMS = {
    "MODULE": "`module [@name] [attributes {...}] { ... }`; optional: a file without it is one implicit module",
    "OPAQUE": "`dialect.op ...` of another dialect, at module level only: kept verbatim (its line, continued while brackets are open), with a warning",
    "FUNC": "`func.func [private] @name(%arg: type, ...) [-> (types)] [attributes {...}] { ... }`; `private` without a body declares a kernel",
    "CALL": "`[%r, ... =] func.call @callee(%args) : (types) -> (types)` (also spelled `call`)",
    "TERMINATOR": "ends its region; written or implied where MLIR allows it",
    "CHANNEL": "`air.channel @name [sizes] [{attributes}]`",
    "HIER": "a hierarchy level with its iteration space, arguments and body (forms below)",
    "CHANNEL_IO": "a put or get on a channel index (forms below)",
    "DMA": "`[%t =] air.dma_memcpy_nd [async] [[deps]] (%dst[offsets] [sizes] [strides], %src[offsets] [sizes] [strides]) [src_rank(%r)] [dst_rank(%r)] [{src_rank = R : i64}] : (types)`",
    "WAIT_ALL": "`[%t =] air.wait_all [async] [[deps]]`",
    "EXECUTE": "`[%t[, %results] =] air.execute [[deps]] [-> (types)] { ... air.execute_terminator ... }`",
    "TOKEN_ALLOC": "`%t = air.token.alloc`",
    "CONSTANT": "`%c = arith.constant value : type`",
    "BINARY": "`%r = op %a, %b : type`",
    "UNARY": "`%r = op %a : type`",
    "CMP": "`%r = op predicate, %a, %b : type`",
    "SELECT": "`%r = arith.select %cond, %a, %b : type`",
    "CAST": "`%r = op %a : from to to`",
    "ALLOC": "`%m = memref.alloc() : memref<...>`",
    "DEALLOC": "`memref.dealloc %m : memref<...>`",
    "LOAD": "`%v = op %m[indices] : memref<...>` (affine: an affine map of the indices)",
    "STORE": "`op %v, %m[indices] : memref<...>`",
    "COPY": "`memref.copy %src, %dst : type to type`",
    "SUBVIEW": "`%v = memref.subview %m[offsets] [sizes] [strides] : type to type`",
    "FOR": "`[%r =] scf.for %i = %lb to %ub step %s [iter_args(%x = %init) -> (types)] { ... }`",
    "PARALLEL": "`scf.parallel (%i, ...) = (%lb, ...) to (%ub, ...) step (%s, ...) [init (...)] { ... }`",
    "REDUCE": "`scf.reduce(%v : type) { ... scf.reduce.return ... }`",
    "IF": "`[%r =] scf.if %cond [-> (types)] { ... } [else { ... }]`",
    "AFFINE_APPLY": "`%r = op #map(%dims)[%symbols]`",
    "AFFINE_IF": "`affine.if #set(%dims)[%symbols] { ... } [else { ... }]`",
    "AFFINE_FOR": "`affine.for %i = lb to ub [step s] { ... }`",
    "LINALG": "`op ins(%a, ... : types) outs(%c : type) [{ body }]`",
    "RESHAPE": "`%r = op %m [reassociation] : type into type`",
    # ranks (issue 13, docs/scale-out.md)
    "UNIVERSE": "`%u = air.universe.alloc(%n) [: !air.universe]`: a universe of %n ranks for an `air.rank`",
    # issue 12 (coverage): mlir-air's wider programs
    "TERNARY": "`%r = op %a, %b, %c : type`",
    "SWITCH": "`[%r =] scf.index_switch %i [-> types]` then `case N { ... }` per case and `default { ... }`, each at the op's indentation",
    "FORALL": "`[%r =] scf.forall (%i, ...) in (%ub, ...)` or `= (%lb, ...) to (%ub, ...) step (%s, ...)`, `[shared_outs(%o = %t, ...) -> (tensor types)] { ... } [{mapping = ...}]`",
    "IN_PARALLEL": "`scf.forall.in_parallel { tensor.parallel_insert_slice ... }`: ends an scf.forall body; implied when empty",
    "LINALG_INDEX": "`%i = linalg.index dim : index` inside a linalg op's body",
    "GLOBAL": "`memref.global [\"private\"|\"nested\"] [constant] @name : memref<...> [= dense<...> | = uninitialized] [{attributes}]`, at module level",
    "GET_GLOBAL": "`%m = memref.get_global @name : memref<...>`",
    "MEMREF_RESHAPE": "`%r = memref.reshape %m(%shape) : (type, shape type) -> type`",
    "TRANSPOSE": "`%r = memref.transpose %m (d0, d1) -> (d1, d0) : type to type`",
    "EXTRACT_META": "`%base, %offset, %sizes:N, %strides:N = memref.extract_strided_metadata %m : type -> memref<T>, index, ...`",
    "REINTERPRET": "`%r = memref.reinterpret_cast %m to offset: [o], sizes: [...], strides: [...] : type to type`",
    "CUSTOM": "`[%t =] air.custom [@kernel] [async] [[deps]] [operands (%a, ...) : types] [{attributes}]`",
    "TENSOR_EMPTY": "`%t = tensor.empty(%dynamic sizes) : tensor<...>`",
    "SLICE": "`%s = tensor.extract_slice %t[offsets] [sizes] [strides] : type to type`",
    "INSERT_SLICE": "`[%r =] op %s into %t[offsets] [sizes] [strides] : type into type`",
    "BUFFERIZE": "`%t = bufferization.to_tensor %m [restrict] [writable] : memref<...> [to tensor<...>]`, `%m = bufferization.to_memref %t : [tensor<...> to] memref<...>`",
}

# Ops whose shape differs from the rest of their class.
OP_FORMS = {
    "air.launch": "`[%t =] air.launch [async] [[deps]] [(%ids) in (%n=%size, ...)] [args(%inner=%outer, ...) : types] [attributes {...}] { ... }`",
    "air.segment": "`[%t =] air.segment [@name] [async] [[deps]] [unroll(%ids) in (%n=%size, ...)] [args(%inner=%outer, ...) : types] [attributes {...}] { ... }`",
    "air.herd": "`[%t =] air.herd [@name] [async] [[deps]] tile (%x, %y) in (%sx=%w, %sy=%h) [args(%inner=%outer, ...) : types] [attributes {...}] { ... }`",
    "air.channel.put": "`[%t =] air.channel.put [async] [[deps]] @chan[indices] (%memref[offsets] [sizes] [strides]) : (type)`",
    "air.channel.get": "`[%t =] air.channel.get [async] [[deps]] @chan[indices] (%memref[offsets] [sizes] [strides]) : (type)`",
    "air.rank": "`[%t =] air.rank [async] [[deps]] [universe(%u)] (%r, ...) in (%n=%size, ...) [args(%inner=%outer, ...) : types] { ... }` (docs/scale-out.md)",
    "affine.min": "`%r = affine.min #map(%dims)[%symbols]`: the least result of the map",
    "affine.max": "`%r = affine.max #map(%dims)[%symbols]`: the greatest result of the map",
}

# Attributes the library reads, by name. An attribute the code reads that is not
# here fails the script. Any other attribute is kept and printed back unchanged.
ATTRIBUTES = {
    "depth": "a channel's buffering: how many puts may be in flight before a put waits (default 1)",
    "broadcast_shape": "a channel broadcast: one put reaches every index of this shape",
    "channel_type": "what carries a channel: `npu_dma_stream` (the default), `npu_dma_packet`, `npu_cascade`, `npu_mmio` or `gpu_symmetric_heap`; a written NPU type is refused for mi300x",
    "x_loc": "placement: the column of a segment or herd's first tile",
    "y_loc": "placement: the row of a segment or herd's first tile",
    "x_size": "a segment's width in columns (its L2 is the mem tiles of those columns)",
    "y_size": "a segment's height in rows",
    "link_with": "on a herd or a private func.func: the kernel object its `func.call`s are looked up by, after the callee's own name (C kernels registered on the context, `air-run --kernels`); on the hsa driver, the AMDGPU code object whose kernel the herd dispatches (docs/gpu.md)",
    "indexing_maps": "linalg.generic: the affine map of each operand",
    "iterator_types": "linalg.generic: `parallel` or `reduction` for each loop",
    "src_rank": "a transfer between ranks (air.rank): the sending rank",
    "dst_rank": "a transfer between ranks (air.rank): the receiving rank",
    "air.symmetric": "on `memref.alloc` inside an `air.rank`: one buffer per rank on the symmetric heap, made and freed by every rank together, that peers address with `src_rank`/`dst_rank`",
    "packet_ids": "an `npu_dma_packet` channel's packet ids, one per stream, each in [0, 31]",
    "refeed_count": "mlir-air's channel refeed count (also spelled `air.refeed_count`): an integer in [1, 2^31-1]",
    "pad_before": "a padded transfer: elements added before the data of each dimension (outermost first)",
    "pad_after": "a padded transfer: elements added after the data of each dimension (outermost first)",
}

# Layers by source folder, for "read by".
LAYERS = [
    ("src/runtime/text/", "parser"),
    ("src/runtime/builder/", "builder"),
    ("src/runtime/verify/", "verifier"),
    ("src/runtime/", "IR"),
    ("src/scheduler/", "scheduler"),
    ("src/hal/cpu/", "CPU executor"),
    ("src/hal/", "HAL"),
]
# Any call whose name says it reads or sets an attribute (air_ir_attr_get,
# ix_attr_str, air_res_attr_int, set_str_attr, ...), with a name literal.
ATTR_CALLS = r"\b\w*attr\w*"


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, ROOT)


def sources(folder, exts=(".c", ".h")):
    out = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        out += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(exts)]
    return sorted(out)


def op_table():
    """[(section, enum, name, class)] in table order; sections from the comments."""
    ops, section = [], ""
    for line in read(os.path.join(ROOT, "src/runtime/ir/ir_ops.def")).splitlines():
        m = re.match(r"\s*/\*\s*([a-z][^*]*?)\s*\*/\s*$", line)
        if m and "X(" not in line:
            section = m.group(1)
        m = re.match(r"\s*X\((\w+),\s*\"([^\"]*)\",\s*AIR_OPC_(\w+)\)", line)
        if m:
            ops.append((section, m.group(1), m.group(2), m.group(3)))
    return ops


def op_classes():
    text = read(os.path.join(ROOT, "src/runtime/ir/ir.h"))
    m = re.search(r"typedef enum air_opcls_e \{(.*?)\}", text, re.S)
    return re.findall(r"AIR_OPC_(\w+)", m.group(1))


def examples(names):
    """The first line of a test or sample program that uses each op."""
    files = sorted(glob.glob(os.path.join(ROOT, "samples", "*.mlir")))
    files += sorted(glob.glob(os.path.join(ROOT, "tests", "data", "**", "*.mlir"), recursive=True))
    found = {}
    pats = {n: re.compile(r"(^|[\s=])" + re.escape(n) + r"($|[\s(<\[{@])") for n in names}
    for path in files:
        for no, line in enumerate(read(path).splitlines(), 1):
            code = line.split("//")[0].rstrip()
            for n, pat in pats.items():
                if n not in found and pat.search(code):
                    found[n] = (code.strip(), rel(path), no)
    return found


def executed(ops):
    """Op kinds the CPU executor handles, by kind or by class."""
    text = "\n".join(read(p) for p in sources("src/hal/cpu"))
    kinds = set(re.findall(r"AIR_OP_(\w+)", text))
    classes = set(re.findall(r"AIR_OPC_(\w+)", text))
    return {e for _, e, _, c in ops if e in kinds or c in classes}


def refusals():
    """Every UNIMPLEMENTED message of the CPU executor, format specifiers shown as ..."""
    out = set()
    for path in sources("src/hal/cpu"):
        text = read(path)
        for m in re.finditer(r"AIR_STATUS_UNIMPLEMENTED\s*,((?:\s*\"(?:[^\"\\]|\\.)*\")+)", text):
            msg = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(1)))
            msg = re.sub(r"%[-0-9.*]*(?:ll|l|z)?[sdiuxc]", "…", msg).replace("%%", "%")
            if msg.strip("… "):
                out.add(msg)
    return sorted(out)


def attributes():
    """{name: set of layers} for every attribute name the library's code reads or sets."""
    used = {}
    for folder in ("src/runtime", "src/scheduler", "src/hal"):
        for path in sources(folder):
            r = rel(path)
            layer = next(l for prefix, l in LAYERS if r.startswith(prefix))
            for m in re.finditer(ATTR_CALLS + r"\([^;]*?\"([a-z_]+)\"", read(path)):
                used.setdefault(m.group(1), set()).add(layer)
    return used


def generate():
    ops = op_table()
    errors = []
    for c in op_classes():
        if c not in CLASS_FORMS:
            errors.append(f"op class AIR_OPC_{c} has no form in CLASS_FORMS")
    named = [o for o in ops if o[2]]
    ex = examples([o[2] for o in named])
    for _, e, n, c in named:
        if n not in ex and c not in ("MODULE",):
            errors.append(f"{n}: no example in samples/ or tests/data/ (add one to a test program)")
    run = executed(ops)
    used = attributes()
    for a in sorted(used):
        if a not in ATTRIBUTES:
            errors.append(f"attribute '{a}' is read by the {', '.join(sorted(used[a]))} but has "
                          "no description in ATTRIBUTES")
    if errors:
        raise SystemExit("gen-text-format.py:\n  " + "\n  ".join(errors))

    out = []
    w = out.append
    w("# The AIR text format: what libairrt reads")
    w("")
    w("<!-- Generated by scripts/gen-text-format.py from the op table, the test programs and")
    w("     the CPU executor's sources. Do not edit: run the script (or `cmake --build build")
    w("     --target text-format`); ctest `docs_text_format` fails when this page is stale. -->")
    w("")
    w("libairrt reads AIR programs in the textual form mlir-air prints (MLIR's custom")
    w("assembly format of the `air`, `func`, `arith`, `memref`, `scf`, `affine` and")
    w("`linalg` ops below). This page lists every operation the parser knows, its shape,")
    w("an example from the programs the tests parse, and whether the CPU executor runs")
    w("it; then the attributes that mean something to the library, and what the CPU")
    w("executor refuses.")
    w("")
    w("## How a file is read")
    w("")
    w("- **Kept**: every operation below is parsed into the IR, checked by the verifier")
    w("  (`air_program_verify`, `airc verify`) and printed back so that the printed text")
    w("  parses to the same program (`airc print`). **Executed** means the CPU executor")
    w("  runs it (`air-run`, `air_command_buffer_dispatch` on a `cpu` device).")
    w("- An operation of another dialect at module level (spelled `dialect.op`) is kept")
    w("  as opaque text with a warning and printed back verbatim; it is never executed.")
    w("  At most 10 warnings are kept, then one `... and N more warnings`.")
    w("- Any other word where an operation belongs is an error at its line and column")
    w("  (`expected an operation, found 'hello'`), as is an unknown operation inside a")
    w("  function or an `air` op the table does not have. MLIR's generic form")
    w("  (`\"dialect.op\"(...)`) is not read.")
    w("- `#name = affine_map<...>` / `affine_set<...>` and `!name = type` aliases,")
    w("  `loc(...)` locations, `// comments` and a trailing `{-# ... #-}` block are read;")
    w("  `// -----` separates inputs only for `airc --split-input-file`.")
    w("- Text longer than `air_parse_options_t.max_bytes` (256 MiB by default) is")
    w("  refused before parsing; input quoted in a message is cut to 48 bytes.")
    w("- Attributes in `{...}` or `attributes {...}` are kept on their op and printed")
    w("  back; those listed under *Attributes* below also mean something.")
    w("")
    w("## Operations")
    n_run = sum(1 for o in named if o[1] in run)
    w("")
    w(f"{len(named)} operations, {n_run} of them executed by the CPU executor.")
    section = None
    for sec, e, n, c in ops:
        if not n:
            continue
        if sec != section:
            section = sec
            w("")
            w(f"### {sec}")
            w("")
            w("| operation | form | CPU executor | example (file:line) |")
            w("|---|---|---|---|")
        form = OP_FORMS.get(n, CLASS_FORMS[c]).replace("|", "\\|")
        if c == "TERMINATOR":
            state = "ends its region"
        elif c in ("MODULE",):
            state = "structure"
        elif c == "CHANNEL":
            state = "declares (state kept per run)" if e in run else "kept"
        elif c == "FUNC":
            state = "entry functions run; private ones bind C kernels" if e in run else "kept"
        else:
            state = "executed" if e in run else "kept, not executed"
        if n in ex:
            code, path, no = ex[n]
            if len(code) > 90:
                code = code[:87] + "..."
            example = f"`{code}`".replace("|", "\\|") + f" ({path}:{no})"
        else:
            example = ""
        w(f"| `{n}` | {form} | {state} | {example} |")
    w("")
    w("## Attributes")
    w("")
    w("Attributes the library reads (found in its sources); every other attribute is")
    w("kept and printed back unchanged.")
    w("")
    w("| attribute | read or set by | meaning |")
    w("|---|---|---|")
    for a in sorted(ATTRIBUTES):
        who = ", ".join(sorted(used.get(a, []))) or "not read (documented for the printer)"
        w(f"| `{a}` | {who} | {ATTRIBUTES[a]} |")
    w("")
    w("## What the CPU executor refuses")
    w("")
    w("A program that verifies can still use something the CPU executor does not run;")
    w("the run then fails with `UNIMPLEMENTED` and one of these messages, at the op")
    w("(`…` stands for the op, a type or a number):")
    w("")
    for m in refusals():
        w(f"- {m}")
    w("")
    return "\n".join(out)


def main():
    text = generate()
    if "--check" in sys.argv[1:]:
        have = read(DOC) if os.path.exists(DOC) else ""
        if have != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                have.splitlines(True), text.splitlines(True), "docs/text-format.md", "generated"))
            print("docs/text-format.md is stale: run python3 scripts/gen-text-format.py")
            return 1
        print("docs/text-format.md is up to date")
        return 0
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {rel(DOC)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
